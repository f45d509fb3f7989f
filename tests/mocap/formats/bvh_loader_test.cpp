#include "support/data_paths.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"
#include "support/scratch_dir.hpp"

#include "formats/units.hpp" // the rest-pose inference, to show it is not enough

#include <odemocap/euler.hpp>
#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::near_vec;
using test::same_rotation;

constexpr double k_deg = k_pi / 180.0;

Vec3 axis_of(char c) { return c == 'X' ? Vec3{1, 0, 0} : c == 'Y' ? Vec3{0, 1, 0} : Vec3{0, 0, 1}; }

/// Matrix of BVH rotation channels in `order` (e.g. "ZXY") with angles in degrees, composed
/// in listed order, from Rodrigues matrices: independent of the loader and of euler.cpp.
test::Matrix channel_matrix(const std::string& order, const double (&deg)[3]) {
  test::Matrix m = test::rodrigues({1, 0, 0}, 0.0);
  for (int k = 0; k < 3; ++k) {
    m = test::multiply(m, test::rodrigues(axis_of(order[k]), deg[k] * k_deg));
  }
  return m;
}

std::string channel_names(const std::string& order) {
  std::string s;
  for (char c : order) {
    s += std::string(" ") + c + "rotation";
  }
  return s;
}

class BvhRotationOrder : public ::testing::TestWithParam<const char*> {};

TEST_P(BvhRotationOrder, TwoJointForwardKinematicsMatchesHandComputation) {
  const std::string order = GetParam();
  const double root_deg[3] = {30, -50, 70}, child_deg[3] = {-20, 40, 110};
  std::ostringstream bvh;
  bvh << "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition"
      << channel_names(order) << "\n JOINT B\n {\n  OFFSET 0 2 0\n  CHANNELS 3"
      << channel_names(order) << "\n  End Site\n  {\n   OFFSET 1 0 0\n  }\n }\n}\n"
      << "MOTION\nFrames: 1\nFrame Time: 0.01\n1 2 3 " << root_deg[0] << " " << root_deg[1] << " "
      << root_deg[2] << " " << child_deg[0] << " " << child_deg[1] << " " << child_deg[2] << "\n";
  LoadOptions options;
  options.end_sites = true;
  const Capture capture = parse_bvh(bvh.str(), "two.bvh", options);
  ASSERT_EQ(capture.tracks().size(), 3u);

  const test::Matrix ra = channel_matrix(order, root_deg);
  const test::Matrix rb = test::multiply(ra, channel_matrix(order, child_deg));
  const Vec3 pa{1, 2, 3};
  const Vec3 pb = pa + test::apply(ra, {0, 2, 0});
  const Vec3 pe = pb + test::apply(rb, {1, 0, 0});
  const Track& a = capture.track("A");
  const Track& b = capture.track("B");
  const Track& e = capture.track("B_End");
  EXPECT_TRUE(near_vec(a.position(0), pa, 1e-12));
  EXPECT_TRUE(near_vec(b.position(0), pb, 1e-12));
  EXPECT_TRUE(near_vec(e.position(0), pe, 1e-12));
  EXPECT_LT(test::max_abs_diff(ra, to_matrix(a.orientation(0)).m), 1e-12);
  EXPECT_LT(test::max_abs_diff(rb, to_matrix(b.orientation(0)).m), 1e-12);
  EXPECT_LT(test::max_abs_diff(rb, to_matrix(e.orientation(0)).m), 1e-12);
}

TEST_P(BvhRotationOrder, EulerAnglesWrittenInTheFilesOrderRoundTrip) {
  const std::string order = GetParam();
  const EulerOrder euler_order = order == "XYZ"   ? EulerOrder::XYZ
                                 : order == "XZY" ? EulerOrder::XZY
                                 : order == "YXZ" ? EulerOrder::YXZ
                                 : order == "YZX" ? EulerOrder::YZX
                                 : order == "ZXY" ? EulerOrder::ZXY
                                                  : EulerOrder::ZYX;
  test::Random rnd(17);
  std::vector<Quat> truth;
  std::ostringstream motion;
  motion.precision(17);
  for (int f = 0; f < 50; ++f) {
    truth.push_back(rnd.rotation());
    const EulerAngles a = to_euler(truth.back(), euler_order, EulerFrame::Intrinsic);
    motion << a.first / k_deg << " " << a.second / k_deg << " " << a.third / k_deg << "\n";
  }
  const std::string bvh = "HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 3" + channel_names(order) +
                          "\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 50\nFrame Time: 0.1\n" +
                          motion.str();
  const Capture capture = parse_bvh(bvh, "roundtrip.bvh");
  const Track& track = capture.track("R");
  for (std::size_t f = 0; f < truth.size(); ++f) {
    ASSERT_TRUE(same_rotation(track.orientation(f), truth[f], 1e-13)) << f;
  }
}

INSTANTIATE_TEST_SUITE_P(Bvh, BvhRotationOrder,
                         ::testing::Values("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"));

TEST(BvhLoader, ThreeJointChainMatchesHandDerivedPositions) {
  // Root turned 90 degrees about Z; B one unit along the root's x, so at world (0, 1, 0);
  // B turned 90 about its X; C one unit along B's y: Rz(90) Rx(90) (0,1,0) = Rz(90) (0,0,1).
  const char* bvh =
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
      "JOINT B\n{\nOFFSET 1 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
      "JOINT C\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
      "End Site\n{\nOFFSET 0 0 1\n}\n}\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.5\n"
      "90 0 0 0 90 0 0 0 0\n";
  const Capture capture = parse_bvh(bvh, "chain.bvh");
  EXPECT_TRUE(near_vec(capture.track("A").position(0), {0, 0, 0}, 1e-15));
  EXPECT_TRUE(near_vec(capture.track("B").position(0), {0, 1, 0}, 1e-15));
  EXPECT_TRUE(near_vec(capture.track("C").position(0), {0, 1, 1}, 1e-15));
  EXPECT_EQ(capture.tracks().size(), 3u); // End Sites only on request
  EXPECT_NEAR(capture.info().frame_rate, 2.0, 1e-15);
}

