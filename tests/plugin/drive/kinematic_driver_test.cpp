// The claim the product stands on, in real ODE scenes with analytic trajectories as truth: a
// body driven by a capture moves dynamic bodies as a real moving body would.
#include "support/data_paths.hpp"
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::OdeScene;
using test::sampled_track;

constexpr double k_capture_dt = 1.0 / 120.0;

// ---- 1. Turntable -------------------------------------------------------------------------

struct TurntableResult {
  double cube_angle = 0;    // rad travelled about the axis
  double platform_angle = 0;
  double creep = 0;         // m, radial
};

TurntableResult turntable(DriveMode mode, double h, bool quick) {
  OdeScene scene;
  scene.quick = quick;
  const double omega = 2.0, seconds = 5.0, r0 = 0.5;
  dBodyID platform = scene.box({2, 2, 0.2}, 10, {0, 0, 0.1});
  dBodyID cube = scene.box({0.2, 0.2, 0.2}, 1, {r0, 0, 0.3});
  // Resting on the spinning platform means moving with its surface; a cube at rest would
  // first slip for about 0.1 s (1 m/s at mu g = 9.81 m/s^2) and lag by 0.1 rad.
  dBodySetLinearVel(cube, 0, omega * r0, 0);
  dBodySetAngularVel(cube, 0, 0, omega);
  KinematicDriver driver(scene.world);
  driver.set_mode(mode);
  driver.bind(platform, sampled_track("platform", k_capture_dt, seconds + 1, [&](double t) {
                return Pose{{0, 0, 0.1}, from_axis_angle({0, 0, 1}, omega * t)};
              }));
  TurntableResult r;
  double previous = 0;
  const int steps = static_cast<int>(std::lround(seconds / h));
  for (int i = 0; i < steps; ++i) {
    driver.prestep(h);
    scene.step(h);
    const dReal* p = dBodyGetPosition(cube);
    const double angle = std::atan2(p[1], p[0]);
    r.cube_angle += std::remainder(angle - previous, 2 * k_pi);
    previous = angle;
  }
  const dReal* p = dBodyGetPosition(cube);
  r.creep = std::hypot(p[0], p[1]) - r0;
  r.platform_angle = omega * seconds;
  return r;
}

/// Radial creep of a point carried in a circle by ODE's explicit position update:
/// r (exp(n (omega h)^2 / 2) - 1).
double expected_creep(double h) {
  const double n = 5.0 / h, wh = 2.0 * h;
  return 0.5 * (std::exp(n * wh * wh / 2) - 1);
}

class Turntable : public ::testing::TestWithParam<bool> {};

TEST_P(Turntable, FrictionCarriesTheCubeOnlyWhenThePlatformHasItsVelocity) {
  const bool quick = GetParam();
  const double h = 1.0 / 120;
  const TurntableResult geodesic = turntable(DriveMode::Geodesic, h, quick);
  const TurntableResult teleport = turntable(DriveMode::Teleport, h, quick);
  const TurntableResult fine = turntable(DriveMode::Geodesic, h / 4, quick);
  std::printf("[ metric ] turntable (%s): platform %.4f rad; cube geodesic %.4f rad (%.3f%%), "
              "teleport %.4f rad; creep h %.1f mm (formula %.1f), h/4 %.1f mm (formula %.1f)\n",
              quick ? "dWorldQuickStep" : "dWorldStep", geodesic.platform_angle,
              geodesic.cube_angle,
              100 * std::fabs(geodesic.cube_angle / geodesic.platform_angle - 1),
              teleport.cube_angle, 1e3 * geodesic.creep, 1e3 * expected_creep(h),
              1e3 * fine.creep, 1e3 * expected_creep(h / 4));
  EXPECT_NEAR(geodesic.cube_angle, geodesic.platform_angle, 1e-3 * geodesic.platform_angle);
  EXPECT_LT(std::fabs(teleport.cube_angle), 0.1 * teleport.platform_angle);
  EXPECT_LE(geodesic.creep, 1.1 * expected_creep(h));
  EXPECT_LE(fine.creep, 1.1 * expected_creep(h / 4));
  EXPECT_NEAR(fine.cube_angle, fine.platform_angle, 1e-3 * fine.platform_angle);
}

INSTANTIATE_TEST_SUITE_P(Driver, Turntable, ::testing::Values(false, true),
                         [](const auto& param_info) { return param_info.param ? "QuickStep" : "Step"; });

// ---- 2. Pendulum on a swinging kinematic body ---------------------------------------------

struct PendulumSetting {
  const char* name;
  double h;
  DriveMode mode;
  Interp interp = Interp::Linear;
  bool finite_rotation_on_rod = false;
  double erp = 0.2;
};

