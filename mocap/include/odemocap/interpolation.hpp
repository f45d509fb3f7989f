#pragma once
/// Interpolation between samples: linear (lerp + slerp) and C1 cubic (Hermite on positions,
/// Bezier on the unit sphere by de Casteljau slerps).

#include <odemocap/pose.hpp>

namespace odemocap {

/// How Track::sample fills the time between samples.
enum class Interp {
  Linear, ///< lerp on positions, slerp on orientations: C0, constant velocity per interval
  Cubic,  ///< cubic Hermite / spherical Bezier with shared knot velocities: C1 at samples
};

/// How Track::sample answers for times outside [start_time, end_time].
enum class OutOfRange {
  Clamp, ///< hold the first or last valid sample
  Loop,  ///< wrap time into [start_time, end_time) with period end_time - start_time
};

/// Cubic Hermite point at u in [0, 1] between p0 and p1 with end velocities v0, v1
/// (m/s) over an interval of `duration` seconds.
Vec3 hermite(const Vec3& p0, const Vec3& v0, const Vec3& p1, const Vec3& v1, double duration,
             double u);

/// Spherical cubic Bezier at u in [0, 1] by de Casteljau slerps between q0 and q1 whose
/// world angular velocities at the ends are w0 and w1 (rad/s) over `duration` seconds.
/// The inner control points are exp(w0 duration / 3) q0 and exp(-w1 duration / 3) q1, which
/// makes the curve's angular velocity exactly w0 at u = 0 and w1 at u = 1.
Quat spherical_cubic(const Quat& q0, const Vec3& w0, const Quat& q1, const Vec3& w1,
                     double duration, double u);

} // namespace odemocap
