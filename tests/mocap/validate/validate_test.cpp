// Each check finds its defect at the frame where it was planted, and nothing else is flagged;
// real captures are judged clean or with their real defects.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>
#include <odemocap/validate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace odemocap {
namespace {

/// Smooth motion well inside every limit: 0.3 m/s with a slow sway, turning at 2 rad/s.
Pose smooth(double t) {
  return {{0.3 * t, 0.1 * std::sin(t), 1.0}, from_axis_angle({0, 0, 1}, 2.0 * t)};
}

/// 201 samples at 100 Hz of smooth(); `edit(i, time, pose, valid)` may change sample i.
Capture capture_with(const std::function<void(int, double&, Pose&, bool&)>& edit) {
  Track track("body");
  for (int i = 0; i <= 200; ++i) {
    double t = 0.01 * i;
    Pose pose = smooth(t);
    bool valid = true;
    edit(i, t, pose, valid);
    if (valid) {
      track.append(t, pose);
    } else {
      track.append_gap(t);
    }
  }
  Capture capture;
  capture.add_track(std::move(track));
  return capture;
}

void expect_only(const std::vector<Finding>& findings, const std::string& check,
                 std::size_t first, std::size_t last, double value, double tolerance) {
  ASSERT_EQ(findings.size(), 1u) << (findings.empty() ? "none" : findings[0].check + ": " +
                                                                     findings[0].message +
                                                                     (findings.size() > 1 ? " / " + findings[1].check : ""));
  const Finding& f = findings[0];
  EXPECT_EQ(f.check, check);
  EXPECT_EQ(f.track, "body");
  EXPECT_EQ(f.first, first) << f.message;
  EXPECT_EQ(f.last, last) << f.message;
  EXPECT_NEAR(f.value, value, tolerance) << f.message;
}

TEST(Validate, SmoothMotionIsClean) {
  EXPECT_TRUE(validate_capture(capture_with([](int, double&, Pose&, bool&) {})).empty());
}

TEST(Validate, AGapIsReportedWithItsLength) {
  const auto f = validate_capture(capture_with([](int i, double&, Pose&, bool& valid) {
    valid = !(i >= 40 && i <= 42);
  }));
  expect_only(f, "gap", 40, 42, 3, 0);
}

TEST(Validate, DroppedFramesShowAsALongInterval) {
  // From sample 50 on, times (and poses) move 3 frames later: 3 frames were not recorded.
  const auto f = validate_capture(capture_with([](int i, double& t, Pose& pose, bool&) {
    if (i >= 50) {
      t += 0.03;
      pose = smooth(t);
    }
  }));
  expect_only(f, "dropped-frames", 49, 50, 3, 0);
}

TEST(Validate, IrregularSamplingIsCounted) {
  const auto f = validate_capture(capture_with([](int i, double& t, Pose& pose, bool&) {
    if (i == 100) {
      t += 0.003; // one sample 30% late
      pose = smooth(t);
    }
  }));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "irregular-sampling");
  EXPECT_EQ(f[0].first, 99u);
  EXPECT_EQ(f[0].value, 2); // the interval before it is long, the one after short
}

TEST(Validate, AnOrientationGlitchIsAnAngularSpeedSpike) {
  const auto f = validate_capture(capture_with([](int i, double&, Pose& pose, bool&) {
    if (i == 60) {
      pose.q = from_axis_angle({1, 0, 0}, 1.0) * pose.q; // one frame turned 1 rad away
    }
  }));
  expect_only(f, "angular-speed-spike", 59, 61, 100, 1); // about 1 rad in 0.01 s
}

TEST(Validate, ATeleportIsALinearSpeedSpikeAndNotAlsoAnAcceleration) {
  const auto f = validate_capture(capture_with([](int i, double&, Pose& pose, bool&) {
    if (i == 70) {
      pose.p.x += 1.0; // one frame 1 m away: a marker swap
    }
  }));
  expect_only(f, "linear-speed-spike", 69, 71, 100, 0.5);
}

TEST(Validate, AStepBelowTheSpeedLimitIsAnAccelerationSpike) {
  const auto f = validate_capture(capture_with([](int i, double&, Pose& pose, bool&) {
    if (i >= 80) {
      pose.p.y += 0.05; // from frame 80 on, 5 cm further: 5 m/s for one interval
    }
  }));
  expect_only(f, "acceleration-spike", 78, 81, 500, 5);
}

TEST(Validate, AFrozenStretchIsReported) {
  // The motion stops for samples 20..35 (16 identical samples), then resumes where it stopped.
  const auto f = validate_capture(capture_with([](int i, double& t, Pose& pose, bool&) {
    const double held = i < 20 ? t : i <= 35 ? 0.2 : t - 0.15;
    pose = smooth(held);
  }));
  expect_only(f, "frozen", 20, 35, 16, 0);
}

