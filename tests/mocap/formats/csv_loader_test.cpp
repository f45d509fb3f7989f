#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/motive_person.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>
#include <odemocap/save.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using test::near_vec;
using test::same_rotation;

LoadError error_of(const std::string& text, const LoadOptions& options = {}) {
  try {
    load_capture_from_memory(text, "bad.csv", options);
  } catch (const LoadError& e) {
    return e;
  }
  return LoadError("none", 0, 0, "no error");
}

// ---- generic rigid-body CSV ----

TEST(RigidBodyCsv, ReadsNamedColumnsAndKeepsGapsAsGaps) {
  const std::string text = "time,hand.x,hand.y,hand.z,hand.qw,hand.qx,hand.qy,hand.qz,note\n"
                           "0.0,1,2,3,1,0,0,0,ok\n"
                           "0.1,,,,,,,,occluded\n"
                           "0.2,1.5,2,3,NaN,0,0,0,nan is missing too\n"
                           "0.3,2,2,3,0.7071067811865476,0,0,0.7071067811865476,\n";
  const Capture capture = load_capture_from_memory(text, "hand.csv");
  EXPECT_EQ(capture.info().format, "rigid-body-csv");
  const Track& hand = capture.track("hand");
  ASSERT_EQ(hand.size(), 4u);
  EXPECT_TRUE(hand.valid(0));
  EXPECT_FALSE(hand.valid(1)); // empty cells are a gap, not a zero pose
  EXPECT_FALSE(hand.valid(2));
  EXPECT_TRUE(near_vec(hand.position(3), {2, 2, 3}, 0));
  EXPECT_TRUE(
      same_rotation(hand.orientation(3), from_axis_angle({0, 0, 1}, test::k_pi / 2), 1e-15));
  ASSERT_EQ(capture.info().notes.size(), 1u); // the "note" column was not read
  EXPECT_NE(capture.info().notes[0].find("'note'"), std::string::npos);
}

TEST(RigidBodyCsv, SemicolonsWithDecimalCommasQuotesAndTabs) {
  const std::string semicolons =
      "\"Time (s)\";\"tool_px\";\"tool_py\";\"tool_pz\";tool_qw;tool_qx;tool_qy;tool_qz\r\n"
      "0,5;\"1,25\";0;0;1;0;0;0\r\n"
      "1,0;2,5E-1;0;0;1;0;0;0\r\n";
  const Capture excel = load_capture_from_memory(semicolons, "excel.csv");
  const Track& a = excel.track("tool");
  EXPECT_EQ(a.time(0), 0.5);
  EXPECT_EQ(a.position(0).x, 1.25);
  EXPECT_EQ(a.position(1).x, 0.25);
  const std::string tabs = "t\tb x\tb y\tb z\tb qw\tb qx\tb qy\tb qz\n0\t1\t2\t3\t1\t0\t0\t0\n";
  const Capture tsv = load_capture_from_memory(tabs, "tabs.tsv");
  EXPECT_TRUE(near_vec(tsv.track("b").position(0), {1, 2, 3}, 0));
}

TEST(RigidBodyCsv, FrameColumnWithRateAndQuaternionOrderOption) {
  const std::string text =
      "frame,b.x,b.y,b.z,b.q0,b.q1,b.q2,b.q3\n10,0,0,0,0,0,0,1\n11,0,0,0,0,0,0,1\n";
  LoadOptions options;
  EXPECT_NE(error_of(text, options).message().find("frame_rate"), std::string::npos);
  options.frame_rate = 100;
  options.quat_order = QuatOrder::XYZW; // q3 is w: identity
  const Capture xyzw_capture = load_capture_from_memory(text, "f.csv", options);
  const Track& xyzw = xyzw_capture.track("b");
  EXPECT_EQ(xyzw.time(0), 0.1);
  EXPECT_TRUE(same_rotation(xyzw.orientation(0), Quat{}, 0));
  options.quat_order = QuatOrder::WXYZ; // q3 is z: a half turn about z
  const Capture wxyz_capture = load_capture_from_memory(text, "f.csv", options);
  const Track& wxyz = wxyz_capture.track("b");
  EXPECT_TRUE(same_rotation(wxyz.orientation(0), Quat{0, 0, 0, 1}, 0));
}

TEST(RigidBodyCsv, ErrorsPointAtTheCell) {
  const std::string header = "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n";
  const LoadError text_cell = error_of(header + "0,1,2,abc,1,0,0,0\n");
  EXPECT_EQ(text_cell.line(), 2u);
  EXPECT_EQ(text_cell.column(), 7u);
  EXPECT_NE(text_cell.message().find("'abc'"), std::string::npos) << text_cell.what();
  const LoadError missing = error_of("time,b.x,b.y,b.z,b.qw,b.qx,b.qy\n");
  EXPECT_NE(missing.message().find("no column for qz"), std::string::npos) << missing.what();
  const LoadError backwards = error_of(header + "1,0,0,0,1,0,0,0\n0.5,0,0,0,1,0,0,0\n");
  EXPECT_EQ(backwards.line(), 3u);
  EXPECT_NE(backwards.message().find("not after"), std::string::npos) << backwards.what();
  const LoadError not_unit = error_of(header + "0,0,0,0,2,0,0,0\n");
  EXPECT_NE(not_unit.message().find("expected unit length"), std::string::npos) << not_unit.what();
  EXPECT_EQ(not_unit.column(), 9u); // the qw cell
  const LoadError infinite = error_of(header + "0,inf,0,0,1,0,0,0\n");
  EXPECT_EQ(infinite.column(), 3u);
}

