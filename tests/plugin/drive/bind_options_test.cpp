// Every BindOptions field and driver call, on an analytic track: p(t) = (t, 0, 1) for t in
// [0, 1] s, turning about z at 1 rad/s, sampled at 100 Hz.
#include "support/ode_scene.hpp"
#include "support/error_message.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

namespace odemocap {
namespace {

using test::near_vec;
using test::OdeScene;
using test::same_rotation;

Pose truth(double t) { return {{t, 0, 1}, from_axis_angle({0, 0, 1}, t)}; }
Track line_track() { return test::sampled_track("line", 0.01, 1.0, truth); }

class BindOptionsTest : public ::testing::Test {
protected:
  /// Runs `steps` presteps and steps of h.
  void run(int steps, double h = 0.01) {
    for (int i = 0; i < steps; ++i) {
      driver.prestep(h);
      scene.step(h);
    }
  }
  OdeScene scene{0.0};
  KinematicDriver driver{scene.world};
  dBodyID body = dBodyCreate(scene.world);
};

TEST_F(BindOptionsTest, OffsetPutsTheBodyFrameInTheTracksFrame) {
  BindOptions options;
  options.offset = {{0.2, 0, 0}, from_axis_angle({1, 0, 0}, 0.5)};
  driver.bind(body, line_track(), options);
  run(50);
  const Pose track = truth(0.5);
  const Pose body_now = body_pose(body);
  EXPECT_TRUE(near_vec(body_now.p, track.p + rotate(track.q, {0.2, 0, 0}), 1e-12));
  EXPECT_TRUE(same_rotation(body_now.q, track.q * from_axis_angle({1, 0, 0}, 0.5), 1e-12));
}

TEST_F(BindOptionsTest, TimeOffsetAndPlaybackRateMapDriverTimeToTrackTime) {
  BindOptions options;
  options.time_offset = 0.25;
  options.playback_rate = 0.5;
  driver.bind(body, line_track(), options);
  run(100); // 1 s of driver time is track time 0.25 + 0.5
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.75, 0, 1}, 1e-12));
}

TEST_F(BindOptionsTest, HoldStopsOnTheLastSample) {
  const auto id = driver.bind(body, line_track());
  run(150);
  EXPECT_TRUE(near_vec(body_pose(body).p, {1, 0, 1}, 1e-12));
  EXPECT_EQ(norm(vec3_from_ode(dBodyGetLinearVel(body))), 0.0);
  EXPECT_EQ(driver.stats(id).teleports, 0u);
}

TEST_F(BindOptionsTest, LoopStartsAgainAndTheJumpBackIsATeleport) {
  BindOptions options;
  options.at_end = TrackEnd::Loop;
  const auto id = driver.bind(body, line_track(), options);
  run(125); // driver time 1.25 s is track time 0.25 s
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.25, 0, 1}, 1e-12));
  EXPECT_EQ(driver.stats(id).teleports, 1u); // 1 m back in 0.01 s: 100 m/s > 50 m/s
}

TEST_F(BindOptionsTest, ReleaseHandsTheBodyBackWithItsLastVelocity) {
  dMass m;
  dMassSetSphereTotal(&m, 1.0, 0.1);
  dBodySetMass(body, &m);
  BindOptions options;
  options.at_end = TrackEnd::Release;
  const auto id = driver.bind(body, line_track(), options);
  EXPECT_TRUE(dBodyIsKinematic(body));
  run(150);
  EXPECT_TRUE(driver.stats(id).released);
  EXPECT_FALSE(dBodyIsKinematic(body));
  dBodyGetMass(body, &m); // the mass given before binding is restored
  EXPECT_NEAR(m.mass, 1.0, 1e-12);
  // Flying on at the track's last velocity (1 m/s along x) for the half second after the end.
  EXPECT_NEAR(dBodyGetLinearVel(body)[0], 1.0, 1e-9);
  EXPECT_NEAR(body_pose(body).p.x, 1.5, 1e-9);
}

TEST_F(BindOptionsTest, CubicInterpolationIsWhatTheBodyFollows) {
  Track curved("curved");
  for (int i = 0; i <= 10; ++i) {
    const double t = 0.1 * i;
    curved.append(t, {{std::sin(3 * t), t * t, 0}, from_axis_angle({1, 1, 0}, std::sin(2 * t))});
  }
  BindOptions options;
  options.interp = Interp::Cubic;
  driver.bind(body, curved, options);
  for (int i = 1; i <= 90; ++i) {
    run(1);
    const Pose expected = curved.sample(0.01 * i, Interp::Cubic);
    ASSERT_TRUE(near_vec(body_pose(body).p, expected.p, 1e-12)) << i;
    ASSERT_TRUE(same_rotation(body_pose(body).q, expected.q, 1e-12)) << i;
  }
}