TEST(BvhLoader, AcceptsWhatFilesInTheWildContain) {
  // BOM, CRLF and LF mixed, tabs, unindented lines, trailing spaces, blank lines, two roots,
  // a rotation-only root, a 6-channel joint, a brace on the name line, scientific notation,
  // '+' signs, a value without a leading zero, and "Frames :" spacing.
  const std::string bvh =
      "\xEF\xBB\xBFHIERARCHY\r\n"
      "ROOT Body\r\n{\r\n\tOFFSET 0 0 0 \r\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation "
      "Yrotation Xrotation \r\n"
      "\tJOINT Arm {\n"
      "OFFSET 1.0e0 0 0\n"
      "CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation\n"
      "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 0 0\n\t\t}\n\t}\n}\n\n"
      "ROOT Prop\n{\n  OFFSET 5 0 0\n  CHANNELS 3 Yrotation Xrotation Zrotation\n"
      "  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n"
      "MOTION\r\nFrames : 2\r\nFrame Time: .5\r\n"
      "0 0 0 0 0 0  +0.5 0 0 0 0 0  90 0 0\n"
      "\n"
      "1e-3 0 0 0 0 0\t0 0 0 0 0 0 -9.0E1 0 0\r\n\n";
  const Capture capture = parse_bvh(bvh, "wild.bvh");
  ASSERT_EQ(capture.tracks().size(), 3u);
  EXPECT_TRUE(near_vec(capture.track("Arm").position(0), {1.5, 0, 0}, 1e-15));
  EXPECT_TRUE(near_vec(capture.track("Body").position(1), {1e-3, 0, 0}, 1e-18));
  EXPECT_TRUE(near_vec(capture.track("Prop").position(1), {5, 0, 0}, 0));
  EXPECT_TRUE(same_rotation(capture.track("Prop").orientation(0),
                            from_axis_angle({0, 1, 0}, k_pi / 2), 1e-15));
  EXPECT_EQ(capture.track("Prop").time(1), 0.5);
  const Skeleton* skeleton = capture.skeleton();
  ASSERT_NE(skeleton, nullptr);
  EXPECT_EQ(skeleton->channel_count, 15u);
  EXPECT_EQ(skeleton->joints[1].parent, 0);
  EXPECT_EQ(skeleton->joints[3].name, "Prop");
  EXPECT_EQ(skeleton->joints[3].parent, -1);
  // The capture keeps the hierarchy, not the rows (its tracks hold the poses); the rows are
  // parse_bvh_skeleton()'s.
  EXPECT_EQ(skeleton->frame_count, 2u);
  EXPECT_TRUE(skeleton->motion.empty());
  std::vector<Pose> poses;
  EXPECT_THROW(forward_kinematics(*skeleton, 0, poses), MocapError);
  EXPECT_EQ(parse_bvh_skeleton(bvh, "wild.bvh").value(1, 12), -90.0);
}

TEST(BvhLoader, ErrorsNameLineColumnAndWhatToFix) {
  const auto error = [](const std::string& text) -> LoadError {
    try {
      LoadOptions strict; // count disagreements are errors only when strict
      strict.strict = true;
      parse_bvh(text, "bad.bvh", strict);
    } catch (const LoadError& e) {
      return e;
    }
    return LoadError("none", 0, 0, "no error");
  };
  const std::string head = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Yrotation\n"
                           "End Site\n{\nOFFSET 0 0 1\n}\n}\nMOTION\n";
  const LoadError short_row = error(head + "Frames: 2\nFrame Time: 0.1\n1 2\n3\n");
  EXPECT_EQ(short_row.line(), 15u);
  EXPECT_EQ(short_row.path(), "bad.bvh");
  EXPECT_NE(short_row.message().find("expected 2 values (the CHANNELS total), found 1"),
            std::string::npos)
      << short_row.what();
  const LoadError huge = error(head + "Frames: 999999999999\n\nFrame Time: 0.1\n1 2\n");
  EXPECT_NE(huge.message().find("claims"), std::string::npos) << huge.what();
  EXPECT_EQ(huge.line(), 12u); // the Frames line, even with a blank line after it
  const LoadError early = error(head + "Frames: 3\nFrame Time: 0.1\n1.00 2.00\n3.00 4.00\n");
  EXPECT_NE(early.message().find("ends after 2 of the 3 frames"), std::string::npos) << early.what();
  const LoadError nan = error(head + "Frames: 1\nFrame Time: 0.1\n1 nan\n");
  EXPECT_EQ(nan.line(), 14u);
  EXPECT_EQ(nan.column(), 3u);
}

TEST(BvhLoader, AFrameCountThatDisagreesWithTheRowsIsToleratedWithANote) {
  const std::string head = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Yrotation\n"
                           "End Site\n{\nOFFSET 0 0 1\n}\n}\nMOTION\n";
  // Fewer rows than announced, more rows, and an absurd count: the rows are what was recorded.
  for (const auto& [frames, rows] : {std::pair<std::string, std::size_t>{"3", 2},
                                     {"1", 2},
                                     {"999999999999", 2}}) {
    const Capture c =
        parse_bvh(head + "Frames: " + frames + "\nFrame Time: 0.1\n1 2\n3 4\n", "count.bvh");
    EXPECT_EQ(c.tracks()[0].size(), rows) << frames;
    ASSERT_EQ(c.info().tolerated.size(), 1u) << frames;
    EXPECT_NE(c.info().tolerated[0].find("'Frames: " + frames + "' (line 12) disagrees with the 2"),
              std::string::npos)
        << c.info().tolerated[0];
    EXPECT_EQ(c.info().notes[0], c.info().tolerated[0]);
  }
  const Capture exact = parse_bvh(head + "Frames: 2\nFrame Time: 0.1\n1 2\n3 4\n", "ok.bvh");
  EXPECT_TRUE(exact.info().tolerated.empty());
}

