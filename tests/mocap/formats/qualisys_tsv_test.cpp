// Qualisys 6DOF TSV: the real IMUSim export, whose rotation matrices are checked against its
// own Euler angles, and small files for the variants and for broken input.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The numeric cells of each data row (empty cells dropped), read here with a plain split.
std::vector<std::vector<double>> data_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  std::string line;
  bool data = false;
  while (std::getline(in, line)) {
    if (!data) {
      data = line.find("Rot[0]") != std::string::npos;
      continue;
    }
    std::vector<double> row;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, '\t')) {
      if (cell.find_first_not_of(" \r") != std::string::npos) {
        row.push_back(std::stod(cell));
      }
    }
    rows.push_back(row);
  }
  return rows;
}

test::Matrix rotation_from_euler(double yaw, double pitch, double roll) {
  // R = Rz(yaw) Ry(pitch) Rx(roll), angles in degrees (QTM's default rotation convention).
  const double d = k_pi / 180;
  return test::multiply(
      test::multiply(test::rodrigues({0, 0, 1}, yaw * d), test::rodrigues({0, 1, 0}, pitch * d)),
      test::rodrigues({1, 0, 0}, roll * d));
}

TEST(QualisysTsv, ImusimStandHasThreeBodiesAt256HzAndNoGaps) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  EXPECT_EQ(c.info().format, "qualisys-tsv");
  ASSERT_EQ(c.tracks().size(), 3u);
  EXPECT_EQ(c.tracks()[0].name(), "Upper Leg IMU");
  EXPECT_EQ(c.tracks()[2].name(), "Lower Leg IMU");
  EXPECT_DOUBLE_EQ(c.info().frame_rate, 256.0);
  for (const Track& t : c.tracks()) {
    EXPECT_EQ(t.size(), 513u);
    EXPECT_EQ(t.valid_count(), 513u);
    EXPECT_DOUBLE_EQ(t.end_time(), 512 / 256.0); // no Time column: row / FREQUENCY
  }
  // First row, first body: X Y Z in mm.
  EXPECT_TRUE(
      test::near_vec(c.tracks()[0].position(0), {-0.80516156, 0.14327263, -0.61423413}, 1e-12));
}

TEST(QualisysTsv, RotationMatrixIsStoredColumnByColumnAsTheEulerAnglesSay) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  const auto rows = data_rows(slurp(path));
  ASSERT_EQ(rows.size(), 513u);
  double worst = 0;
  double worst_transposed = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), 48u);
    for (std::size_t b = 0; b < 3; ++b) {
      const double* v = &rows[r][16 * b];
      const test::Matrix euler = rotation_from_euler(v[3], v[4], v[5]);
      const Mat3 loaded = to_matrix(c.tracks()[b].orientation(r));
      worst = std::fmax(worst, test::max_abs_diff(euler, loaded.m));
      // Reading Rot[0..8] row by row instead gives the transpose.
      test::Matrix transposed;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          transposed.m[i][j] = euler.m[j][i];
        }
      }
      worst_transposed = std::fmax(worst_transposed, test::max_abs_diff(transposed, loaded.m));
    }
  }
  std::printf("[ metric ] 1539 body-frames: |R(euler) - R(loaded)| <= %.1e; row-major reading "
              "would be off by %.2f\n",
              worst, worst_transposed);
  EXPECT_LT(worst, 1e-4); // the file prints 5 decimals
  EXPECT_GT(worst_transposed, 0.5);
}

