// Footfall detection against gaits written out by hand: stance, swing at constant speed along
// an arc, stance; noise near the thresholds; gaps; and a real capture's feet.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace odemocap {
namespace {

constexpr double k_rate = 120.0;
constexpr double k_pi = 3.14159265358979323846;

/// A foot planted during [0, 0.5), [1.0, 1.6) and [2.1, 2.6] s, swinging 0.8 m forward in
/// between at 1.6 m/s along an arc 0.15 m high; `noise` (m) jitters every sample.
Track gait(double noise = 0.0) {
  Track foot("RightFoot");
  const double stances[3][2] = {{0.0, 0.5}, {1.0, 1.6}, {2.1, 2.6}};
  double x = 0.0;
  for (int i = 0; i <= static_cast<int>(2.6 * k_rate); ++i) {
    const double t = i / k_rate;
    double z = 0.05;
    for (int s = 0; s < 2; ++s) {
      const double a = stances[s][1], b = stances[s + 1][0];
      if (t >= a && t < b) {
        const double u = (t - a) / (b - a);
        x = 0.8 * s + 0.8 * u;
        z = 0.05 + 0.15 * std::sin(k_pi * u);
      } else if (t >= b) {
        x = 0.8 * (s + 1);
      }
    }
    const double jitter = noise * std::sin(1234.5 * i);
    foot.append(t, {{x + jitter, 0.3 + jitter, z + jitter}, Quat{}});
  }
  return foot;
}

TEST(Footfall, StancesOfAWrittenGaitAreFoundToAFrame) {
  const auto stances = detect_stances(gait(), Axis::Z);
  ASSERT_EQ(stances.size(), 3u);
  const double want[3][2] = {{0.0, 0.5}, {1.0, 1.6}, {2.1, 2.6}};
  for (int s = 0; s < 3; ++s) {
    EXPECT_NEAR(stances[s].start, want[s][0], 1.0 / k_rate + 1e-9) << s;
    EXPECT_NEAR(stances[s].end, want[s][1], 1.0 / k_rate + 1e-9) << s;
  }
}

TEST(Footfall, NoiseNearTheThresholdsDoesNotSplitAStance) {
  // 1 mm of jitter: up to 0.34 m/s between samples, above speed_on, below speed_off.
  const auto stances = detect_stances(gait(0.001), Axis::Z);
  EXPECT_EQ(stances.size(), 3u);
  // Without hysteresis (on = off) the same jitter splits the stances into many.
  FootfallOptions no_hysteresis;
  no_hysteresis.speed_on = 0.3;
  no_hysteresis.speed_off = 0.300001;
  EXPECT_GT(detect_stances(gait(0.001), Axis::Z, no_hysteresis).size(), 6u);
}

TEST(Footfall, AGapEndsAStanceAndUnitsAreHonoured) {
  Track foot = gait();
  Track gapped("RightFoot");
  for (std::size_t i = 0; i < foot.size(); ++i) {
    if (foot.time(i) > 1.2 && foot.time(i) < 1.3) {
      gapped.append_gap(foot.time(i));
    } else {
      gapped.append(foot.time(i), foot.pose(i));
    }
  }
  EXPECT_EQ(detect_stances(gapped, Axis::Z).size(), 4u); // the middle stance in two pieces
  // The same gait stored in centimetres: thresholds follow metres_per_unit.
  Track cm = gait();
  cm.scale_positions(100.0);
  FootfallOptions in_cm;
  in_cm.metres_per_unit = 0.01;
  EXPECT_EQ(detect_stances(cm, Axis::Z, in_cm).size(), 3u);
}

TEST(Footfall, OneStrayLowSampleDoesNotSetTheGround) {
  // A rest-pose frame first, 10 cm below the planted foot (as CMU's BVH conversions start).
  const Track clean = gait();
  Track stray("RightFoot");
  stray.append(-1.0 / k_rate, {{0.0, 0.3, -0.05}, Quat{}});
  for (std::size_t i = 0; i < clean.size(); ++i) {
    stray.append(clean.time(i), clean.pose(i));
  }
  EXPECT_EQ(detect_stances(stray, Axis::Z).size(), 3u);
  // The plain lowest point (what holding it for no time gives) puts the ground 10 cm too low:
  // the planted foot is never near it.
  FootfallOptions plain_minimum;
  plain_minimum.min_duration = 0.0;
  EXPECT_EQ(detect_stances(stray, Axis::Z, plain_minimum).size(), 0u);
  EXPECT_EQ(detect_stances(clean, Axis::Z, plain_minimum).size(), 3u);
}

TEST(Footfall, InvalidOptionsAreRefused) {
  FootfallOptions inverted;
  inverted.speed_on = 1.0;
  EXPECT_NE(test::error_message<MocapError>([&] {
              detect_stances(gait(), Axis::Z, inverted);
            }).find("'on' thresholds"),
            std::string::npos);
  FootfallOptions nan;
  nan.height_on = NAN;
  EXPECT_NE(test::error_message<MocapError>([&] {
              detect_stances(gait(), Axis::Z, nan);
            }).find("finite and positive"),
            std::string::npos);
}

TEST(Footfall, TheCmuHopsFourFootTracksAreFoundAndEachLandsSeveralTimes) {
  LoadOptions load;
  load.to_metres = true;
  load.up_axis = Axis::Z;
  const Capture capture = load_capture(test::repo_data("cmu/131_03.bvh"), load);
  const auto feet = foot_tracks(capture);
  ASSERT_EQ(feet.size(), 4u); // LeftAnkle, LeftToe, RightAnkle, RightToe
  for (const std::string& name : feet) {
    const auto stances = detect_stances(capture.track(name), Axis::Z);
    std::printf("  %s:", name.c_str());
    for (const Stance& s : stances) {
      std::printf(" %.2f-%.2f", s.start, s.end);
    }
    std::printf("\n");
    EXPECT_GE(stances.size(), 2u) << name;
  }
}

TEST(Footfall, TheCmuRunLandsDespiteItsRestPoseFrame) {
  LoadOptions load;
  load.to_metres = true;
  load.up_axis = Axis::Z;
  const Capture capture = load_capture(test::repo_data("cmu/35_24.bvh"), load);
  // Frame 0 is the converter's rest pose, its feet 10 cm below the running ones.
  const auto left = detect_stances(capture.track("LeftFoot"), Axis::Z);
  const auto right = detect_stances(capture.track("RightFoot"), Axis::Z);
  ASSERT_EQ(left.size(), 2u);
  ASSERT_EQ(right.size(), 2u);
  EXPECT_NEAR(left[0].start, 0.367, 0.005);
  EXPECT_NEAR(left[1].start, 1.108, 0.005);
  EXPECT_NEAR(right[1].start, 0.733, 0.005);
  for (const auto& stances : {left, right}) {
    for (const Stance& s : stances) {
      EXPECT_LT(s.end - s.start, 0.25); // a runner's short stances
    }
  }
}

} // namespace
} // namespace odemocap
