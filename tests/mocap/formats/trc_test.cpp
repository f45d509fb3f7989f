// OpenSim TRC marker files. The header and the first values are those of OpenSim's
// Applications/Scale/test/subject01_static.trc (opensim-core, Apache-2.0), cut to two markers.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>
#include <odemocap/velocity.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace odemocap {
namespace {

const char* k_trc =
    "PathFileType\t4\t(X/Y/Z)\tsubject01_static.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\t"
    "OrigNumFrames\n"
    "60.00\t60.00\t       3\t2\tmm\t60.00\t1\t       3\n"
    "Frame#\tTime\tR.ASIS\t\t\tL.ASIS\n"
    "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n"
    "\n"
    "1\t0.000000\t608.664310\t1072.713130\t157.442150\t610.637270\t1060.495000\t-103.888650\n"
    "2\t0.017000\t608.614440\t1072.714110\t157.562670\t\t\t\n"
    "3\t0.033000\t608.585330\t1072.709350\t157.650510\n";

TEST(Trc, OpenSimMarkersLoadInMetresWithGaps) {
  EXPECT_EQ(detect_format(k_trc, "static.trc"), Format::Trc);
  const Capture c = load_capture_from_memory(k_trc, "static.trc");
  EXPECT_EQ(c.info().format, "trc");
  EXPECT_EQ(c.info().frame_rate, 60.0);
  EXPECT_EQ(c.info().up_axis, Axis::Y);
  EXPECT_EQ(c.info().unit_source, "declared");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& right = c.track("R.ASIS");
  EXPECT_TRUE(right.position_only());
  EXPECT_TRUE(test::near_vec(right.position(0), {0.60866431, 1.07271313, 0.15744215}, 1e-15));
  EXPECT_EQ(right.time(1), 0.017); // the Time column, as written
  const Track& left = c.track("L.ASIS");
  EXPECT_TRUE(left.valid(0));
  EXPECT_FALSE(left.valid(1)); // empty cells
  EXPECT_FALSE(left.valid(2)); // the row stops early
  EXPECT_TRUE(c.info().tolerated.empty());
}

TEST(Trc, CountsThatDisagreeAreToleratedAndBrokenFilesAreLocated) {
  std::string text = k_trc;
  text.replace(text.find("       3\t2"), 10, "     300\t49");
  const Capture c = parse_trc(text, "cut.trc");
  ASSERT_EQ(c.info().tolerated.size(), 2u);
  EXPECT_NE(c.info().tolerated[0].find("NumMarkers says 49 but line 4 names 2"), std::string::npos);
  EXPECT_NE(c.info().tolerated[1].find("NumFrames says 300 but the file has 3"), std::string::npos);
  LoadOptions strict;
  strict.strict = true;
  const std::string refused =
      test::error_message<LoadError>([&] { parse_trc(text, "cut.trc", strict); });
  EXPECT_NE(refused.find("cut.trc:3:"), std::string::npos) << refused; // the counts' line
  EXPECT_NE(refused.find("NumMarkers says 49"), std::string::npos) << refused;

  const auto error = [](const std::string& t) {
    return test::error_message<LoadError>([&] { parse_trc(t, "bad.trc"); });
  };
  std::string bad = k_trc;
  bad.replace(bad.find("157.562670"), 10, "157.5x2670");
  EXPECT_NE(error(bad).find("bad.trc:8:"), std::string::npos) << error(bad);
  EXPECT_NE(error(bad).find("not a number: '157.5x2670'"), std::string::npos);
  std::string units = k_trc;
  units.replace(units.find("\tmm\t"), 4, "\tft\t");
  EXPECT_NE(error(units).find("unknown Units 'ft'"), std::string::npos);
  std::string axes = k_trc;
  axes.replace(axes.find("X2"), 2, "Q2");
  EXPECT_NE(error(axes).find("expected X2 in the axis row"), std::string::npos) << error(axes);
  std::string back = k_trc;
  back.replace(back.find("0.033000"), 8, "0.010000");
  EXPECT_NE(error(back).find("is not after the previous row's"), std::string::npos);
  EXPECT_NE(error("PathFileType\t4\nDataRate\n0\n").find("DataRate must be positive"),
            std::string::npos);
}

// A rate near 1 GHz whose grid steps less than a track's samples may (1 ns): the rows' times are
// 1 ns apart, printed to 0.1 ns, and the 1.1 GHz grid they round to steps 0.909 ns. Retiming the
// tracks to it threw a MocapError without the file's name out of the loader (found looking for
// what failed the TRC fuzz target in CI); the file's times stand instead.
TEST(Trc, ARateGridATrackCannotHoldLeavesTheFilesTimes) {
  const std::string text = "PathFileType\t4\t(X/Y/Z)\tghz.trc\n"
                           "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
                           "1100000000\t1100000000\t2\t1\tm\n"
                           "Frame#\tTime\tA\n"
                           "\t\tX1\tY1\tZ1\n"
                           "1\t0.0000000000\t1\t2\t3\n"
                           "2\t0.0000000010\t1\t2\t4\n";
  // The grid's second time, by hand: 1 / 1.1e9 s, within the 0.1 ns the times are printed to,
  // and less than Track::k_min_interval after the first.
  const double grid = 1.0 / 1.1e9;
  ASSERT_LE(std::fabs(1e-9 - grid), 1e-10);
  ASSERT_LT(grid, Track::k_min_interval);
  const Capture c = parse_trc(text, "ghz.trc");
  EXPECT_EQ(c.track("A").time(1), 1e-9);
  EXPECT_FALSE(test::has_note(c.info(), "grid"));
  EXPECT_NEAR(estimate_velocities(c.track("A")).linear[0].z, 1e9, 1e-3);

  // Times at the limit a track holds (1e9 s) whose 2.2 Hz grid, within the 0.1 s they are
  // printed to, passes it: 999999999.6 + 1 / 2.2 s. The same MocapError escaped.
  const std::string late = "PathFileType\t4\t(X/Y/Z)\tlate.trc\n"
                           "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
                           "2.2\t2.2\t2\t1\tm\n"
                           "Frame#\tTime\tA\n"
                           "\t\tX1\tY1\tZ1\n"
                           "1\t999999999.6\t1\t2\t3\n"
                           "2\t1000000000.0\t1\t2\t4\n";
  ASSERT_GT(999999999.6 + 1.0 / 2.2, Track::k_max_abs_time);
  const Capture at_limit = parse_trc(late, "late.trc");
  EXPECT_EQ(at_limit.track("A").time(1), 1e9);
  EXPECT_FALSE(test::has_note(at_limit.info(), "grid"));
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

TEST(Trc, CommasInsteadOfTabsReadTheSameNumbers) {
  std::string commas = k_trc;
  for (char& c : commas) {
    c = c == '\t' ? ',' : c;
  }
  const Capture tabs = load_capture_from_memory(k_trc, "static.trc");
  const Capture c = load_capture_from_memory(commas, "commas.trc");
  ASSERT_EQ(c.tracks().size(), 2u);
  // By hand: R.ASIS row 2 is 608.614440, 1072.714110, 157.562670 mm.
  EXPECT_TRUE(test::near_vec(c.track("R.ASIS").position(1), {0.60861444, 1.07271411, 0.15756267},
                             1e-12));
  EXPECT_EQ(c.track("L.ASIS").valid_count(), tabs.track("L.ASIS").valid_count());
}

TEST(Trc, TripletsBeyondTheNamedMarkersAreKeptAndSaid) {
  // Two named markers, rows with a third and a fourth triplet (the fourth from row 2 on).
  const std::string text =
      "PathFileType\t4\t(X/Y/Z)\tmore.trc\n"
      "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
      "100\t100\t3\t2\tmm\n"
      "Frame#\tTime\tA\t\t\tB\n"
      "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\tX3\tY3\tZ3\tX4\tY4\tZ4\n"
      "1\t0.00\t1\t2\t3\t4\t5\t6\t7\t8\t9\n"
      "2\t0.01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\n"
      "3\t0.02\t1\t2\t3\t4\t5\t6\t\t\t\t10\t11\t12\n";
  const Capture c = load_capture_from_memory(text, "more.trc");
  ASSERT_EQ(c.tracks().size(), 4u);
  const Track& third = c.track("unnamed3");
  ASSERT_EQ(third.size(), 3u);
  EXPECT_TRUE(test::near_vec(third.position(0), {0.007, 0.008, 0.009}, 1e-15));
  EXPECT_FALSE(third.valid(2));
  const Track& fourth = c.track("unnamed4");
  ASSERT_EQ(fourth.size(), 3u);
  EXPECT_FALSE(fourth.valid(0));
  EXPECT_TRUE(test::near_vec(fourth.position(2), {0.010, 0.011, 0.012}, 1e-15));
  EXPECT_TRUE(
      test::has_note(c.info(), "2 marker(s) more than line 4 names (4 valid samples)"));
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

std::string opensim_trc(const char* name) {
  return test::test_data(std::string("opensim-trc/") + name);
}

/// The text of a line (1-based) of a file, split at TABs.
std::vector<std::string> cells_of_line(const std::string& path, int line) {
  std::ifstream in(path);
  std::string text;
  for (int i = 0; i < line; ++i) {
    std::getline(in, text);
  }
  std::vector<std::string> cells;
  std::stringstream row(text);
  for (std::string cell; std::getline(row, cell, '\t');) {
    cells.push_back(cell);
  }
  return cells;
}

// OpenSim's own files (tests/data/opensim-trc, from opensim-core's tests and examples) with the
// header layouts its reader, TRCFileAdapter, accepts and ours refused: names over other columns
// than their X columns, an axis row without its two leading cells, "PathFileType  4" padded
// with spaces and values separated by two TABs. Numbers read from the files by hand
// (tests/data/opensim-trc/PROVENANCE.md); every file of the set was also compared value for
// value with a reader written from TRCFileAdapter's rules (none differed).
TEST(Trc, OpenSimsOwnFilesLoadAsOpenSimReadsThem) {
  {
    // Names every second column from column 3 (Frame#, Time, '', Sternum, '', R.Acromium ...)
    // and one TAB more before the axis row's X1; the data is in columns 2 + 3k.
    const std::string path = opensim_trc("subject01_synthetic_marker_data.trc");
    const Capture c = load_capture(path);
    ASSERT_EQ(c.tracks().size(), 31u);
    EXPECT_EQ(c.track("Sternum").size(), 73u);
    EXPECT_EQ(c.track("Sternum").time(0), 0.4);
    // Its times are printed to the millisecond at 60 Hz (0.4, 0.417, 0.433: intervals of 17
    // and 16 ms, 4% apart): the 60 Hz grid they round is used.
    EXPECT_EQ(cells_of_line(path, 8).at(1), "0.417");
    EXPECT_NEAR(c.track("Sternum").time(1), 0.4 + 1.0 / 60.0, 1e-15);
    EXPECT_NEAR(c.track("Sternum").time(72), 0.4 + 72.0 / 60.0, 1e-14);
    EXPECT_TRUE(test::has_note(c.info(), "the 60 Hz grid rounded"));
    EXPECT_TRUE(test::near_vec(c.track("Sternum").position(0), {0.67076, 1.3961, -0.025106}, 0));
    EXPECT_TRUE(test::near_vec(c.track("R.Acromium").position(0), {0.55918, 1.5484, 0.12495}, 0));
    EXPECT_TRUE(
        test::near_vec(c.track("L.Toe.Tip").position(0), {0.66781, 0.047006, -0.060034}, 0));
    EXPECT_TRUE(test::has_note(c.info(), "read from columns 2 + 3k"));
    // The naive reading, each marker from the column its name stands over, takes Sternum's
    // X from its Y column.
    const std::vector<std::string> names = cells_of_line(path, 4);
    const std::size_t over =
        static_cast<std::size_t>(std::find(names.begin(), names.end(), "Sternum") - names.begin());
    EXPECT_EQ(cells_of_line(path, 7).at(over), "1.3961");
  }
  {
    // "Frame#\tTime\thumerus\tulna" and "X1\tY1\tZ1\tX2..." without the two leading cells.
    const Capture c = load_capture(opensim_trc("futureOrientationInverseKinematics.trc"));
    ASSERT_EQ(c.tracks().size(), 2u);
    const Track& ulna = c.track("ulna");
    ASSERT_EQ(ulna.size(), 1202u);
    EXPECT_TRUE(test::near_vec(c.track("humerus").position(0),
                               {0.00407883e-3, 6.27925e-3, 0.000255578e-3}, 1e-18));
    EXPECT_EQ(ulna.time(1201), 12.0102);
    EXPECT_EQ(ulna.time(1), 0.01); // 100 Hz times under "DataRate 60": kept as written
    EXPECT_FALSE(test::has_note(c.info(), "grid"));
    EXPECT_TRUE(test::near_vec(ulna.position(1201), {0.287066e-3, 1.12951e-3, 5.95646e-3}, 1e-18));
  }
  {
    // "PathFileType  4\t(X/Y/Z) C:\..." and "  100.0\t\t  100.0\t\t    238\t\t     41\t\t mm\t...".
    const std::string path = opensim_trc("markers_walk.trc");
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(detect_format(text, "walk.trc"), Format::Trc);
    const Capture c = load_capture(path);
    EXPECT_EQ(c.info().frame_rate, 100.0);
    EXPECT_EQ(c.info().unit_source, "declared");
    ASSERT_EQ(c.tracks().size(), 41u);
    EXPECT_EQ(c.track("R.Shoulder").size(), 238u);
    EXPECT_TRUE(
        test::near_vec(c.track("R.Shoulder").position(0), {-0.65263, 1.529542, -0.09452}, 1e-15));
    EXPECT_TRUE(
        test::near_vec(c.track("L.Toe").position(0), {-0.412723, 0.057077, -0.25112}, 1e-15));
  }
  {
    const Capture c = load_capture(opensim_trc("dataWithEformat.trc"));
    EXPECT_EQ(c.info().frame_rate, 119.88012);
    ASSERT_EQ(c.tracks().size(), 14u);
    EXPECT_TRUE(test::near_vec(c.track("RFAsuperior").position(0), {-0.273, 0.0746, -1.57}, 0));
  }
  {
    // thigh is NaN, NAN, Nan, naN and nan in its five rows: gaps.
    const Capture c = load_capture(opensim_trc("dataWithNaNsOfDifferentCases.trc"));
    ASSERT_EQ(c.tracks().size(), 14u);
    EXPECT_EQ(c.track("thigh").valid_count(), 0u);
    EXPECT_EQ(c.track("hip").valid_count(), 5u);
    EXPECT_TRUE(
        test::near_vec(c.track("hip").position(0), {0.282089412, 0.478134096, 0.141640812}, 1e-15));
  }
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

std::string btk_trc(const char* name) {
  return test::test_data(std::string("btk-trc/") + name);
}

// BTK's TRC samples (tests/data/btk-trc, from BTKData, BSD-3): a lab's Z-up export, and an
// export whose header names no marker. Numbers read from the files by hand (PROVENANCE.md).
TEST(Trc, AZUpExportFromAnotherLabStandsOnItsFeet) {
  const std::string path = btk_trc("Res16bits.trc");
  const Capture c = load_capture(path);
  EXPECT_EQ(c.info().frame_rate, 100.0);
  ASSERT_EQ(c.tracks().size(), 44u);
  EXPECT_EQ(c.info().up_axis, Axis::Z);
  EXPECT_EQ(c.info().file_up_axis, Axis::Z);
  EXPECT_EQ(c.info().up_axis_source, "inferred");
  EXPECT_TRUE(test::has_note(c.info(), "up axis inferred from the markers: +Z"));
  // Frame 1: R.TETE (the head) 221.49382 -284.70554 1509.52161 mm, R.CAL (the heel) -18.19383
  // -297.92844 85.79986 mm; frame 100: R.TETE 241.03156 -310.88904 1510.83557 mm.
  const Vec3 head = c.track("R.TETE").position(0);
  const Vec3 heel = c.track("R.CAL").position(0);
  EXPECT_TRUE(test::near_vec(head, {0.22149382, -0.28470554, 1.50952161}, 1e-15));
  EXPECT_TRUE(test::near_vec(heel, {-0.01819383, -0.29792844, 0.08579986}, 1e-15));
  EXPECT_TRUE(
      test::near_vec(c.track("R.TETE").position(99), {0.24103156, -0.31088904, 1.51083557}, 1e-15));
  // Along Z the head is 1.42 m above the heel. Along OpenSim's +Y, the up axis every TRC file
  // was given before, it is 13 mm from it: the subject lay on its side.
  EXPECT_GT(head.z - heel.z, 1.4);
  EXPECT_LT(std::fabs(head.y - heel.y), 0.02);
  // Asked for Y up, the file's Z is turned onto +Y, (x, y, z) -> (x, z, -y): the head stands
  // 1.51 m up.
  LoadOptions y_up;
  y_up.up_axis = Axis::Y;
  const Capture turned = load_capture(path, y_up);
  EXPECT_EQ(turned.info().up_axis, Axis::Y);
  EXPECT_EQ(turned.info().file_up_axis, Axis::Z);
  EXPECT_TRUE(test::near_vec(turned.track("R.TETE").position(0),
                             {0.22149382, 1.50952161, 0.28470554}, 1e-15));
}

TEST(Trc, AFileThatNamesNoMarkerKeepsItsTripletsAsBtkReadsThem) {
  // NumMarkers 0, a names row of Frame# and Time alone, a blank axis row, then rows of up to ten
  // triplets (empty cells where a marker is missing). Refused before ("the names row names no
  // marker"). BTK's own test of this file (TRCFileReaderTest, Unamed1) expects 10 points and
  // 882 frames at 400 Hz, point 1 missing in frames 1-11, and these values (mm).
  const Capture c = load_capture(btk_trc("10002-20130626160334-Unnamed.trc"));
  EXPECT_EQ(c.info().frame_rate, 400.0);
  ASSERT_EQ(c.tracks().size(), 10u);
  const Track& first = c.track("unnamed1");
  ASSERT_EQ(first.size(), 882u);
  for (std::size_t i = 0; i < 11; ++i) {
    EXPECT_FALSE(first.valid(i)) << i;
  }
  const auto mm = [](double x, double y, double z) { return Vec3{x, y, z} * 0.001; };
  EXPECT_TRUE(test::near_vec(first.position(11), mm(19.91857, 1362.18750, -124.33382), 1e-15));
  EXPECT_TRUE(test::near_vec(first.position(356), mm(-37.94589, 909.69788, -160.10370), 1e-15));
  EXPECT_TRUE(test::near_vec(c.track("unnamed2").position(356),
                             mm(-161.65665, 1223.79883, -198.66595), 1e-15));
  EXPECT_FALSE(first.valid(540));
  EXPECT_TRUE(test::near_vec(c.track("unnamed3").position(540),
                             mm(832.84674, 1561.89258, -699.47595), 1e-15));
  EXPECT_TRUE(test::near_vec(c.track("unnamed10").position(540),
                             mm(-26.17541, 526.26477, -348.95346), 1e-15));
  EXPECT_TRUE(test::near_vec(c.track("unnamed4").position(881),
                             mm(-1837.97595, -1082.82910, -1182.05762), 1e-15));
  for (int k = 5; k <= 10; ++k) {
    EXPECT_FALSE(c.track("unnamed" + std::to_string(k)).valid(881)) << k;
  }
  // A few markers far apart, not a person: the up axis stays the format's.
  EXPECT_EQ(c.info().up_axis, Axis::Y);
  EXPECT_EQ(c.info().up_axis_source, "format");
}

/// A TRC file of twelve markers on a person 1.7 m tall walking 20 frames: the markers' heights
/// (5 cm to 1.7 m, plus `lift`) along file axis `up` (0, 1, 2 for X, Y, Z) times `sign`, its
/// walk along the next axis. `units`: the Units value, or empty for none.
std::string person_trc(int up, double sign, double lift = 0.0, const std::string& units = "m") {
  std::ostringstream out;
  out << "PathFileType\t4\t(X/Y/Z)\tperson.trc\nDataRate\tCameraRate\tNumFrames\tNumMarkers"
      << (units.empty() ? "" : "\tUnits") << "\n100\t100\t20\t12" << (units.empty() ? "" : "\t")
      << units << "\nFrame#\tTime";
  for (int m = 0; m < 12; ++m) {
    out << "\tM" << m << "\t\t";
  }
  out << "\n\t";
  for (int m = 1; m <= 12; ++m) {
    out << "\tX" << m << "\tY" << m << "\tZ" << m;
  }
  out << "\n\n";
  const auto walk = static_cast<std::size_t>((up + 1) % 3);
  const auto side = static_cast<std::size_t>((up + 2) % 3);
  for (int f = 0; f < 20; ++f) {
    out << f + 1 << "\t" << f * 0.01;
    for (int m = 0; m < 12; ++m) {
      std::array<double, 3> p{};
      p[static_cast<std::size_t>(up)] = sign * (lift + 0.05 + 0.15 * m); // feet to head
      p[walk] = 0.02 * f + 0.15 * std::sin(m);                           // its depth, walking
      p[side] = 0.2 * std::cos(1.7 * m);                                 // its width
      out << "\t" << p[0] << "\t" << p[1] << "\t" << p[2];
    }
    out << "\n";
  }
  return out.str();
}

TEST(Trc, APersonsUpAxisIsInferredOnlyWhereTheMarkersSayIt) {
  {
    const Capture c = parse_trc(person_trc(2, 1.0), "z.trc");
    EXPECT_EQ(c.info().up_axis, Axis::Z);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_NEAR(c.track("M11").position(0).z, 1.7, 1e-12);
  }
  {
    // Up along the file's -Y (a lab whose Y points down): turned half a turn onto +Y, the head
    // (M11) 1.7 m up and the feet (M0) 5 cm.
    const Capture c = parse_trc(person_trc(1, -1.0), "down.trc");
    EXPECT_EQ(c.info().up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_TRUE(test::has_note(c.info(), "up axis inferred from the markers: -Y"));
    EXPECT_TRUE(test::has_note(c.info(), "turned half a turn"));
    EXPECT_NEAR(c.track("M11").position(0).y, 1.7, 1e-12);
    EXPECT_NEAR(c.track("M0").position(0).y, 0.05, 1e-12);
  }
  {
    // OpenSim's +Y: inferred, and no note, as the format says it.
    const Capture c = parse_trc(person_trc(1, 1.0), "y.trc");
    EXPECT_EQ(c.info().up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_FALSE(test::has_note(c.info(), "up axis inferred"));
  }
  {
    // The same shape along the file's X but 3 m out (a person lying, in a lab whose origin is
    // a corner): the markers spread furthest along X, but 3 to 4.7 m are no heights above a
    // floor at the origin. Nothing is inferred; the format's +Y stands.
    const Capture c = parse_trc(person_trc(0, 1.0, 3.0), "lying.trc");
    EXPECT_EQ(c.info().up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "format");
    EXPECT_NEAR(c.track("M11").position(0).x, 4.7, 1e-12);
  }
  {
    // No Units: no height to check an axis by; nothing is inferred.
    const Capture c = parse_trc(person_trc(2, 1.0, 0.0, ""), "no_units.trc");
    EXPECT_EQ(c.info().up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "format");
  }
}

} // namespace
} // namespace odemocap