const char* k_modern =
    "NO_OF_FRAMES\t4\n"
    "NO_OF_CAMERAS\t8\n"
    "NO_OF_BODIES\t2\n"
    "FREQUENCY\t100\n"
    "NO_OF_ANALOG\t0\n"
    "DATA_INCLUDED\t6D\n"
    "BODY_NAMES\tWand\tPlate\n"
    "Frame\tTime\tWand X\tWand Y\tWand Z\tRoll\tPitch\tYaw\tResidual\tRot[0]\tRot[1]\tRot[2]\t"
    "Rot[3]\tRot[4]\tRot[5]\tRot[6]\tRot[7]\tRot[8]\tPlate X\tPlate Y\tPlate Z\tRoll\tPitch\tYaw\t"
    "Residual\tRot[0]\tRot[1]\tRot[2]\tRot[3]\tRot[4]\tRot[5]\tRot[6]\tRot[7]\tRot[8]\n"
    // Wand: a quarter turn about z (R = [0 -1 0; 1 0 0; 0 0 1], columns 0 1 0, -1 0 0, 0 0 1)
    "1\t0.500\t1000\t2000\t3000\t0\t0\t90\t0.5\t0\t1\t0\t-1\t0\t0\t0\t0\t1\t"
    "0\t0\t0\t0\t0\t0\t0.3\t1\t0\t0\t0\t1\t0\t0\t0\t1\n"
    "2\t0.510\t1010\t2000\t3000\t0\t0\t90\t0.5\t0\t1\t0\t-1\t0\t0\t0\t0\t1\t"
    "NaN\tNaN\tNaN\tNaN\tNaN\tNaN\t-1\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\n"
    "3\t0.520\t1020\t2000\t3000\t0\t0\t90\t0.5\t0\t1\t0\t-1\t0\t0\t0\t0\t1\t"
    "0\t0\t0\t0\t0\t0\t-1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n"
    "4\t0.530\t1030\t2000\t3000\t0\t0\t90\t0.5\t0\t1\t0\t-1\t0\t0\t0\t0\t1\t"
    "0\t0\t5\t0\t0\t0\t0.3\t1\t0\t0\t0\t1\t0\t0\t0\t1\n";

TEST(QualisysTsv, FrameAndTimeColumnsPrefixedNamesAndMissingBodies) {
  const Capture c = parse_qualisys_tsv(k_modern, "modern.tsv");
  const Track& wand = c.track("Wand");
  ASSERT_EQ(wand.size(), 4u);
  EXPECT_DOUBLE_EQ(wand.time(0), 0.5); // the Time column, not the row number
  EXPECT_DOUBLE_EQ(wand.time(3), 0.53);
  EXPECT_TRUE(test::near_vec(wand.position(3), {1.03, 2.0, 3.0}, 1e-12));
  EXPECT_TRUE(
      test::same_rotation(wand.orientation(0), from_axis_angle({0, 0, 1}, k_pi / 2), 1e-12));
  const Track& plate = c.track("Plate");
  EXPECT_FALSE(plate.valid(1)); // NaN and residual -1
  EXPECT_FALSE(plate.valid(2)); // residual -1 with zeros: a gap, never a pose at the origin
  EXPECT_TRUE(plate.valid(3));
  EXPECT_DOUBLE_EQ(plate.position(3).z, 0.005);
  EXPECT_EQ(detect_format(k_modern, "m.tsv"), Format::QualisysTsv);
}

