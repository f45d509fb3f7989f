#pragma once
// sin and cos of one angle, inline, for the loaders' Euler angles (forward kinematics of every
// joint-frame): glibc's sincos is a call that took a fifth of a BVH load.

#include <cmath>

namespace odemocap::detail {

/// Beyond this |x| (rad) sin_cos() calls the library: its reduction is exact only this far.
inline constexpr double k_sin_cos_fast_limit = 8.0;

/// sin(x) and cos(x), within 2 ulp of the exact values (measured against long double over a
/// million angles: 1.52 and 1.45 at worst; glibc's within 1). For |x| <= k_sin_cos_fast_limit:
/// x = k pi/2 + r with k the nearest integer, r = (x - k P) - k p where P = double(pi/2) has 3
/// trailing zero bits (k P exact for |k| <= 8, x - k P exact by Sterbenz' lemma) and
/// p = pi/2 - P; then the Taylor series of sin and cos at r, |r| <= pi/4, to r^17 and r^18 (the
/// first omitted terms are below 1e-19 of the result), by Estrin's scheme, and the quadrant
/// k mod 4. Larger |x| (and NaN) go to std::sin and std::cos.
inline void sin_cos(double x, double& s, double& c) {
  if (!(std::fabs(x) <= k_sin_cos_fast_limit)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  constexpr double k_two_over_pi = 0x1.45f306dc9c883p-1;
  constexpr double k_half_pi = 0x1.921fb54442d18p+0;      // pi/2 rounded: 50 significant bits
  constexpr double k_half_pi_rest = 0x1.1a62633145c07p-54; // pi/2 - k_half_pi
  constexpr double k_round = 0x1.8p52; // adding and subtracting it rounds to an integer
  const double k = (x * k_two_over_pi + k_round) - k_round;
  const double r = (x - k * k_half_pi) - k * k_half_pi_rest;
  const double r2 = r * r;
  const double r4 = r2 * r2;
  const double r8 = r4 * r4;
  // Coefficients 1/n! with alternating signs, by Estrin's scheme in r^2: pairs, then pairs of
  // pairs (a short dependency chain: Horner's 9 steps of multiply and add cost more than
  // glibc's call).
  const double sin_poly =
      ((-1.0 / 6 + r2 * (1.0 / 120)) + r4 * (-1.0 / 5040 + r2 * (1.0 / 362880))) +
      r8 * ((-1.0 / 39916800 + r2 * (1.0 / 6227020800)) +
            r4 * (-1.0 / 1307674368000 + r2 * (1.0 / 355687428096000)));
  const double sin_r = r + (r * r2) * sin_poly;
  const double cos_poly =
      ((-1.0 / 2 + r2 * (1.0 / 24)) + r4 * (-1.0 / 720 + r2 * (1.0 / 40320))) +
      r8 * (((-1.0 / 3628800 + r2 * (1.0 / 479001600)) +
             r4 * (-1.0 / 87178291200 + r2 * (1.0 / 20922789888000))) +
            r8 * (-1.0 / 6402373705728000));
  const double cos_r = 1.0 + r2 * cos_poly;
  switch (static_cast<int>(k) & 3) {
  case 0: s = sin_r; c = cos_r; return;
  case 1: s = cos_r; c = -sin_r; return;
  case 2: s = -sin_r; c = -cos_r; return;
  default: s = -cos_r; c = sin_r; return;
  }
}

} // namespace odemocap::detail
