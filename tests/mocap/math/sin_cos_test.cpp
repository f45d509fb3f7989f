// The inline sin and cos of the loaders' forward kinematics against long double sinl and cosl.
#include "math/sin_cos.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace odemocap::detail {
namespace {

/// |value - exact| in units of the last place of the exact value (as a double).
double ulps(double value, long double exact) {
  const double rounded = static_cast<double>(exact);
  const double ulp = std::nextafter(std::fabs(rounded), std::numeric_limits<double>::infinity()) -
                     std::fabs(rounded);
  return static_cast<double>(std::fabs(static_cast<long double>(value) - exact)) / ulp;
}

/// The one-angle sin_cos (the name also has a two-lane overload).
void (*const scalar_sin_cos)(double, double&, double&) = sin_cos;

struct Worst {
  double sin = 0.0, cos = 0.0;
};

template <class SinCos> Worst worst_error(SinCos sin_cos_of, double range, int count) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> angle(-range, range);
  std::uniform_int_distribution<int> quadrant(-5, 5);
  std::uniform_real_distribution<double> near(-1e-6, 1e-6);
  Worst worst;
  for (int n = 0; n < count; ++n) {
    // Uniform angles, and angles next to multiples of pi/2 (where sin or cos is small and the
    // reduction's error shows).
    const double x =
        n % 2 == 0 ? angle(random) : quadrant(random) * 1.5707963267948966 + near(random);
    double s = 0.0, c = 0.0;
    sin_cos_of(x, s, c);
    worst.sin = std::fmax(worst.sin, ulps(s, std::sin(static_cast<long double>(x))));
    worst.cos = std::fmax(worst.cos, ulps(c, std::cos(static_cast<long double>(x))));
  }
  return worst;
}

TEST(SinCos, WithinTwoUlpOfLongDoubleOverTheFastRange) {
  const Worst fast = worst_error(scalar_sin_cos, k_sin_cos_fast_limit, 1000000);
  EXPECT_LE(fast.sin, 2.0);
  EXPECT_LE(fast.cos, 2.0);
  // glibc on the same angles, for scale (it is correctly rounded nearly always).
  const Worst library = worst_error(
      [](double x, double& s, double& c) {
        s = std::sin(x);
        c = std::cos(x);
      },
      k_sin_cos_fast_limit, 1000000);
  EXPECT_LE(library.sin, 1.0);
  RecordProperty("worst_sin_ulps", std::to_string(fast.sin));
  RecordProperty("worst_cos_ulps", std::to_string(fast.cos));
}

TEST(SinCos, BeyondTheFastRangeAndNonFiniteGoToTheLibrary) {
  const Worst far = worst_error(scalar_sin_cos, 1e6, 100000);
  EXPECT_LE(far.sin, 1.0);
  EXPECT_LE(far.cos, 1.0);
  double s = 0.0, c = 0.0;
  sin_cos(std::numeric_limits<double>::quiet_NaN(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  sin_cos(std::numeric_limits<double>::infinity(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

TEST(SinCos, TwoLanesGiveTheOneAngleValuesBitForBit) {
  // Pairs from every quadrant of the fast range, next to multiples of pi/2, beyond the fast
  // range (one lane or both), and non-finite: each lane must be the one-angle result exactly.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> fast(-k_sin_cos_fast_limit, k_sin_cos_fast_limit);
  std::uniform_real_distribution<double> far(-1e4, 1e4);
  std::uniform_int_distribution<int> quadrant(-5, 5);
  std::uniform_real_distribution<double> near(-1e-9, 1e-9);
  const auto draw = [&](int kind) {
    switch (kind) {
    case 0: return fast(random);
    case 1: return quadrant(random) * 1.5707963267948966 + near(random);
    case 2: return far(random);
    default: return std::numeric_limits<double>::quiet_NaN();
    }
  };
  std::uniform_int_distribution<int> kind(0, 12);
  int differing = 0;
  for (int n = 0; n < 200000; ++n) {
    const int a = std::min(kind(random), 3), b = std::min(kind(random), 3);
    const Double2 x{draw(a), draw(b)};
    Double2 s, c;
    sin_cos(x, s, c);
    for (int lane = 0; lane < 2; ++lane) {
      double s1 = 0.0, c1 = 0.0;
      sin_cos(x[lane], s1, c1);
      const bool same = (std::isnan(s1) ? std::isnan(s[lane]) : s1 == s[lane]) &&
                        (std::isnan(c1) ? std::isnan(c[lane]) : c1 == c[lane]) &&
                        std::signbit(s1) == std::signbit(s[lane]) &&
                        std::signbit(c1) == std::signbit(c[lane]);
      differing += same ? 0 : 1;
    }
  }
  EXPECT_EQ(differing, 0);
  // The quadrant matters: with sin and cos never swapped, three quadrants in four are wrong.
  const Double2 x{2.0, -2.5};
  Double2 s, c;
  sin_cos(x, s, c);
  EXPECT_NEAR(s[0], std::sin(2.0), 1e-15);
  EXPECT_NEAR(c[1], std::cos(-2.5), 1e-15);
}

TEST(SinCos, TheSeriesWithoutReductionIsWrongAwayFromZero) {
  // The same Taylor polynomials evaluated at x itself, not at the reduced angle: fine near zero,
  // hundreds of ulps off by |x| = 3 (a BVH channel of 340 degrees has a half angle of 2.97).
  double s = 0.0, c = 0.0;
  sin_cos(3.0, s, c);
  const auto series_sin = [](double r) {
    double term = r, sum = r;
    for (int n = 1; n <= 8; ++n) {
      term *= -r * r / ((2 * n) * (2 * n + 1));
      sum += term;
    }
    return sum;
  };
  EXPECT_GT(ulps(series_sin(3.0), std::sin(3.0L)), 100.0);
  EXPECT_LE(ulps(s, std::sin(3.0L)), 1.0);
  EXPECT_LE(ulps(series_sin(0.5), std::sin(0.5L)), 1.0);
}

} // namespace
} // namespace odemocap::detail
