// The inline sin and cos of the loaders' forward kinematics against long double sinl and cosl.
#include "math/sin_cos.hpp"

#include <gtest/gtest.h>

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
  const Worst fast = worst_error(sin_cos, k_sin_cos_fast_limit, 1000000);
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
  const Worst far = worst_error(sin_cos, 1e6, 100000);
  EXPECT_LE(far.sin, 1.0);
  EXPECT_LE(far.cos, 1.0);
  double s = 0.0, c = 0.0;
  sin_cos(std::numeric_limits<double>::quiet_NaN(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  sin_cos(std::numeric_limits<double>::infinity(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
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
