#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

namespace odemocap {
namespace {

using test::near_vec;
using test::Random;
using test::same_rotation;

/// Initialises ODE once per test and owns a world without gravity.
class OdeWorld : public ::testing::Test {
protected:
  void SetUp() override {
    dInitODE2(0);
    world_ = dWorldCreate();
    dWorldSetGravity(world_, 0, 0, 0);
  }
  void TearDown() override {
    dWorldDestroy(world_);
    dCloseODE();
  }
  dWorldID world_ = nullptr;
};

TEST_F(OdeWorld, ConversionsRoundTripAndKeepOdesComponentOrder) {
  const Quat q{0.5, -0.5, 0.5, 0.5};
  dQuaternion oq;
  to_ode(q, oq);
  EXPECT_EQ(oq[0], 0.5); // w first, as ODE stores it
  EXPECT_EQ(oq[1], -0.5);
  EXPECT_TRUE(same_rotation(quat_from_ode(oq), q, 0));
  dVector3 ov;
  to_ode(Vec3{1, 2, 3}, ov);
  EXPECT_TRUE(near_vec(vec3_from_ode(ov), {1, 2, 3}, 0));
  dBodyID body = dBodyCreate(world_);
  set_body_pose(body, {Vec3{4, 5, 6}, q});
  const Pose p = body_pose(body);
  EXPECT_TRUE(near_vec(p.p, {4, 5, 6}, 0));
  EXPECT_TRUE(same_rotation(p.q, q, 1e-15));
}

TEST_F(OdeWorld, HamiltonProductAndMatrixAgreeWithOde) {
  Random rnd(31);
  for (int n = 0; n < 1000; ++n) {
    const Quat a = rnd.rotation(), b = rnd.rotation();
    dQuaternion oa, ob, oab;
    to_ode(a, oa);
    to_ode(b, ob);
    dQMultiply0(oab, oa, ob);
    ASSERT_TRUE(same_rotation(quat_from_ode(oab), a * b, 1e-15));
    dMatrix3 r;
    dRfromQ(r, oa);
    const Mat3 m = to_matrix(a);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        ASSERT_NEAR(r[i * 4 + j], m.m[i][j], 1e-15); // ODE's dMatrix3 rows are padded to 4
      }
    }
  }
}

/// Sets a kinematic body in finite rotation mode to q0 with the given angular velocity, takes
/// one dWorldStep of h, and returns its orientation.
Quat ode_step(dWorldID world, const Quat& q0, const Vec3& omega, double h, bool finite) {
  dBodyID body = dBodyCreate(world);
  dBodySetKinematic(body);
  dBodySetFiniteRotationMode(body, finite ? 1 : 0);
  set_body_pose(body, {Vec3{}, q0});
  dBodySetAngularVel(body, omega.x, omega.y, omega.z);
  dWorldStep(world, h);
  const Quat q = body_pose(body).q;
  dBodyDestroy(body);
  return q;
}

TEST_F(OdeWorld, FiniteRotationStepWithSlerpDerivativeLandsOnTheNextPose) {
  Random rnd(32);
  const double h = 1.0 / 120;
  double worst_geodesic = 0, best_naive_30 = 1e9, worst_infinitesimal = 0;
  for (int n = 0; n < 200; ++n) {
    const Quat q0 = rnd.rotation();
    const double angle = rnd.uniform(1e-6, 2.5);
    const Quat q1 = from_axis_angle(rnd.unit_vector(), angle) * q0;
    const Quat geodesic = ode_step(world_, q0, angular_velocity(q0, q1, h), h, true);
    worst_geodesic = std::fmax(worst_geodesic, angle_between(geodesic, q1));
    if (angle > 0.5) {
      const Quat naive = ode_step(world_, q0, angular_velocity_linear_approx(q0, q1, h), h, true);
      best_naive_30 = std::fmin(best_naive_30, angle_between(naive, q1));
      const Quat infinitesimal = ode_step(world_, q0, angular_velocity(q0, q1, h), h, false);
      worst_infinitesimal = std::fmax(worst_infinitesimal, angle_between(infinitesimal, q1));
    }
  }
  std::printf("[ metric ] ODE step error (rad): geodesic+finite worst %.3g; above 0.5 rad/step: "
              "naive+finite best %.3g, geodesic+ODE default rotation update worst %.3g\n",
              worst_geodesic, best_naive_30, worst_infinitesimal);
  EXPECT_LT(worst_geodesic, 1e-9);
  EXPECT_GT(best_naive_30, 1e-3);       // the naive estimate misses the pose
  EXPECT_GT(worst_infinitesimal, 1e-2); // without finite rotation mode so does ODE's update
}

} // namespace
} // namespace odemocap