TEST_F(BindOptionsTest, ADataJumpTeleportsInsteadOfGivingAnAbsurdVelocity) {
  Track jumpy("jumpy");
  for (int i = 0; i <= 100; ++i) {
    const double t = 0.01 * i;
    jumpy.append(t, {{t < 0.5 ? t : t + 3.0, 0, 0}, Quat{}}); // 3 m jump at 0.5 s
  }
  const auto id = driver.bind(body, jumpy);
  run(51);
  EXPECT_EQ(driver.stats(id).teleports, 1u);
  EXPECT_TRUE(near_vec(body_pose(body).p, {3.51, 0, 0}, 1e-12));
  EXPECT_LT(driver.stats(id).max_linear_speed, 1.0 + 1e-9); // the jump never became a velocity
  BindOptions lenient;
  lenient.max_linear_speed = 1e4; // raise the limit and the jump is a 300 m/s step
  KinematicDriver other(scene.world);
  dBodyID second = dBodyCreate(scene.world);
  const auto id2 = other.bind(second, jumpy, lenient);
  for (int i = 0; i < 51; ++i) {
    other.prestep(0.01);
    scene.step(0.01);
  }
  EXPECT_EQ(other.stats(id2).teleports, 0u);
  EXPECT_NEAR(other.stats(id2).max_linear_speed, 301.0, 1e-6);
}

TEST_F(BindOptionsTest, ABodyMovedToANonFinitePositionIsPutBackOnItsTrack) {
  // A NaN speed fails "speed > limit" as well as "speed <= limit": a driver that only tests
  // the former hands ODE a NaN velocity, and the body is lost for good at the next step.
  // (ODE itself refuses a NaN quaternion: dBodySetQuaternion aborts.)
  const auto id = driver.bind(body, line_track());
  run(20);
  dBodySetPosition(body, NAN, 0, 1);
  run(1);
  EXPECT_EQ(driver.stats(id).teleports, 1u);
  EXPECT_TRUE(is_finite(vec3_from_ode(dBodyGetLinearVel(body))));
  EXPECT_TRUE(near_vec(body_pose(body).p, truth(0.21).p, 1e-12));
  run(10); // and it follows the track again, with velocities
  EXPECT_TRUE(near_vec(body_pose(body).p, truth(0.31).p, 1e-12));
  EXPECT_NEAR(norm(vec3_from_ode(dBodyGetLinearVel(body))), 1.0, 1e-9);
}

TEST_F(BindOptionsTest, UnbindStopsTheBodyWhereItIs) {
  const auto id = driver.bind(body, line_track());
  run(30);
  driver.unbind(id);
  const Vec3 there = body_pose(body).p;
  run(30);
  EXPECT_TRUE(near_vec(body_pose(body).p, there, 0));
  EXPECT_TRUE(dBodyIsKinematic(body));
  EXPECT_THROW(driver.unbind(7), PluginError);
  driver.bind(body, line_track()); // may be bound again
}

TEST_F(BindOptionsTest, RestartPlacesTheBodiesOnTheirFirstPoseAgain) {
  driver.bind(body, line_track());
  run(60);
  driver.restart();
  EXPECT_EQ(driver.time(), 0.0);
  run(10);
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.1, 0, 1}, 1e-12));
}

TEST_F(BindOptionsTest, SetMassAfterBindingIsUndoneAtTheNextPrestep) {
  driver.bind(body, line_track());
  run(10);
  dMass m;
  dMassSetSphereTotal(&m, 1.0, 0.1);
  dBodySetMass(body, &m); // makes the body dynamic again
  EXPECT_FALSE(dBodyIsKinematic(body));
  run(10);
  EXPECT_TRUE(dBodyIsKinematic(body));
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.2, 0, 1}, 1e-12));
}

TEST_F(BindOptionsTest, InvalidUseIsAPluginErrorNamingTheProblem) {
  const auto message = [](auto f) { return test::error_message<PluginError>(f); };
  EXPECT_THROW(KinematicDriver(nullptr), PluginError);
  EXPECT_NE(message([&] { driver.bind(nullptr, line_track()); }).find("body is null"), std::string::npos);
  dWorldID other = dWorldCreate();
  dBodyID foreign = dBodyCreate(other);
  EXPECT_NE(message([&] { driver.bind(foreign, line_track()); }).find("another world"), std::string::npos);
  dWorldDestroy(other);
  Track empty("empty");
  empty.append_gap(0.0);
  EXPECT_NE(message([&] { driver.bind(body, empty); }).find("no valid sample"), std::string::npos);
  BindOptions bad;
  bad.playback_rate = -1;
  EXPECT_NE(message([&] { driver.bind(body, line_track(), bad); }).find("playback_rate"), std::string::npos);
  bad = {};
  bad.offset.q = Quat{2, 0, 0, 0};
  EXPECT_NE(message([&] { driver.bind(body, line_track(), bad); }).find("unit quaternion"), std::string::npos);
  bad = {};
  bad.max_angular_speed = 0;
  EXPECT_THROW(driver.bind(body, line_track(), bad), PluginError);
  driver.bind(body, line_track());
  EXPECT_NE(message([&] { driver.bind(body, line_track()); }).find("already bound"), std::string::npos);
  EXPECT_NE(message([&] { driver.prestep(0); }).find("h must be finite and positive, got 0"), std::string::npos);
  EXPECT_THROW(driver.prestep(std::nan("")), PluginError);
  EXPECT_THROW(driver.stats(99), PluginError);
}

} // namespace
} // namespace odemocap
