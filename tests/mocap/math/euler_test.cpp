#include "support/reference_math.hpp"

#include <odemocap/error.hpp>
#include <odemocap/euler.hpp>

#include <gtest/gtest.h>

namespace odemocap {
namespace {

using test::k_pi;
using test::Random;
using test::same_rotation;

constexpr EulerOrder k_orders[] = {EulerOrder::XYZ, EulerOrder::XZY, EulerOrder::YXZ,
                                   EulerOrder::YZX, EulerOrder::ZXY, EulerOrder::ZYX,
                                   EulerOrder::XYX, EulerOrder::XZX, EulerOrder::YXY,
                                   EulerOrder::YZY, EulerOrder::ZXZ, EulerOrder::ZYZ};

Vec3 axis_from_letter(char c) {
  return c == 'X' ? Vec3{1, 0, 0} : c == 'Y' ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
}

bool proper(EulerOrder order) { return to_string(order)[0] == to_string(order)[2]; }

/// Independent matrix of a sequence: intrinsic = R1 R2 R3, extrinsic = R3 R2 R1.
test::Matrix reference_matrix(const EulerAngles& a, EulerOrder order, EulerFrame frame) {
  const char* s = to_string(order);
  const test::Matrix r1 = test::rodrigues(axis_from_letter(s[0]), a.first);
  const test::Matrix r2 = test::rodrigues(axis_from_letter(s[1]), a.second);
  const test::Matrix r3 = test::rodrigues(axis_from_letter(s[2]), a.third);
  return frame == EulerFrame::Intrinsic ? test::multiply(test::multiply(r1, r2), r3)
                                        : test::multiply(test::multiply(r3, r2), r1);
}

class EulerAllSequences
    : public ::testing::TestWithParam<std::tuple<EulerOrder, EulerFrame>> {};

TEST_P(EulerAllSequences, FromEulerMatchesComposedAxisMatrices) {
  const auto [order, frame] = GetParam();
  Random rnd(7);
  for (int n = 0; n < 200; ++n) {
    const EulerAngles a{rnd.uniform(-k_pi, k_pi), rnd.uniform(-k_pi, k_pi), rnd.uniform(-k_pi, k_pi)};
    const Quat q = from_euler(a, order, frame);
    ASSERT_LT(test::max_abs_diff(reference_matrix(a, order, frame), to_matrix(q).m), 1e-14);
  }
}

TEST_P(EulerAllSequences, AnglesRoundTripInTheirCanonicalRanges) {
  const auto [order, frame] = GetParam();
  Random rnd(8);
  for (int n = 0; n < 500; ++n) {
    const EulerAngles a{rnd.uniform(-3.1, 3.1),
                        proper(order) ? rnd.uniform(0.01, 3.13) : rnd.uniform(-1.56, 1.56),
                        rnd.uniform(-3.1, 3.1)};
    const EulerAngles b = to_euler(from_euler(a, order, frame), order, frame);
    ASSERT_NEAR(b.first, a.first, 1e-11);
    ASSERT_NEAR(b.second, a.second, 1e-11);
    ASSERT_NEAR(b.third, a.third, 1e-11);
  }
}

TEST_P(EulerAllSequences, AnyRotationRoundTripsThroughEulerAngles) {
  const auto [order, frame] = GetParam();
  Random rnd(9);
  for (int n = 0; n < 500; ++n) {
    const Quat q = rnd.rotation();
    const EulerAngles a = to_euler(q, order, frame);
    ASSERT_TRUE(same_rotation(from_euler(a, order, frame), q, 1e-13));
    ASSERT_LE(std::fabs(a.first), k_pi);
    ASSERT_LE(std::fabs(a.third), k_pi);
    if (proper(order)) {
      ASSERT_GE(a.second, 0.0);
      ASSERT_LE(a.second, k_pi);
    } else {
      ASSERT_LE(std::fabs(a.second), 0.5 * k_pi + 1e-15);
    }
  }
}

TEST_P(EulerAllSequences, GimbalLockKeepsTheRotationAndZeroesTheThirdAngle) {
  const auto [order, frame] = GetParam();
  const double locks[2] = {proper(order) ? 0.0 : 0.5 * k_pi, proper(order) ? k_pi : -0.5 * k_pi};
  for (double middle : locks) {
    const Quat q = from_euler({0.7, middle, -0.4}, order, frame);
    const EulerAngles a = to_euler(q, order, frame);
    EXPECT_TRUE(same_rotation(from_euler(a, order, frame), q, 1e-12)) << to_string(order);
    EXPECT_EQ(a.third, 0.0) << to_string(order);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Euler, EulerAllSequences,
    ::testing::Combine(::testing::ValuesIn(k_orders),
                       ::testing::Values(EulerFrame::Intrinsic, EulerFrame::Extrinsic)),
    [](const auto& param_info) {
      return std::string(to_string(std::get<0>(param_info.param))) +
             (std::get<1>(param_info.param) == EulerFrame::Intrinsic ? "Intrinsic" : "Extrinsic");
    });

TEST(Euler, HandValuesForTheBvhConvention) {
  // BVH "Zrotation Xrotation Yrotation" is intrinsic ZXY: R = Rz Rx Ry.
  const double h = std::sqrt(0.5);
  // Yaw 90 about Z alone takes +x to +y.
  const Quat z90 = from_euler({0.5 * k_pi, 0, 0}, EulerOrder::ZXY, EulerFrame::Intrinsic);
  EXPECT_TRUE(same_rotation(z90, {h, 0, 0, h}, 1e-15));
  // Intrinsic ZX: first 90 about Z, then 90 about the new X (world Y): +z goes to +x... by hand
  // Rz(90) Rx(90) (0,0,1) = Rz(90) (0,-1,0) = (1,0,0).
  const Quat zx = from_euler({0.5 * k_pi, 0.5 * k_pi, 0}, EulerOrder::ZXY, EulerFrame::Intrinsic);
  EXPECT_TRUE(test::near_vec(rotate(zx, {0, 0, 1}), {1, 0, 0}, 1e-15));
  // Extrinsic XYZ(a, b, c) equals intrinsic ZYX(c, b, a).
  const Quat e = from_euler({0.3, -0.2, 1.1}, EulerOrder::XYZ, EulerFrame::Extrinsic);
  const Quat i = from_euler({1.1, -0.2, 0.3}, EulerOrder::ZYX, EulerFrame::Intrinsic);
  EXPECT_TRUE(same_rotation(e, i, 1e-15));
}

TEST(Euler, NonFiniteAnglesAreRejected) {
  EXPECT_THROW(from_euler({NAN, 0, 0}, EulerOrder::XYZ, EulerFrame::Intrinsic), MocapError);
  EXPECT_THROW(from_euler({0, INFINITY, 0}, EulerOrder::XYZ, EulerFrame::Intrinsic), MocapError);
}

} // namespace
} // namespace odemocap
