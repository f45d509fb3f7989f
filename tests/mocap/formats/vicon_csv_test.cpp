// Vicon Nexus CSV exports: the layout from Nexus's exports (block name, rate, marker names at
// every third column, Frame/Sub Frame/X/Y/Z, units, rows padded with commas), written here;
// and the real Vicon trial of ../shared/data/ezc3d written out in that layout and read back
// against the C3D reader.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <sstream>

namespace odemocap {
namespace {

const char* k_export = "Devices,,,,,,,,\n"
                       "1000,,,,,,,,\n"
                       ",,Imported AMTI:Force,,,,,,\n"
                       "Frame,Sub Frame,Fx,Fy,Fz,,,,\n"
                       ",,N,N,N,,,,\n"
                       "1,0,0.1,0.2,0.3,,,,\n"
                       "1,1,0.1,0.2,0.3,,,,\n"
                       ",,,,,,,,\n"
                       "Trajectories,,,,,,,,\n"
                       "100,,,,,,,,\n"
                       ",,Daphnee:ASISr,,,Daphnee:ASISl,,,\n"
                       "Frame,Sub Frame,X,Y,Z,X,Y,Z,\n"
                       ",,mm,mm,mm,mm,mm,mm,\n"
                       "1,0,667.12,305.799,175.209,753.439,75.9487,187.759,\n"
                       "2,0,667.126,305.767,175.218,,,,\n"
                       "3,0,667.142,305.738,175.22,\n"
                       "5,0,667.2,305.545,175.281,753.966,75.9687,187.837,\n"
                       "\n"
                       "Model Outputs,,,,,,,,\n"
                       "100,,,,,,,,\n";

TEST(ViconCsv, TrajectoriesAreMarkersAndOtherBlocksAreSkipped) {
  EXPECT_EQ(detect_format(k_export, "trial.csv"), Format::ViconCsv);
  const Capture c = load_capture_from_memory(k_export, "trial.csv");
  EXPECT_EQ(c.info().format, "vicon-csv");
  EXPECT_EQ(c.info().frame_rate, 100.0);
  EXPECT_EQ(c.info().unit_source, "declared");
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& right = c.track("Daphnee:ASISr");
  EXPECT_TRUE(right.position_only());
  ASSERT_EQ(right.size(), 4u);
  EXPECT_TRUE(test::near_vec(right.position(0), {0.66712, 0.305799, 0.175209}, 1e-15));
  EXPECT_EQ(right.time(3), 0.04); // frame 5: (5 - 1) / 100, the skipped frame 4 is a jump
  const Track& left = c.track("Daphnee:ASISl");
  EXPECT_FALSE(left.valid(1)); // empty cells
  EXPECT_FALSE(left.valid(2)); // the row stops before the marker
  EXPECT_TRUE(left.valid(3));
  ASSERT_EQ(c.info().notes.size(), 2u);
  EXPECT_NE(c.info().notes[0].find("'Devices' skipped"), std::string::npos);
  EXPECT_NE(c.info().notes[1].find("'Model Outputs' skipped"), std::string::npos);
}

TEST(ViconCsv, OlderExportsWithFieldNumbersAndNoUnitsRowLoadInMillimetres) {
  const Capture c = load_capture_from_memory(
      "Trajectories\n120\n,LASI,,,RASI,,\nField #,X,Y,Z,X,Y,Z\n1,100,200,900,,,\n"
      "2,101,200,900,300,200,900\n",
      "old.csv");
  EXPECT_EQ(c.info().format, "vicon-csv");
  EXPECT_EQ(c.info().length_unit, "mm");
  EXPECT_TRUE(test::near_vec(c.track("LASI").position(1), {0.101, 0.2, 0.9}, 1e-15));
  EXPECT_FALSE(c.track("RASI").valid(0));
  EXPECT_NEAR(c.track("RASI").time(1), 1.0 / 120, 1e-15);
  EXPECT_NE(c.info().notes.back().find("no units row"), std::string::npos);
}

TEST(ViconCsv, BrokenExportsSayWhereAndWhat) {
  const auto error = [](const std::string& text) {
    return test::error_message<LoadError>([&] { parse_vicon_csv(text, "bad.csv"); });
  };
  const std::string head =
      "Trajectories\n100\n,,a,,,b,,\nFrame,Sub Frame,X,Y,Z,X,Y,Z\n,,mm,mm,mm,mm,mm,mm\n";
  EXPECT_NE(error(head + "1,0,1,2,x,4,5,6\n").find("bad.csv:6:9: marker 'a': not a number"),
            std::string::npos)
      << error(head + "1,0,1,2,x,4,5,6\n");
  EXPECT_NE(error(head + "2,0,1,2,3,4,5,6\n1,0,1,2,3,4,5,6\n").find("does not follow"),
            std::string::npos);
  EXPECT_NE(error("Trajectories\nfast\n").find("frame rate"), std::string::npos);
  EXPECT_NE(error("Trajectories\n100\n,,a,,,a,,\n").find("a second marker named 'a'"),
            std::string::npos);
  EXPECT_NE(error("Trajectories\n100\n,,a,,\nFrame,Sub Frame,X,Y,W\n").find("expected column 'Z'"),
            std::string::npos);
  EXPECT_NE(error("Trajectories\n100\n,,a,,\nFrame,Sub Frame,X,Y,Z\n,,ft,ft,ft\n1,0,1,2,3\n")
                .find("unknown trajectory unit 'ft'"),
            std::string::npos);
  EXPECT_NE(error(head).find("no data rows"), std::string::npos);
  EXPECT_NE(
      error("Devices\n1000\n,,fp\nFrame,Sub Frame,Fx\n,,N\n1,0,2\n")
          .find("no Trajectories block (marker positions) or Objects block (rigid bodies with "
                "quaternions) in this Vicon export; it has 'Devices'"),
      std::string::npos);
}

std::string number(double v) {
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

TEST(ViconCsv, TheRealViconTrialInNexusLayoutReadsAsItsC3d) {
  const std::string path = test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  LoadOptions millimetres;
  millimetres.unit_in_metres = 1.0; // the file's numbers: what Nexus writes in its CSV
  const Capture c3d = load_capture(path, millimetres);
  std::ostringstream csv;
  csv << "Trajectories,\n100\n,";
  for (const Track& t : c3d.tracks()) {
    csv << "," << t.name() << ",,";
  }
  csv << "\nFrame,Sub Frame";
  for (std::size_t k = 0; k < c3d.tracks().size(); ++k) {
    csv << ",X,Y,Z";
  }
  csv << "\n,";
  for (std::size_t k = 0; k < c3d.tracks().size(); ++k) {
    csv << ",mm,mm,mm";
  }
  csv << "\n";
  for (std::size_t i = 0; i < c3d.tracks()[0].size(); ++i) {
    csv << i + 1 << ",0";
    for (const Track& t : c3d.tracks()) {
      if (!t.valid(i)) {
        csv << ",,,";
        continue;
      }
      const Vec3& p = t.position(i);
      csv << ',' << number(p.x) << ',' << number(p.y) << ',' << number(p.z);
    }
    csv << "\n";
  }
  const Capture back = load_capture_from_memory(csv.str(), "Vicon.csv");
  ASSERT_EQ(back.tracks().size(), 51u);
  std::size_t gaps = 0;
  for (std::size_t k = 0; k < 51; ++k) {
    const Track& a = c3d.tracks()[k];
    const Track& b = back.tracks()[k];
    ASSERT_EQ(a.name(), b.name());
    ASSERT_EQ(b.size(), 580u);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.valid(i), b.valid(i)) << a.name() << " " << i;
      gaps += !b.valid(i);
      if (a.valid(i)) {
        ASSERT_TRUE(test::near_vec(a.position(i) * 0.001, b.position(i), 1e-15));
        ASSERT_EQ(a.time(i), b.time(i));
      }
    }
  }
  EXPECT_EQ(gaps, 305u); // PROVENANCE.md
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

// Vicon Tracker's object export (and Nexus's): an Objects block whose labels read "Global Angle
// (Quaternion) <subject>:<segment>" over RX RY RZ RW (the quaternion's x, y, z, w, as named)
// and the translation TX TY TZ in mm, in either order, one label over all seven columns or a
// "Global Translation" label of its own. The layouts are those of the exports read by
// published robotics code (a peg-in-hole dataset's and UMI's Vicon readers, a ROS logger
// written to Tracker's layout); the values here are chosen so that the truth is known: 45 and
// 90 degrees about Z.
TEST(ViconCsv, ObjectsAreRigidBodiesWithTheirQuaternionsXyzw) {
  const std::string one_label = "Objects\n100\n"
                                ",,Global Angle (Quaternion) Tool:Tool,,,,,,\n"
                                "Frame,Sub Frame,RX,RY,RZ,RW,TX,TY,TZ\n"
                                ",,,,,,mm,mm,mm\n"
                                "1,0,0,0,0.38268343,0.92387953,100,200,300\n"
                                "2,0,,,,,,,\n"
                                "3,0,0,0,0.70710678,0.70710678,102,200,300\n";
  EXPECT_EQ(detect_format(one_label, "tracker.csv"), Format::ViconCsv);
  const Capture c = load_capture_from_memory(one_label, "tracker.csv");
  ASSERT_EQ(c.tracks().size(), 1u);
  const Track& tool = c.track("Tool"); // "Tool:Tool": one segment named as its subject
  EXPECT_FALSE(tool.position_only());
  ASSERT_EQ(tool.size(), 3u);
  EXPECT_TRUE(test::near_vec(tool.position(0), {0.1, 0.2, 0.3}, 1e-15));
  EXPECT_TRUE(
      test::same_rotation(tool.orientation(0), from_axis_angle({0, 0, 1}, test::k_pi / 4), 1e-8));
  // The body's x axis turned 45 degrees toward y; read w first (w = RX = 0) it would be the
  // half turn about (0, 0.38, 0.92) and point elsewhere.
  EXPECT_TRUE(test::near_vec(rotate(tool.orientation(0), {1, 0, 0}),
                             {std::sqrt(0.5), std::sqrt(0.5), 0}, 1e-8));
  EXPECT_FALSE(tool.valid(1)); // empty cells
  EXPECT_EQ(tool.time(2), 0.02);
  EXPECT_TRUE(
      test::same_rotation(tool.orientation(2), from_axis_angle({0, 0, 1}, test::k_pi / 2), 1e-8));

  // Translation first, a label of its own, beside trajectories in the same file.
  const std::string split =
      "Objects\n100\n"
      ",,Global Translation Rig:Base,,,Global Angle (Quaternion) Rig:Base,,,\n"
      "Frame,Sub Frame,TX,TY,TZ,RX,RY,RZ,RW\n"
      ",,mm,mm,mm,,,,\n"
      "1,0,1,2,3,0,0,0.70710678,0.70710678\n"
      "2,0,1,2,4,0,0,0.70710678,0.70710678\n"
      "\n"
      "Trajectories\n100\n,,Rig:M1,,\nFrame,Sub Frame,X,Y,Z\n,,mm,mm,mm\n"
      "1,0,10,20,30\n2,0,11,20,30\n";
  const Capture both = load_capture_from_memory(split, "both.csv");
  ASSERT_EQ(both.tracks().size(), 2u);
  EXPECT_TRUE(test::near_vec(both.track("Rig:Base").position(1), {0.001, 0.002, 0.004}, 1e-18));
  EXPECT_TRUE(test::same_rotation(both.track("Rig:Base").orientation(0),
                                  from_axis_angle({0, 0, 1}, test::k_pi / 2), 1e-8));
  EXPECT_TRUE(both.track("Rig:M1").position_only());

  // The columns tell, not the label: "Global Angle" over RX RY RZ RW is a quaternion too.
  std::string plain = one_label;
  plain.replace(plain.find("Global Angle (Quaternion) "), 26, "Global Angle ");
  const Capture unlabelled = load_capture_from_memory(plain, "plain.csv");
  EXPECT_TRUE(test::same_rotation(unlabelled.track("Tool").orientation(0),
                                  from_axis_angle({0, 0, 1}, test::k_pi / 4), 1e-8));

  // Euler or helical angles (RX RY RZ under "Global Angle", no RW): the file does not say
  // which convention; skipped, said, and with nothing else in the file an error.
  const std::string euler = "Objects\n100\n,,Global Angle Cam:Cam,,,Global Translation Cam:Cam,,\n"
                            "Frame,Sub Frame,RX,RY,RZ,TX,TY,TZ\n,,deg,deg,deg,mm,mm,mm\n"
                            "1,0,0,0,0,100,200,300\n";
  const std::string error =
      test::error_message<LoadError>([&] { load_capture_from_memory(euler, "euler.csv"); });
  EXPECT_NE(error.find("objects whose angles are not quaternions: 'Cam'"), std::string::npos)
      << error;
  const Capture some = load_capture_from_memory(
      euler + "\nTrajectories\n100\n,,M,,\nFrame,Sub Frame,X,Y,Z\n,,mm,mm,mm\n1,0,1,2,3\n",
      "some.csv");
  EXPECT_EQ(some.tracks().size(), 1u);
  EXPECT_TRUE(test::has_note(some.info(), "object 'Cam' skipped"));
}

} // namespace
} // namespace odemocap