std::string error_of(const std::string& text) {
  try {
    parse_qualisys_tsv(text, "bad.tsv");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(QualisysTsv, BrokenFilesNameLineAndColumn) {
  const std::string good = k_modern;
  EXPECT_EQ(error_of(good), "(no error)");
  EXPECT_EQ(error_of(replace(good, "3\t0.520\t1020", "3\t0.520\t10x0")),
            "bad.tsv:11:9: not a number: '10x0'");
  EXPECT_NE(error_of(replace(good, "NO_OF_BODIES\t2", "NO_OF_BODIES\t3"))
                .find("NO_OF_BODIES says '3' but BODY_NAMES lists 2"),
            std::string::npos);
  EXPECT_NE(error_of(replace(good, "FREQUENCY\t100", "FREQUENCY\t0")).find("FREQUENCY must"),
            std::string::npos);
  EXPECT_NE(error_of(replace(good, "FREQUENCY\t100\n", "")).find("no FREQUENCY"),
            std::string::npos);
  EXPECT_NE(error_of(replace(good, "6D", "2D")).find("only 6D (rigid bodies) and 3D"),
            std::string::npos);
  // A 6D file relabelled 3D is read as markers and has no NO_OF_MARKERS line.
  EXPECT_NE(error_of(replace(good, "6D", "3D")).find("no NO_OF_MARKERS"), std::string::npos);
  EXPECT_NE(error_of(replace(good, "Residual\tRot[0]", "Resid\tRot[0]")).find("'Residual'"),
            std::string::npos);
  // A wand matrix scaled by 1.1 is no rotation.
  EXPECT_NE(error_of(replace(good, "0.5\t0\t1\t0\t-1\t0\t0\t0\t0\t1\t0\t0\t0",
                             "0.5\t0\t1.1\t0\t-1.1\t0\t0\t0\t0\t1.1\t0\t0\t0"))
                .find("bad.tsv:9:"),
            std::string::npos);
  EXPECT_NE(error_of(replace(good, "0.510", "0.400")).find("does not increase"), std::string::npos);
  const std::string short_row =
      replace(good, "\t0\t0\t5\t0\t0\t0\t0.3\t1\t0\t0\t0\t1\t0\t0\t0\t1\n", "\n");
  EXPECT_NE(error_of(short_row).find("the row ends after"), std::string::npos);
  EXPECT_NE(error_of("NO_OF_FRAMES\t1\n").find("no row of column names"), std::string::npos);
  // Found by the fuzzer: a name used twice reached Capture::add_track's MocapError.
  EXPECT_NE(error_of(replace(good, "Wand\tPlate", "Wand\tWand")).find("used twice"),
            std::string::npos);
  EXPECT_NE(error_of(replace(replace(good, "Wand\tPlate", "Wand\t\tPlate"), "NO_OF_BODIES\t2",
                             "NO_OF_BODIES\t3"))
                .find("body 2 has no name"),
            std::string::npos);
  // A header line ending in TAB has no extra empty value.
  EXPECT_EQ(error_of(replace(good, "Wand\tPlate", "Wand\tPlate\t")), "(no error)");
}

TEST(QualisysTsv, TimesPrintedToTheMillisecondAreTheFrequencysGrid) {
  // FREQUENCY 120 with the time column printed to 3 decimals (0.500, 0.508, 0.517, 0.525):
  // intervals of 8 and 9 ms where each is 8.33 ms: the 120 Hz grid is taken.
  std::string text = replace(k_modern, "FREQUENCY\t100", "FREQUENCY\t120");
  text = replace(text, "\t0.510\t", "\t0.508\t");
  text = replace(text, "\t0.520\t", "\t0.517\t");
  text = replace(text, "\t0.530\t", "\t0.525\t");
  const Capture c = parse_qualisys_tsv(text, "rounded.tsv");
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(c.track("Wand").time(i), 0.5 + static_cast<double>(i) / 120.0, 1e-15) << i;
  }
  EXPECT_TRUE(test::has_note(c.info(), "the 120 Hz grid rounded"));
}

TEST(QualisysTsv, FrameCountClaimDisagreeingWithTheRowsIsToleratedOrRefusedWhenStrict) {
  const std::string text = replace(k_modern, "NO_OF_FRAMES\t4", "NO_OF_FRAMES\t9");
  const Capture c = parse_qualisys_tsv(text, "short.tsv");
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("NO_OF_FRAMES says 9 but the file has 4"),
            std::string::npos);
  EXPECT_TRUE(test::has_note(c.info(), "NO_OF_FRAMES says 9"));
  LoadOptions strict;
  strict.strict = true;
  const std::string refused =
      test::error_message<LoadError>([&] { parse_qualisys_tsv(text, "short.tsv", strict); });
  EXPECT_NE(refused.find("short.tsv:1:"), std::string::npos) << refused; // NO_OF_FRAMES's line
  EXPECT_NE(refused.find("strict"), std::string::npos) << refused;
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

// ---- 3D (marker) exports ----

const char* k_qtm_3d_header = "NO_OF_FRAMES\t4\nNO_OF_CAMERAS\t8\nNO_OF_MARKERS\t2\n"
                              "FREQUENCY\t100\nNO_OF_ANALOG\t0\nANALOG_FREQUENCY\t0\n"
                              "DESCRIPTION\t--\nTIME_STAMP\t2019-05-02, 10:12:01\t7.2\n"
                              "DATA_INCLUDED\t3D\nMARKER_NAMES\tLASI\tRASI\n"
                              "TRAJECTORY_TYPES\tMeasured\tGap-filled\n";

TEST(QualisysTsv3d, MarkersWithFrameAndTimeColumnsAndGaps) {
  const std::string text = std::string(k_qtm_3d_header) +
                           "Frame\tTime\tLASI X\tLASI Y\tLASI Z\tRASI X\tRASI Y\tRASI Z\t\n"
                           "1\t0.00000\t100.0\t200.0\t900.0\t0.000\t0.000\t0.000\t\n"
                           "2\t0.01000\t101.0\t200.0\t900.0\t300.0\t200.0\t900.0\t\n"
                           "3\t0.02000\t\t\t\t301.0\t200.0\t900.0\t\n"
                           "4\t0.03000\t103.0\t200.0\t900.0\t302.0\t200.0\t900.0\t\n";
  const Capture c = parse_qualisys_tsv(text, "markers.tsv");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& lasi = c.track("LASI");
  EXPECT_TRUE(lasi.position_only());
  EXPECT_EQ(lasi.size(), 4u);
  EXPECT_TRUE(test::near_vec(lasi.position(1), {0.101, 0.2, 0.9}, 1e-15)); // mm -> m
  EXPECT_FALSE(lasi.valid(2));                     // empty cells
  EXPECT_FALSE(c.track("RASI").valid(0));          // 0, 0, 0: not seen
  EXPECT_NEAR(c.track("RASI").time(3), 0.03, 1e-15);
  EXPECT_EQ(c.info().frame_rate, 100.0);
  EXPECT_TRUE(c.info().tolerated.empty());
}

TEST(QualisysTsv3d, OlderExportsWithoutColumnNamesAndACountThatDisagrees) {
  const std::string text = std::string(k_qtm_3d_header) +
                           "100.0\t200.0\t900.0\t300.0\t200.0\t900.0\n"
                           "101.0\t200.0\t900.0\t301.0\t200.0\t900.0\n";
  const Capture c = parse_qualisys_tsv(text, "old.tsv");
  EXPECT_EQ(c.track("RASI").size(), 2u);
  EXPECT_NEAR(c.track("RASI").time(1), 0.01, 1e-15); // row / FREQUENCY
  EXPECT_TRUE(test::near_vec(c.track("RASI").position(1), {0.301, 0.2, 0.9}, 1e-15));
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("NO_OF_FRAMES says 4 but the file has 2"), std::string::npos);
  LoadOptions strict;
  strict.strict = true;
  EXPECT_THROW(parse_qualisys_tsv(text, "old.tsv", strict), LoadError);
}

