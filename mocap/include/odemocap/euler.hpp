#pragma once
/// Euler angles in all twelve axis sequences.
///
/// A sequence names the axes in the order the rotations are applied. Intrinsic: each rotation
/// is about an axis of the already-rotated frame, so intrinsic XYZ(a, b, c) is
/// Rx(a) * Ry(b) * Rz(c) (this is BVH's convention for channels listed X, Y, Z). Extrinsic: each
/// rotation is about a fixed world axis, so extrinsic XYZ(a, b, c) is Rz(c) * Ry(b) * Rx(a).

#include <odemocap/quat.hpp>

namespace odemocap {

/// The six Tait-Bryan and six proper Euler axis sequences.
enum class EulerOrder { XYZ, XZY, YXZ, YZX, ZXY, ZYX, XYX, XZX, YXY, YZY, ZXZ, ZYZ };

/// Whether the axes move with the body (intrinsic) or stay fixed in the world (extrinsic).
enum class EulerFrame { Intrinsic, Extrinsic };

/// Angles (rad) in sequence order: `first` about the sequence's first axis, and so on.
struct EulerAngles {
  double first = 0.0;
  double second = 0.0;
  double third = 0.0;
};

/// Quaternion of Euler angles; throws MocapError for non-finite angles.
Quat from_euler(const EulerAngles& angles, EulerOrder order, EulerFrame frame);

/// Euler angles of the unit quaternion q, each in [-pi, pi]; the second angle is in
/// [-pi/2, pi/2] for Tait-Bryan and [0, pi] for proper Euler sequences. At gimbal lock the
/// third angle is set to 0 and the first carries the whole rotation.
EulerAngles to_euler(const Quat& q, EulerOrder order, EulerFrame frame);

/// The sequence's name, e.g. "ZXY".
const char* to_string(EulerOrder order);

} // namespace odemocap
