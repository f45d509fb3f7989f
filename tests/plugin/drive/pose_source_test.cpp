// The driver follows any PoseSource with the same exact velocities as a Track: functions of
// time (a blend, a procedure) land exactly on their poses, a TrackSource drives as the track
// itself does, gaps and invalid poses hold the body still and are counted.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace odemocap {
namespace {

using test::OdeScene;
using test::sampled_track;

Pose tumbling(double t) {
  const Quat spin = from_axis_angle(normalized(Vec3{std::sin(t), 0.4, std::cos(0.7 * t)}), 3 * t);
  return {{0.5 * std::cos(2 * t), 0.5 * std::sin(2 * t), 1.0 + 0.2 * t}, spin};
}

TEST(PoseSource, AFunctionOfTimeIsFollowedExactlyAtAnyStep) {
  OdeScene scene;
  dBodyID body = dBodyCreate(scene.world);
  KinematicDriver driver(scene.world);
  auto source = std::make_shared<FunctionSource>("tumble", [](double t, Pose& out) {
    out = tumbling(t);
    return true;
  });
  driver.bind(body, source);
  // A track sampled from the same function at 120 Hz, for contrast: between its samples it is
  // the linear interpolation, not the function.
  dBodyID sampled = dBodyCreate(scene.world);
  driver.bind(sampled, sampled_track("tumble", 1.0 / 120, 4.0, tumbling));
  double worst_m = 0, worst_rad = 0, sampled_m = 0;
  const double h = 1.0 / 333; // not a multiple of anything in the data
  for (int i = 0; i < 1000; ++i) {
    driver.prestep(h);
    scene.step(h);
    const Pose want = tumbling(driver.time());
    worst_m = std::fmax(worst_m, norm(body_pose(body).p - want.p));
    worst_rad = std::fmax(worst_rad, angle_between(body_pose(body).q, want.q));
    sampled_m = std::fmax(sampled_m, norm(body_pose(sampled).p - want.p));
  }
  std::printf("  function source at 333 Hz: %.1e m, %.1e rad off the function; a 120 Hz track of "
              "it: %.1e m\n",
              worst_m, worst_rad, sampled_m);
  EXPECT_LT(worst_m, 1e-12);
  EXPECT_LT(worst_rad, 1e-12);
  EXPECT_GT(sampled_m, 1e-5);
}

TEST(PoseSource, BodiesFollowAWalkRunBlendWhileItsWeightRamps) {
  // Every bone of CMU 35's walk/run blend on a kinematic body; b ramps from walk to run while
  // the world steps, and each body lands on its bone's blended pose.
  LoadOptions load;
  load.up_axis = Axis::Z;
  load.to_metres = true;
  LoopClipOptions cut;
  cut.start_time = 0.005;
  const Capture run_capture = load_capture(test::repo_data("cmu/35_24.bvh"), load);
  const Capture walk_capture = load_capture(test::repo_data("cmu/35_07.bvh"), load);
  const LoopClip run(run_capture, cut);
  cut.cycle = 1;
  const LoopClip walk(walk_capture, cut);
  auto blend = std::make_shared<ClipBlend>(std::vector<LoopClip>{walk, run});
  OdeScene scene;
  KinematicDriver driver(scene.world);
  std::vector<dBodyID> bodies;
  for (std::size_t b = 0; b < walk.bones().size(); ++b) {
    bodies.push_back(dBodyCreate(scene.world));
    driver.bind(bodies.back(), ClipBlend::bone_source(blend, b));
  }
  const double h = 1.0 / 240;
  double worst_m = 0.0, worst_rad = 0.0;
  for (int i = 0; i < 4 * 240; ++i) {
    blend->set_weight(std::clamp((driver.time() - 0.5) / 3.0, 0.0, 1.0));
    driver.prestep(h);
    scene.step(h);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      Pose want;
      ASSERT_TRUE(blend->pose(b, driver.time(), want));
      worst_m = std::fmax(worst_m, norm(body_pose(bodies[b]).p - want.p));
      worst_rad = std::fmax(worst_rad, angle_between(body_pose(bodies[b]).q, want.q));
    }
  }
  std::printf("  %zu bodies on a walk/run blend, b 0 -> 1 in 3 s: %.1e m, %.1e rad off\n",
              bodies.size(), worst_m, worst_rad);
  EXPECT_LT(worst_m, 1e-9);
  EXPECT_LT(worst_rad, 1e-6);
  EXPECT_EQ(blend->weight(), 1.0);
}