// ---- OptiTrack Motive CSV: the real exports ----

TEST(MotiveCsv, Version121TakeWithUnlabelledHeaderRows) {
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = load_capture(path);
  EXPECT_EQ(capture.info().format, "motive-csv");
  EXPECT_EQ(capture.info().up_axis, Axis::Y);
  EXPECT_EQ(capture.info().frame_rate, 120.0);
  // PROVENANCE.md: one rigid body, its 3 rigid body markers, 9 markers (6 unlabeled, 3 of
  // which are never filled).
  ASSERT_EQ(capture.tracks().size(), 13u);
  const Track& solved = capture.track("Rigid Body 1_1");
  EXPECT_TRUE(solved.position_only());
  EXPECT_TRUE(near_vec(solved.position(0), {0.009986, 0.019136, 0.009807}, 1e-15));
  const Track& unlabeled = capture.track("Unlabeled:108");
  EXPECT_TRUE(unlabeled.position_only());
  EXPECT_TRUE(near_vec(unlabeled.position(0), {-0.724127, 0.716956, 2.824065}, 1e-15));
  EXPECT_EQ(capture.track("Unlabeled:105").valid_count(), 0u);
  EXPECT_EQ(capture.track("Rigid Body 1:Marker1").size(), 250u);
  const Track& body = capture.track("Rigid Body 1");
  EXPECT_FALSE(body.position_only());
  ASSERT_EQ(body.size(), 250u);
  EXPECT_EQ(body.valid_count(), 250u);
  EXPECT_NEAR(body.time(249), 249 / 120.0, 1e-6);
  // Times printed to the microsecond (0.008333): the 120 Hz grid within that.
  EXPECT_NEAR(body.time(1), 1 / 120.0, 1e-17);
  EXPECT_TRUE(test::has_note(capture.info(), "the 120 Hz grid rounded"));
  // First row: quaternion (0.000035, 0.000016, -0.000030, -1) is the identity with W = -1.
  EXPECT_TRUE(same_rotation(body.orientation(0), Quat{}, 1e-4));
  EXPECT_TRUE(near_vec(body.position(0), {0.060002, 0.019150, 0.076611}, 1e-15));
}

TEST(MotiveCsv, TimesPrintedWithSixDigitsLateInATakeAreTheFrameRatesGrid) {
  // Motive trims its times' zeros (722.1, 722.11 in the pathviewr export); with six
  // significant digits, 12 minutes into a 120 Hz take is printed to the millisecond: 722.008,
  // 722.017, 722.025, intervals of 9 and 8 ms where each is 8.33 ms. The sample take with its
  // times so printed loads on the 120 Hz grid, its motion unchanged.
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  std::string line;
  int row = -1;
  while (std::getline(in, line)) {
    if (line.rfind("Frame,", 0) == 0) {
      row = 0;
    } else if (row >= 0 && !line.empty()) {
      const std::size_t a = line.find(','), b = line.find(',', a + 1);
      char t[32];
      std::snprintf(t, sizeof t, "%.6g", 722.0 + row++ / 120.0);
      line = line.substr(0, a + 1) + t + line.substr(b);
    }
    text << line << '\n';
  }
  ASSERT_NE(text.str().find(",722.008,"), std::string::npos);
  const Capture late = load_capture_from_memory(text.str(), "late.csv");
  const Capture original = load_capture(path);
  const Track& body = late.track("Rigid Body 1");
  ASSERT_EQ(body.size(), 250u);
  for (std::size_t i = 0; i < body.size(); ++i) {
    ASSERT_NEAR(body.time(i), 722.0 + static_cast<double>(i) / 120.0, 1e-12) << i;
    ASSERT_TRUE(near_vec(body.position(i), original.track("Rigid Body 1").position(i), 0)) << i;
  }
  EXPECT_TRUE(test::has_note(late.info(), "printed to 0.001 s, are the 120 Hz grid rounded"));
}