TEST(BvhLoader, AbsoluteRootPositionsPutTheSkeletonOnTheFloor) {
  // An exporter's file: the root's OFFSET is its rest position, 0.9 up, and the position
  // channels carry the same absolute position (then move 0.1 along x).
  const std::string bvh = "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0.9 0\n"
                          "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                          "JOINT Leg\n{\nOFFSET 0 -0.9 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                          "End Site\n{\nOFFSET 0 0 0.1\n}\n}\n}\nMOTION\nFrames: 2\n"
                          "Frame Time: 0.1\n0 0.9 0 0 0 0 0 0 0\n0.1 0.9 0 0 0 0 0 0 0\n";
  const Capture automatic = parse_bvh(bvh, "absolute.bvh");
  EXPECT_NEAR(automatic.track("Hips").position(0).y, 0.9, 1e-15);
  EXPECT_NEAR(automatic.track("Leg").position(1).y, 0.0, 1e-15); // the foot on the floor
  EXPECT_NEAR(automatic.track("Hips").position(1).x, 0.1, 1e-15);
  ASSERT_FALSE(automatic.info().notes.empty());
  EXPECT_NE(automatic.info().notes[0].find("absolute positions"), std::string::npos);
  // The description's OFFSET + channels lifts it by its own hip height: the naive reading.
  LoadOptions additive;
  additive.bvh_root_positions = BvhRootPositions::Additive;
  const Capture lifted = parse_bvh(bvh, "absolute.bvh", additive);
  EXPECT_NEAR(lifted.track("Leg").position(1).y, 0.9, 1e-15);
  // A root OFFSET that differs from the channels (CMU's zero OFFSET, or a placement) adds.
  std::string placed = bvh;
  placed.replace(placed.find("0 0.9 0 0 0 0 0 0 0\n"), 19, "0 0.0 0 0 0 0 0 0 0\n");
  const Capture added = parse_bvh(placed, "placed.bvh");
  EXPECT_NEAR(added.track("Hips").position(0).y, 0.9, 1e-15);
  LoadOptions absolute;
  absolute.bvh_root_positions = BvhRootPositions::Absolute;
  const Capture forced = parse_bvh(placed, "placed.bvh", absolute);
  EXPECT_NEAR(forced.track("Hips").position(0).y, 0.0, 1e-15);
}

TEST(BvhLoader, EveryJointsPositionChannelsThatRepeatItsOffsetReplaceIt) {
  // The Bandai Namco research motion dataset's layout (written here; its licence forbids
  // copying): every joint has six channels and its position channels repeat its OFFSET in
  // every frame. Centimetres, Y up; frame 1 bends the knee 90 degrees about X.
  const std::string six = "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n";
  const std::string bvh =
      "HIERARCHY\nROOT Hips\n{\nOFFSET 0 95 0\n" + six +
      "JOINT Spine\n{\nOFFSET 0 10 0\n" + six + "JOINT Head\n{\nOFFSET 0 60 0\n" + six +
      "End Site\n{\nOFFSET 0 20 0\n}\n}\n}\n"
      "JOINT UpperLeg_L\n{\nOFFSET 10 -5 0\n" + six + "JOINT LowerLeg_L\n{\nOFFSET 0 -45 0\n" +
      six + "JOINT Foot_L\n{\nOFFSET 0 -42 0\n" + six +
      "End Site\n{\nOFFSET 0 0 10\n}\n}\n}\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n"
      "0 95 0 0 0 0 0 10 0 0 0 0 0 60 0 0 0 0 10 -5 0 0 0 0 0 -45 0 0 0 0 0 -42 0 0 0 0\n"
      "0 95 0 0 0 0 0 10 0 0 0 0 0 60 0 0 0 0 10 -5 0 0 0 0 0 -45 0 0 0 90 0 -42 0 0 0 0\n";
  const Capture c = parse_bvh(bvh, "bandai.bvh");
  // Bones as long as their OFFSETs: thigh 45, shin 42, neck+head 70 above the hips.
  EXPECT_NEAR(norm(c.track("LowerLeg_L").position(0) - c.track("UpperLeg_L").position(0)), 45,
              1e-9);
  EXPECT_NEAR(norm(c.track("Foot_L").position(0) - c.track("LowerLeg_L").position(0)), 42, 1e-9);
  EXPECT_NEAR(c.track("Head").position(0).y, 165, 1e-9);
  // Frame 1, by hand: the knee (at 10, 45, 0) turns +90 degrees about X, so the shin's -Y
  // points along -Z: the foot at (10, 45, -42).
  const Vec3 foot = c.track("Foot_L").position(1);
  EXPECT_NEAR(foot.x, 10, 1e-9);
  EXPECT_NEAR(foot.y, 45, 1e-9);
  EXPECT_NEAR(foot.z, -42, 1e-9);
  EXPECT_TRUE(test::has_note(c.info(), "5 joint(s) below a root"));
  // OFFSET + channels, the naive reading: every bone doubled, a subject 3.3 m tall.
  LoadOptions additive;
  additive.bvh_root_positions = BvhRootPositions::Additive;
  const Capture doubled = parse_bvh(bvh, "bandai.bvh", additive);
  EXPECT_NEAR(norm(doubled.track("LowerLeg_L").position(0) - doubled.track("UpperLeg_L").position(0)),
              90, 1e-9);
}

TEST(BvhLoader, AJointThatMovedFromItsOffsetIsAbsoluteWhenTheOthersShowTheFileIs) {
  // The same dataset as the files are: a joint_Root with a zero OFFSET above the Hips, whose
  // OFFSET is the rest pose's (0.847027 93.984 -452.225 in the dataset's walk-back file) while
  // its first frame is already under way (-5.70875 90.9025 362.986 there); the other joints
  // repeat their OFFSETs. The Hips' channels are absolute like the others': added to its
  // OFFSET they lifted the body by its hip height and put it 4.5 m away (the 52 files of the
  // dataset tried: their toes at 0.96-0.99 m at their lowest then, 4.2-5.4 cm now).
  const std::string six =
      "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n";
  const std::string bvh =
      "HIERARCHY\nROOT joint_Root\n{\nOFFSET 0 0 0\n" + six +
      "JOINT Hips\n{\nOFFSET 0.847027 93.984 -452.225\n" + six +
      "JOINT UpperLeg_L\n{\nOFFSET 10 0 0\n" + six + "JOINT LowerLeg_L\n{\nOFFSET 0 -39.0811 0\n" +
      six + "JOINT Foot_L\n{\nOFFSET 0 -40.9854 0\n" + six +
      "End Site\n{\nOFFSET 0 0 0\n}\n}\n}\n}\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n"
      "0 0 0 0 0 0 -5.70875 90.9025 362.986 0 0 0 10 0 0 0 0 0 0 -39.0811 0 0 0 0 0 -40.9854 0 0 0 "
      "0\n"
      "0 0 0 0 0 0 -5.70875 90.9025 363.986 0 0 0 10 0 0 0 0 0 0 -39.0811 0 0 0 0 0 -40.9854 0 0 0 "
      "0\n";
  LoadOptions centimetres;
  centimetres.unit_in_metres = 0.01;
  const Capture c = parse_bvh(bvh, "walk.bvh", centimetres);
  // By hand: the hips where the channels put them, the foot 39.0811 + 40.9854 below and 10
  // to the side: (4.29125, 10.836, 362.986) cm.
  EXPECT_TRUE(test::near_vec(c.track("Hips").position(0), {-0.0570875, 0.909025, 3.62986}, 1e-15));
  EXPECT_TRUE(test::near_vec(c.track("Foot_L").position(0), {0.0429125, 0.10836, 3.62986}, 1e-15));
  EXPECT_TRUE(test::near_vec(c.track("Foot_L").position(1), {0.0429125, 0.10836, 3.63986}, 1e-15));
  EXPECT_TRUE(test::has_note(c.info(), "'Hips': position channels that differ from the OFFSET"));
  // Every joint's channels added to its OFFSET (BvhRootPositions::Additive): the hips lifted
  // by their own height and every bone doubled. (The rule before this session added only the
  // Hips' and put this foot at 1.048 m.)
  LoadOptions additive = centimetres;
  additive.bvh_root_positions = BvhRootPositions::Additive;
  const Capture lifted = parse_bvh(bvh, "walk.bvh", additive);
  EXPECT_NEAR(lifted.track("Hips").position(0).y, 1.848865, 1e-12);
  EXPECT_NEAR(lifted.track("Foot_L").position(0).y, 1.848865 - 2 * 0.800665, 1e-12);
  // A file whose other joints' channels are relative (zero here) shows no absolute positions:
  // the BVH description's sum stands, a joint placed by its OFFSET and moved by its channels.
  const std::string zero = "0 0 0 0 0 0";
  const std::string relative =
      bvh.substr(0, bvh.find("MOTION")) + "MOTION\nFrames: 1\nFrame Time: 0.0333333\n" + zero +
      " -5.70875 90.9025 362.986 0 0 0 " + zero + " " + zero + " " + zero + "\n";
  const Capture summed = parse_bvh(relative, "relative.bvh", centimetres);
  EXPECT_NEAR(summed.track("Hips").position(0).y, 1.848865, 1e-12);
  EXPECT_NEAR(summed.track("Foot_L").position(0).y, 1.848865 - 0.800665, 1e-12);
}

TEST(BvhLoader, TheUpAxisComesFromTheMotionNotTheRestPose) {
  // A rest pose standing along +Y that the root's channels turn +90 degrees about X in every
  // frame: the motion stands along +Z.
  const std::string bvh =
      "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 -427\n"
      "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
      "JOINT Head\n{\nOFFSET 0 70 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n"
      "End Site\n{\nOFFSET 0 20 0\n}\n}\n"
      "JOINT Foot\n{\nOFFSET 0 -90 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n"
      "End Site\n{\nOFFSET 0 0 10\n}\n}\n}\nMOTION\nFrames: 3\nFrame Time: 0.01\n"
      "0 0 90 0 0 90 0 0 0 0 0 0\n5 0 91 0 10 90 0 0 0 0 0 5\n10 0 92 0 20 90 0 0 0 0 0 10\n";
  LoadOptions z_up;
  z_up.up_axis = Axis::Z;
  const Capture c = parse_bvh(bvh, "turned.bvh", z_up);
  EXPECT_EQ(c.info().file_up_axis, Axis::Z);
  EXPECT_EQ(c.info().up_axis_source, "inferred");
  const Vec3 up = c.track("Head").position(0) - c.track("Foot").position(0);
  EXPECT_NEAR(up.z, 160, 1e-9);
  EXPECT_TRUE(test::has_note(c.info(), "from the motion: +Z"));
  // The rest pose alone says +Y: turning Y to Z would lay the figure on its back.
  Axis axis = Axis::X;
  bool negative = true;
  std::string note;
  ASSERT_TRUE(detail::infer_skeleton_up(parse_bvh_skeleton(bvh, "turned.bvh"), axis, negative, note));
  EXPECT_EQ(axis, Axis::Y);
  const Vec3 laid = rotate(from_to({0, 1, 0}, {0, 0, 1}), up);
  EXPECT_LT(std::fabs(laid.z), 1e-9);
}

// ---- the real CMU captures ----

TEST(BvhLoader, AnAbsurdValueIsReportedAtItsOwnColumnWithItsText) {
  const std::string bvh = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition "
                          "Zposition\n End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: "
                          "2\nFrame Time: 0.01\n0 0 0\n1  1e307 0\n";
  LoadOptions options;
  options.length_scale = 100; // 1e309: overflows
  // From memory, and from a file, whose text is let go before kinematics (the line is read
  // again), with either line ending.
  const std::filesystem::path dir = test::make_scratch_dir("absurd_bvh");
  std::string crlf;
  for (const char c : bvh) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  }
  std::ofstream(dir / "lf.bvh", std::ios::binary) << bvh;
  std::ofstream(dir / "crlf.bvh", std::ios::binary) << crlf;
  const std::function<void()> loads[] = {
      [&] { parse_bvh(bvh, "absurd.bvh", options); },
      [&] { load_capture((dir / "lf.bvh").string(), options); },
      [&] { load_capture((dir / "crlf.bvh").string(), options); }};
  for (const auto& load : loads) {
    try {
      load();
      ADD_FAILURE() << "loaded";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.line(), 15u);
      EXPECT_EQ(e.column(), 4u); // "1  1e307": the value, not column 1
      EXPECT_NE(std::string(e.what()).find("'1e307' (Yposition of 'a')"), std::string::npos)
          << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(BvhLoader, AFrameTimeThatIsNotARoundedWholeRateKeepsItsOwnRate) {
  const std::string bvh = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition "
                          "Zposition\n End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: "
                          "2\nFrame Time: 0.00837\n0 0 0\n1 0 0\n";
  // 1/0.00837 = 119.47 Hz, and 0.00837 +- 0.000005 holds no 1/n (119.40 to 119.55 Hz).
  EXPECT_NEAR(parse_bvh(bvh, "t.bvh").info().frame_rate, 1 / 0.00837, 1e-9);
  std::string exact = bvh;
  exact.replace(exact.find("0.00837\n"), 7, "0.01");
  EXPECT_EQ(parse_bvh(exact, "t.bvh").info().frame_rate, 100.0);
}

TEST(BvhLoader, FilesFromOtherExportersMatchForwardKinematicsDoneElsewhere) {
  // Two files that are not CMU's (tests/data/bvh-python, from bvh-python's tests): a Mixamo
  // export (ZYX rotations, "mixamorig:" names, 55 joints, tabs in the offsets) and a MocapBank
  // export (ZXY, 19 joints, a tab after "Frames:", a space ending every row). Truth: world
  // positions (cm) and the image of the y axis of three joints in the first and the last
  // frame, computed from the files' text by a short Python program with rotation matrices
  // (its listing and output are in PROVENANCE.md), not by odemocap.
  struct Expected {
    const char* joint;
    std::size_t frame;
    Vec3 position_cm;
    Vec3 y_axis;
  };
  struct File {
    const char* name;
    std::size_t tracks;
    std::size_t frames;
    std::vector<Expected> expected;
  };
  const std::vector<File> files = {
      {"test_freebvh.bvh",
       55,
       69,
       {{"mixamorig:Hips",
         0,
         {-0.2399, 98.2948, -0.5224},
         {-0.0818354886, 0.9837651593, -0.1597155729}},
        {"mixamorig:LeftHand",
         0,
         {26.4578704472, 88.6909066838, -2.2754928478},
         {0.9664704113, 0.2357286637, 0.1018181772}},
        {"mixamorig:RightToeBase",
         0,
         {-4.1553954145, 0.0000055502, 11.3596248052},
         {-0.0015260307, 0.9998457281, -0.0174983201}},
        {"mixamorig:LeftHand",
         68,
         {-26.4592108973, 88.6909080176, 2.2611068789},
         {-0.9664137887, 0.2357307292, -0.1023494622}},
        {"mixamorig:RightToeBase",
         68,
         {4.1617936798, 0.0000351387, -11.3571743244},
         {0.0015144561, 0.9998457928, 0.0174956276}}}},
      {"test_mocapbank.bvh",
       19,
       455,
       {{"Hips", 0, {-44.0003, 93.5663, 229.0256}, {0.1301794680, 0.9286269472, -0.3474266815}},
        {"LeftWrist",
         0,
         {-38.2663459114, 93.6862196314, 248.7089679480},
         {0.5273236735, 0.8364966438, -0.1490070744}},
        {"RightAnkle",
         0,
         {-45.4859635997, 10.7140385226, 228.5937648588},
         {-0.0127060008, 0.9999035220, 0.0056128593}},
        {"LeftWrist",
         454,
         {-40.0855733707, 93.5481038417, 249.2558888889},
         {0.6392447671, 0.7441093558, -0.1940808963}},
        {"RightAnkle",
         454,
         {-49.6301059238, 10.7091398470, 231.5790906883},
         {-0.0115103070, 0.9999022010, 0.0079436248}}}},
  };
  for (const File& file : files) {
    SCOPED_TRACE(file.name);
    LoadOptions options;
    options.to_metres = true;
    const Capture capture =
        load_capture(test::test_data(std::string("bvh-python/") + file.name), options);
    ASSERT_EQ(capture.tracks().size(), file.tracks);
    EXPECT_EQ(capture.tracks().front().size(), file.frames);
    EXPECT_EQ(capture.info().frame_rate, 30.0); // 0.0333333 and 0.033333 s written
    // Neither file says its unit: centimetres, from a person's size; Y up, as BVH says.
    EXPECT_EQ(capture.info().length_unit, "cm");
    EXPECT_EQ(capture.info().up_axis, Axis::Y);
    for (const Expected& e : file.expected) {
      SCOPED_TRACE(e.joint);
      const Pose pose = capture.track(e.joint).pose(e.frame);
      EXPECT_TRUE(near_vec(pose.p, e.position_cm * 0.01, 1e-11));
      EXPECT_TRUE(near_vec(rotate(pose.q, {0, 1, 0}), e.y_axis, 1e-9));
    }
  }
}

TEST(BvhLoader, CmuCaptureLoadsWithConstantBoneLengths) {
  const std::string path = test::repo_data("cmu/131_01.bvh");
  const Capture capture = load_capture(path);
  EXPECT_EQ(capture.info().format, "bvh");
  // "Frame Time: 0.0083333" is 1/120 s written to 7 decimals: the nominal rate is 120 Hz, the
  // samples stay 0.0083333 s apart.
  EXPECT_EQ(capture.info().frame_rate, 120.0);
  EXPECT_EQ(capture.tracks().front().time(1), 0.0083333);
  ASSERT_EQ(capture.tracks().size(), 31u);
  const Skeleton& skeleton = *capture.skeleton();
  EXPECT_EQ(skeleton.frame_count, 994u);
  EXPECT_EQ(skeleton.channel_count, 96u);
  // Mixed rotation orders in one file: legs ZYX, arms ZXY.
  const auto joint = [&](const std::string& name) -> const Joint& {
    for (const Joint& j : skeleton.joints) {
      if (j.name == name) {
        return j;
      }
    }
    throw std::runtime_error("no joint " + name);
  };
  EXPECT_EQ(joint("LeftKnee").channels[1], Channel::Yrotation);
  EXPECT_EQ(joint("LeftShoulder").channels[1], Channel::Xrotation);
  // Physical truth: a rotation-only joint stays at its offset's length from its parent.
  double worst = 0;
  for (std::size_t j = 1; j < skeleton.joints.size(); ++j) {
    const Joint& jt = skeleton.joints[j];
    if (jt.end_site) {
      continue;
    }
    const Track& child = capture.track(jt.name);
    const Track& parent = capture.track(skeleton.joints[static_cast<std::size_t>(jt.parent)].name);
    for (std::size_t f = 0; f < child.size(); ++f) {
      const double length = norm(child.position(f) - parent.position(f));
      worst = std::fmax(worst, std::fabs(length - norm(jt.offset)));
    }
  }
  EXPECT_LT(worst, 1e-12);
}

TEST(BvhLoader, EulerWrapAroundBecomesNoHemisphereFlip) {
  // One channel goes from 179 to -179 degrees: a 2 degree turn whose half-angle quaternions
  // (cos 89.5, sin 89.5) and (cos -89.5, sin -89.5) lie in opposite hemispheres.
  const char* bvh = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                    "End Site\n{\nOFFSET 1 0 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.01\n"
                    "179 10 5\n-179 10 5\n";
  const Capture capture = parse_bvh(bvh, "wrap.bvh");
  const Track& a = capture.track("A");
  EXPECT_GT(dot(a.orientation(0), a.orientation(1)), 0.0);
  EXPECT_NEAR(angle_between(a.orientation(0), a.orientation(1)), 2 * k_deg, 1e-12);
  // The naive counterpart: forward kinematics straight from the channels flips.
  std::vector<Pose> f0, f1;
  const Skeleton skeleton = parse_bvh_skeleton(bvh, "wrap.bvh");
  forward_kinematics(skeleton, 0, f0);
  forward_kinematics(skeleton, 1, f1);
  EXPECT_LT(dot(f0[0].q, f1[0].q), 0.0);
}

TEST(BvhLoader, WrapAroundsAcrossTheLoadersBlocksAreContinuousAndNotFlipsOfTheData) {
  // The loader computes 32 frames at a time: a channel wrapping from 179 to -179 degrees at
  // random frames, including 31 -> 32 and 63 -> 64, must give continuous tracks, and a BVH,
  // which holds Euler angles and no quaternions, must report no sign flips of its own.
  test::Random rnd(23);
  std::ostringstream text;
  text << "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
          "JOINT B\n{\nOFFSET 0 1 0\nCHANNELS 3 Yrotation Xrotation Zrotation\nEnd Site\n{\n"
          "OFFSET 1 0 0\n}\n}\n}\nMOTION\nFrames: 100\nFrame Time: 0.01\n";
  double z = 170;
  for (int f = 0; f < 100; ++f) {
    const bool wrap = f == 32 || f == 64 || rnd.uniform(0, 1) < 0.1;
    z = wrap ? (z > 0 ? -179.5 : 179.5) : z;
    text << z << ' ' << rnd.uniform(-20, 20) << ' ' << rnd.uniform(-20, 20) << ' '
         << (f % 2 == 0 ? 179.0 : -179.0) << " 5 5\n";
  }
  const Capture capture = parse_bvh(text.str(), "wraps.bvh");
  const Skeleton skeleton = parse_bvh_skeleton(text.str(), "wraps.bvh");
  std::size_t raw_flips = 0;
  std::vector<Pose> before, after;
  for (const Track& t : capture.tracks()) {
    EXPECT_EQ(t.hemisphere_flips(), 0u) << t.name();
    for (std::size_t f = 1; f < t.size(); ++f) {
      ASSERT_GT(dot(t.orientation(f - 1), t.orientation(f)), 0.0) << t.name() << " " << f;
    }
  }
  // The naive counterpart: the quaternions straight from the channels change sign.
  for (std::size_t f = 1; f < skeleton.frame_count; ++f) {
    forward_kinematics(skeleton, f - 1, before);
    forward_kinematics(skeleton, f, after);
    raw_flips += dot(before[0].q, after[0].q) < 0.0;
    raw_flips += dot(before[1].q, after[1].q) < 0.0;
  }
  EXPECT_GT(raw_flips, 10u);
  // The same in a real file: MocapBank's (tests/data/bvh-python) knees wrap around.
  const Capture bank = load_capture(test::test_data("bvh-python/test_mocapbank.bvh"));
  for (const Track& t : bank.tracks()) {
    EXPECT_EQ(t.hemisphere_flips(), 0u) << t.name();
    for (std::size_t f = 1; f < t.size(); ++f) {
      ASSERT_GT(dot(t.orientation(f - 1), t.orientation(f)), 0.0) << t.name() << " " << f;
    }
  }
}

TEST(BvhLoader, OfTwoAbsurdValuesTheEarlierFrameIsReported) {
  // Two roots; the second's value overflows at frame 2, the first's at frame 5, both within
  // the loader's first block of frames: the error names frame 2, the earlier in the file.
  const std::string bvh =
      "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 1 Xposition\n End Site\n {\n  OFFSET 0 1 "
      "0\n }\n}\nROOT b\n{\n OFFSET 0 0 0\n CHANNELS 1 Yposition\n End Site\n {\n  OFFSET 0 1 "
      "0\n }\n}\nMOTION\nFrames: 8\nFrame Time: 0.01\n0 0\n0 0\n0 3e9\n0 0\n0 0\n4e9 0\n0 "
      "0\n0 0\n";
  try {
    parse_bvh(bvh, "two.bvh");
    FAIL() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), 25u) << e.what();
    EXPECT_NE(std::string(e.what()).find("frame 2: '3e9' (Yposition of 'b')"), std::string::npos)
        << e.what();
  }
}

