#pragma once
/// Velocity estimation: the velocities that carry a body from one pose to the next.
///
/// The angular estimator is the derivative of Slerp at the start of the interval: with theta
/// the angle between q0 and q1 on the 4-sphere (after taking the shorter arc),
///   dq/dt = theta / sin(theta) * (q1 - cos(theta) q0) / dt,   omega = 2 vec(dq/dt conj(q0)).
/// This equals axis * angle / dt of q1 conj(q0), so integrating omega exactly over dt
/// (odemocap::integrate, or ODE's finite rotation mode) lands on q1.

#include <odemocap/track.hpp>

#include <cstddef>
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

/// angular_velocity(q0, q1, dt) without its argument checks, for hot loops whose quaternions
/// are unit by construction (a track's samples, an ODE body's orientation) and that divide
/// once: given inv_dt = 1 / dt (1/s), the same value bit for bit. Never throws: non-finite
/// input gives a non-finite result, for the caller to test.
Vec3 angular_velocity_unchecked(const Quat& q0, const Quat& q1, double inv_dt);

/// One body's step toward a captured pose, for step_velocities(): the two samples of its track
/// around the target and the fraction between them (Track::interval), the body frame in the
/// track's frame, and the body's pose now. The target and the velocities are written back.
struct BodyStep {
  Vec3 p0, p1;    ///< the samples' positions (m, world)
  Quat q0, q1;    ///< the samples' orientations (unit)
  double u = 0.0; ///< fraction from sample 0 to sample 1, in [0, 1]
  Pose offset;    ///< body frame in the track's frame (m; unit quaternion)
  Pose now;       ///< the body's pose now (m, world; unit quaternion)
  Pose goal;      ///< out: Track::interpolate_linear(p0, q0, p1, q1, u) * offset
  Vec3 linear;    ///< out: (goal.p - now.p) / dt (m/s, world)
  Vec3 angular;   ///< out: angular_velocity(now.q, goal.q, dt) (rad/s, world)
};

/// Fills goal, linear and angular of steps[0, n) for a step of dt = 1 / inv_dt seconds: what
/// the one-body functions give, bit for bit, several bodies at a time in SIMD registers (a
/// kinematic driver's whole step in one call). Unchecked like angular_velocity_unchecked.
void step_velocities(BodyStep* steps, std::size_t n, double inv_dt);

/// Up to eight BodySteps stored component by component (component c of body k at [c][k]), as
/// the SIMD registers of step_velocities() take them: four bodies' x in one load instead of
/// four. Inputs and outputs as in BodyStep; quaternions as w, x, y, z.
struct alignas(64) BodyStepBatch {
  static constexpr std::size_t k_size = 8;
  double p0[3][k_size];       ///< sample 0's position (m, world)
  double p1[3][k_size];       ///< sample 1's position (m, world)
  double q0[4][k_size];       ///< sample 0's orientation (unit)
  double q1[4][k_size];       ///< sample 1's orientation (unit)
  double u[k_size];           ///< fraction from sample 0 to sample 1, in [0, 1]
  double offset_p[3][k_size]; ///< body frame in the track's frame: position (m)
  double offset_q[4][k_size]; ///< body frame in the track's frame: orientation (unit)
  double now_p[3][k_size];    ///< the body's position now (m, world)
  double now_q[4][k_size];    ///< the body's orientation now (unit)
  double goal_p[3][k_size];   ///< out: the target's position (m, world)
  double goal_q[4][k_size];   ///< out: the target's orientation (unit)
  double linear[3][k_size];   ///< out: linear velocity (m/s, world)
  double angular[3][k_size];  ///< out: angular velocity (rad/s, world)

  /// Sets body k's inputs from `step` (its outputs are not read).
  void set(std::size_t k, const BodyStep& step);
  /// Sets body k's column of `rows` (one of the vectors above) to v.
  static void put(double (&rows)[3][k_size], std::size_t k, const Vec3& v) {
    rows[0][k] = v.x;
    rows[1][k] = v.y;
    rows[2][k] = v.z;
  }
  /// Sets body k's column of `rows` (one of the quaternions above) to q.
  static void put(double (&rows)[4][k_size], std::size_t k, const Quat& q) {
    rows[0][k] = q.w;
    rows[1][k] = q.x;
    rows[2][k] = q.y;
    rows[3][k] = q.z;
  }
  /// Body k's inputs and outputs as a BodyStep.
  BodyStep get(std::size_t k) const;
};

/// step_velocities() for bodies [0, n) of a batch (n <= BodyStepBatch::k_size): the same bits.
void step_velocities(BodyStepBatch& batch, std::size_t n, double inv_dt);

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
