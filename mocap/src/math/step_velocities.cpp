// step_velocities(): a kinematic step of many bodies, two at a time. Each lane computes what the
// one-body path computes (Track::interpolate_linear, compose, angular_velocity_unchecked) with
// the same operations in the same order, so the results are the same bits; a pair with a lane
// beyond the series' range (a step over 29 degrees) is done by the one-body path instead.

#include <odemocap/velocity.hpp>

#include "math/double2.hpp"
#include "math/rates.hpp"

namespace odemocap {
namespace {

using detail::Bits2;
using detail::Double2;
using detail::splat;

struct Vec3x2 {
  Double2 x, y, z;
};
struct Quatx2 {
  Double2 w, x, y, z;
};

Vec3x2 operator+(const Vec3x2& a, const Vec3x2& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
Vec3x2 operator-(const Vec3x2& a, const Vec3x2& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
Vec3x2 operator*(const Vec3x2& a, Double2 s) {
  return {a.x * s, a.y * s, a.z * s};
}
Vec3x2 cross(const Vec3x2& a, const Vec3x2& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Double2 dot(const Vec3x2& a, const Vec3x2& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

Quatx2 operator+(const Quatx2& a, const Quatx2& b) {
  return {a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z};
}
Quatx2 operator-(const Quatx2& a, const Quatx2& b) {
  return {a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z};
}
Quatx2 operator-(const Quatx2& a) {
  return {-a.w, -a.x, -a.y, -a.z};
}
Quatx2 operator*(const Quatx2& a, Double2 s) {
  return {a.w * s, a.x * s, a.y * s, a.z * s};
}
// clang-format off: one component a line, as in quat.hpp
Quatx2 operator*(const Quatx2& a, const Quatx2& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
// clang-format on
Quatx2 conj(const Quatx2& q) {
  return {q.w, -q.x, -q.y, -q.z};
}
Double2 dot(const Quatx2& a, const Quatx2& b) {
  return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
}
Quatx2 select(Bits2 mask, const Quatx2& a, const Quatx2& b) {
  return {detail::select(mask, a.w, b.w), detail::select(mask, a.x, b.x),
          detail::select(mask, a.y, b.y), detail::select(mask, a.z, b.z)};
}

/// rotate() of quat.hpp: t = 2 qv x v, v' = v + w t + qv x t.
Vec3x2 rotate(const Quatx2& q, const Vec3x2& v) {
  const Vec3x2 qv{q.x, q.y, q.z};
  const Vec3x2 t = cross(qv, v) * splat<Double2>(2.0);
  return v + t * q.w + cross(qv, t);
}

Vec3x2 load(const Vec3& a, const Vec3& b) {
  return {Double2{a.x, b.x}, Double2{a.y, b.y}, Double2{a.z, b.z}};
}
Quatx2 load(const Quat& a, const Quat& b) {
  return {Double2{a.w, b.w}, Double2{a.x, b.x}, Double2{a.y, b.y}, Double2{a.z, b.z}};
}
void store(const Vec3x2& v, Vec3& a, Vec3& b) {
  a = {v.x[0], v.y[0], v.z[0]};
  b = {v.x[1], v.y[1], v.z[1]};
}
void store(const Quatx2& q, Quat& a, Quat& b) {
  a = {q.w[0], q.x[0], q.y[0], q.z[0]};
  b = {q.w[1], q.x[1], q.y[1], q.z[1]};
}

constexpr double k_series_limit2 = detail::k_series_limit * detail::k_series_limit;

/// One body, by the one-body functions: the reference the lanes reproduce.
void step_one(BodyStep& s, double inv_dt) {
  const Pose sampled = Track::interpolate_linear(s.p0, s.q0, s.p1, s.q1, s.u);
  s.goal = {sampled.p + rotate(sampled.q, s.offset.p), sampled.q * s.offset.q};
  s.linear = (s.goal.p - s.now.p) * inv_dt;
  s.angular = detail::geodesic_rate(s.now.q, s.goal.q, inv_dt);
}

/// Two bodies in the lanes; false (nothing written) when a lane's Slerp or rate is beyond the
/// series' range.
bool step_two(BodyStep& a, BodyStep& b, double inv_dt) {
  // slerp() of quat.cpp, series branch: the shorter arc, perp = q1s - q0 cos(theta), then
  // q0 cos(u theta) + perp sin(u theta) / sin(theta). slerp() returns the samples themselves
  // at u = 0 and u = 1: at u = 0 the series gives q0 * 1 + perp * 0, q0 itself; u = 1 is
  // chosen.
  const Double2 u{a.u, b.u};
  const Quatx2 q0 = load(a.q0, b.q0);
  const Quatx2 q1 = load(a.q1, b.q1);
  const Double2 d = dot(q0, q1);
  const Quatx2 q1s = select(d < splat<Double2>(0.0), -q1, q1);
  const Double2 c = detail::abs(d);
  const Quatx2 perp = q1s - q0 * c;
  const Double2 s2 = dot(perp, perp);
  const Double2 limit = splat<Double2>(k_series_limit2);
  if (detail::any(s2 >= limit)) {
    return false;
  }
  const Double2 theta_over_s = detail::theta_over_sin_series(s2);
  const Double2 x2 = u * u * theta_over_s * theta_over_s * s2;
  Quatx2 q = q0 * detail::small_cos(x2) + perp * (u * theta_over_s * detail::small_sinc(x2));
  q = select(u == splat<Double2>(1.0), q1s, q);
  const Vec3x2 p0 = load(a.p0, b.p0);
  const Vec3x2 sampled_p = p0 + (load(a.p1, b.p1) - p0) * u;
  // compose(sampled, offset).
  const Vec3x2 goal_p = sampled_p + rotate(q, load(a.offset.p, b.offset.p));
  const Quatx2 goal_q = q * load(a.offset.q, b.offset.q);
  // geodesic_rate(now.q, goal.q, inv_dt): 2 theta/sin(theta) vec(r) / dt, r = goal conj(now).
  const Quatx2 r = goal_q * conj(load(a.now.q, b.now.q));
  const Vec3x2 rv{r.x, r.y, r.z};
  const Double2 r2 = dot(rv, rv);
  if (detail::any(r2 >= limit)) {
    return false;
  }
  const Double2 two_over_dt = splat<Double2>(2.0 * inv_dt);
  const Double2 scale = detail::copysign(two_over_dt, r.w) * detail::theta_over_sin_series(r2);
  const Double2 inv = splat<Double2>(inv_dt);
  store(goal_p, a.goal.p, b.goal.p);
  store(goal_q, a.goal.q, b.goal.q);
  store((goal_p - load(a.now.p, b.now.p)) * inv, a.linear, b.linear);
  store(rv * scale, a.angular, b.angular);
  return true;
}

} // namespace

void step_velocities(BodyStep* steps, std::size_t n, double inv_dt) {
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    if (!step_two(steps[i], steps[i + 1], inv_dt)) {
      step_one(steps[i], inv_dt);
      step_one(steps[i + 1], inv_dt);
    }
  }
  if (i < n) {
    step_one(steps[i], inv_dt);
  }
}

} // namespace odemocap
