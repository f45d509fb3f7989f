#pragma once
/// Rigid-body pose: where a body frame is and how it is turned, in world coordinates.

#include <odemocap/quat.hpp>

namespace odemocap {

/// Position p (m, world frame) and orientation q (unit, body to world) of a body frame.
struct Pose {
  Vec3 p;
  Quat q;
};

} // namespace odemocap