TEST(BvhLoader, CmuWrapAroundsAreSmoothInTheTracks) {
  const Capture capture = load_capture(test::repo_data("cmu/131_01.bvh"));
  const Skeleton skeleton =
      parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_01.bvh")), "131_01.bvh");
  // PROVENANCE.md: 7 jumps over 180 degrees between frames, in columns 94 and 96 (RThumb).
  std::size_t jumps = 0;
  for (std::size_t f = 1; f < skeleton.frame_count; ++f) {
    for (std::size_t c = 0; c < skeleton.channel_count; ++c) {
      jumps += std::fabs(skeleton.value(f, c) - skeleton.value(f - 1, c)) > 180.0;
    }
  }
  EXPECT_EQ(jumps, 7u);
  std::size_t flips = 0;
  double largest_step = 0;
  std::vector<std::size_t> thumb_glitches;
  for (const Track& t : capture.tracks()) {
    for (std::size_t f = 1; f < t.size(); ++f) {
      flips += dot(t.orientation(f - 1), t.orientation(f)) < 0.0;
      const double step = angle_between(t.orientation(f - 1), t.orientation(f));
      if (t.name() == "RThumb") {
        if (step > 150 * k_deg) {
          thumb_glitches.push_back(f);
        }
      } else {
        largest_step = std::fmax(largest_step, step);
      }
    }
  }
  EXPECT_EQ(flips, 0u);
  std::printf("[ metric ] 131_01: largest rotation between frames outside RThumb %.1f degrees\n",
              largest_step / k_deg);
  EXPECT_LT(largest_step, 90 * k_deg); // no wrap-around artefact survives
  // A real defect of this capture, not of loading: the right thumb's solved orientation turns
  // about 170 degrees within one frame six times. It is data for the validator to report.
  EXPECT_EQ(thumb_glitches, (std::vector<std::size_t>{178, 192, 243, 751, 757, 815}));
}