TEST(QualisysTsv3d, AnOlderExportsFirstColumnPrintedToTheMillisecondIsItsTimeOnTheGrid) {
  // No row of names, and a first column 0.000, 0.008, 0.017, 0.025 at 120 Hz: the time (it
  // steps by 1/120 s within its printing), on the 120 Hz grid.
  std::string markers = std::string(k_qtm_3d_header);
  markers.replace(markers.find("FREQUENCY\t100"), 13, "FREQUENCY\t120");
  markers += "0.000\t100.0\t200.0\t900.0\t300.0\t200.0\t900.0\n"
             "0.008\t101.0\t200.0\t900.0\t301.0\t200.0\t900.0\n"
             "0.017\t102.0\t200.0\t900.0\t302.0\t200.0\t900.0\n"
             "0.025\t103.0\t200.0\t900.0\t303.0\t200.0\t900.0\n";
  const Capture m = parse_qualisys_tsv(markers, "old.tsv");
  EXPECT_TRUE(test::has_note(m.info(), "the first column read as time"));
  EXPECT_TRUE(test::has_note(m.info(), "the 120 Hz grid rounded"));
  EXPECT_NEAR(m.track("RASI").time(2), 2.0 / 120.0, 1e-15);
  EXPECT_TRUE(test::near_vec(m.track("RASI").position(2), {0.302, 0.2, 0.9}, 1e-15));
}