double pendulum_max_gap(const PendulumSetting& s) {
  OdeScene scene;
  dWorldSetERP(scene.world, s.erp);
  // The swinging body has no geom: only the joint couples it to the rod.
  dBodyID swing = dBodyCreate(scene.world);
  dBodyID rod = dBodyCreate(scene.world);
  dMass m;
  dMassSetBoxTotal(&m, 1.0, 0.05, 0.05, 0.5);
  dBodySetMass(rod, &m);
  dBodySetPosition(rod, 0, 0.3, -0.25);
  if (s.finite_rotation_on_rod) {
    dBodySetFiniteRotationMode(rod, 1);
  }
  KinematicDriver driver(scene.world);
  driver.set_mode(s.mode);
  // This test compares drive modes with the rod's rotation mode and the ERP as set above:
  // the driver leaves the rod and its joint alone (jointed_bodies_test.cpp has its defaults).
  NeighbourSettings as_set;
  as_set.exact_rotation = false;
  as_set.joint_erp = 0.0;
  driver.set_neighbours(as_set);
  BindOptions options;
  options.interp = s.interp;
  // +-90 degrees about the horizontal x axis, period 1 s.
  driver.bind(swing, sampled_track("swing", k_capture_dt, 6, [](double t) {
                return Pose{{}, from_axis_angle({1, 0, 0}, 0.5 * k_pi * std::sin(2 * k_pi * t))};
              }),
              options);
  dJointID ball = dJointCreateBall(scene.world, nullptr);
  dJointAttach(ball, swing, rod);
  dJointSetBallAnchor(ball, 0, 0.3, 0);
  double max_gap = 0;
  const int steps = static_cast<int>(std::lround(5.0 / s.h));
  for (int i = 0; i < steps; ++i) {
    driver.prestep(s.h);
    scene.step(s.h);
    dVector3 a1, a2;
    dJointGetBallAnchor(ball, a1);
    dJointGetBallAnchor2(ball, a2);
    max_gap = std::fmax(max_gap, std::hypot(a1[0] - a2[0], a1[1] - a2[1], a1[2] - a2[2]));
  }
  return max_gap;
}

TEST(Pendulum, GeodesicKeepsTheJointTogetherWhereTeleportTearsIt) {
  const PendulumSetting settings[] = {
      {"h=1/120 teleport", 1.0 / 120, DriveMode::Teleport},
      {"h=1/120 linear approx", 1.0 / 120, DriveMode::LinearApprox},
      {"h=1/120 geodesic", 1.0 / 120, DriveMode::Geodesic},
      {"h=1/120 geodesic, cubic", 1.0 / 120, DriveMode::Geodesic, Interp::Cubic},
      {"h=1/120 geodesic, finite rotation on rod", 1.0 / 120, DriveMode::Geodesic, Interp::Linear, true},
      {"h=1/120 geodesic, ERP 0.8", 1.0 / 120, DriveMode::Geodesic, Interp::Linear, false, 0.8},
      {"h=1/480 teleport", 1.0 / 480, DriveMode::Teleport},
      {"h=1/480 geodesic", 1.0 / 480, DriveMode::Geodesic},
      {"h=1/480 geodesic, cubic", 1.0 / 480, DriveMode::Geodesic, Interp::Cubic},
      {"h=1/480 geodesic, finite rotation on rod", 1.0 / 480, DriveMode::Geodesic, Interp::Linear, true},
      {"h=1/480 geodesic, ERP 0.8", 1.0 / 480, DriveMode::Geodesic, Interp::Linear, false, 0.8},
      {"h=1/480 geodesic, cubic, ERP 0.8", 1.0 / 480, DriveMode::Geodesic, Interp::Cubic, false, 0.8},
  };
  std::vector<double> gaps;
  for (const PendulumSetting& s : settings) {
    gaps.push_back(pendulum_max_gap(s));
    std::printf("[ metric ] pendulum max anchor gap, %-42s %7.2f mm\n", s.name, 1e3 * gaps.back());
  }
  EXPECT_LE(gaps[2], 0.25 * gaps[0]); // geodesic vs teleport at 1/120
  EXPECT_LE(gaps[7], 0.004);          // geodesic at 1/480
}

// ---- 3. Welded payload ----------------------------------------------------------------------

struct WeldResult {
  double rms_position = 0; // m
  double rms_angle = 0;    // rad
};