TEST(BvhLoader, LengthScaleUpAxisAndTrackSelection) {
  LoadOptions options;
  options.length_scale = 0.0254 / 0.45; // CMU units to metres
  options.up_axis = Axis::Z;
  options.tracks = {"Hips", "Head"};
  const Capture raw = load_capture(test::repo_data("cmu/131_03.bvh"));
  const Capture capture = load_capture(test::repo_data("cmu/131_03.bvh"), options);
  ASSERT_EQ(capture.tracks().size(), 2u);
  EXPECT_EQ(capture.info().up_axis, Axis::Z);
  for (std::size_t f = 0; f < 1102; f += 100) {
    // Y-up to Z-up is +90 degrees about X: (x, y, z) -> (x, -z, y).
    const Vec3 p = raw.track("Head").position(f) * options.length_scale;
    EXPECT_TRUE(near_vec(capture.track("Head").position(f), {p.x, -p.z, p.y}, 1e-12));
  }
  const double head_height = capture.track("Head").position(0).z;
  EXPECT_GT(head_height, 1.3); // a standing adult's head, in metres
  EXPECT_LT(head_height, 2.0);
  options.tracks = {"Tail"};
  EXPECT_THROW(load_capture(test::repo_data("cmu/131_03.bvh"), options), LoadError);
}