TEST(MotiveCsv, Version123TakeKeepsGapsJumpsAndReportsTheHeadersClaim) {
  const std::string path = test::shared_data("pathviewr/pathviewr_motive_example_data.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = load_capture(path);
  ASSERT_EQ(capture.tracks().size(), 3u);
  // Gap counts from PROVENANCE.md: device02 1 row, device03 2, device05 186.
  const std::pair<const char*, std::size_t> gaps[] = {
      {"device02", 1}, {"device03", 2}, {"device05", 186}};
  for (const auto& [name, count] : gaps) {
    const Track& t = capture.track(name);
    EXPECT_EQ(t.size(), 934u);
    EXPECT_EQ(t.size() - t.valid_count(), count) << name;
    for (std::size_t k = 1; k < t.valid_indices().size(); ++k) { // flips removed
      ASSERT_GE(dot(t.orientation(t.valid_indices()[k - 1]), t.orientation(t.valid_indices()[k])),
                0);
    }
  }
  const Track& t = capture.track("device02");
  EXPECT_DOUBLE_EQ(t.time(0), 722.1);
  EXPECT_DOUBLE_EQ(t.end_time(), 1051.0);
  std::string notes;
  for (const std::string& n : capture.info().notes) {
    notes += n + "\n";
  }
  EXPECT_NE(notes.find("Total Exported Frames 190951, the file has 934 data rows"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("jump 4 time(s), first 72838 -> 76400"), std::string::npos) << notes;
}

/// A Motive 2.x-style export (labelled header rows) with the given Type/Name/property/axis
/// columns after Frame and Time, and two rows of values.
std::string motive_export(const std::string& types, const std::string& names,
                          const std::string& properties, const std::string& axes,
                          const std::string& row0, const std::string& row1) {
  return "Format Version,1.23,Take Name,t,Export Frame Rate,100.000000,Total Exported Frames,2,"
         "Rotation Type,Quaternion,Length Units,Millimeters,Coordinate Space,Global\n\n"
         ",Type," +
         types + "\n,Name," + names + "\n,ID," + std::string(types.size() > 0 ? "1" : "") + "\n,," +
         properties + "\nFrame,Time (Seconds)," + axes + "\n0,0.00," + row0 + "\n1,0.01," + row1 +
         "\n";
}

TEST(MotiveCsv, MarkerOnlyExportsLoadAsPositionOnlyTracks) {
  const std::string text = motive_export(
      "Marker,Marker,Marker,Marker,Marker,Marker,Marker",
      "Unlabeled 1036,Unlabeled 1036,Unlabeled 1036,hand:tip,hand:tip,hand:tip,hand:tip",
      "Position,Position,Position,Position,Position,Position,Marker Quality", "X,Y,Z,X,Y,Z,",
      "1,2,3,10,20,30,0.9", ",,,11,21,31,0.8");
  const Capture c = parse_motive_csv(text, "markers.csv");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& unlabeled = c.track("Unlabeled 1036");
  EXPECT_TRUE(unlabeled.position_only());
  EXPECT_TRUE(near_vec(unlabeled.position(0), {0.001, 0.002, 0.003}, 1e-15)); // mm -> m
  EXPECT_FALSE(unlabeled.valid(1));
  EXPECT_TRUE(near_vec(c.track("hand:tip").position(1), {0.011, 0.021, 0.031}, 1e-15));
}

TEST(MotiveCsv, AMarkerOnlyExportWithEulerRotationTypeLoads) {
  std::string text = motive_export("Marker,Marker,Marker", "a,a,a", "Position,Position,Position",
                                   "X,Y,Z", "1,2,3", "1,2,4");
  text.replace(text.find("Rotation Type,Quaternion"), 24, "Rotation Type,XYZ");
  const Capture c = parse_motive_csv(text, "euler_markers.csv");
  EXPECT_EQ(c.track("a").size(), 2u);
  EXPECT_NE(c.info().notes.back().find("markers only"), std::string::npos);
}

TEST(MotiveCsv, ARigidBodyMarkerNamedLikeAMarkerKeepsBothApart) {
  const std::string text =
      motive_export("Rigid Body Marker,Rigid Body Marker,Rigid Body Marker,Marker,Marker,Marker",
                    "tool:M1,tool:M1,tool:M1,tool:M1,tool:M1,tool:M1",
                    "Position,Position,Position,Position,"
                    "Position,Position",
                    "X,Y,Z,X,Y,Z", "1,2,3,1.5,2,3", "1,2,3,1.5,2,3");
  const Capture c = parse_motive_csv(text, "both.csv");
  EXPECT_EQ(c.track("tool:M1").position(0).x, 0.0015);                    // measured
  EXPECT_EQ(c.track("tool:M1 (rigid body marker)").position(0).x, 0.001); // solved
}

TEST(MotiveCsv, AnExportWithNoObjectsSaysSo) {
  const std::string text = motive_export("Force Plate,Force Plate,Force Plate", "fp1,fp1,fp1",
                                         "Force,Force,Force", "X,Y,Z", "1,2,3", "1,2,3");
  const std::string message =
      test::error_message<LoadError>([&] { parse_motive_csv(text, "plates.csv"); });
  EXPECT_NE(message.find("no rigid body, bone or marker"), std::string::npos) << message;
  EXPECT_NE(message.find("only Force Plate"), std::string::npos) << message;
}

// Motive skeleton takes were loaded without their bones ("columns of type 'Bone' skipped"), and
// an export written with another axis convention than Motive's +Y (the export's Z-up preset for
// Visual3D and MotionMonitor, or custom axes; the file does not say which) loaded lying on its
// side. The bones now load as bodies, bone markers as markers, and the person's markers and
// bones tell the axis: for any of the 24 axis conventions and any heading, every bone and marker
// is where the person put it, up to a turn about the vertical.
TEST(MotiveCsv, ASkeletonTakeLoadsItsBonesAndStandsOnItsFeetWhateverTheExportsAxes) {
  test::Random random(7201);
  LoadOptions options;
  options.up_axis = Axis::Z;
  const Vec3 axes[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int c = 0; c < 96; ++c) {
    const test::MotivePerson person(random);
    // W's +Z to the file's axis +-a (Motive's own: +Y), then any heading about it.
    const Vec3 up = axes[c % 3] * (c % 6 < 3 ? 1.0 : -1.0);
    const Quat convention =
        c < 8 ? from_to({0, 0, 1}, {0, 1, 0}) // Motive's +Y
              : from_axis_angle(up, random.uniform(-3.14, 3.14)) * from_to({0, 0, 1}, up);
    const Capture capture = parse_motive_csv(person.file(convention), "person.csv", options);
    ASSERT_EQ(capture.tracks().size(), test::MotivePerson::k_count * 5) << c;
    // The loaded world is W turned about its vertical by one angle: find it from the hip.
    const Pose hip = capture.track("Skeleton 001:Hip").pose(0);
    const Quat yaw = hip.q * conj(person.bones[0][0].q);
    ASSERT_LT(std::hypot(yaw.x, yaw.y), 1e-9) << "case " << c << ": not a turn about Z";
    for (int f = 0; f < test::MotivePerson::k_frames; f += 13) {
      const auto i = static_cast<std::size_t>(f);
      for (std::size_t b = 0; b < test::MotivePerson::k_count; ++b) {
        const Track& bone =
            capture.track(std::string("Skeleton 001:") + test::MotivePerson::k_bones[b].name);
        ASSERT_FALSE(bone.position_only());
        const Vec3 expected = rotate(yaw, person.bones[i][b].p - person.bones[0][0].p) + hip.p;
        ASSERT_TRUE(near_vec(bone.position(i), expected, 1e-9)) << "case " << c << ", bone " << b;
        ASSERT_TRUE(same_rotation(bone.orientation(i), yaw * person.bones[i][b].q, 1e-9))
            << "case " << c << ", bone " << b;
        ASSERT_NEAR(bone.position(i).z, person.bones[i][b].p.z, 1e-9) << "heights stand";
      }
      for (std::size_t m = 0; m < 2 * test::MotivePerson::k_count; ++m) {
        const Vec3 expected = rotate(yaw, person.markers[i][m] - person.bones[0][0].p) + hip.p;
        ASSERT_TRUE(near_vec(capture.track(test::MotivePerson::marker_name(m)).position(i),
                             expected, 1e-9));
        ASSERT_TRUE(near_vec(
            capture.track(test::MotivePerson::marker_name(m) + " (bone marker)").position(i),
            expected, 1e-9));
      }
    }
    EXPECT_EQ(capture.info().up_axis_source, "inferred") << c;
    // The bones' hierarchy, from Motive's bone names: each offset the child's origin seen from
    // its parent in the first frame (a rotation about the vertical leaves it as it was in W).
    ASSERT_NE(capture.skeleton(), nullptr);
    const auto& joints = capture.skeleton()->joints;
    ASSERT_EQ(joints.size(), test::MotivePerson::k_count);
    const std::map<std::string, std::string> parents = {
        {"Ab", "Hip"},          {"Chest", "Ab"},        {"Neck", "Chest"},  {"Head", "Neck"},
        {"LShoulder", "Chest"}, {"LUArm", "LShoulder"}, {"LFArm", "LUArm"}, {"LHand", "LFArm"},
        {"RShoulder", "Chest"}, {"RUArm", "RShoulder"}, {"RFArm", "RUArm"}, {"RHand", "RFArm"},
        {"LThigh", "Hip"},      {"LShin", "LThigh"},    {"LFoot", "LShin"}, {"LToe", "LFoot"},
        {"RThigh", "Hip"},      {"RShin", "RThigh"},    {"RFoot", "RShin"}, {"RToe", "RFoot"}};
    const auto bone_index = [&](const std::string& bone) {
      for (std::size_t b = 0; b < test::MotivePerson::k_count; ++b) {
        if (bone == std::string("Skeleton 001:") + test::MotivePerson::k_bones[b].name) {
          return b;
        }
      }
      return test::MotivePerson::k_count;
    };
    for (std::size_t j = 0; j < joints.size(); ++j) {
      const std::string short_name = joints[j].name.substr(13);
      const auto parent = parents.find(short_name);
      if (parent == parents.end()) {
        EXPECT_EQ(short_name, "Hip");
        EXPECT_EQ(joints[j].parent, -1);
        continue;
      }
      ASSERT_GE(joints[j].parent, 0);
      ASSERT_LT(joints[j].parent, static_cast<int>(j)) << "parents before children";
      EXPECT_EQ(joints[static_cast<std::size_t>(joints[j].parent)].name,
                "Skeleton 001:" + parent->second);
      const Pose& a = person.bones[0][bone_index("Skeleton 001:" + parent->second)];
      const Pose& b = person.bones[0][bone_index(joints[j].name)];
      ASSERT_TRUE(near_vec(joints[j].offset, rotate(conj(a.q), b.p - a.p), 1e-9)) << short_name;
    }
    // A note only where the markers overrule Motive's +Y.
    const bool motives_axis = c < 8 || (c % 3 == 1 && c % 6 < 3);
    EXPECT_EQ(test::has_note(capture.info(), "its CSV export can write other axes"), !motives_axis)
        << c;
  }
}

// Props on a table, laid along X from an origin at the table's end: their markers spread
// furthest along X at "heights" of 0.1 to 2.3 m, as a person lying would, or one standing
// along X. Only what may be on a person votes on the axis (not rigid bodies, their markers,
// measured ones named "<rigid body>:...", or unlabelled ones), so the file keeps Motive's Y.
TEST(MotiveCsv, PropsLyingAlongAnAxisDoNotTurnTheFile) {
  std::string types, names, properties, axes;
  for (int k = 0; k < 4; ++k) {
    const std::string body = "Tool" + std::to_string(k);
    for (const char* a : {"X", "Y", "Z", "W", "X", "Y", "Z"}) {
      types += ",Rigid Body";
      names += "," + body;
      axes += std::string(",") + a;
    }
    properties += ",Rotation,Rotation,Rotation,Rotation,Position,Position,Position";
    for (int m = 0; m < 3; ++m) {
      for (const char* type : {"Rigid Body Marker", "Marker"}) {
        for (const char* a : {"X", "Y", "Z"}) {
          types += std::string(",") + type;
          names += "," + body + ":Marker" + std::to_string(m + 1);
          properties += ",Position";
          axes += std::string(",") + a;
        }
      }
    }
    for (const char* a : {"X", "Y", "Z"}) {
      types += ",Marker";
      names += ",Unlabeled 10" + std::to_string(k);
      properties += ",Position";
      axes += std::string(",") + a;
    }
  }
  std::string text = "Format Version,1.23,Take Name,t,Export Frame Rate,100.000000,Rotation Type,"
                     "Quaternion,Length Units,Meters,Coordinate Space,Global\n\n,Type" +
                     types + "\n,Name" + names + "\n,ID\n," + properties +
                     "\nFrame,Time (Seconds)" + axes + "\n";
  for (int f = 0; f < 20; ++f) {
    text += std::to_string(f) + "," + std::to_string(f * 0.01);
    for (int k = 0; k < 4; ++k) {
      const double x = 0.1 + 0.7 * k + 0.001 * f; // along the table
      text += ",0,0,0,1," + std::to_string(x) + ",0.8,0";
      for (int m = 0; m < 3; ++m) {
        for (int copy = 0; copy < 2; ++copy) {
          text += "," + std::to_string(x + 0.05 * m) + ",0.8" + std::to_string(m) + "," +
                  std::to_string(0.1 * (m - 1));
        }
      }
      text += "," + std::to_string(x + 0.3) + ",0.75,0.2";
    }
    text += "\n";
  }
  const Capture capture = parse_motive_csv(text, "props.csv");
  EXPECT_EQ(capture.tracks().size(), 4u * (1 + 3 + 3 + 1));
  EXPECT_EQ(capture.info().up_axis, Axis::Y);
  EXPECT_EQ(capture.info().up_axis_source, "format");
  EXPECT_NEAR(capture.track("Tool3").position(0).x, 2.2, 1e-12);
}

// Under Coordinate Space Local a bone's pose is its parent's frame's, and Motive 2's export does
// not name the parent: the bones are skipped, and said so; the markers load.
TEST(MotiveCsv, BonesInLocalCoordinatesAreSkippedAndSaid) {
  test::Random random(7202);
  const test::MotivePerson person(random);
  const Capture capture =
      parse_motive_csv(person.file(from_to({0, 0, 1}, {0, 1, 0}), "Local"), "local.csv");
  EXPECT_EQ(capture.tracks().size(), test::MotivePerson::k_count * 4);
  EXPECT_EQ(capture.find_track("Skeleton 001:Hip"), nullptr);
  EXPECT_TRUE(test::has_note(capture.info(), "columns of type 'Bone' skipped: under Coordinate "
                                             "Space Local"));
}

TEST(MotiveCsv, EulerRotationTypeIsRejectedWithAClearMessage) {
  const std::string text =
      "Format Version,1.23,Take Name,t,Rotation Type,XYZ,Length Units,Meters\n\n"
      ",Type,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body\n"
      ",Name,b,b,b,b,b,b\n,ID,1,1,1,1,1,1\n"
      ",,Rotation,Rotation,Rotation,Position,Position,Position\n"
      "Frame,Time (Seconds),X,Y,Z,X,Y,Z\n0,0,0,0,0,1,2,3\n";
  const LoadError e = error_of(text);
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.column(), 47u); // the value "XYZ"
  EXPECT_NE(e.message().find("Rotation Type 'XYZ' is not supported"), std::string::npos)
      << e.what();
}

TEST(MotiveCsv, ASpreadsheetResaveWithSemicolonsAndDecimalCommasStillLoads) {
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // What a spreadsheet in a decimal-comma locale writes: ';' between cells, ',' in numbers.
  for (char& c : text) {
    c = c == ',' ? ';' : c == '.' ? ',' : c;
  }
  const Capture resaved = load_capture_from_memory(text, "resaved.csv");
  const Capture original = load_capture(path);
  EXPECT_EQ(resaved.info().frame_rate, 120.0);
  const Track& a = resaved.track("Rigid Body 1");
  const Track& b = original.track("Rigid Body 1");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.time(i), b.time(i));
    ASSERT_TRUE(near_vec(a.position(i), b.position(i), 0));
    ASSERT_TRUE(same_rotation(a.orientation(i), b.orientation(i), 0));
  }
}