WeldResult welded_payload(DriveMode mode) {
  OdeScene scene;
  const auto carrier_pose = [](double t) {
    return Pose{{0.5 * std::sin(k_pi * t), 0.25 * std::sin(2 * k_pi * t), 1.0},
                from_axis_angle({0, 0, 1}, 3.0 * t)};
  };
  dBodyID carrier = dBodyCreate(scene.world);
  dBodyID payload = dBodyCreate(scene.world);
  dMass m;
  dMassSetBoxTotal(&m, 2.0, 0.2, 0.2, 0.2);
  dBodySetMass(payload, &m);
  const Pose weld{{0.3, 0, 0}, Quat{}}; // payload in the carrier's frame
  const Pose start = carrier_pose(0);
  set_body_pose(payload, {start.p + rotate(start.q, weld.p), start.q * weld.q});
  KinematicDriver driver(scene.world);
  driver.set_mode(mode);
  driver.bind(carrier, sampled_track("carrier", k_capture_dt, 6, carrier_pose));
  driver.prestep(k_capture_dt); // places the carrier before the joint records the weld
  dJointID fixed = dJointCreateFixed(scene.world, nullptr);
  dJointAttach(fixed, carrier, payload);
  dJointSetFixed(fixed);
  scene.step(k_capture_dt);
  double sum_p = 0, sum_a = 0;
  int n = 0;
  for (int i = 1; i < 600; ++i) {
    driver.prestep(k_capture_dt);
    scene.step(k_capture_dt);
    const Pose c = body_pose(carrier);
    const Pose expected{c.p + rotate(c.q, weld.p), c.q * weld.q};
    const Pose actual = body_pose(payload);
    sum_p += std::pow(norm(actual.p - expected.p), 2);
    sum_a += std::pow(angle_between(actual.q, expected.q), 2);
    ++n;
  }
  return {std::sqrt(sum_p / n), std::sqrt(sum_a / n)};
}

TEST(WeldedPayload, StaysWeldedWhileTheCarrierSpinsOnAFigureEight) {
  const WeldResult geodesic = welded_payload(DriveMode::Geodesic);
  const WeldResult teleport = welded_payload(DriveMode::Teleport);
  std::printf("[ metric ] welded payload RMS error: geodesic %.3f mm, %.4f deg; teleport %.1f mm, "
              "%.2f deg\n",
              1e3 * geodesic.rms_position, geodesic.rms_angle * 180 / k_pi,
              1e3 * teleport.rms_position, teleport.rms_angle * 180 / k_pi);
  EXPECT_LE(geodesic.rms_position, 1e-3);
  EXPECT_LE(geodesic.rms_angle, 0.01 * k_pi / 180);
  EXPECT_GT(teleport.rms_position, 10 * geodesic.rms_position);
  EXPECT_GT(teleport.rms_angle, 10 * geodesic.rms_angle);
}

// ---- 4. Exactness ---------------------------------------------------------------------------

TEST(Exactness, TheBodyLandsOnTheCapturedPoseEveryStepForAnyStepSize) {
  test::Random rnd(41);
  Track track("tumbling");
  Pose pose;
  const double dt = 0.01;
  for (int i = 0; i <= 400; ++i) {
    track.append(i * dt, pose);
    pose.q = normalized(from_axis_angle(rnd.unit_vector(), rnd.uniform(0, 0.5 * k_pi)) * pose.q);
    pose.p += rnd.unit_vector() * rnd.uniform(0, 0.05);
  }
  // Steps equal to the capture's, 1 kHz-like sub-steps, steps longer than the capture's, and
  // variable steps.
  const std::vector<std::vector<double>> schedules = {
      std::vector<double>(400, dt), std::vector<double>(3200, dt / 8),
      std::vector<double>(100, dt * 4), [&] {
        std::vector<double> v;
        for (double t = 0; t < 3.9;) {
          v.push_back(rnd.uniform(0.2, 1.8) * dt);
          t += v.back();
        }
        return v;
      }()};
  for (const auto& schedule : schedules) {
    OdeScene scene;
    dBodyID body = dBodyCreate(scene.world);
    KinematicDriver driver(scene.world);
    BindOptions options;
    options.max_linear_speed = options.max_angular_speed = 1e9; // 90 degrees per step is data here
    const auto id = driver.bind(body, track, options);
    double worst_p = 0, worst_a = 0;
    for (double h : schedule) {
      driver.prestep(h);
      scene.step(h);
      const Pose expected = driver.target(id, driver.time());
      const Pose actual = body_pose(body);
      worst_p = std::fmax(worst_p, norm(actual.p - expected.p));
      worst_a = std::fmax(worst_a, angle_between(actual.q, expected.q));
    }
    std::printf("[ metric ] exactness over %zu steps: %.2e m, %.2e rad\n", schedule.size(),
                worst_p, worst_a);
    EXPECT_LE(worst_p, 1e-9);
    EXPECT_LE(worst_a, 1e-9);
    EXPECT_EQ(driver.stats(id).teleports, 0u);
  }
}