TEST(BvhLoader, ASkeletonsTracksKeepTheirFramesTimesOnce) {
  // Every joint has a pose in every frame: the tracks share one storage of the frames' times
  // (Track::append_together), 8 bytes a frame instead of 8 a joint-frame.
  const Capture capture = load_capture(test::repo_data("cmu/131_03.bvh"));
  const Track& hips = capture.tracks().front();
  ASSERT_EQ(hips.size(), 1102u);
  for (const Track& track : capture.tracks()) {
    EXPECT_TRUE(track.times().shares_storage_with(hips.times())) << track.name();
    EXPECT_EQ(track.times().data(), hips.times().data()) << track.name();
  }
  for (std::size_t f = 0; f < hips.size(); ++f) {
    ASSERT_EQ(hips.time(f), static_cast<double>(f) * 0.0083333) << f;
  }
}

// A BVH over 1 MiB is read a piece at a time: the hierarchy from the file's first MiB (cut at
// a line's end), the rows on from there in 256 KiB pieces, which end at lines' ends too, so
// that rows cut by a piece's end are read whole from the next. Truth: CMU 131_03 tiled three
// times (2.4 MB, CRLF line ends; pieces end at every kind of place in a row) is the 1x file's
// capture three times over, sample for sample, and the same text read from memory at once.
struct Tiled {
  std::string header; ///< the hierarchy and MOTION's three lines
  std::vector<std::string> rows;
  std::size_t frames = 0; ///< the 1x file's
};

