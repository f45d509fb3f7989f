// Every BindOptions field and driver call, on an analytic track: p(t) = (t, 0, 1) for t in
// [0, 1] s, turning about z at 1 rad/s, sampled at 100 Hz.
#include "support/ode_scene.hpp"
#include "support/error_message.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

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

/// a * b: frame b given in frame a (written here, not taken from the driver).
Pose then(const Pose& a, const Pose& b) {
  return {a.p + rotate(a.q, b.p), a.q * b.q};
}
Pose undo(const Pose& a) {
  return {rotate(conj(a.q), -1.0 * a.p), conj(a.q)};
}

TEST_F(BindOptionsTest, LoopStartsAgainAndKeepsItsVelocityAcrossTheSeam) {
  // The line track ends 1 m along x, turned 1 rad: the loop's seam jumps back to the start.
  // The jump is data, not motion: the body is moved by it (the end carried rigidly onto the
  // start) and crosses the seam at the track's own 1 m/s and 1 rad/s, not at -99 m/s.
  BindOptions options;
  options.at_end = TrackEnd::Loop;
  const auto id = driver.bind(body, line_track(), options);
  run(99); // on the track's pose at 0.99 s
  const Pose before = body_pose(body);
  driver.prestep(0.01); // to track time 1.00 s, which is 0 s of the next period
  const Pose jump = then(truth(0), undo(truth(1)));
  const Pose moved = then(jump, before);
  EXPECT_TRUE(near_vec(body_pose(body).p, moved.p, 1e-12));
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body));
  const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body));
  EXPECT_TRUE(near_vec(v, (truth(0).p - moved.p) * 100.0, 1e-9));
  EXPECT_NEAR(norm(v), 1.0, 1e-9);
  EXPECT_TRUE(near_vec(w, {0, 0, 1}, 1e-9));
  EXPECT_GT(norm(truth(0).p - before.p) * 100.0, 98.0); // what the step from `before` needs
  scene.step(0.01);
  run(25); // driver time 1.25 s is track time 0.25 s
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.25, 0, 1}, 1e-12));
  EXPECT_EQ(driver.stats(id).teleports, 0u);
  EXPECT_EQ(driver.stats(id).seams, 1u);
  EXPECT_NEAR(driver.stats(id).max_linear_speed, 1.0, 1e-9);
}

TEST_F(BindOptionsTest, ASmallSeamUnderTheSpeedLimitIsNotDrivenAcross) {
  // An open loop whose end is 0.3 m from its start, played at 100 Hz steps: stepping across
  // the seam takes 30 m/s, under the 50 m/s limit, so a driver that only judged speed would
  // swing the body back through whatever lies between. It moves by the jump instead.
  Track open("open");
  for (int i = 0; i <= 100; ++i) {
    const double t = 0.01 * i;
    open.append(t, {{0.3 * t, 0, 1}, Quat{}});
  }
  BindOptions options;
  options.at_end = TrackEnd::Loop;
  const auto id = driver.bind(body, open, options);
  double fastest = 0.0;
  for (int i = 0; i < 250; ++i) {
    driver.prestep(0.01);
    fastest = std::max(fastest, norm(vec3_from_ode(dBodyGetLinearVel(body))));
    scene.step(0.01);
  }
  EXPECT_NEAR(fastest, 0.3, 1e-9);
  EXPECT_EQ(driver.stats(id).seams, 2u);
  EXPECT_EQ(driver.stats(id).teleports, 0u);
  EXPECT_TRUE(near_vec(body_pose(body).p, {0.15, 0, 1}, 1e-12));
  EXPECT_GT(0.3 / 0.01, 29.0); // the naive step across: 30 m/s
}

