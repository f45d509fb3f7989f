#pragma once
// sin and cos of one angle, or of two at once, inline, for the loaders' Euler angles (forward
// kinematics of every joint-frame): glibc's sincos is a call that took a fifth of a BVH load.

#include "math/lanes.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace odemocap::detail {

/// Beyond this |x| (rad) sin_cos() calls the library: its reduction is exact only this far.
inline constexpr double k_sin_cos_fast_limit = 8.0;

/// The reduction and the polynomials sin_cos() is made of, for one angle (T = double) or two
/// (T = Double2). For |x| <= k_sin_cos_fast_limit: x = k pi/2 + r with k the nearest integer,
/// r = (x - k P) - k p where P = double(pi/2) has 3 trailing zero bits (k P exact for |k| <= 8,
/// x - k P exact by Sterbenz' lemma) and p = pi/2 - P; then the Taylor series of sin and cos at
/// r, |r| <= pi/4, to r^17 and r^18 (the first omitted terms are below 1e-19 of the result), by
/// Estrin's scheme. `shifted` is k + 1.5 2^52: its low bits are k in two's complement.
template <class T> inline void sin_cos_of_remainder(T x, T& shifted, T& sin_r, T& cos_r) {
  constexpr T k_two_over_pi = splat<T>(0x1.45f306dc9c883p-1);
  constexpr T k_half_pi = splat<T>(0x1.921fb54442d18p+0); // pi/2 rounded: 50 significant bits
  constexpr T k_half_pi_rest = splat<T>(0x1.1a62633145c07p-54); // pi/2 - k_half_pi
  constexpr T k_round = splat<T>(0x1.8p52); // adding and subtracting it rounds to an integer
  // Coefficients 1/n! with alternating signs.
  constexpr T s3 = splat<T>(-1.0 / 6), s5 = splat<T>(1.0 / 120), s7 = splat<T>(-1.0 / 5040),
              s9 = splat<T>(1.0 / 362880), s11 = splat<T>(-1.0 / 39916800),
              s13 = splat<T>(1.0 / 6227020800), s15 = splat<T>(-1.0 / 1307674368000),
              s17 = splat<T>(1.0 / 355687428096000);
  constexpr T c2 = splat<T>(-1.0 / 2), c4 = splat<T>(1.0 / 24), c6 = splat<T>(-1.0 / 720),
              c8 = splat<T>(1.0 / 40320), c10 = splat<T>(-1.0 / 3628800),
              c12 = splat<T>(1.0 / 479001600), c14 = splat<T>(-1.0 / 87178291200),
              c16 = splat<T>(1.0 / 20922789888000), c18 = splat<T>(-1.0 / 6402373705728000);
  shifted = x * k_two_over_pi + k_round;
  const T k = shifted - k_round;
  const T r = (x - k * k_half_pi) - k * k_half_pi_rest;
  const T r2 = r * r;
  const T r4 = r2 * r2;
  const T r8 = r4 * r4;
  // Estrin's scheme in r^2: pairs, then pairs of pairs (a short dependency chain: Horner's 9
  // steps of multiply and add cost more than glibc's call).
  const T sin_poly = ((s3 + r2 * s5) + r4 * (s7 + r2 * s9)) +
                     r8 * ((s11 + r2 * s13) + r4 * (s15 + r2 * s17));
  sin_r = r + (r * r2) * sin_poly;
  const T cos_poly = ((c2 + r2 * c4) + r4 * (c6 + r2 * c8)) +
                     r8 * (((c10 + r2 * c12) + r4 * (c14 + r2 * c16)) + r8 * c18);
  cos_r = splat<T>(1.0) + r2 * cos_poly;
}

/// sin(x) and cos(x), within 2 ulp of the exact values (measured against long double over a
/// million angles: 1.52 and 1.45 at worst; glibc's within 1): sin_cos_of_remainder() and the
/// quadrant k mod 4. Larger |x| (and NaN) go to std::sin and std::cos.
inline void sin_cos(double x, double& s, double& c) {
  if (!(std::fabs(x) <= k_sin_cos_fast_limit)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  double shifted = 0.0, sin_r = 0.0, cos_r = 0.0;
  sin_cos_of_remainder(x, shifted, sin_r, cos_r);
  std::uint64_t k = 0;
  std::memcpy(&k, &shifted, sizeof k);
  switch (k & 3) {
  case 0: s = sin_r; c = cos_r; return;
  case 1: s = cos_r; c = -sin_r; return;
  case 2: s = -sin_r; c = -cos_r; return;
  default: s = -cos_r; c = sin_r; return;
  }
}

/// sin_cos() of every lane (T = Double2 or Double4), bit for bit the same values, without a
/// branch on the quadrant: odd quadrants swap sin and cos, and the signs are the quadrant's bits
/// moved to the sign bit.
template <class T> inline void sin_cos(T x, T& s, T& c) {
  using Bits = typename Lanes<T>::Bits;
  T shifted, sin_r, cos_r;
  sin_cos_of_remainder(x, shifted, sin_r, cos_r);
  const Bits k = bits(shifted);
  const Bits sin_bits = bits(sin_r);
  const Bits cos_bits = bits(cos_r);
  const Bits swap = -(k & 1); // all ones in an odd quadrant
  s = from_bits<T>(((cos_bits & swap) | (sin_bits & ~swap)) ^ ((k & 2) << 62));
  c = from_bits<T>(((sin_bits & swap) | (cos_bits & ~swap)) ^ (((k + 1) & 2) << 62));
  for (std::size_t lane = 0; lane < Lanes<T>::count; ++lane) {
    if (!(std::fabs(x[lane]) <= k_sin_cos_fast_limit)) {
      // What the one-angle sin_cos() gives there (called directly: a file compiled with AVX
      // must not emit its own copy of that inline function).
      s[lane] = std::sin(x[lane]);
      c[lane] = std::cos(x[lane]);
    }
  }
}

} // namespace odemocap::detail