Tiled tiled_cmu(int times) {
  const std::string text = test::read_text(test::repo_data("cmu/131_03.bvh"));
  Tiled t;
  std::istringstream in(text.substr(text.find("MOTION")));
  std::string line, frame_time;
  std::getline(in, line); // MOTION
  std::getline(in, line); // Frames:
  std::getline(in, frame_time);
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (!line.empty()) {
      rows.push_back(line);
    }
  }
  t.frames = rows.size();
  for (int k = 0; k < times; ++k) {
    t.rows.insert(t.rows.end(), rows.begin(), rows.end());
  }
  t.header = text.substr(0, text.find("MOTION")) +
             "MOTION\nFrames: " + std::to_string(t.rows.size()) + "\n" + frame_time + "\n";
  return t;
}

std::string joined(const Tiled& t, const char* end_of_line) {
  std::string text;
  for (char c : t.header) {
    text += c == '\n' ? std::string(end_of_line) : std::string(1, c);
  }
  for (const std::string& row : t.rows) {
    text += row + end_of_line;
  }
  return text;
}

/// `text` written as `name` in a scratch directory of its own, removed with it.
struct Written {
  Written(const std::string& text, const std::string& name)
      : dir(test::make_scratch_dir("odemocap_bvh_")), path((dir / name).string()) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ~Written() { std::filesystem::remove_all(dir); }
  Written(const Written&) = delete;
  Written& operator=(const Written&) = delete;

  std::filesystem::path dir;
  std::string path;
};

