// LiveSource against a stream written here: a body moving and turning at constant velocities,
// sampled at 120 Hz, delivered with latency, jitter, loss, reordering and duplicates; every
// pose it gives is checked against the motion itself.
#include "support/error_message.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace odemocap {
namespace {

constexpr double k_rate = 120.0;
constexpr double k_latency = 0.002; // s, the fastest delivery

/// Constant linear (m/s) and angular (rad/s, world frame) velocity: interpolating between its
/// samples (lerp, Slerp) and extrapolating them along the geodesic are both exact.
Pose motion(double t) {
  const Quat q0 = normalized(Quat{0.9, 0.1, -0.3, 0.2});
  return {{0.3 + 1.2 * t, -0.4 + 0.5 * t, 1.0 - 0.2 * t},
          from_rotation_vector(Vec3{0.8, -1.1, 2.3} * t) * q0};
}

LiveSample sample(std::uint64_t frame, double receive_delay = k_latency) {
  const double c = static_cast<double>(frame) / k_rate;
  return {c, c + receive_delay, frame, motion(c), true};
}

struct FakeClock {
  double now = 0.0;
};

LiveSourceSettings with_clock(FakeClock& clock) {
  LiveSourceSettings s;
  s.clock = [&clock] { return clock.now; };
  return s;
}

double position_error(const Pose& got, double c) {
  return norm(got.p - motion(c).p);
}

double angle_error(const Pose& got, double c) {
  return angle_between(got.q, motion(c).q);
}

TEST(LiveSource, InterpolatesTheStreamExactlyInsideItsBuffer) {
  FakeClock clock;
  LiveSource source("tool", with_clock(clock));
  Pose out;
  EXPECT_FALSE(source.pose_at_local(0.0, out)); // nothing received yet
  for (std::uint64_t f = 0; f <= 120; ++f) {
    source.push(sample(f));
  }
  EXPECT_NEAR(source.state().clock_offset, k_latency, 1e-15);
  const double depth = source.state().delay;
  EXPECT_NEAR(depth, 1 / k_rate, 1e-12); // no jitter: one frame, for the next sample to be in
  double worst_m = 0.0, worst_rad = 0.0;
  for (int k = 0; k <= 240; ++k) { // 240 Hz queries between the 120 Hz samples
    const double c = k / 240.0;
    ASSERT_TRUE(source.pose_at_local(c + k_latency + depth, out));
    worst_m = std::max(worst_m, position_error(out, c));
    worst_rad = std::max(worst_rad, angle_error(out, c));
  }
  EXPECT_LT(worst_m, 1e-12);
  EXPECT_LT(worst_rad, 1e-12);
  const LiveStats s = source.state().stats;
  EXPECT_EQ(s.received, 121u);
  EXPECT_EQ(s.lost + s.late + s.reordered + s.extrapolated + s.stale, 0u);
}

TEST(LiveSource, ExtrapolatesAlongTheGeodesicUpToItsCapThenHoldsAndIsStale) {
  FakeClock clock;
  LiveSource source("tool", with_clock(clock));
  for (std::uint64_t f = 0; f <= 12; ++f) {
    source.push(sample(f));
  }
  const double newest = 12 / k_rate;
  const double due = k_latency + source.state().delay; // local time minus capture time played
  Pose out;
  ASSERT_TRUE(source.pose_at_local(newest + 0.02 + due, out)); // 20 ms past the data
  EXPECT_LT(position_error(out, newest + 0.02), 1e-12);
  EXPECT_LT(angle_error(out, newest + 0.02), 1e-12);
  EXPECT_FALSE(source.state().stale);
  // The naive extrapolation of the quaternion's components (then normalised) misses.
  const Quat q0 = motion(newest - 1 / k_rate).q, q1 = motion(newest).q;
  const Quat naive = normalized(q1 + (0.02 * k_rate) * (q1 - q0));
  EXPECT_GT(angle_between(naive, motion(newest + 0.02).q), 1e-5);
  // Past the 30 ms cap the pose holds at the cap, and the source says it is stale.
  ASSERT_TRUE(source.pose_at_local(newest + 0.05 + due, out));
  EXPECT_LT(position_error(out, newest + 0.03), 1e-12);
  EXPECT_TRUE(source.state().stale);
  const LiveStats s = source.state().stats;
  EXPECT_EQ(s.extrapolated, 1u);
  EXPECT_EQ(s.stale, 1u);
  // Fresh data ends the staleness (played time does not go back: the stream resumes past
  // where the hold began).
  for (std::uint64_t f = 13; f <= 24; ++f) {
    source.push(sample(f));
  }
  ASSERT_TRUE(source.pose_at_local(newest + 0.06 + due, out));
  EXPECT_FALSE(source.state().stale);
  EXPECT_LT(position_error(out, newest + 0.06), 1e-12);
}

TEST(LiveSource, LossJitterReorderingAndDuplicatesAreCountedAndNeverPlayedBackwards) {
  FakeClock clock;
  LiveSourceSettings settings = with_clock(clock);
  LiveSource source("tool", settings);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(0.0, 0.005), unit(0.0, 1.0);
  // 10 s at 120 Hz: 5% lost, 5 ms of jitter, a few pairs swapped, a few sent twice.
  std::vector<LiveSample> wire;
  std::size_t dropped = 0, duplicated = 0;
  for (std::uint64_t f = 0; f < 1200; ++f) {
    if (f > 0 && f < 1199 && unit(rng) < 0.05) {
      ++dropped;
      continue;
    }
    wire.push_back(sample(f, k_latency + jitter(rng)));
    if (unit(rng) < 0.01) {
      wire.push_back(wire.back());
      wire.back().receive_time += 0.001;
      ++duplicated;
    }
  }
  std::sort(wire.begin(), wire.end(), [](const LiveSample& a, const LiveSample& b) {
    return a.receive_time < b.receive_time;
  });
  std::size_t swapped = 0;
  for (std::size_t i = 50; i + 1 < wire.size(); i += 97) { // the later frame first
    if (wire[i].frame < wire[i + 1].frame) {
      std::swap(wire[i], wire[i + 1]);
      ++swapped;
    }
  }
  std::size_t next = 0, stale_at_start = 0;
  double previous_played = -1.0, worst_m = 0.0, worst_rad = 0.0;
  Pose out;
  for (int k = 0; k < 240 * 10; ++k) {
    clock.now = k / 240.0;
    if (k == 12) { // 50 ms: queries before a second sample had come held the first one
      stale_at_start = source.state().stats.stale;
      EXPECT_LE(stale_at_start, 4u);
    }
    while (next < wire.size() && wire[next].receive_time <= clock.now) {
      source.push(wire[next++]);
    }
    if (!source.pose_at_local(clock.now, out)) {
      continue;
    }
    ASSERT_TRUE(is_finite(out.p) && is_finite(out.q));
    const double played = source.state().played_time;
    EXPECT_GE(played, previous_played); // never backwards
    previous_played = played;
    if (!source.state().stale) {
      worst_m = std::max(worst_m, position_error(out, played));
      worst_rad = std::max(worst_rad, angle_error(out, played));
    }
  }
  const LiveStats s = source.state().stats;
  std::printf("  10 s stream, %zu lost, %zu swapped, %zu doubled: lost %zu, reordered %zu, "
              "duplicates %zu, late %zu, extrapolated %zu, stale %zu; depth %.1f ms; error "
              "%.1e m, %.1e rad\n",
              dropped, swapped, duplicated, s.lost, s.reordered, s.duplicates, s.late,
              s.extrapolated, s.stale, 1e3 * source.state().delay, worst_m, worst_rad);
  EXPECT_EQ(s.received, wire.size());
  EXPECT_EQ(s.lost, dropped);
  EXPECT_EQ(s.reordered, swapped);
  EXPECT_EQ(s.duplicates, duplicated);
  EXPECT_LT(s.late, 10u);             // only while the buffer's depth is still growing
  EXPECT_EQ(s.stale, stale_at_start); // a lost frame or two never outlasts the 30 ms cap
  EXPECT_LT(worst_m, 1e-9);
  EXPECT_LT(worst_rad, 1e-9);
  // The buffer is as deep as the jitter seen (5 ms) and one frame.
  EXPECT_GT(source.state().delay, 0.004 + 1 / k_rate);
  EXPECT_LE(source.state().delay, 0.005 + 1 / k_rate + 1e-12);
}

TEST(LiveSource, TheBufferDepthStaysWithinItsBounds) {
  FakeClock clock;
  LiveSourceSettings shallow = with_clock(clock);
  shallow.max_delay = 0.003;
  LiveSource source("tool", shallow);
  for (std::uint64_t f = 0; f < 10; ++f) {
    source.push(sample(f, k_latency + (f % 2 == 0 ? 0.0 : 0.008)));
  }
  EXPECT_DOUBLE_EQ(source.state().delay, 0.003);
  LiveSourceSettings deep = with_clock(clock);
  deep.min_delay = 0.02;
  LiveSource padded("tool", deep);
  padded.push(sample(0));
  EXPECT_DOUBLE_EQ(padded.state().delay, 0.02);
}

TEST(LiveSource, ADriverAskingForTheEndOfItsStepGetsAnInterpolatedPose) {
  // A driver binds at time 0 (the first question: driver time 0 is now), then at 240 Hz asks,
  // at the start of each step, for the pose at its end: one step ahead of the clock. Frames
  // (120 Hz) arrive 2 or 3 ms after capture. pose() deepens the buffer by that lookahead and
  // interpolates every time; the same questions put to pose_at_local (no lookahead) often
  // run past the newest frame and extrapolate.
  FakeClock clock;
  LiveSource driven("tool", with_clock(clock));
  LiveSource naive("tool", with_clock(clock));
  const double h = 1.0 / 240;
  std::uint64_t next = 0;
  double epoch = 0.0;
  for (int k = 0; k < 480; ++k) {
    clock.now = 0.5 + k * h;
    for (;; ++next) {
      const LiveSample s = sample(next, next % 2 == 0 ? 0.002 : 0.003);
      if (s.receive_time > clock.now) {
        break;
      }
      driven.push(s);
      naive.push(s);
    }
    Pose a, b;
    if (k == 0) {
      epoch = clock.now;
      ASSERT_TRUE(driven.pose(0.0, a)); // the bind: driver time 0 is now
    }
    ASSERT_TRUE(driven.pose(k * h + h, a));
    ASSERT_TRUE(naive.pose_at_local(epoch + k * h + h, b));
  }
  EXPECT_EQ(driven.state().stats.extrapolated, 0u);
  std::printf("  one step ahead: %zu of 480 questions extrapolated with pose(), %zu without the "
              "lookahead\n",
              driven.state().stats.extrapolated, naive.state().stats.extrapolated);
  EXPECT_GT(naive.state().stats.extrapolated, 100u);
  EXPECT_NEAR(driven.state().delay - naive.state().delay, h, 1e-12);
}

TEST(LiveSource, DriverTimeStartsAtTheFirstQuestion) {
  FakeClock clock;
  LiveSource source("tool", with_clock(clock));
  for (std::uint64_t f = 0; f <= 240; ++f) {
    source.push(sample(f, 100.0)); // the server's clock is 100 s behind ours
  }
  clock.now = 100.5;
  Pose at_start, later;
  // Driver time 0 = local 100.5 = capture 0.5, played one frame (the buffer's depth) later.
  const double depth = source.state().delay;
  ASSERT_TRUE(source.pose(0.0, at_start));
  EXPECT_LT(position_error(at_start, 0.5 - depth), 1e-12);
  clock.now = 100.75; // a driver in real time
  ASSERT_TRUE(source.pose(0.25, later));
  EXPECT_LT(position_error(later, 0.75 - depth), 1e-12);
  EXPECT_EQ(source.start_time(), 0.0);
  EXPECT_TRUE(std::isinf(source.end_time()));
}

TEST(LiveSource, AnUntrackedFrameIsReceivedNotLost) {
  FakeClock clock;
  LiveSource source("tool", with_clock(clock));
  for (std::uint64_t f = 0; f < 5; ++f) {
    LiveSample s = sample(f);
    s.valid = f != 2; // the server lost sight of the body, not the network the packet
    source.push(s);
  }
  const LiveStats stats = source.state().stats;
  EXPECT_EQ(stats.received, 5u);
  EXPECT_EQ(stats.invalid, 1u);
  EXPECT_EQ(stats.lost, 0u);
}

TEST(LiveSource, BadSamplesAndSettingsAreRefused) {
  FakeClock clock;
  LiveSource source("tool", with_clock(clock));
  LiveSample nan = sample(0);
  nan.pose.p.x = NAN;
  source.push(nan);
  LiveSample untracked = sample(1);
  untracked.valid = false;
  source.push(untracked);
  Pose out;
  EXPECT_FALSE(source.pose_at_local(1.0, out));
  EXPECT_EQ(source.state().stats.invalid, 2u);
  LiveSourceSettings bad;
  bad.max_extrapolation = -0.01;
  EXPECT_THROW(LiveSource("x", bad), MocapError);
  bad = {};
  bad.min_delay = 0.2;
  EXPECT_NE(test::error_message<MocapError>([&] { LiveSource("x", bad); }).find("min_delay"),
            std::string::npos);
  bad = {};
  bad.capacity = 1;
  EXPECT_THROW(LiveSource("x", bad), MocapError);
}

} // namespace
} // namespace odemocap