// Layouts of real QTM 3D exports: a header without DATA_INCLUDED, DESCRIPTION or TIME_STAMP
// (older QTM, as HumLab's mocap-wrangle-rs shows one) whose rows start with the frame number and
// the time, without a row of column names, and end in a space; and the derived-data exports
// (DATA_INCLUDED Velocity, NO_OF_DATA_TYPES) that QTM's analyses write beside them.
TEST(QualisysTsv3d, ExportsWithoutDataIncludedOrColumnNamesReadTheirFrameAndTimeColumns) {
  const std::string header = "NO_OF_FRAMES\t3\nNO_OF_CAMERAS\t14\nNO_OF_MARKERS\t2\n"
                             "FREQUENCY\t200\nNO_OF_ANALOG\t0\nANALOG_FREQUENCY\t0\n"
                             "MARKER_NAMES\tRShoulderTop\tRElbowOut\n"
                             "TRAJECTORY_TYPES\tMeasured\tMeasured\n";
  const std::string both = header + "1\t0.00000\t786.729\t-34.016\t1064.381\t700\t-30\t900 \n"
                                    "2\t0.00500\t786.8\t-34.0\t1064.4\t700\t-30\t900 \n"
                                    "3\t0.01000\t786.9\t-34.1\t1064.5\t700\t-30\t900 \n";
  const Capture c = load_capture_from_memory(both, "old.tsv");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& shoulder = c.track("RShoulderTop");
  // Read from the frame column on, X would be 0.001 m (frame 1) and Z 0.786729.
  EXPECT_TRUE(test::near_vec(shoulder.position(0), {0.786729, -0.034016, 1.064381}, 1e-15));
  EXPECT_EQ(shoulder.time(1), 0.005);
  EXPECT_TRUE(test::near_vec(c.track("RElbowOut").position(2), {0.7, -0.03, 0.9}, 1e-15));
  EXPECT_TRUE(test::has_note(c.info(), "first two columns read as frame and time"));

  // One of the two: the time steps by 1 / FREQUENCY, the frame by 1.
  const std::string time_only = header + "0.000\t1\t2\t3\t4\t5\t6\n0.005\t1\t2\t3\t4\t5\t6\n";
  const Capture t = load_capture_from_memory(time_only, "time.tsv");
  EXPECT_EQ(t.track("RShoulderTop").time(1), 0.005);
  EXPECT_TRUE(test::near_vec(t.track("RShoulderTop").position(0), {0.001, 0.002, 0.003}, 1e-18));
  const std::string frame_only = header + "7\t1\t2\t3\t4\t5\t6\n8\t1\t2\t3\t4\t5\t6\n";
  const Capture f = load_capture_from_memory(frame_only, "frame.tsv");
  EXPECT_EQ(f.track("RShoulderTop").time(1), 0.005); // row / FREQUENCY
  EXPECT_TRUE(test::near_vec(f.track("RShoulderTop").position(1), {0.001, 0.002, 0.003}, 1e-18));
  EXPECT_TRUE(test::has_note(f.info(), "first column read as frame"));

  const auto error = [](const std::string& text) {
    return test::error_message<LoadError>([&] { load_capture_from_memory(text, "bad.tsv"); });
  };
  EXPECT_NE(error(header + "1\t2\t3\t4\t5\t6\t7\t8\t9\n").find("a row of 9 values"),
            std::string::npos);
  const std::string velocity = "NO_OF_FRAMES\t2\nNO_OF_DATA_TYPES\t1\nFREQUENCY\t200\n"
                               "TIME_STAMP\t2022-11-22, 21:34:11\nDATA_INCLUDED\tVelocity\n"
                               "DATA_TYPES\tx_LWristOut_vel_M\n\n\n1\t0.00000\t0.000\n"
                               "2\t0.00500\t12.438\n";
  EXPECT_NE(error(velocity).find("bad.tsv:5:15: DATA_INCLUDED is 'Velocity'"), std::string::npos)
      << error(velocity);
}

TEST(QualisysTsv3d, MalformedMarkerExportsSayWhereAndWhat) {
  const auto error = [](const std::string& text) {
    return test::error_message<LoadError>([&] { parse_qualisys_tsv(text, "bad.tsv"); });
  };
  std::string names = k_qtm_3d_header;
  names.replace(names.find("LASI\tRASI"), 9, "LASI\tLASI");
  EXPECT_NE(error(names + "1\t2\t3\t4\t5\t6\n").find("the name 'LASI' of an earlier marker"),
            std::string::npos);
  std::string count = k_qtm_3d_header;
  count.replace(count.find("NO_OF_MARKERS\t2"), 15, "NO_OF_MARKERS\t3");
  EXPECT_NE(error(count + "1\t2\t3\t4\t5\t6\n").find("MARKER_NAMES lists 2"), std::string::npos);
  EXPECT_NE(error(std::string(k_qtm_3d_header) + "1\t2\tx\t4\t5\t6\n").find("bad.tsv:12:5: not a number"),
            std::string::npos)
      << error(std::string(k_qtm_3d_header) + "1\t2\tx\t4\t5\t6\n");
  EXPECT_NE(error(std::string(k_qtm_3d_header) + "Frame\tTime\tLASI X\tLASI Y\n1\t0\t1\t2\n")
                .find("expected column 'LASI Z'"),
            std::string::npos);
  EXPECT_NE(error(std::string(k_qtm_3d_header)).find("no data rows"), std::string::npos);
}

} // namespace
} // namespace odemocap