TEST(Exactness, EveryStepThatEndsOnACaptureSampleLandsTheBodyOnThatSample) {
  // The test above takes its truth from the driver's own target(); this one from the samples as
  // stored. Steps of k capture frames at playback rate r (h = k dt / r) end on capture samples,
  // where the pose owed is sample i0 + s k composed with the binding's offset, whatever the
  // interpolation: no sampling code of ours is involved. Random tracks (each sample turned up to
  // 3 rad from the one before, so Slerp spans nearly half turns), rates, offsets, time offsets,
  // loops and holds, linear and cubic interpolation, both steppers, a box geom on the body. At
  // a loop's seam (i0 + s k a whole number of periods) the time stands on both ends of the
  // loop, the last sample and the first: where rounding puts it decides which, and either is
  // the capture there.
  test::Random rnd(2024);
  double worst_p = 0.0, worst_a = 0.0;
  for (int run = 0; run < 200; ++run) {
    const int n = 40 + static_cast<int>(rnd.uniform(0, 100));
    const double dt = 1.0 / (60.0 * (1 + static_cast<int>(rnd.uniform(0, 3.999))));
    Track track("random");
    std::vector<Pose> samples;
    Pose p{rnd.unit_vector(), rnd.rotation()};
    for (int i = 0; i < n; ++i) {
      samples.push_back(p);
      track.append(i * dt, p);
      p.q = normalized(from_axis_angle(rnd.unit_vector(), rnd.uniform(0, 3.0)) * p.q);
      p.p += rnd.unit_vector() * rnd.uniform(0, 0.2);
    }
    const double rates[] = {0.5, 1.0, 2.0};
    const double rate = rates[static_cast<int>(rnd.uniform(0, 2.999))];
    const int k = 1 + static_cast<int>(rnd.uniform(0, 2.999));
    const int i0 = static_cast<int>(rnd.uniform(0, n - 2));
    BindOptions options;
    options.playback_rate = rate;
    options.time_offset = i0 * dt;
    const bool loop = rnd.uniform(0, 1) < 0.5;
    options.at_end = loop ? TrackEnd::Loop : TrackEnd::Hold;
    options.offset = {0.3 * rnd.unit_vector(), rnd.rotation()};
    options.interp = rnd.uniform(0, 1) < 0.3 ? Interp::Cubic : Interp::Linear;
    options.max_linear_speed = options.max_angular_speed = 1e12; // turns of 3 rad are data
    OdeScene scene;
    scene.quick = rnd.uniform(0, 1) < 0.5;
    dBodyID body = scene.box({0.1, 0.2, 0.3}, 1.0, {});
    KinematicDriver driver(scene.world);
    const auto id = driver.bind(body, track, options);
    const auto owed = [&](long i) {
      return Pose{samples[i].p + rotate(samples[i].q, options.offset.p),
                  samples[i].q * options.offset.q};
    };
    double moved_by_prestep = 0.0; // the body must get there by its velocities
    for (int s = 1; s <= 3 * n; ++s) {
      const double h = k * dt / rate;
      const Pose before = body_pose(body);
      const std::size_t seams = driver.stats(id).seams;
      driver.prestep(h);
      if (s > 1 && driver.stats(id).seams == seams) { // a seam carries the body: data, not motion
        moved_by_prestep =
            std::fmax(moved_by_prestep, norm(body_pose(body).p - before.p) +
                                            angle_between(body_pose(body).q, before.q));
      }
      scene.step(h);
      long i = i0 + static_cast<long>(s) * k;
      i = loop ? i % (n - 1) : std::min<long>(i, n - 1);
      const Pose at = body_pose(body);
      double off_p = norm(at.p - owed(i).p);
      double off_a = angle_between(at.q, owed(i).q);
      if (loop && i == 0) {
        off_p = std::fmin(off_p, norm(at.p - owed(n - 1).p));
        off_a = std::fmin(off_a, angle_between(at.q, owed(n - 1).q));
      }
      worst_p = std::fmax(worst_p, off_p);
      worst_a = std::fmax(worst_a, off_a);
    }
    EXPECT_EQ(driver.stats(id).teleports, 0u) << run;
    EXPECT_LT(moved_by_prestep, 1e-12) << run; // angle_between(q, q) is not always 0
  }
  std::printf("[ metric ] 200 random bindings, steps ending on capture samples: off the stored "
              "samples by %.2e m, %.2e rad at most\n",
              worst_p, worst_a);
  EXPECT_LE(worst_p, 1e-9);
  EXPECT_LE(worst_a, 1e-9);
}

