#include "checks.hpp"
#include "rates.hpp"

#include <odemocap/velocity.hpp>

#include <cmath>

namespace odemocap {

double detail::theta_over_sin_wide(double s2, double c) {
  const double s = std::sqrt(s2);
  return std::atan2(s, c) / s;
}

namespace {

void check_rotation_args(const Quat& q0, const Quat& q1, double dt, const char* function) {
  detail::require_unit(q0, k_estimator_unit_tolerance, function, "q0");
  detail::require_unit(q1, k_estimator_unit_tolerance, function, "q1");
  detail::require_positive_finite(dt, function, "dt");
}

/// Fills `out` for every sample; `angular_rate(q, i, inv_dt)` is the angular estimator over
/// samples i and i + 1 of the orientations q (none for a position-only track). A
/// template instantiated with lambdas, so the estimator is chosen once per track and inlined.
/// Each interval's rates are computed once and used by the samples at both of its ends.
template <class AngularRate>
void fill_velocities(const Track& track, DiffScheme scheme, AngularRate angular_rate,
                     TrackVelocities& out) {
  const std::size_t n = track.size();
  const double* t = track.times().data();
  const Vec3* p = track.positions().data();
  const Quat* q = track.orientations().data();
  const std::uint8_t* valid = track.valid_flags().data();
  out.linear.resize(n);
  out.angular.resize(n);
  out.valid.resize(n);
  Vec3* linear_out = out.linear.data();
  Vec3* angular_out = out.angular.data();
  std::uint8_t* valid_out = out.valid.data();
  Vec3 before_linear, before_angular;
  double before_dt = 0.0;
  bool before_ok = false;
  for (std::size_t i = 0; i < n; ++i) {
    const bool after_ok = i + 1 < n && valid[i] != 0 && valid[i + 1] != 0;
    Vec3 after_linear, after_angular;
    double after_dt = 0.0;
    if (after_ok) {
      after_dt = t[i + 1] - t[i];
      const double inv_dt = 1.0 / after_dt; // one division serves positions and rotations
      after_linear = (p[i + 1] - p[i]) * inv_dt;
      after_angular = angular_rate(q, i, inv_dt);
    }
    if (before_ok && after_ok && scheme == DiffScheme::Central) {
      linear_out[i] = detail::weighted_central(before_linear, before_dt, after_linear, after_dt);
      angular_out[i] = detail::weighted_central(before_angular, before_dt, after_angular, after_dt);
    } else if (before_ok && (!after_ok || scheme == DiffScheme::Backward)) {
      linear_out[i] = before_linear;
      angular_out[i] = before_angular;
    } else {
      linear_out[i] = after_linear; // zero when there is no valid interval on either side
      angular_out[i] = after_angular;
    }
    valid_out[i] = before_ok || after_ok ? 1 : 0;
    before_linear = after_linear;
    before_angular = after_angular;
    before_dt = after_dt;
    before_ok = after_ok;
  }
}

} // namespace

Vec3 linear_velocity(const Vec3& p0, const Vec3& p1, double dt) {
  detail::require_finite(p0, "linear_velocity", "p0");
  detail::require_finite(p1, "linear_velocity", "p1");
  detail::require_positive_finite(dt, "linear_velocity", "dt");
  return detail::require_finite_result((p1 - p0) / dt, "linear_velocity");
}

Vec3 angular_velocity(const Quat& q0, const Quat& q1, double dt) {
  check_rotation_args(q0, q1, dt, "angular_velocity");
  return detail::require_finite_result(detail::geodesic_rate(q0, q1, 1.0 / dt), "angular_velocity");
}

Vec3 angular_velocity_unchecked(const Quat& q0, const Quat& q1, double inv_dt) {
  return detail::geodesic_rate(q0, q1, inv_dt);
}

Vec3 angular_velocity_body(const Quat& q0, const Quat& q1, double dt) {
  check_rotation_args(q0, q1, dt, "angular_velocity_body");
  return detail::require_finite_result(rotate(conj(q0), detail::geodesic_rate(q0, q1, 1.0 / dt)),
                                       "angular_velocity_body");
}

Vec3 angular_velocity_linear_approx(const Quat& q0, const Quat& q1, double dt) {
  check_rotation_args(q0, q1, dt, "angular_velocity_linear_approx");
  return detail::require_finite_result(detail::linear_approx_rate(q0, q1, 1.0 / dt),
                                       "angular_velocity_linear_approx");
}

TrackVelocities estimate_velocities(const Track& track, DiffScheme scheme,
                                    RotationEstimator estimator) {
  TrackVelocities out;
  // Track::append guarantees finite, unit, strictly increasing samples: no per-sample checks.
  // Lambdas, not function pointers: each instantiation gets its kernel inlined.
  if (track.position_only()) {
    fill_velocities(track, scheme, [](const Quat*, std::size_t, double) { return Vec3{}; }, out);
  } else if (estimator == RotationEstimator::Geodesic) {
    fill_velocities(track, scheme, [](const Quat* q, std::size_t i, double inv_dt) {
      return detail::geodesic_rate(q[i], q[i + 1], inv_dt);
    }, out);
  } else {
    fill_velocities(track, scheme, [](const Quat* q, std::size_t i, double inv_dt) {
      return detail::linear_approx_rate(q[i], q[i + 1], inv_dt);
    }, out);
  }
  return out;
}

} // namespace odemocap