TEST(MotiveCsv, MillimetresBecomeMetresAndYUpCanBecomeZUp) {
  const std::string text =
      "Format Version,1.23,Rotation Type,Quaternion,Length Units,Millimeters\n\n"
      ",Type,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body\n"
      ",Name,b,b,b,b,b,b,b\n,ID,1,1,1,1,1,1,1\n"
      ",,Rotation,Rotation,Rotation,Rotation,Position,Position,Position\n"
      "Frame,Time (Seconds),X,Y,Z,W,X,Y,Z\n0,0,0,0,0,1,100,200,300\n";
  LoadOptions options;
  options.up_axis = Axis::Z;
  const Capture capture = load_capture_from_memory(text, "mm.csv", options);
  EXPECT_TRUE(near_vec(capture.track("b").position(0), {0.1, -0.3, 0.2}, 1e-15));
  EXPECT_EQ(capture.info().length_unit, "Millimeters");
  EXPECT_EQ(capture.info().length_scale, 0.001);
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(MotiveCsv, ALastRowCutMidNumberIsDroppedWithANote) {
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  const std::string whole = file_text(path);
  // Cut frame 249's row three characters into cell 25, the Z of the first measured marker
  // (cells 23-25; its name is cell 23 of the Name row, line 4).
  const std::size_t last_row = whole.rfind("\n249,") + 1;
  std::size_t at = last_row;
  for (int cell = 0; cell < 24; ++cell) {
    at = whole.find(',', at) + 1;
  }
  const std::string cut = whole.substr(0, at + 3);
  const std::string true_z = whole.substr(at, whole.find(',', at) - at);
  std::size_t name_at = 0;
  for (int line = 0; line < 3; ++line) {
    name_at = whole.find('\n', name_at) + 1;
  }
  for (int cell = 0; cell < 22; ++cell) {
    name_at = whole.find(',', name_at) + 1;
  }
  const std::string marker = whole.substr(name_at, whole.find(',', name_at) - name_at);
  const Capture c = parse_motive_csv(cut, "cut.csv");
  const Track& body = c.track("Rigid Body 1");
  ASSERT_EQ(body.size(), 249u); // frames 0..248
  // Frame 248 as the file writes it: position 0.060334, 0.019152, 0.076409.
  EXPECT_TRUE(near_vec(body.position(248), {0.060334, 0.019152, 0.076409}, 1e-15));
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("line 257, the last, ends without a line break after 25 "
                                       "of 49 cells"),
            std::string::npos)
      << c.info().tolerated[0];
  LoadOptions strict;
  strict.strict = true;
  EXPECT_THROW(parse_motive_csv(cut, "cut.csv", strict), LoadError);
  // Taken as a whole row (the old reading), the cut row loads the cut number.
  const Capture naive = parse_motive_csv(cut + "\n", "cut.csv");
  const Track& m = naive.track(marker);
  ASSERT_EQ(m.size(), 250u) << marker;
  ASSERT_TRUE(m.valid(249));
  EXPECT_GT(std::fabs(m.position(249).z - std::stod(true_z)), 1e-3)
      << marker << ": " << m.position(249).z << " vs the file's " << true_z;
  // A complete file without a final line break loses nothing.
  std::string unterminated = whole;
  while (!unterminated.empty() && (unterminated.back() == '\n' || unterminated.back() == '\r')) {
    unterminated.pop_back();
  }
  const Capture complete = parse_motive_csv(unterminated, "complete.csv");
  EXPECT_EQ(complete.track("Rigid Body 1").size(), 250u);
  EXPECT_TRUE(complete.info().tolerated.empty());
}