TEST(Exactness, NaiveAngularVelocityMissesLargeSteps) {
  OdeScene scene;
  dBodyID body = dBodyCreate(scene.world);
  KinematicDriver driver(scene.world);
  driver.set_mode(DriveMode::LinearApprox);
  const auto id = driver.bind(body, sampled_track("spin", 0.01, 1, [](double t) {
                                return Pose{{}, from_axis_angle({0, 1, 1}, 40.0 * t)};
                              }));
  double worst = 0;
  for (int i = 0; i < 50; ++i) {
    driver.prestep(0.01);
    scene.step(0.01);
    worst = std::fmax(worst, angle_between(body_pose(body).q, driver.target(id, driver.time()).q));
  }
  EXPECT_GT(worst, 1e-4); // 23 degrees per step: the first-order estimate falls short
}

/// Whether `body` was given, to the bit, the one-body velocities that take it from `before` to
/// `goal` in a step of h: the position difference over h and the Slerp-derivative rate.
::testing::AssertionResult has_one_body_velocities(dBodyID body, const Pose& before,
                                                   const Pose& goal, double h) {
  const Vec3 v = (goal.p - before.p) * (1.0 / h);
  const Vec3 w = angular_velocity(before.q, goal.q, h);
  const dReal* lv = dBodyGetLinearVel(body);
  const dReal* av = dBodyGetAngularVel(body);
  for (int c = 0; c < 3; ++c) {
    if (lv[c] != (&v.x)[c] || av[c] != (&w.x)[c]) {
      return ::testing::AssertionFailure()
             << "component " << c << ": linear " << lv[c] << " against " << (&v.x)[c]
             << ", angular " << av[c] << " against " << (&w.x)[c];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Exactness, EveryKindOfBindingGetsTheOneBodyVelocitiesInAnyMix) {
  // prestep() drives plain track bindings in batches of eight and every other kind one at a
  // time (cubic interpolation, a pose source, release at the end). In a random mix of 29
  // bindings (random tracks, offsets, time offsets, rates, ends), each body must get, to the
  // bit, the velocities of the one-body formula from where it was to its own target, and land
  // on it: a batch that paired a body with another's samples, offset or pose fails.
  OdeScene scene;
  test::Random rnd(83);
  KinematicDriver driver(scene.world);
  std::vector<dBodyID> bodies;
  std::vector<KinematicDriver::BindingId> ids;
  std::vector<Pose> seams; // a loop's jump from its last pose to its first (world, on the left)
  for (int i = 0; i < 29; ++i) {
    const Vec3 axis = rnd.unit_vector();
    const double rate = rnd.uniform(0.5, 6.0), phase = rnd.uniform(0, 6);
    const Vec3 centre = rnd.unit_vector() * rnd.uniform(0, 2);
    Track track = sampled_track("random", k_capture_dt, 1.5, [&](double t) {
      return Pose{centre + Vec3{std::cos(rate * t + phase), std::sin(rate * t), 0.3 * t},
                  from_axis_angle(axis, rate * t + phase)};
    });
    BindOptions options;
    if (rnd.uniform(0, 1) < 0.5) {
      options.offset = {rnd.unit_vector() * rnd.uniform(0, 0.3), rnd.rotation()};
    }
    options.time_offset = rnd.uniform(-0.2, 0.5);
    options.playback_rate = rnd.uniform(0.5, 1.5);
    options.at_end = i % 3 == 0 ? TrackEnd::Loop : TrackEnd::Hold;
    if (i % 7 == 3) {
      options.interp = Interp::Cubic;
    }
    if (i % 11 == 5) {
      options.at_end = TrackEnd::Release;
    }
    const Pose first = track.sample(track.start_time(), options.interp);
    const Pose last = track.sample(track.end_time(), options.interp);
    const Quat back = conj(last.q);
    const Pose undo_last{rotate(back, -1.0 * last.p), back};
    seams.push_back({first.p + rotate(first.q, undo_last.p), first.q * undo_last.q});
    bodies.push_back(scene.box({0.1, 0.1, 0.1}, 1, {}));
    ids.push_back(i % 13 == 6
                      ? driver.bind(bodies.back(), std::make_shared<TrackSource>(track), options)
                      : driver.bind(bodies.back(), track, options));
  }
  dWorldSetGravity(scene.world, 0, 0, 0);
  const double h = k_capture_dt * 0.7;
  int checked = 0;
  int crossed = 0;
  std::vector<char> crossed_by(bodies.size(), 0);
  // 3.5 s: every looping binding reaches its track's end (1.5 s of track from a time offset of
  // -0.2 s or more at a rate of 0.5 or more: 3.4 s at most) and crosses its seam.
  for (int step = 0; step < 600; ++step) {
    std::vector<Pose> before;
    std::vector<std::size_t> seams_before;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      before.push_back(body_pose(bodies[i]));
      seams_before.push_back(driver.stats(ids[i]).seams);
    }
    const bool first = step == 0;
    driver.prestep(h);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (first || driver.stats(ids[i]).released || driver.stats(ids[i]).teleports > 0) {
        continue;
      }
      if (driver.stats(ids[i]).seams != seams_before[i]) {
        // Crossing its loop's seam, the body was first carried by the jump (and prestep
        // moves nothing else: the pose it is driven from is the one it has now).
        const Pose& j = seams[i];
        const Pose carried{j.p + rotate(j.q, before[i].p), j.q * before[i].q};
        before[i] = body_pose(bodies[i]);
        ASSERT_LE(norm(before[i].p - carried.p), 1e-12) << step << " " << i;
        ASSERT_LE(angle_between(before[i].q, carried.q), 1e-12) << step << " " << i;
        ++crossed;
        crossed_by[i] = 1;
      }
      ASSERT_TRUE(
          has_one_body_velocities(bodies[i], before[i], driver.target(ids[i], driver.time()), h))
          << "step " << step << ", body " << i;
      ++checked;
    }
    scene.step(h);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (!driver.stats(ids[i]).released) {
        const Pose goal = driver.target(ids[i], driver.time());
        ASSERT_LE(norm(body_pose(bodies[i]).p - goal.p), 1e-9) << step << " " << i;
        ASSERT_LE(angle_between(body_pose(bodies[i]).q, goal.q), 1e-9) << step << " " << i;
      }
    }
  }
  EXPECT_GT(checked, 14000);
  // Every looping binding crosses its seam: the batched ones (every third but 3, 6 and 27),
  // the cubic one (3) and the pose source (6); 27 is released at its end instead.
  EXPECT_GE(crossed, 9);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_EQ(crossed_by[i] != 0, i % 3 == 0 && i != 27) << i;
  }
}

