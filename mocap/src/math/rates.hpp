#pragma once
// Rate kernels shared by the velocity estimators and cubic interpolation: unchecked, inline,
// for hot loops. Callers check their arguments.

#include <odemocap/quat.hpp>

#include "math/lanes.hpp"

#include <cmath>

namespace odemocap::detail {

/// Below this sin(theta) the series of theta/sin(theta) is used instead of atan2.
inline constexpr double k_series_limit = 0.25;

/// theta / sin(theta) beyond the series' range: atan2(s, c) / s. Out of line and cold, so the
/// call does not burden the registers of the loops that inline the series.
[[gnu::cold, gnu::noinline]] double theta_over_sin_wide(double s2, double c);

/// The series of theta/sin(theta) = asin(s)/s in x = s^2 = sin(theta)^2, for s < 1/4: the
/// Maclaurin series sum_n C(2n,n) / (4^n (2n+1)) x^n to n = 12 (the first omitted term is
/// below 1.3e-18, a tenth of an ulp). For one value (T = double) or two (T = Double2).
template <class T> inline T theta_over_sin_series(T x) {
  // 1 + x Q(x) with Q evaluated by Estrin's scheme: a dependency chain of 5 multiply-adds
  // instead of Horner's 12, so consecutive frame pairs overlap in the pipeline, and a single
  // rounding against the leading 1 at the end.
  constexpr T c1 = splat<T>(1.0 / 6.0), c2 = splat<T>(3.0 / 40.0), c3 = splat<T>(5.0 / 112.0),
              c4 = splat<T>(35.0 / 1152.0), c5 = splat<T>(63.0 / 2816.0),
              c6 = splat<T>(231.0 / 13312.0), c7 = splat<T>(143.0 / 10240.0),
              c8 = splat<T>(6435.0 / 557056.0), c9 = splat<T>(12155.0 / 1245184.0),
              c10 = splat<T>(46189.0 / 5505024.0), c11 = splat<T>(88179.0 / 12058624.0),
              c12 = splat<T>(676039.0 / 104857600.0);
  const T x2 = x * x;
  const T x4 = x2 * x2;
  const T a = (c1 + c2 * x) + x2 * (c3 + c4 * x);
  const T b = (c5 + c6 * x) + x2 * (c7 + c8 * x);
  const T d = (c9 + c10 * x) + x2 * (c11 + c12 * x);
  return splat<T>(1.0) + x * (a + x4 * (b + x4 * d));
}

/// theta / sin(theta) for theta in [0, pi/2], given s2 = sin(theta)^2 and c = cos(theta) >= 0.
/// For sin(theta) < 1/4 (rotations under 29 degrees per interval: 60 rad/s at 120 Hz, beyond
/// human motion) the series above: no square root and no division. Otherwise
/// atan2(s, c) / s, accurate for every angle.
inline double theta_over_sin(double s2, double c) {
  if (s2 < k_series_limit * k_series_limit) {
    return theta_over_sin_series(s2);
  }
  return theta_over_sin_wide(s2, c);
}

/// 1 + c[0] x2 + c[1] x2^2 + ... + c[5] x2^6 by Estrin's scheme: a dependency chain of three
/// multiply-adds. For one value or two, as above.
template <class T> inline T even_series_to_x12(T x2, const double (&c)[6]) {
  const T x4 = x2 * x2;
  return ((splat<T>(1.0) + splat<T>(c[0]) * x2) + x4 * (splat<T>(c[1]) + splat<T>(c[2]) * x2)) +
         x4 * x4 * ((splat<T>(c[3]) + splat<T>(c[4]) * x2) + x4 * splat<T>(c[5]));
}

/// sin(x) / x and cos(x) for |x| <= 1/4 from their Taylor series to x^12 (first omitted
/// terms below 1e-17 relative), in x2 = x^2: no call into libm.
template <class T> inline T small_sinc(T x2) {
  constexpr double c[6] = {-1.0 / 6,     1.0 / 120,       -1.0 / 5040,
                           1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800};
  return even_series_to_x12(x2, c);
}
template <class T> inline T small_cos(T x2) {
  constexpr double c[6] = {-1.0 / 2,    1.0 / 24,       -1.0 / 720,
                           1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600};
  return even_series_to_x12(x2, c);
}

/// Derivative of Slerp(q0, q1) at t = 0 as a world angular velocity (rad/s).
/// omega = 2 vec(dq/dt conj(q0)) with dq/dt = theta/sin(theta) (q1 - cos(theta) q0) / dt;
/// vec(q0 conj(q0)) = 0, so this is 2 theta/sin(theta) vec(q1 conj(q0)) / dt, where
/// r = q1 conj(q0) has r.w = q0.q1 = cos(theta) and |vec(r)| = sin(theta). Taking the shorter
/// arc (q0.q1 < 0 -> use -q1) negates r: cos(theta) = |r.w| and the sign of r.w goes into the
/// final scale, without a branch.
/// `inv_dt` is 1 / dt: callers that also need it for positions divide once.
inline Vec3 geodesic_rate(const Quat& q0, const Quat& q1, double inv_dt) {
  const double two_over_dt = 2.0 * inv_dt;
  const Quat r = q1 * conj(q0);
  const Vec3 v = r.vec();
  const double scale = std::copysign(two_over_dt, r.w) * theta_over_sin(dot(v, v), std::fabs(r.w));
  return v * scale;
}

/// The naive first-order estimate 2 vec((q1 - q0) conj(q0)) / dt; `inv_dt` is 1 / dt.
inline Vec3 linear_approx_rate(const Quat& q0, const Quat& q1, double inv_dt) {
  return ((q1 - q0) * conj(q0)).vec() * (2.0 * inv_dt);
}

/// Rate at a sample from the rates of the interval before (length dt_before) and after
/// (dt_after): the derivative at the middle knot of the parabola through three samples,
/// exact for constant rates on any spacing.
inline Vec3 weighted_central(const Vec3& rate_before, double dt_before, const Vec3& rate_after,
                             double dt_after) {
  return (rate_before * dt_after + rate_after * dt_before) / (dt_before + dt_after);
}

} // namespace odemocap::detail