TEST(PoseSource, ABodyFollowsALiveStreamThroughItsJitterBuffer) {
  // A tool streamed at 120 Hz with 2-7 ms of delivery delay (a fake local clock steps with
  // the world at 240 Hz): the body lands on the pose the stream gives for the driver's next
  // time, interpolated in the buffer or, for the newest data, extrapolated.
  double now = 0.0;
  LiveSourceSettings settings;
  settings.clock = [&now] { return now; };
  auto live = std::make_shared<LiveSource>("tool", settings);
  OdeScene scene;
  dBodyID body = dBodyCreate(scene.world);
  KinematicDriver driver(scene.world);
  const auto truth = [](double c) { return tumbling(c); };
  std::uint64_t next = 0;
  const auto deliver = [&] {
    for (;; ++next) {
      const double c = static_cast<double>(next) / 120.0;
      const double arrives = c + 0.002 + 0.005 * (0.5 + 0.5 * std::sin(37.0 * c));
      if (arrives > now) {
        return;
      }
      live->push({c, arrives, next, truth(c), true});
    }
  };
  const double h = 1.0 / 240;
  deliver();
  double worst_m = 0.0, worst_rad = 0.0;
  for (int i = 0; i < 4 * 240; ++i) {
    now = i * h;
    deliver();
    if (i == 2) {
      driver.bind(body, live); // once two samples are in
    }
    if (i < 2) {
      continue;
    }
    driver.prestep(h);
    scene.step(h);
    Pose want; // what the stream gave for the driver's new time (no data has come since)
    ASSERT_TRUE(live->pose(driver.time(), want));
    if (i > 24) { // after the first 0.1 s: the jitter buffer has its depth
      worst_m = std::fmax(worst_m, norm(body_pose(body).p - want.p));
      worst_rad = std::fmax(worst_rad, angle_between(body_pose(body).q, want.q));
    }
  }
  const LiveStats stats = live->state().stats;
  std::printf("  live stream: body %.1e m, %.1e rad off the stream; buffer %.1f ms; %zu samples, "
              "%zu queries extrapolated (the driver asks one step ahead), %zu stale (before a "
              "second sample)\n",
              worst_m, worst_rad, 1e3 * live->state().delay, stats.received, stats.extrapolated,
              stats.stale);
  EXPECT_LE(stats.stale, 8u);
  EXPECT_LT(worst_m, 1e-9);
  EXPECT_LT(worst_rad, 1e-9);
  EXPECT_FALSE(live->state().stale);
}

TEST(PoseSource, ATrackSourceDrivesAsTheTrackItselfDoes) {
  for (const TrackEnd end : {TrackEnd::Hold, TrackEnd::Loop}) {
    OdeScene scene;
    KinematicDriver driver(scene.world);
    const Track track = sampled_track("tumble", 1.0 / 120, 2.0, tumbling);
    BindOptions options;
    options.at_end = end;
    options.offset = {{0.1, 0, 0.2}, from_axis_angle({0, 0, 1}, 0.3)};
    options.playback_rate = 1.3;
    dBodyID direct = dBodyCreate(scene.world);
    dBodyID via_source = dBodyCreate(scene.world);
    driver.bind(direct, track, options);
    driver.bind(via_source, std::make_shared<TrackSource>(track), options);
    double worst = 0;
    for (int i = 0; i < 800; ++i) { // 3.3 s: past the end, and once round the loop
      driver.prestep(1.0 / 240);
      scene.step(1.0 / 240);
      worst = std::fmax(worst, norm(body_pose(direct).p - body_pose(via_source).p) +
                                   angle_between(body_pose(direct).q, body_pose(via_source).q));
    }
    EXPECT_LT(worst, 1e-9) << (end == TrackEnd::Loop ? "loop" : "hold");
  }
}