TEST(Validate, AStoredMinusQIsAHemisphereFlipAndOnlyInformation) {
  Capture c = capture_with([](int i, double&, Pose& pose, bool&) {
    if (i == 90) {
      pose.q = -pose.q; // the same rotation, the other sign
    }
  });
  Track track = c.tracks()[0];
  track.make_continuous(); // what every loader does
  Capture loaded;
  loaded.add_track(std::move(track));
  const auto f = validate_capture(loaded);
  // 90 flipped, and 91 onwards follows it back: the range covers both sign changes it counts.
  expect_only(f, "hemisphere-flip", 90, 91, 2, 0);
  EXPECT_EQ(f[0].severity, Severity::Info);
}

TEST(Validate, AQuaternionSlightlyOffUnitLengthIsReported) {
  const auto f = validate_capture(capture_with([](int i, double&, Pose& pose, bool&) {
    if (i == 120) {
      pose.q = pose.q * 1.0005; // accepted and renormalised by the loader, but not clean
    }
  }));
  expect_only(f, "quaternion-norm", 120, 120, 5e-4, 1e-9);
}

TEST(Validate, BoneOffsetsThatAreZeroOrAbsurd) {
  const char* bvh = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "JOINT B\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "JOINT C\n{\nOFFSET 0 50 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "End Site\n{\nOFFSET 0 1 0\n}\n}\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                    "0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n";
  const auto f = validate_capture(parse_bvh(bvh, "bones.bvh"));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].check, "zero-bone");
  EXPECT_EQ(f[0].track, "B");
  EXPECT_EQ(f[0].severity, Severity::Info);
  EXPECT_EQ(f[1].check, "absurd-bone");
  EXPECT_EQ(f[1].track, "C");
  EXPECT_EQ(f[1].value, 50);
}

TEST(Validate, FindingsOfOneCheckMergeAcrossAnotherChecksFindings) {
  // The body spins 1 rad per sample over samples 60-66 (a 100 rad/s burst) and teleports at 63:
  // the teleport's speed spikes fall inside the spin's run.
  const auto f = validate_capture(capture_with([](int i, double&, Pose& pose, bool&) {
    if (i >= 60 && i <= 66) {
      pose.q = from_axis_angle({0, 0, 1}, 0.02 * i + (i - 59) * 1.0);
    }
    if (i == 63) {
      pose.p.x += 1.0;
    }
  }));
  std::vector<const Finding*> spins;
  std::size_t teleports = 0;
  for (const Finding& x : f) {
    if (x.check == "angular-speed-spike") {
      spins.push_back(&x);
    }
    teleports += x.check == "linear-speed-spike";
  }
  ASSERT_EQ(spins.size(), 1u); // merging with the latest finding only made three
  EXPECT_EQ(spins[0]->first, 59u);
  EXPECT_EQ(spins[0]->last, 67u);
  EXPECT_EQ(teleports, 1u);
}

TEST(Validate, ATrackWithoutAValidSampleIsOneFinding) {
  const auto f = validate_capture(capture_with([](int, double&, Pose&, bool& valid) {
    valid = false;
  }));
  expect_only(f, "no-valid-sample", 0, 200, 201, 0);
}

TEST(Validate, OptionsOutsideTheirRangeAreRefused) {
  const Capture c = capture_with([](int, double&, Pose&, bool&) {});
  const auto refused = [&](const std::function<void(ValidateOptions&)>& edit) {
    ValidateOptions o;
    edit(o);
    return test::error_message<MocapError>([&] { validate_capture(c, o); }) != "no error";
  };
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.max_angular_speed = -5; }));
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.max_linear_speed = std::nan(""); }));
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.max_linear_acceleration = 0; }));
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.max_frozen_samples = 0; }));
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.dropped_frame_factor = 1.0; }));
  EXPECT_TRUE(refused([](ValidateOptions& o) { o.max_bone_length = INFINITY; }));
  EXPECT_FALSE(refused([](ValidateOptions&) {}));
}