TEST(Exactness, TracksSharingTheirTimesGetTheOneBodyVelocitiesWhateverTheirOptions) {
  // The bones of one capture keep their times once (Track::append_together), and prestep()
  // works a lookup and an interval out once for consecutive bindings on such tracks at the
  // same time. Bindings on two shared time bases, on a track with the same times stored apart
  // and on one with a gap, with time offsets, rates and ends drawn from a few values (so that
  // neighbours often agree and often do not), each get to the bit the one-body velocities
  // towards their own target: taking a neighbour's interval at another time, another end or
  // from other times fails, as does taking the interval of a binding that was driven alone.
  test::Random rnd(97);
  const auto shared_group = [&](double dt, std::size_t tracks) {
    std::vector<Track> group;
    for (std::size_t k = 0; k < tracks; ++k) {
      group.emplace_back("bone");
    }
    const std::size_t n = static_cast<std::size_t>(1.0 / dt) + 1;
    std::vector<double> times(n);
    std::vector<Vec3> positions(tracks * n);
    std::vector<Quat> orientations(tracks * n);
    for (std::size_t k = 0; k < tracks; ++k) {
      const Vec3 axis = rnd.unit_vector();
      const double rate = rnd.uniform(1.0, 5.0);
      for (std::size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) * dt;
        times[i] = t;
        positions[k * n + i] = {std::cos(rate * t), std::sin(rate * t) + static_cast<double>(k),
                                0.2 * t};
        orientations[k * n + i] = from_axis_angle(axis, rate * t);
      }
    }
    Track::append_together(group, times.data(), positions.data(), orientations.data(), n);
    return group;
  };
  const std::vector<Track> a = shared_group(k_capture_dt, 6);
  const std::vector<Track> b = shared_group(k_capture_dt * 1.5, 4);
  ASSERT_TRUE(a[0].same_intervals_as(a[5]));
  ASSERT_FALSE(a[0].same_intervals_as(b[0]));
  const Track apart = sampled_track("apart", k_capture_dt, 1.0, [](double t) {
    return Pose{{t, 0, 0}, from_axis_angle({0, 0, 1}, 2 * t)};
  });
  ASSERT_EQ(apart.times(), a[0].times());
  ASSERT_FALSE(apart.same_intervals_as(a[0])); // equal times, stored apart
  Track gap("gap");
  for (std::size_t i = 0; i < a[0].size(); ++i) {
    if (i == 40) {
      gap.append_gap(a[0].time(i));
    } else {
      gap.append(a[0].time(i), a[1].pose(i));
    }
  }
  ASSERT_FALSE(gap.same_intervals_as(gap)); // a gap: intervals skip it, worked out per track
  OdeScene scene;
  dWorldSetGravity(scene.world, 0, 0, 0);
  KinematicDriver driver(scene.world);
  std::vector<dBodyID> bodies;
  std::vector<KinematicDriver::BindingId> ids;
  for (int i = 0; i < 40; ++i) {
    const double pick = rnd.uniform(0, 1);
    const Track& track = pick < 0.45  ? a[static_cast<std::size_t>(rnd.uniform(0, 5.999))]
                         : pick < 0.8 ? b[static_cast<std::size_t>(rnd.uniform(0, 3.999))]
                         : pick < 0.9 ? apart
                                      : gap;
    BindOptions options;
    options.time_offset = rnd.uniform(0, 1) < 0.7 ? 0.0 : 0.1;
    options.playback_rate = rnd.uniform(0, 1) < 0.7 ? 1.0 : 0.5;
    options.at_end = rnd.uniform(0, 1) < 0.5 ? TrackEnd::Loop : TrackEnd::Hold;
    if (rnd.uniform(0, 1) < 0.3) {
      options.offset = {rnd.unit_vector() * 0.1, rnd.rotation()};
    }
    if (rnd.uniform(0, 1) < 0.15) {
      options.interp = Interp::Cubic; // driven alone, between bindings driven in the batch
    }
    bodies.push_back(scene.box({0.1, 0.1, 0.1}, 1, {}));
    ids.push_back(driver.bind(bodies.back(), track, options));
  }
  const double h = k_capture_dt * 0.7;
  int checked = 0;
  for (int step = 0; step < 400; ++step) { // 2.3 s: past the 1 s tracks' ends and seams
    std::vector<Pose> before;
    std::vector<std::size_t> seams_before;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      before.push_back(body_pose(bodies[i]));
      seams_before.push_back(driver.stats(ids[i]).seams);
    }
    driver.prestep(h);
    for (std::size_t i = 0; step > 0 && i < bodies.size(); ++i) {
      if (driver.stats(ids[i]).seams != seams_before[i]) {
        continue; // carried by the seam's jump first (the test above checks those steps)
      }
      ASSERT_TRUE(
          has_one_body_velocities(bodies[i], before[i], driver.target(ids[i], driver.time()), h))
          << "step " << step << ", body " << i;
      ++checked;
    }
    scene.step(h);
  }
  EXPECT_GT(checked, 15000);
}

