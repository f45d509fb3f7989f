#pragma once
/// Velocity estimation: the velocities that carry a body from one pose to the next.
///
/// The angular estimator is the derivative of Slerp at the start of the interval: with theta
/// the angle between q0 and q1 on the 4-sphere (after taking the shorter arc),
///   dq/dt = theta / sin(theta) * (q1 - cos(theta) q0) / dt,   omega = 2 vec(dq/dt conj(q0)).
/// This equals axis * angle / dt of q1 conj(q0), so integrating omega exactly over dt
/// (odemocap::integrate, or ODE's finite rotation mode) lands on q1.

#include <odemocap/track.hpp>

#include <cstdint>
#include <vector>

namespace odemocap {

/// Tolerance on | |q| - 1 | for quaternions given to the estimators. Results are exact for
/// unit inputs; within the tolerance their relative error is at most the deviation.
inline constexpr double k_estimator_unit_tolerance = 1e-6;

/// Constant linear velocity (m/s) that moves p0 to p1 in dt seconds. Throws MocapError for
/// non-finite positions, dt that is not finite and positive, or a result that overflows.
Vec3 linear_velocity(const Vec3& p0, const Vec3& p1, double dt);

/// World-frame angular velocity (rad/s) that rotates unit q0 to unit q1 in dt seconds along
/// the shorter arc (Slerp derivative). q1 = -q0 gives zero. Throws MocapError for non-finite or
/// non-unit quaternions (see k_estimator_unit_tolerance), dt that is not finite and positive,
/// or a rate that overflows (dt below about 1e-307 s).
Vec3 angular_velocity(const Quat& q0, const Quat& q1, double dt);

/// The same angular velocity expressed in the body frame of q0 (rad/s).
Vec3 angular_velocity_body(const Quat& q0, const Quat& q1, double dt);

/// Naive baseline kept for comparison: omega = 2 vec((q1 - q0) conj(q0)) / dt (no shorter-arc
/// flip). It is a first-order approximation whose error grows with the step angle; never use
/// it to drive a body. Same argument checks as angular_velocity.
Vec3 angular_velocity_linear_approx(const Quat& q0, const Quat& q1, double dt);

/// Which samples a per-frame estimate uses.
enum class DiffScheme {
  Forward,  ///< (i, i+1)
  Backward, ///< (i-1, i)
  Central,  ///< both intervals, weighted for non-uniform spacing (exact for constant rates)
};

/// Which angular estimator a per-frame estimate uses.
enum class RotationEstimator {
  Geodesic,     ///< Slerp derivative (angular_velocity)
  LinearApprox, ///< the naive baseline (angular_velocity_linear_approx)
};

/// Per-sample velocities of a whole track, as arrays parallel to the track's samples.
struct TrackVelocities {
  std::vector<Vec3> linear;         ///< m/s, world frame
  std::vector<Vec3> angular;        ///< rad/s, world frame
  std::vector<std::uint8_t> valid;  ///< 0 where no estimate exists (zero vectors there)
};

/// Velocities at every sample of `track`. A sample uses the preferred scheme when the samples
/// it needs are valid and adjacent; otherwise the one-sided difference that exists (at the ends
/// and next to gaps); a sample with no valid neighbour, or invalid itself, gets valid = 0.
TrackVelocities estimate_velocities(const Track& track, DiffScheme scheme = DiffScheme::Central,
                                    RotationEstimator estimator = RotationEstimator::Geodesic);

} // namespace odemocap
