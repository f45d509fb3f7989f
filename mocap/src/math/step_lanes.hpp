#pragma once
// The kinematic step of several bodies at once, one body per lane of T (Double2: SSE2, two
// bodies; Double4: AVX, four). Each lane computes what the one-body path computes
// (Track::interpolate_linear, compose, angular_velocity_unchecked) with the same operations in
// the same order, so the results are the same bits.
//
// Everything here has internal linkage: step_velocities.cpp and step_velocities_avx.cpp
// (compiled with AVX) each get their own copy, and no AVX code can stand in for the other's.

#include <odemocap/velocity.hpp>

#include "math/lane_geometry.hpp"
#include "math/lanes.hpp"
#include "math/rates.hpp"

#include <cstring>

namespace odemocap::detail {
namespace {

/// The lanes of `row` from body k on: one load.
template <class T> T load(const double (&row)[BodyStepBatch::k_size], std::size_t k) {
  T v;
  std::memcpy(&v, &row[k], sizeof v);
  return v;
}
template <class T> void store(T v, double (&row)[BodyStepBatch::k_size], std::size_t k) {
  std::memcpy(&row[k], &v, sizeof v);
}
template <class T> Vec3x<T> load(const double (&rows)[3][BodyStepBatch::k_size], std::size_t k) {
  return {load<T>(rows[0], k), load<T>(rows[1], k), load<T>(rows[2], k)};
}
template <class T>
Quatx<T> load_quat(const double (&rows)[4][BodyStepBatch::k_size], std::size_t k) {
  return {load<T>(rows[0], k), load<T>(rows[1], k), load<T>(rows[2], k), load<T>(rows[3], k)};
}
template <class T>
void store(const Vec3x<T>& v, double (&rows)[3][BodyStepBatch::k_size], std::size_t k) {
  store(v.x, rows[0], k);
  store(v.y, rows[1], k);
  store(v.z, rows[2], k);
}
template <class T>
void store(const Quatx<T>& q, double (&rows)[4][BodyStepBatch::k_size], std::size_t k) {
  store(q.w, rows[0], k);
  store(q.x, rows[1], k);
  store(q.y, rows[2], k);
  store(q.z, rows[3], k);
}

/// Bodies [k, k + Lanes<T>::count) of the batch in the lanes; false (nothing written) when a
/// lane's Slerp or rate is beyond the series' range.
template <class T> bool step_lanes(BodyStepBatch& b, std::size_t k, double inv_dt) {
  // slerp() of quat.cpp, series branch: the shorter arc, perp = q1s - q0 cos(theta), then
  // q0 cos(u theta) + perp sin(u theta) / sin(theta). slerp() returns the samples themselves
  // at u = 0 and u = 1: at u = 0 the series gives q0 * 1 + perp * 0, q0 itself; u = 1 is
  // chosen.
  const T u = load<T>(b.u, k);
  const Quatx<T> q0 = load_quat<T>(b.q0, k);
  const Quatx<T> q1 = load_quat<T>(b.q1, k);
  const T d = dot(q0, q1);
  const Quatx<T> q1s = select<T>(d < splat<T>(0.0), -q1, q1);
  const T c = detail::abs(d);
  const Quatx<T> perp = q1s - q0 * c;
  const T s2 = dot(perp, perp);
  const T limit = splat<T>(k_series_limit * k_series_limit);
  if (detail::any(s2 >= limit)) {
    return false;
  }
  const T theta_over_s = theta_over_sin_series(s2);
  const T x2 = u * u * theta_over_s * theta_over_s * s2;
  Quatx<T> q = q0 * small_cos(x2) + perp * (u * theta_over_s * small_sinc(x2));
  q = select<T>(u == splat<T>(1.0), q1s, q);
  const Vec3x<T> p0 = load<T>(b.p0, k);
  const Vec3x<T> sampled_p = p0 + (load<T>(b.p1, k) - p0) * u;
  // compose(sampled, offset).
  const Vec3x<T> goal_p = sampled_p + rotate(q, load<T>(b.offset_p, k));
  const Quatx<T> goal_q = q * load_quat<T>(b.offset_q, k);
  // geodesic_rate(now.q, goal.q, inv_dt): 2 theta/sin(theta) vec(r) / dt, r = goal conj(now).
  const Quatx<T> r = goal_q * conj(load_quat<T>(b.now_q, k));
  const Vec3x<T> rv{r.x, r.y, r.z};
  const T r2 = dot(rv, rv);
  if (detail::any(r2 >= limit)) {
    return false;
  }
  const T scale = detail::copysign(splat<T>(2.0 * inv_dt), r.w) * theta_over_sin_series(r2);
  store(goal_p, b.goal_p, k);
  store(goal_q, b.goal_q, k);
  store((goal_p - load<T>(b.now_p, k)) * splat<T>(inv_dt), b.linear, k);
  store(rv * scale, b.angular, k);
  return true;
}

} // namespace
} // namespace odemocap::detail