// ---- 5. Auto-disable ------------------------------------------------------------------------

TEST(AutoDisable, ADrivenBodyKeepsFollowingItsTrackAfterLookingIdle) {
  OdeScene scene;
  dWorldSetAutoDisableFlag(scene.world, 1);
  // Still for 2 s, then 0.5 m/s along x; a dynamic box leans on it.
  const auto platform_pose = [](double t) {
    return Pose{{t < 2 ? 0.0 : 0.5 * (t - 2), 0, 0.05}, Quat{}};
  };
  dBodyID driven = scene.box({1, 1, 0.1}, 5, {0, 0, 0.05});
  dBodyID rider = scene.box({0.2, 0.2, 0.2}, 1, {0, 0, 0.2});
  KinematicDriver driver(scene.world);
  const auto id = driver.bind(driven, sampled_track("platform", k_capture_dt, 5, platform_pose));
  // The naive counterpart: a kinematic body whose velocity is set by hand every step, with a
  // rider of its own (ODE only puts bodies with joints, here contacts, to sleep).
  dBodyID manual = scene.box({1, 1, 0.1}, 5, {0, 3, 0.05});
  dBodySetKinematic(manual);
  scene.box({0.2, 0.2, 0.2}, 1, {0, 3, 0.2});
  double worst = 0;
  for (int i = 0; i < 480; ++i) {
    driver.prestep(k_capture_dt);
    const double t = (i + 1) * k_capture_dt;
    dBodySetLinearVel(manual, t > 2 ? 0.5 : 0.0, 0, 0);
    scene.step(k_capture_dt);
    worst = std::fmax(worst, norm(body_pose(driven).p - driver.target(id, driver.time()).p));
  }
  const double manual_x = dBodyGetPosition(manual)[0];
  std::printf("[ metric ] auto-disable: driven body worst %.2e m off its track; hand-driven "
              "kinematic body at x = %.3f m (track: 1.000 m); rider at x = %.3f m\n",
              worst, manual_x, dBodyGetPosition(rider)[0]);
  EXPECT_LE(worst, 1e-9);
  EXPECT_GT(dBodyGetPosition(rider)[0], 0.9); // carried along
  EXPECT_LT(manual_x, 0.5);                   // ODE put the hand-driven body to sleep
}

