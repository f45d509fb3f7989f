#include "support/data_paths.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>
#include <odemocap/repair.hpp>
#include <odemocap/save.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace odemocap {
namespace {

using test::near_vec;
using test::same_rotation;

Pose truth(double t) { return {{0.5 * t, 1 - t, 2}, from_axis_angle({1, 2, 3}, 3.0 * t)}; }

/// 100 Hz samples of truth() over 1 s with gaps at samples 10..12 (3) and 40..49 (10).
Track gappy() {
  Track track("body");
  for (int i = 0; i <= 100; ++i) {
    const double t = 0.01 * i;
    if ((i >= 10 && i <= 12) || (i >= 40 && i <= 49)) {
      track.append_gap(t);
    } else {
      track.append(t, truth(t));
    }
  }
  return track;
}

TEST(Repair, FillGapsFillsShortGapsExactlyForConstantRateMotionAndLeavesLongOnes) {
  const Track filled = fill_gaps(gappy(), 5);
  ASSERT_EQ(filled.size(), 101u);
  for (int i = 10; i <= 12; ++i) {
    ASSERT_TRUE(filled.valid(i));
    EXPECT_TRUE(near_vec(filled.position(i), truth(0.01 * i).p, 1e-14));
    EXPECT_TRUE(same_rotation(filled.orientation(i), truth(0.01 * i).q, 1e-14));
  }
  for (int i = 40; i <= 49; ++i) {
    EXPECT_FALSE(filled.valid(i)); // 10 > 5: still a gap
  }
  EXPECT_EQ(fill_gaps(gappy(), 10).valid_count(), 101u);
}

TEST(Repair, ResampleKeepsTheMotionAndNeverInventsAcrossAGap) {
  const Track r = resample(gappy(), 240.0);
  ASSERT_EQ(r.size(), 241u);
  for (std::size_t k = 0; k < r.size(); ++k) {
    const double t = r.time(k);
    EXPECT_NEAR(t, static_cast<double>(k) / 240.0, 1e-15);
    const bool in_gap = (t > 0.09 && t < 0.13) || (t > 0.39 && t < 0.50);
    ASSERT_EQ(r.valid(k), !in_gap) << t;
    if (!in_gap) {
      ASSERT_TRUE(near_vec(r.position(k), truth(t).p, 1e-12)) << t;
      ASSERT_TRUE(same_rotation(r.orientation(k), truth(t).q, 1e-12)) << t;
    }
  }
  EXPECT_THROW(resample(gappy(), 0.0), MocapError);
  EXPECT_THROW(resample(gappy(), 1e12), MocapError); // 1e12 samples refused, not allocated
}

TEST(Repair, ResampleNeverCrossesABreakInTheRecording) {
  // Two stretches of truth() at 100 Hz, 0..0.5 s and 2..2.5 s: a frame-number jump between
  // excerpts, every sample valid on both sides.
  Track track("body");
  for (int i = 0; i <= 50; ++i) {
    track.append(0.01 * i, truth(0.01 * i));
  }
  for (int i = 200; i <= 250; ++i) {
    track.append(0.01 * i, truth(0.01 * i));
  }
  const Track r = resample(track, 200.0);
  EXPECT_EQ(r.size(), 101u + 101u);
  for (std::size_t k = 0; k < r.size(); ++k) {
    const double t = r.time(k);
    ASSERT_TRUE(t <= 0.5 + 1e-12 || t >= 2.0 - 1e-12) << "a sample inside the break at " << t;
    ASSERT_TRUE(r.valid(k));
    ASSERT_TRUE(near_vec(r.position(k), truth(t).p, 1e-12)) << t;
  }
  // The naive resampler (no breaks) interpolates 1.5 s of motion that was never recorded.
  const Track naive = resample(track, 200.0, Interp::Linear, INFINITY);
  EXPECT_EQ(naive.size(), 501u);
  EXPECT_THROW(resample(track, 200.0, Interp::Linear, 1.0), MocapError);
}

TEST(Repair, ResamplingTheExcerptedMotiveTakeKeepsItsRecordedSamples) {
  const std::string path = test::shared_data("pathviewr/pathviewr_motive_example_data.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = load_capture(path);
  const Track& device = capture.track("device02");
  ASSERT_EQ(device.size(), 934u);
  // At its own 100 Hz, within its five excerpts: about its 934 samples, not the 32890 of a
  // grid over the whole 329 s span.
  const Track r = resample(device, 100.0);
  EXPECT_GE(r.size(), 929u);
  EXPECT_LE(r.size(), 934u);
  // No resampled time lies in a break of the source.
  const double median = device.median_interval();
  for (std::size_t k = 0; k < r.size(); ++k) {
    const auto& times = device.times();
    const auto upper = std::upper_bound(times.begin(), times.end(), r.time(k));
    if (upper == times.end() || upper == times.begin() || *(upper - 1) == r.time(k)) {
      continue; // at or beyond the ends, or on a recorded sample
    }
    ASSERT_LT(*upper - *(upper - 1), 1.5 * median) << "inside a break at " << r.time(k);
  }
  EXPECT_GT(resample(device, 100.0, Interp::Linear, INFINITY).size(), 30000u);
}

TEST(Save, MarkersAreWrittenAsPositionsOnlyAndReadBackAsMarkers) {
  Capture capture;
  Track marker("LASI");
  marker.set_position_only(true);
  Track body("tool");
  for (int i = 0; i < 3; ++i) {
    marker.append(0.01 * i, {{0.1 * i, 0.2, 0.3}, Quat{}});
    body.append(0.01 * i, truth(0.01 * i));
  }
  marker.append_gap(0.03);
  body.append(0.03, truth(0.03));
  capture.add_track(marker);
  capture.add_track(body);
  std::ostringstream out;
  write_rigid_body_csv(capture, out);
  const std::string text = out.str();
  const std::size_t header = text.find('\n') + 1; // after the metadata line
  EXPECT_EQ(text.substr(0, header), "# odemocap rigid-body-csv: up=z;\n");
  EXPECT_EQ(text.substr(header, text.find('\n', header) - header),
            "time,LASI.x,LASI.y,LASI.z,tool.x,tool.y,tool.z,tool.qw,tool.qx,tool.qy,tool.qz");
  const Capture back = parse_rigid_body_csv(text, "markers.csv");
  EXPECT_TRUE(back.track("LASI").position_only());
  EXPECT_FALSE(back.track("tool").position_only());
  EXPECT_EQ(back.track("LASI").position(2).x, 0.2);
  EXPECT_FALSE(back.track("LASI").valid(3));
  EXPECT_TRUE(back.track("tool").valid(3));
}

TEST(Save, NamesWithAHashAsLoadersGiveTwiceUsedLabelsRoundTrip) {
  // c3d.org's sample28 labels two points 'r should'; the C3D loader names the second
  // 'r should#2', and odemocap convert could not write it.
  Capture capture;
  for (const char* name : {"r should", "r should#2", "#lead"}) {
    Track marker(name);
    marker.set_position_only(true);
    marker.append(0.0, {{0.1, 0.2, 0.3}, Quat{}});
    marker.append(0.01, {{0.4, 0.5, 0.6}, Quat{}});
    capture.add_track(marker);
  }
  std::ostringstream out;
  write_rigid_body_csv(capture, out);
  const Capture back = parse_rigid_body_csv(out.str(), "hash.csv");
  ASSERT_EQ(back.tracks().size(), 3u);
  EXPECT_EQ(back.tracks()[1].name(), "r should#2");
  EXPECT_EQ(back.tracks()[2].name(), "#lead");
  EXPECT_EQ(back.track("r should#2").position(1).y, 0.5);
  Track comma("a,b");
  comma.append(0.0, {{0, 0, 0}, Quat{}});
  Capture refused;
  refused.add_track(comma);
  std::ostringstream ignored;
  EXPECT_THROW(write_rigid_body_csv(refused, ignored), MocapError);
}

TEST(Save, RigidBodyCsvRoundTripsBitForBit) {
  LoadOptions load;
  load.length_scale = 0.0254 / 0.45;
  load.up_axis = Axis::Z;
  const Capture cmu = load_capture(test::repo_data("cmu/131_03.bvh"), load);
  std::ostringstream out;
  write_rigid_body_csv(cmu, out);
  const Capture back = load_capture_from_memory(out.str(), "round_trip.csv");
  ASSERT_EQ(back.tracks().size(), cmu.tracks().size());
  for (std::size_t k = 0; k < cmu.tracks().size(); ++k) {
    const Track& a = cmu.tracks()[k];
    const Track& b = back.tracks()[k];
    ASSERT_EQ(a.name(), b.name());
    ASSERT_EQ(a.times(), b.times());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(near_vec(a.position(i), b.position(i), 0));
      ASSERT_TRUE(same_rotation(a.orientation(i), b.orientation(i), 0));
    }
  }
  EXPECT_NEAR(back.info().frame_rate, 120.0, 1e-3);
  // Gaps are written as empty cells and read back as gaps.
  Capture with_gap;
  with_gap.add_track(gappy());
  std::ostringstream gap_out;
  write_rigid_body_csv(with_gap, gap_out);
  const Capture gap_back = load_capture_from_memory(gap_out.str(), "gap.csv");
  EXPECT_EQ(gap_back.track("body").valid_count(), 88u);
}

TEST(Load, RenormalizeIsOptInAndNoted) {
  const std::string csv = "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n0,0,0,0,2,0,0,0\n1,0,0,0,0,0,0,0.5\n";
  EXPECT_THROW(load_capture_from_memory(csv, "half.csv"), LoadError);
  LoadOptions options;
  options.renormalize = true;
  const Capture c = load_capture_from_memory(csv, "half.csv", options);
  EXPECT_TRUE(same_rotation(c.track("b").orientation(1), Quat{0, 0, 0, 1}, 0));
  ASSERT_EQ(c.info().notes.size(), 1u);
  EXPECT_NE(c.info().notes[0].find("2 quaternion(s) renormalised"), std::string::npos) << c.info().notes[0];
  const std::string zero = "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n0,0,0,0,0,0,0,0\n";
  EXPECT_THROW(load_capture_from_memory(zero, "zero.csv", options), LoadError); // no direction
}

} // namespace
} // namespace odemocap
