#include "support/reference_math.hpp"

#include <odemocap/interpolation.hpp>

#include <gtest/gtest.h>

namespace odemocap {
namespace {

using test::near_vec;
using test::Random;
using test::same_rotation;

TEST(Interpolation, HermiteHitsEndsWithTheGivenVelocities) {
  const Vec3 p0{0, 1, 2}, v0{1, 0, 0}, p1{3, 1, 0}, v1{0, -2, 0};
  const double T = 0.5, e = 1e-8;
  EXPECT_TRUE(near_vec(hermite(p0, v0, p1, v1, T, 0.0), p0, 0));
  EXPECT_TRUE(near_vec(hermite(p0, v0, p1, v1, T, 1.0), p1, 1e-15));
  const Vec3 d0 = (hermite(p0, v0, p1, v1, T, e) - hermite(p0, v0, p1, v1, T, 0)) / (e * T);
  const Vec3 d1 = (hermite(p0, v0, p1, v1, T, 1) - hermite(p0, v0, p1, v1, T, 1 - e)) / (e * T);
  EXPECT_TRUE(near_vec(d0, v0, 1e-5));
  EXPECT_TRUE(near_vec(d1, v1, 1e-5));
}

TEST(Interpolation, SphericalCubicHasTheGivenEndAngularVelocities) {
  Random rnd(3);
  for (int n = 0; n < 50; ++n) {
    const Quat q0 = rnd.rotation();
    const Quat q1 = from_axis_angle(rnd.unit_vector(), rnd.uniform(0.1, 1.0)) * q0;
    const Vec3 w0 = rnd.unit_vector() * rnd.uniform(0, 3), w1 = rnd.unit_vector() * rnd.uniform(0, 3);
    const double T = 0.2, e = 1e-6;
    EXPECT_TRUE(same_rotation(spherical_cubic(q0, w0, q1, w1, T, 0.0), q0, 1e-15));
    EXPECT_TRUE(same_rotation(spherical_cubic(q0, w0, q1, w1, T, 1.0), q1, 1e-14));
    // One-sided finite differences of the curve, turned into world angular velocities.
    const Quat a = spherical_cubic(q0, w0, q1, w1, T, e);
    const Quat b = spherical_cubic(q0, w0, q1, w1, T, 1 - e);
    const Vec3 start_rate = to_rotation_vector(a * conj(q0)) / (e * T);
    const Vec3 end_rate = to_rotation_vector(q1 * conj(b)) / (e * T);
    ASSERT_TRUE(near_vec(start_rate, w0, 1e-4));
    ASSERT_TRUE(near_vec(end_rate, w1, 1e-4));
  }
}

TEST(Interpolation, SphericalCubicReproducesConstantRateRotationExactly) {
  const Quat q0 = from_axis_angle({1, 2, 3}, 0.4);
  const Vec3 w = normalized(Vec3{-1, 0.5, 2}) * 3.0;
  const double T = 0.25;
  const Quat q1 = integrate(q0, w, T);
  for (double u : {0.1, 0.33, 0.5, 0.8}) {
    EXPECT_TRUE(same_rotation(spherical_cubic(q0, w, q1, w, T, u), integrate(q0, w, u * T), 1e-14));
  }
}

} // namespace
} // namespace odemocap