TEST(PoseSource, GapsAndInvalidPosesHoldTheBodyStillAndAreCounted) {
  OdeScene scene;
  dBodyID body = dBodyCreate(scene.world);
  KinematicDriver driver(scene.world);
  const double h = 0.01;
  // No pose from 0.5 s to 0.7 s, a NaN from 1.0 to 1.1 s, a non-unit quaternion at 1.3 s.
  auto source = std::make_shared<FunctionSource>("flaky", [](double t, Pose& out) {
    if (t > 0.5 - 1e-9 && t < 0.7 - 1e-9) {
      return false;
    }
    out = tumbling(t);
    if (t > 1.0 - 1e-9 && t < 1.1 - 1e-9) {
      out.p.x = NAN;
    }
    if (std::fabs(t - 1.3) < 1e-9) {
      out.q = out.q * 1.01;
    }
    return true;
  });
  const auto id = driver.bind(body, source);
  Vec3 held;
  for (int i = 0; i < 200; ++i) {
    driver.prestep(h);
    scene.step(h);
    const double t = driver.time();
    const Pose have = body_pose(body);
    ASSERT_TRUE(is_finite(have.p) && is_finite(have.q));
    const auto within = [&](double a, double b) { return t > a - 1e-9 && t < b - 1e-9; };
    if (within(0.5, 0.7) || within(1.0, 1.1) || within(1.3, 1.31)) {
      EXPECT_TRUE(test::near_vec(have.p, held, 0)) << t; // still
    } else {
      EXPECT_TRUE(test::near_vec(have.p, tumbling(t).p, 1e-12)) << t; // on the source
    }
    held = have.p;
  }
  EXPECT_EQ(driver.stats(id).gaps, 20u);      // the steps aiming at 0.50 ... 0.69 s
  EXPECT_EQ(driver.stats(id).bad_poses, 11u); // 1.00 ... 1.09 s and 1.30 s
}

TEST(PoseSource, ASourceWithAnEndIsReleasedThereOneWithoutNever) {
  OdeScene scene(0.0);
  KinematicDriver driver(scene.world);
  BindOptions release;
  release.at_end = TrackEnd::Release;
  dBodyID ends = scene.box({0.1, 0.1, 0.1}, 1, {});
  dBodyID endless = scene.box({0.1, 0.1, 0.1}, 1, {0, 1, 0});
  const auto moving = [](double y) {
    return [y](double t, Pose& out) {
      out = {{t, y, 0}, Quat{}};
      return true;
    };
  };
  const auto a =
      driver.bind(ends, std::make_shared<FunctionSource>("ends", moving(0.0), 0.0, 0.5), release);
  const auto b =
      driver.bind(endless, std::make_shared<FunctionSource>("endless", moving(1.0)), release);
  for (int i = 0; i < 100; ++i) {
    driver.prestep(0.01);
    scene.step(0.01);
  }
  EXPECT_TRUE(driver.stats(a).released);
  EXPECT_FALSE(driver.stats(b).released);
  EXPECT_NEAR(dBodyGetLinearVel(ends)[0], 1.0, 1e-9); // flies on with its last velocity
}

TEST(PoseSource, BadSourcesAreRefused) {
  OdeScene scene;
  KinematicDriver driver(scene.world);
  dBodyID body = dBodyCreate(scene.world);
  EXPECT_NE(test::error_message<PluginError>([&] {
              driver.bind(body, std::shared_ptr<const PoseSource>());
            }).find("null"),
            std::string::npos);
  EXPECT_NE(test::error_message<MocapError>([] { FunctionSource("f", nullptr); }).find("empty"),
            std::string::npos);
  const auto f = [](double, Pose&) { return true; };
  EXPECT_NE(test::error_message<MocapError>([&] {
              FunctionSource("f", f, 2.0, 1.0);
            }).find("after the end"),
            std::string::npos);
  EXPECT_NE(
      test::error_message<MocapError>([] { TrackSource(Track("empty")); }).find("no valid sample"),
      std::string::npos);
}

} // namespace
} // namespace odemocap