/// Samples [from, from + count) of `a` are samples [0, count) of `b` to the bit, orientations
/// up to their sign (each is put in the hemisphere of the one before it in its own track).
bool same_samples(const Track& a, std::size_t from, const Track& b, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const Vec3 p = a.position(from + i), r = b.position(i);
    const Quat q = a.orientation(from + i);
    const Quat u = dot(q, b.orientation(i)) < 0.0 ? -b.orientation(i) : b.orientation(i);
    if (!(p.x == r.x && p.y == r.y && p.z == r.z && q.w == u.w && q.x == u.x && q.y == u.y &&
          q.z == u.z)) {
      return false;
    }
  }
  return true;
}

TEST(BvhLoader, AFileOverAMebibyteReadAPieceAtATimeIsTheSameCapture) {
  const Tiled t = tiled_cmu(3);
  const Capture once = load_capture(test::repo_data("cmu/131_03.bvh"));
  for (const char* end_of_line : {"\n", "\r\n"}) {
    const std::string text = joined(t, end_of_line);
    ASSERT_GT(text.size(), std::size_t{2} << 20);
    const Written file(text, "tiled.bvh");
    const Capture pieces = load_capture(file.path);
    const Capture whole = parse_bvh(text, "tiled.bvh");
    ASSERT_EQ(pieces.tracks().size(), once.tracks().size());
    EXPECT_EQ(pieces.info().notes, whole.info().notes);
    for (std::size_t k = 0; k < once.tracks().size(); ++k) {
      const Track& p = pieces.tracks()[k];
      ASSERT_EQ(p.size(), 3 * t.frames);
      EXPECT_TRUE(same_samples(p, 0, whole.tracks()[k], p.size())) << p.name();
      for (std::size_t copy = 0; copy < 3; ++copy) {
        EXPECT_TRUE(same_samples(p, copy * t.frames, once.tracks()[k], t.frames)) << p.name();
      }
      EXPECT_EQ(p.time(2 * t.frames + 5),
                static_cast<double>(2 * t.frames + 5) * pieces.skeleton()->frame_time);
    }
    EXPECT_EQ(pieces.skeleton()->frame_count, 3 * t.frames);
    EXPECT_TRUE(pieces.skeleton()->motion.empty()); // the rows were let go
  }
}

TEST(BvhLoader, AnErrorInALaterPieceNamesItsOwnLineAndColumn) {
  Tiled t = tiled_cmu(3);
  const std::size_t header_lines =
      static_cast<std::size_t>(std::count(t.header.begin(), t.header.end(), '\n'));
  for (const std::size_t row : {std::size_t{1700}, std::size_t{3200}}) {
    Tiled bad = t;
    // The eighth value of the row replaced by a word: its column is the byte after the seventh
    // value and its space.
    std::string& r = bad.rows[row];
    std::size_t at = 0;
    for (int v = 0; v < 7; ++v) {
      at = r.find_first_not_of(' ', at);
      at = r.find(' ', at);
    }
    at = r.find_first_not_of(' ', at);
    r = r.substr(0, at) + "abc" + r.substr(r.find(' ', at));
    const Written file(joined(bad, "\n"), "word.bvh");
    try {
      load_capture(file.path);
      FAIL() << "loaded";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.line(), header_lines + row + 1) << e.what();
      EXPECT_EQ(e.column(), at + 1) << e.what();
      EXPECT_NE(std::string(e.what()).find("'abc'"), std::string::npos) << e.what();
    }
  }
  // A row cut short by the end of the file.
  const std::string text = joined(t, "\n");
  const Written cut(text.substr(0, text.size() - 40), "cut.bvh");
  try {
    load_capture(cut.path);
    FAIL() << "loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.line(), header_lines + t.rows.size()) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected 96 values"), std::string::npos) << e.what();
  }
}

TEST(BvhLoader, AHierarchyLongerThanTheFirstMebibyteIsReadFromTheWholeFile) {
  // 9800 joints (1.1 MB of hierarchy): the piecewise reading falls back to the whole text.
  std::string text = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition "
                     "Zposition\n";
  for (int j = 0; j < 9800; ++j) {
    text += " JOINT a_joint_with_a_long_name_" + std::to_string(j) +
            "\n {\n  OFFSET 0 1 0\n  CHANNELS 1 Zrotation\n  End Site\n  {\n   OFFSET 0 1 0\n  "
            "}\n }\n";
  }
  text += "}\nMOTION\nFrames: 2\nFrame Time: 0.5\n";
  for (int f = 0; f < 2; ++f) {
    text += std::to_string(f) + " 0 0";
    for (int j = 0; j < 9800; ++j) {
      text += j == 4321 ? " 90" : " 0";
    }
    text += "\n";
  }
  ASSERT_GT(text.find("MOTION"), std::size_t{1} << 20);
  LoadOptions keep;
  keep.tracks = {"a_joint_with_a_long_name_4321"};
  const Written file(text, "deep.bvh");
  const Capture c = load_capture(file.path, keep);
  const Track& joint = c.track("a_joint_with_a_long_name_4321");
  ASSERT_EQ(joint.size(), 2u);
  EXPECT_TRUE(near_vec(joint.position(1), {1, 1, 0}, 1e-15)); // root at x = 1, one unit up
  EXPECT_TRUE(same_rotation(joint.orientation(1), from_axis_angle({0, 0, 1}, k_pi / 2), 1e-15));
}

TEST(BvhLoader, SharedCmuCopyIsTheSameCapture) {
  const std::string shared = test::shared_data("cmu/131_03.bvh");
  ODEMOCAP_REQUIRE_FILE(shared);
  const Capture a = load_capture(shared);
  const Capture b = load_capture(test::repo_data("cmu/131_03.bvh"));
  ASSERT_EQ(a.tracks().size(), b.tracks().size());
  for (std::size_t k = 0; k < a.tracks().size(); ++k) {
    const Track& s = a.tracks()[k];
    const Track& r = b.tracks()[k];
    ASSERT_EQ(s.size(), r.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      ASSERT_TRUE(near_vec(s.position(i), r.position(i), 0.0)) << s.name() << " " << i;
      const Quat p = s.orientation(i), q = r.orientation(i);
      ASSERT_TRUE(p.w == q.w && p.x == q.x && p.y == q.y && p.z == q.z) << s.name() << " " << i;
    }
  }
}

} // namespace
} // namespace odemocap