TEST(MotiveCsv, An121ExportWithARowOfCommasAndAnglesWithoutARotationTypeLoads) {
  // Motive 1.2x as another lab exported it: the second line is a row of commas, the header
  // rows have no labels, the rigid body's rotation is three angles and no Rotation Type key.
  const std::string text =
      "Format Version,1.21,Take Name,Take 1,Capture Frame Rate,100.000000,"
      "Export Frame Rate,100.000000,Total Frames in Take,3,Total Exported Frames,3\n"
      ",,,,,,,,,,,,,,,,,\n"
      ",,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Rigid Body,Marker,"
      "Marker,Marker\n"
      ",,wand,wand,wand,wand,wand,wand,wand,m1,m1,m1\n"
      ",,1,1,1,1,1,1,1,2,2,2\n"
      ",,Rotation,Rotation,Rotation,Position,Position,Position,Mean Marker Error,Position,"
      "Position,Position\n"
      "Frame,Time,X,Y,Z,X,Y,Z,,X,Y,Z\n"
      "0,0.000000,10.0,20.0,30.0,0.100000,1.200000,0.300000,0.001,0.5,1.6,0.7\n"
      "1,0.010000,11.0,20.0,30.0,0.110000,1.200000,0.300000,0.001,0.5,1.6,0.7\n"
      "2,0.020000,12.0,20.0,30.0,0.120000,1.200000,0.300000,0.001,,,\n";
  const Capture c = parse_motive_csv(text, "lab.csv");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& wand = c.track("wand");
  EXPECT_TRUE(wand.position_only());
  EXPECT_TRUE(near_vec(wand.position(2), {0.12, 1.2, 0.3}, 1e-15));
  EXPECT_FALSE(c.track("m1").valid(2));
  EXPECT_EQ(c.info().unit_source, "inferred"); // no Length Units: from the coordinates
  EXPECT_EQ(c.info().unit_in_metres, 1.0);
  EXPECT_TRUE(test::has_note(c.info(), "three angles"));
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

std::string whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The pathviewr Motive export with its data rows repeated `copies` times (frame numbers and
/// times continued), CRLF line ends and a byte order mark: over 1 MiB, so load_capture reads
/// it a chunk at a time, and rows straddle the chunks' ends.
std::string tiled_motive(int copies) {
  const std::string text =
      whole_file(test::shared_data("pathviewr/pathviewr_motive_example_data.csv"));
  std::istringstream in(text);
  std::string line, out = "\xEF\xBB\xBF";
  std::vector<std::string> rows;
  for (int n = 0; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (n < 7) {
      out += line + "\r\n";
    } else if (!line.empty()) {
      rows.push_back(line);
    }
  }
  // The excerpt's frames are not contiguous (72210 to 105100 in 934 rows): each copy starts a
  // frame after the last one's end.
  const auto cell = [](const std::string& row, int index) {
    std::size_t at = 0;
    for (int i = 0; i < index; ++i) {
      at = row.find(',', at) + 1;
    }
    return std::stod(row.substr(at, row.find(',', at) - at));
  };
  const double frames = cell(rows.back(), 0) - cell(rows.front(), 0) + 1;
  const double span = cell(rows.back(), 1) - cell(rows.front(), 1) + 0.01;
  for (int k = 0; k < copies; ++k) {
    for (const std::string& row : rows) {
      const std::size_t b = row.find(',', row.find(',') + 1);
      const long frame = std::lround(cell(row, 0) + k * frames);
      const double time = cell(row, 1) + k * span;
      char head[64];
      std::snprintf(head, sizeof head, "%ld,%.2f", frame, time);
      out += head + row.substr(b) + "\r\n";
    }
  }
  return out;
}

void expect_same_capture(const Capture& a, const Capture& b) {
  ASSERT_EQ(a.tracks().size(), b.tracks().size());
  for (std::size_t k = 0; k < a.tracks().size(); ++k) {
    const Track& s = a.tracks()[k];
    const Track& t = b.tracks()[k];
    ASSERT_EQ(s.name(), t.name());
    ASSERT_EQ(s.size(), t.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      ASSERT_EQ(s.time(i), t.time(i));
      ASSERT_EQ(s.valid(i), t.valid(i));
      ASSERT_EQ(s.position(i).x, t.position(i).x);
      ASSERT_EQ(s.position(i).z, t.position(i).z);
      ASSERT_EQ(s.orientation(i).w, t.orientation(i).w);
      ASSERT_EQ(s.orientation(i).y, t.orientation(i).y);
    }
  }
  EXPECT_EQ(a.info().notes, b.info().notes);
  EXPECT_EQ(a.info().frame_rate, b.info().frame_rate);
  EXPECT_EQ(a.info().unit_in_metres, b.info().unit_in_metres);
}

TEST(CsvFromFile, AMotiveFileReadAChunkAtATimeLoadsAsTheSameTextInMemory) {
  ODEMOCAP_REQUIRE_FILE(test::shared_data("pathviewr/pathviewr_motive_example_data.csv"));
  const std::string text = tiled_motive(8); // 1.7 MB
  ASSERT_GT(text.size(), std::size_t{1} << 20);
  const std::string path = ::testing::TempDir() + "tiled_motive.csv";
  write_file(path, text);
  const Capture streamed = load_capture(path);
  EXPECT_EQ(streamed.tracks().front().size(), 8u * 934u);
  expect_same_capture(streamed, parse_motive_csv(text, path));
  std::remove(path.c_str());
}

TEST(CsvFromFile, ARigidBodyFileReadAChunkAtATimeLoadsAsTheSameTextInMemory) {
  ODEMOCAP_REQUIRE_FILE(test::shared_data("pathviewr/pathviewr_motive_example_data.csv"));
  const std::string motive = ::testing::TempDir() + "tiled_for_rigid_body.csv";
  write_file(motive, tiled_motive(6));
  const std::string path = ::testing::TempDir() + "tiled_rigid_body.csv";
  save_rigid_body_csv(load_capture(motive), path);
  const std::string text = whole_file(path);
  ASSERT_GT(text.size(), std::size_t{1} << 20);
  const Capture streamed = load_capture(path);
  EXPECT_EQ(streamed.tracks().front().size(), 6u * 934u);
  expect_same_capture(streamed, parse_rigid_body_csv(text, path));
  std::remove(motive.c_str());
  std::remove(path.c_str());
}

TEST(CsvFromFile, AStreamedRigidBodyFileKeepsItsCommentAndSemicolonsAfterAByteOrderMark) {
  // The head load_capture keeps for the loader holds the comment lines and the header row: a
  // byte order mark before the comment must not cut it short (the delimiter is told from the
  // header row).
  std::string text = "\xEF\xBB\xBF# odemocap rigid-body-csv: unit=1; up=y; rate=100\n"
                     "time;tool.x;tool.y;tool.z;tool.qw;tool.qx;tool.qy;tool.qz\n";
  for (int i = 0; i < 40000; ++i) {
    char row[96];
    std::snprintf(row, sizeof row, "%.2f;%.4f;0.25;-1.5;1;0;0;0\n", i / 100.0, i * 1e-4);
    text += row;
  }
  ASSERT_GT(text.size(), std::size_t{1} << 20);
  const std::string path = ::testing::TempDir() + "bom_semicolons.csv";
  write_file(path, text);
  const Capture streamed = load_capture(path);
  ASSERT_EQ(streamed.tracks().size(), 1u);
  EXPECT_EQ(streamed.tracks()[0].size(), 40000u);
  EXPECT_EQ(streamed.info().frame_rate, 100.0);
  EXPECT_EQ(streamed.info().up_axis_source, "declared");
  expect_same_capture(streamed, parse_rigid_body_csv(text, path));
  std::remove(path.c_str());
}

TEST(CsvFromFile, AStreamedFileWhoseRowsAreLongerThanTheReadersChunkLoadsAsInMemory) {
  // The reader fills a buffer of 64 kB behind what is left of a row, and grows it only for a
  // row longer than half of it: rows of about 7, 36 and 83 kB (200, 1100 and 2500 tracks)
  // take both paths, the last longer than a whole chunk.
  std::mt19937 random(11);
  for (const int tracks : {200, 1100, 2500}) {
    std::string text = "time";
    for (int k = 0; k < tracks; ++k) {
      const std::string name = ",b" + std::to_string(k);
      for (const char* field : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"}) {
        text += name + field;
      }
    }
    text += "\n";
    std::uniform_real_distribution<double> coordinate(-2.0, 2.0);
    for (int row = 0; text.size() <= (std::size_t{1} << 20); ++row) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%.3f", row / 100.0);
      text += cell;
      for (int k = 0; k < tracks; ++k) {
        std::snprintf(cell, sizeof cell, ",%.5f,%.5f,%.5f,1,0,0,0", coordinate(random),
                      coordinate(random), coordinate(random));
        text += cell;
      }
      text += "\n";
    }
    const std::string path = ::testing::TempDir() + "long_rows.csv";
    write_file(path, text);
    const Capture streamed = load_capture(path);
    ASSERT_EQ(streamed.tracks().size(), static_cast<std::size_t>(tracks));
    expect_same_capture(streamed, parse_rigid_body_csv(text, path));
    std::remove(path.c_str());
  }
}

TEST(CsvFromFile, AnErrorDeepInAStreamedFileNamesTheSameLineAndColumn) {
  ODEMOCAP_REQUIRE_FILE(test::shared_data("pathviewr/pathviewr_motive_example_data.csv"));
  std::string text = tiled_motive(8);
  // Break a number on a line well past the first chunk.
  std::size_t at = 0;
  for (int line = 1; line < 6000; ++line) {
    at = text.find('\n', at) + 1;
  }
  at = text.find(',', text.find(',', at) + 1) + 1; // the third cell of line 6000
  text.replace(at, 1, "x");
  const std::string path = ::testing::TempDir() + "broken_motive.csv";
  write_file(path, text);
  std::string streamed, in_memory;
  try {
    load_capture(path);
  } catch (const LoadError& e) {
    streamed = e.what();
  }
  try {
    parse_motive_csv(text, path);
  } catch (const LoadError& e) {
    in_memory = e.what();
  }
  EXPECT_NE(streamed.find(":6000:"), std::string::npos) << streamed;
  EXPECT_EQ(streamed, in_memory);
  std::remove(path.c_str());
}

} // namespace
} // namespace odemocap