// ---- 6. A real capture against props --------------------------------------------------------

TEST(RealCapture, CmuHopDrivesCapsulesThatKickPropsAndStayOnTheirTracks) {
  LoadOptions load;
  load.length_scale = 0.0254 / 0.45; // CMU units to metres
  load.up_axis = Axis::Z;
  const Capture capture = load_capture(test::repo_data("cmu/131_03.bvh"), load);
  const Skeleton& skeleton = *capture.skeleton();
  OdeScene scene;
  scene.quick = true;
  const double radius = 0.04;
  KinematicDriver driver(scene.world);
  std::vector<KinematicDriver::BindingId> ids;
  double floor_z = 1e9;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    if (joint.end_site) {
      continue;
    }
    const Track& track = capture.track(joint.name);
    for (std::size_t f = 0; f < track.size(); ++f) {
      floor_z = std::fmin(floor_z, track.position(f).z);
    }
    // A capsule from the joint to its first child (joint or End Site), in the joint's frame.
    dBodyID body = dBodyCreate(scene.world);
    for (std::size_t c = j + 1; c < skeleton.joints.size(); ++c) {
      if (skeleton.joints[c].parent == static_cast<int>(j)) {
        const Vec3 bone = skeleton.joints[c].offset * load.length_scale;
        const double length = norm(bone);
        if (length > 2 * radius) {
          dGeomID geom = dCreateCapsule(scene.space, radius, length);
          dGeomSetBody(geom, body);
          dGeomSetOffsetPosition(geom, 0.5 * bone.x, 0.5 * bone.y, 0.5 * bone.z);
          dQuaternion q;
          to_ode(from_to({0, 0, 1}, bone), q);
          dGeomSetOffsetQuaternion(geom, q);
        }
        break;
      }
    }
    ids.push_back(driver.bind(body, track));
  }
  floor_z -= radius;
  dCreatePlane(scene.space, 0, 0, 1, floor_z);
  // Props where the feet come down later in the take.
  std::vector<dBodyID> props;
  std::vector<Vec3> start;
  for (const char* foot : {"LeftToe", "RightToe"}) {
    for (std::size_t f : {150, 350, 550, 750, 950}) {
      const Vec3 p = capture.track(foot).position(f);
      props.push_back(scene.box({0.12, 0.12, 0.12}, 0.3, {p.x, p.y, floor_z + 0.0601}));
      start.push_back({p.x, p.y, floor_z + 0.0601});
    }
  }
  const double h = 1.0 / 120;
  const auto steps = static_cast<int>(skeleton.frame_count) - 1;
  double worst_p = 0, worst_a = 0;
  bool finite = true;
  for (int i = 0; i < steps; ++i) {
    driver.prestep(h);
    scene.step(h);
    for (KinematicDriver::BindingId id : ids) {
      const Pose actual = body_pose(driver.body(id));
      const Pose expected = driver.target(id, driver.time());
      finite = finite && is_finite(actual.p) && is_finite(actual.q);
      worst_p = std::fmax(worst_p, norm(actual.p - expected.p));
      worst_a = std::fmax(worst_a, angle_between(normalized(actual.q), expected.q));
    }
    for (dBodyID prop : props) {
      finite = finite && is_finite(body_pose(prop).p);
    }
  }
  double moved = 0, total = 0;
  for (std::size_t k = 0; k < props.size(); ++k) {
    const double d = norm(body_pose(props[k]).p - start[k]);
    moved += d > 0.02;
    total = std::fmax(total, d);
  }
  std::size_t teleports = 0;
  std::string teleported;
  for (KinematicDriver::BindingId id : ids) {
    teleports += driver.stats(id).teleports;
    if (driver.stats(id).teleports > 0) {
      teleported += " " + capture.tracks()[id].name() + "(" +
                    std::to_string(driver.stats(id).teleports) + ")";
    }
  }
  std::printf("[ metric ] teleported (speed limits 50 m/s, 150 rad/s):%s\n", teleported.c_str());
  std::printf("[ metric ] CMU 131_03, %zu bodies, %d steps: worst off-track %.2e m, %.2e rad; "
              "%zu teleports; %d contacts; %.0f of %zu props moved > 2 cm, farthest %.2f m\n",
              ids.size(), steps, worst_p, worst_a, teleports, scene.contacts_made, moved,
              props.size(), total);
  EXPECT_TRUE(finite);
  EXPECT_LE(worst_p, 1e-9);
  EXPECT_LE(worst_a, 1e-9);
  EXPECT_GE(moved, 1.0);
}

} // namespace
} // namespace odemocap