TEST(Validate, ARootOffsetPlacesTheSkeletonAndIsNoBone) {
  const char* bvh = "HIERARCHY\nROOT A\n{\nOFFSET 0 95 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "JOINT B\n{\nOFFSET 0 -45 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "End Site\n{\nOFFSET 0 -45 0\n}\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                    "0 0 0 0 0 0\n0 0 0 0 0 0\n";
  LoadOptions cm;
  cm.unit_in_metres = 0.01; // a rig in centimetres: the hips 0.95 m up, a 0.45 m thigh
  EXPECT_TRUE(validate_capture(parse_bvh(bvh, "rig.bvh", cm)).empty());
  // In file units the thigh and shin are 45 "metres" each: the limits assume metres.
  EXPECT_EQ(validate_capture(parse_bvh(bvh, "rig.bvh")).size(), 2u);
}

TEST(Validate, WhatTheLoaderToleratedIsAFinding) {
  const char* bvh = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Zrotation\nEnd Site\n{\n"
                    "OFFSET 0 1 0\n}\n}\nMOTION\nFrames: 5\nFrame Time: 0.1\n0\n1\n2\n";
  const auto f = validate_capture(parse_bvh(bvh, "short.bvh"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "tolerated");
  EXPECT_EQ(f[0].severity, Severity::Warning);
  EXPECT_NE(f[0].message.find("'Frames: 5'"), std::string::npos) << f[0].message;
}

// ---- real captures ----

std::size_t count(const std::vector<Finding>& f, const std::string& check, const std::string& track) {
  return static_cast<std::size_t>(std::count_if(f.begin(), f.end(), [&](const Finding& x) {
    return x.check == check && x.track == track;
  }));
}

TEST(Validate, TheMotive121TakeShowsOnlyItsNeverFilledMarkers) {
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const auto f = validate_capture(load_capture(path));
  ASSERT_EQ(f.size(), 3u); // PROVENANCE.md: Unlabeled:105, :106, :107 are empty in all rows
  for (const Finding& x : f) {
    EXPECT_EQ(x.check, "no-valid-sample");
    EXPECT_EQ(x.track.rfind("Unlabeled:10", 0), 0u) << x.track;
  }
}

TEST(Validate, TheMotive123TakeShowsItsGapsAndFrameJumps) {
  const std::string path = test::shared_data("pathviewr/pathviewr_motive_example_data.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const auto f = validate_capture(load_capture(path));
  // PROVENANCE.md: empty rows device02 1, device03 2, device05 186; four frame-number jumps.
  const std::pair<const char*, double> gaps[] = {{"device02", 1}, {"device03", 2}, {"device05", 186}};
  for (const auto& [track, samples] : gaps) {
    double total = 0;
    for (const Finding& x : f) {
      total += x.check == "gap" && x.track == track ? x.value : 0;
    }
    EXPECT_EQ(total, samples) << track;
    EXPECT_EQ(count(f, "dropped-frames", track), 4u) << track;
  }
  // Sign changes between consecutive valid quaternions, recounted from the raw file (dot < 0):
  // device02 2, device03 2, device05 2. PROVENANCE.md says 1 for device05: it leaves out the
  // pair across the 87551 -> 97401 excerpt jump, whose dot is -0.044 (a ~175 degree turn over
  // 98 s, not a q -> -q flip), which a sign-change count includes.
  const std::pair<const char*, double> flips[] = {{"device02", 2}, {"device03", 2}, {"device05", 2}};
  for (const auto& [name, expected] : flips) {
    const std::string track = name; // a lambda may not capture a structured binding (C++17)
    const auto it = std::find_if(f.begin(), f.end(), [&](const Finding& x) {
      return x.check == "hemisphere-flip" && x.track == track;
    });
    ASSERT_NE(it, f.end()) << track;
    EXPECT_EQ(it->value, expected) << track;
  }
}

TEST(Validate, AngularFindingsDoNotDependOnTheLengthUnit) {
  // Angular speed has no length in it; when linear findings interleaved differently at another
  // scale, merging only with the latest finding gave 134 RThumb findings in one unit and
  // another count in the other.
  LoadOptions file_units;
  LoadOptions metres;
  metres.to_metres = true;
  const std::string path = test::repo_data("cmu/131_03.bvh");
  const auto a = validate_capture(load_capture(path, file_units));
  const auto b = validate_capture(load_capture(path, metres));
  EXPECT_GT(count(a, "angular-speed-spike", "RThumb"), 0u);
  EXPECT_EQ(count(a, "angular-speed-spike", "RThumb"), count(b, "angular-speed-spike", "RThumb"));
  EXPECT_EQ(count(a, "angular-speed-spike", "RightWrist"),
            count(b, "angular-speed-spike", "RightWrist"));
}

TEST(Validate, TheCmuWalkShowsTheThumbGlitchesAndNoTeleports) {
  LoadOptions load;
  load.to_metres = true; // CMU units to metres: thresholds are in metres
  const auto f = validate_capture(load_capture(test::repo_data("cmu/131_01.bvh"), load));
  std::vector<std::size_t> thumb_half_turns;
  for (const Finding& x : f) {
    EXPECT_NE(x.check, "linear-speed-spike") << x.track << ": " << x.message;
    if (x.check == "angular-speed-spike" && x.track == "RThumb" && x.value > 250) {
      thumb_half_turns.push_back(x.last);
    }
  }
  // The frames where the thumb turns about 170 degrees at once (see the BVH loader test).
  for (std::size_t frame : {178, 192, 243, 751, 757, 815}) {
    EXPECT_TRUE(std::any_of(thumb_half_turns.begin(), thumb_half_turns.end(), [&](std::size_t last) {
      return last >= frame && last <= frame + 5;
    })) << frame;
  }
  EXPECT_EQ(count(f, "zero-bone", "LHipJoint"), 1u);
}

} // namespace
} // namespace odemocap