TEST_F(BindOptionsTest, RandomOpenLoopsLandOnEveryPoseAndCrossEverySeamAtTheirOwnSpeed) {
  // Random open loops (a drifting, turning rigid motion whose end is far from its start),
  // offsets, time offsets, rates and step sizes: every step lands on the target, every seam
  // is counted where the track time enters a new period (counted here from the times), none
  // is a teleport, and the speed at a seam is at most that of the steps between seams (the
  // seam's jump, 0.2-1.4 m, would take 20-300 m/s).
  test::Random rnd(2611);
  int seams = 0;
  for (int trial = 0; trial < 100; ++trial) {
    OdeScene world{0.0};
    KinematicDriver d(world.world);
    dBodyID b = dBodyCreate(world.world);
    const Vec3 axis = rnd.unit_vector(), drift = rnd.unit_vector() * rnd.uniform(0.2, 1.0);
    const double spin = rnd.uniform(0.5, 3.0), duration = rnd.uniform(0.5, 1.5);
    const Track track = test::sampled_track("open", 0.01, duration, [&](double t) {
      return Pose{drift * t + Vec3{0.1 * std::sin(5 * t), 0.1 * std::cos(3 * t), 1},
                  from_axis_angle(axis, spin * t)};
    });
    BindOptions options;
    options.at_end = TrackEnd::Loop;
    options.offset = {rnd.unit_vector() * rnd.uniform(0, 0.3), rnd.rotation()};
    options.time_offset = rnd.uniform(-1, 1);
    options.playback_rate = rnd.uniform(0.5, 2);
    const double h = rnd.uniform(0.002, 0.02);
    const auto id = d.bind(b, track, options);
    const double period = track.end_time() - track.start_time();
    const auto cycle = [&](double t) {
      return std::floor((options.time_offset + options.playback_rate * t) / period);
    };
    double inside = 0.0, across = 0.0;
    std::size_t expected = 0;
    for (int step = 0; step < static_cast<int>(3 * duration / (options.playback_rate * h));
         ++step) {
      const double t0 = d.time();
      d.prestep(h);
      const double speed = norm(vec3_from_ode(dBodyGetLinearVel(b)));
      if (cycle(t0 + h) != cycle(t0)) {
        ++expected;
        across = std::max(across, speed);
      } else if (step > 0) { // (the first step places the body)
        inside = std::max(inside, speed);
      }
      world.step(h);
      const Pose goal = d.target(id, d.time());
      ASSERT_LE(norm(body_pose(b).p - goal.p), 1e-9) << trial << " " << step;
      ASSERT_LE(angle_between(body_pose(b).q, goal.q), 1e-9) << trial << " " << step;
    }
    ASSERT_GE(expected, 2u) << trial;
    EXPECT_EQ(d.stats(id).seams, expected) << trial;
    EXPECT_EQ(d.stats(id).teleports, 0u) << trial;
    EXPECT_LE(across, 1.25 * inside) << trial << ": " << across << " against " << inside;
    seams += static_cast<int>(expected);
  }
  std::printf("[ metric ] random open loops: 100 bindings, %d seams crossed, 0 teleports\n", seams);
}

TEST_F(BindOptionsTest, LoopsWithGapsAtTheirEndsAndStepsLongerThanALoopStayOnTheirPoses) {
  // Real captures start and end with gaps (a marker not yet seen): the loop holds the first
  // and last valid samples out to its ends, so the seam's jump is from the last valid pose to
  // the first. Steps of a whole period or more cross seams too (counted, nothing carried).
  // Whatever the step, the body lands on its target and never gets a non-finite velocity.
  test::Random rnd(2711);
  std::size_t seams = 0;
  for (int trial = 0; trial < 60; ++trial) {
    OdeScene world{0.0};
    KinematicDriver d(world.world);
    dBodyID b = dBodyCreate(world.world);
    const Vec3 axis = rnd.unit_vector();
    Track track("gappy");
    const int n = 60, lead = static_cast<int>(rnd.uniform(0, 8)),
              tail = static_cast<int>(rnd.uniform(0, 8));
    for (int i = 0; i <= n; ++i) {
      const double t = 0.01 * i;
      if (i < lead || i > n - tail) {
        track.append_gap(t);
      } else {
        track.append(t, {{0.5 * t, std::sin(4 * t), 1}, from_axis_angle(axis, 2 * t)});
      }
    }
    BindOptions options;
    options.at_end = TrackEnd::Loop;
    options.time_offset = rnd.uniform(-1, 1);
    options.playback_rate = rnd.uniform(0.5, 2);
    options.max_linear_speed = options.max_angular_speed = 1e9; // every step is driven
    const double h = trial % 4 == 0 ? rnd.uniform(0.6, 2.0) : rnd.uniform(0.002, 0.02);
    const auto id = d.bind(b, track, options);
    const auto cycle = [&](double t) {
      return std::floor((options.time_offset + options.playback_rate * t) / 0.6);
    };
    std::size_t expected = 0;
    double inside = 0.0, across = 0.0;
    for (int step = 0; step < 200; ++step) {
      const bool crossing = cycle(d.time() + h) != cycle(d.time());
      expected += crossing ? 1 : 0;
      d.prestep(h);
      const double speed = norm(vec3_from_ode(dBodyGetLinearVel(b)));
      if (step > 0) { // (the first step places the body)
        (crossing ? across : inside) = std::fmax(crossing ? across : inside, speed);
      }
      ASSERT_TRUE(is_finite(vec3_from_ode(dBodyGetLinearVel(b)))) << trial << " " << step;
      ASSERT_TRUE(is_finite(vec3_from_ode(dBodyGetAngularVel(b)))) << trial << " " << step;
      world.step(h);
      const Pose goal = d.target(id, d.time());
      ASSERT_LE(norm(body_pose(b).p - goal.p), 1e-9) << trial << " " << step;
      ASSERT_LE(angle_between(body_pose(b).q, goal.q), 1e-9) << trial << " " << step;
    }
    EXPECT_EQ(d.stats(id).seams, expected) << trial;
    EXPECT_EQ(d.stats(id).teleports, 0u) << trial;
    if (trial % 4 != 0) { // steps shorter than the loop: the seam's jump is not driven across
      EXPECT_LE(across, 1.25 * inside) << trial << ": " << across << " against " << inside;
    }
    seams += expected;
  }
  EXPECT_GT(seams, 500u); // most trials cross many seams
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
