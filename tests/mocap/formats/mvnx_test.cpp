// Xsens MVNX: a file in the layout of MVN's XML export (mvnx > subject frameRate > segments,
// frames with identity/tpose reference frames, then frames of type "normal" with orientation
// w x y z and position per segment), written here from the MVN user manual's description.
#include "support/error_message.hpp"
#include "support/mvnx_leg.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace odemocap {
namespace {

std::string mvnx(const std::string& frames) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mvnx version=\"4\">\n"
         "<mvn version=\"2021.0.0\" build=\"1\"/>\n<comment></comment>\n"
         "<subject label=\"P01\" torsoColor=\"#ea6852\" frameRate=\"60\" segmentCount=\"2\" "
         "recDate=\"Mon Jan 01 2024\" originalFilename=\"walk.mvn\">\n"
         "<segments>\n<segment label=\"Pelvis\" id=\"1\"><points/></segment>\n"
         "<segment label=\"RightHand\" id=\"2\"><points/></segment>\n</segments>\n"
         "<frames segmentCount=\"2\" sensorCount=\"0\" jointCount=\"1\">\n"
         "<frame time=\"0\" type=\"identity\"><orientation>1 0 0 0 1 0 0 0</orientation>"
         "<position>0 0 0 0 0 0</position></frame>\n"
         "<frame time=\"0\" type=\"tpose\"><orientation>1 0 0 0 1 0 0 0</orientation>"
         "<position>0 0 1 0.5 0 1.4</position></frame>\n" +
         frames + "</frames>\n</subject>\n</mvnx>\n";
}

const std::string k_frames =
    "<frame time=\"0\" index=\"0\" tc=\"00:00:00:00\" ms=\"1000\" type=\"normal\">"
    "<orientation>1 0 0 0 0.707106781186548 0 0 0.707106781186548</orientation>"
    "<position>0.1 0.2 0.95 0.6 0.2 1.3</position><velocity>0 0 0 0 0 0</velocity></frame>\n"
    "<frame time=\"17\" index=\"1\" tc=\"00:00:00:01\" ms=\"1017\" type=\"normal\">"
    "<orientation>1 0 0 0 0.5 0.5 0.5 0.5</orientation>"
    "<position>0.11 0.2 0.95 0.61 0.2 1.3</position></frame>\n";

TEST(Mvnx, SegmentsBecomeTracksFromTheNormalFrames) {
  const std::string text = mvnx(k_frames);
  EXPECT_EQ(detect_format(text, "walk.mvnx"), Format::Mvnx);
  const Capture c = load_capture_from_memory(text, "walk.mvnx");
  EXPECT_EQ(c.info().format, "mvnx");
  EXPECT_EQ(c.info().frame_rate, 60.0);
  EXPECT_EQ(c.info().up_axis, Axis::Z);
  EXPECT_TRUE(c.info().in_metres());
  ASSERT_EQ(c.tracks().size(), 2u);
  const Track& hand = c.track("RightHand");
  ASSERT_EQ(hand.size(), 2u); // the identity and T-pose reference frames are not motion
  // MVN prints whole milliseconds: 17 is 1/60 s rounded, and the frames are 1/60 s apart.
  EXPECT_NEAR(hand.time(1), 1.0 / 60.0, 1e-15);
  EXPECT_TRUE(test::near_vec(hand.position(0), {0.6, 0.2, 1.3}, 1e-15));
  // w x y z: a quarter turn about z, then a third of a turn about (1, 1, 1).
  EXPECT_TRUE(
      test::same_rotation(hand.orientation(0), from_axis_angle({0, 0, 1}, M_PI / 2), 1e-12));
  EXPECT_TRUE(test::same_rotation(hand.orientation(1),
                                  from_axis_angle(normalized(Vec3{1, 1, 1}), 2 * M_PI / 3), 1e-12));
}

/// An MVNX file of one segment moving at 0.5 m/s along x at `rate` Hz for `n` frames, its
/// frame times printed in whole milliseconds as MVN prints them (rounded), frames in `dropped`
/// left out.
std::string moving_at(double rate, int n, const std::vector<int>& dropped = {}) {
  std::string frames;
  for (int i = 0; i < n; ++i) {
    if (std::find(dropped.begin(), dropped.end(), i) != dropped.end()) {
      continue;
    }
    const double t = i / rate;
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "<frame time=\"%.0f\" index=\"%d\" type=\"normal\"><orientation>1 0 0 0 1 0 "
                  "0 0</orientation><position>%.9f 0 1 0 0 1</position></frame>\n",
                  1000.0 * t, i, 0.5 * t);
    frames += buf;
  }
  std::string text = mvnx(frames);
  text.replace(text.find("frameRate=\"60\""), 14,
               "frameRate=\"" + std::to_string(int(rate)) + "\"");
  return text;
}

TEST(Mvnx, WholeMillisecondTimesAreTheFrameRatesGridRounded) {
  // At 240 Hz MVN's times read 0, 4, 8, 12, 17, 21 ms: intervals of 4 and 5 ms where every one is
  // 4.17 ms. Taken as they are, a body moving at 0.5 m/s would move at 0.42 and 0.52 m/s from
  // one interval to the next; the frames are the rate's grid, and a dropped frame stays out.
  const Capture c = parse_mvnx(moving_at(240, 48, {20}), "fast.mvnx");
  const Track& pelvis = c.track("Pelvis");
  ASSERT_EQ(pelvis.size(), 47u);
  double fastest = 0.0, slowest = INFINITY;
  for (std::size_t i = 0; i < pelvis.size(); ++i) {
    const int frame = static_cast<int>(i) + (i >= 20 ? 1 : 0);
    EXPECT_NEAR(pelvis.time(i), frame / 240.0, 1e-15) << i;
    if (i > 0) {
      const double v =
          (pelvis.position(i).x - pelvis.position(i - 1).x) / (pelvis.time(i) - pelvis.time(i - 1));
      fastest = std::fmax(fastest, v);
      slowest = std::fmin(slowest, v);
    }
  }
  EXPECT_NEAR(fastest, 0.5, 1e-6);
  EXPECT_NEAR(slowest, 0.5, 1e-6);
  EXPECT_TRUE(test::has_note(c.info(), "the 240 Hz grid rounded"));
  // The file's own times, for the record: 4 and 5 ms apart.
  const std::string text = moving_at(240, 48);
  EXPECT_NE(text.find("time=\"12\""), std::string::npos);
  EXPECT_NE(text.find("time=\"17\""), std::string::npos);
  // Times that are not the grid within a millisecond (a frame 3 ms late) are kept as written.
  std::string late = text;
  late.replace(late.find("time=\"12\""), 9, "time=\"15\"");
  const Capture kept = parse_mvnx(late, "late.mvnx");
  EXPECT_EQ(kept.track("Pelvis").time(3), 0.015);
  EXPECT_EQ(kept.track("Pelvis").time(1), 0.004);
  EXPECT_FALSE(test::has_note(kept.info(), "grid"));
}

TEST(Mvnx, BrokenFilesNameTheByteAndWhat) {
  const auto error = [](const std::string& text) {
    return test::error_message<LoadError>([&] { parse_mvnx(text, "bad.mvnx"); });
  };
  EXPECT_NE(error("<mvnx><subject").find("not well-formed XML"), std::string::npos);
  EXPECT_NE(error("<mvnx><subject").find("bad.mvnx: byte "), std::string::npos);
  std::string short_row = k_frames;
  short_row.replace(short_row.find("0.6 0.2 1.3"), 11, "0.6 0.2");
  EXPECT_NE(error(mvnx(short_row)).find("<position> must hold 3 numbers for each of the 2"),
            std::string::npos);
  std::string backwards = k_frames;
  backwards.replace(backwards.find("time=\"17\""), 9, "time=\"-5\"");
  EXPECT_NE(error(mvnx(backwards)).find("frame time -5 ms"), std::string::npos);
  std::string zero = k_frames;
  zero.replace(zero.find("<orientation>1 0 0 0 0.707"), 20, "<orientation>0 0 0 0 ");
  EXPECT_NE(error(mvnx(zero)).find("segment 'Pelvis'"), std::string::npos) << error(mvnx(zero));
  EXPECT_NE(error(mvnx("")).find("no <frame type=\"normal\">"), std::string::npos);
  EXPECT_NE(test::error_message<LoadError>([] {
              load_capture_from_memory("<?xml version=\"1.0\"?><svg/>", "x.mvnx");
            }).find("not an Xsens MVNX"),
            std::string::npos);
}

TEST(Mvnx, JointsGiveTheSegmentsTheirHierarchy) {
  const Capture capture = parse_mvnx(test::mvnx_leg(), "leg.mvnx");
  ASSERT_NE(capture.skeleton(), nullptr);
  const auto& joints = capture.skeleton()->joints;
  ASSERT_EQ(joints.size(), 3u);
  EXPECT_EQ(joints[0].name, "Pelvis");
  EXPECT_EQ(joints[0].parent, -1);
  EXPECT_EQ(joints[1].name, "RightUpperLeg");
  EXPECT_EQ(joints[1].parent, 0);
  EXPECT_TRUE(test::near_vec(joints[1].offset, {0, -0.08, 0}, 0)); // Pelvis's jRightHip
  EXPECT_EQ(joints[2].parent, 1);
  EXPECT_TRUE(test::near_vec(joints[2].offset, {0, 0, -0.42}, 0)); // the thigh's jRightKnee
  EXPECT_EQ(capture.skeleton()->frame_count, 2u);
  // Without <joints> there is no hierarchy: segments are independent bodies.
  const Capture flat = parse_mvnx(test::mvnx_leg("<joints/>\n"), "flat.mvnx");
  EXPECT_EQ(flat.skeleton(), nullptr);
}

/// A random segment tree written as MVN writes it, for the offset tests below: segment i > 0
/// hangs from a random earlier one at a random point; what the file lists is chosen per case.
struct RandomTree {
  std::vector<int> parent;
  std::vector<Vec3> offset;      // the truth: the child's origin in the parent's rest frame
  std::vector<Vec3> child_point; // the joint's point in the child's frame (MVN writes 0 0 0)
  std::vector<Pose> posed;       // a random pose of every segment (world, m)

  RandomTree(test::Random& random, std::size_t segments, bool child_points) {
    for (std::size_t i = 0; i < segments; ++i) {
      parent.push_back(i == 0 ? -1 : static_cast<int>(random.uniform(0, static_cast<double>(i))));
      offset.push_back(random.unit_vector() * random.uniform(0.05, 0.4));
      child_point.push_back(child_points ? random.unit_vector() * random.uniform(0.0, 0.05)
                                         : Vec3{});
    }
    offset[0] = {};
    posed.push_back({{random.uniform(-2, 2), random.uniform(-2, 2), random.uniform(0.5, 1.5)},
                     random.rotation()});
    for (std::size_t i = 1; i < segments; ++i) {
      const Pose& a = posed[static_cast<std::size_t>(parent[i])];
      const Quat q = random.rotation();
      const Vec3 joint = a.p + rotate(a.q, offset[i] + child_point[i]); // the parent's point
      posed.push_back({joint - rotate(q, child_point[i]), q});
    }
  }

  static std::string numbers(const std::vector<double>& v) {
    std::string out;
    char buffer[32];
    for (double x : v) {
      std::snprintf(buffer, sizeof buffer, "%.17g ", x);
      out += buffer;
    }
    return out;
  }

  /// The file: points listed in <tag> ("" for none) except where `listed` says no; an identity
  /// frame when asked; two normal frames (the random pose, then everything 1 cm higher).
  std::string file(const std::string& tag, const std::vector<bool>& listed, bool identity) const {
    const std::size_t n = parent.size();
    const auto name = [](std::size_t i) { return "S" + std::to_string(i); };
    const auto point = [&](const Vec3& v) {
      return "<" + tag + ">" + numbers({v.x, v.y, v.z}) + "</" + tag + ">";
    };
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<mvnx xmlns=\"http://www.xsens.com/mvn/mvnx\" version=\"4\">\n"
                      "<subject label=\"P\" frameRate=\"60\" segmentCount=\"" +
                      std::to_string(n) + "\">\n<segments>\n";
    for (std::size_t i = 0; i < n; ++i) {
      out += "<segment label=\"" + name(i) + "\" id=\"" + std::to_string(i + 1) + "\"><points>";
      if (!tag.empty()) {
        out += "<point label=\"pOrigin\">" + point({}) + "</point>";
        if (i > 0) {
          out += "<point label=\"j" + name(i) + "\">" + point(child_point[i]) + "</point>";
        }
        for (std::size_t c = 1; c < n; ++c) {
          if (parent[c] == static_cast<int>(i) && listed[c]) {
            out += "<point label=\"j" + name(c) + "\">" + point(offset[c] + child_point[c]) +
                   "</point>";
          }
        }
      }
      out += "</points></segment>\n";
    }
    out += "</segments>\n<joints>\n";
    for (std::size_t c = 1; c < n; ++c) {
      const std::string j = "j" + name(c);
      out += "<joint label=\"" + j + "\"><connector1>" + name(static_cast<std::size_t>(parent[c])) +
             "/" + j + "</connector1><connector2>" + name(c) + "/" + j + "</connector2></joint>\n";
    }
    out += "</joints>\n<frames segmentCount=\"" + std::to_string(n) + "\">\n";
    const auto frame = [&](const std::string& attributes, const std::vector<Pose>& poses) {
      std::vector<double> q, p;
      for (const Pose& pose : poses) {
        q.insert(q.end(), {pose.q.w, pose.q.x, pose.q.y, pose.q.z});
        p.insert(p.end(), {pose.p.x, pose.p.y, pose.p.z});
      }
      return "<frame " + attributes + "><orientation>" + numbers(q) + "</orientation><position>" +
             numbers(p) + "</position></frame>\n";
    };
    if (identity) {
      std::vector<Pose> rest(n);
      for (std::size_t i = 1; i < n; ++i) {
        rest[i].p = rest[static_cast<std::size_t>(parent[i])].p + offset[i];
      }
      out += frame("time=\"0\" type=\"identity\"", rest);
    }
    std::vector<Pose> higher = posed;
    for (Pose& pose : higher) {
      pose.p.z += 0.01;
    }
    out += frame("time=\"0\" index=\"0\" type=\"normal\"", posed) +
           frame("time=\"17\" index=\"1\" type=\"normal\"", higher);
    return out + "</frames>\n</subject>\n</mvnx>\n";
  }
};

// MVN 2018 and later write a segment's points as <pos_b>; Xsens's MVNX 3 schema names them
// <pos_s>. A reader of <pos_b> alone gave every MVNX 3 file a skeleton of zero offsets.
TEST(Mvnx, ConnectingPointsReadAsPosBOrAsMvnThreesPosS) {
  test::Random random(7101);
  for (int c = 0; c < 100; ++c) {
    const RandomTree tree(random, 2 + static_cast<std::size_t>(random.uniform(0, 12)), c % 2 == 0);
    const std::vector<bool> all(tree.parent.size(), true);
    for (const std::string tag : {"pos_b", "pos_s"}) {
      const Capture capture = parse_mvnx(tree.file(tag, all, c % 3 == 0), "tree.mvnx");
      ASSERT_NE(capture.skeleton(), nullptr);
      const auto& joints = capture.skeleton()->joints;
      ASSERT_EQ(joints.size(), tree.parent.size());
      for (const Joint& joint : joints) {
        const std::size_t i = std::stoul(joint.name.substr(1));
        ASSERT_TRUE(test::near_vec(joint.offset, tree.offset[i], 1e-12))
            << tag << ", case " << c << ", " << joint.name;
      }
      EXPECT_FALSE(test::has_note(capture.info(), "measured in the"));
    }
  }
}

// A connector naming a point its parent does not list (or a file without <points>) had the
// offset zero, silently. It is measured in the identity (rest) frame, or without one in the
// first normal frame, and said in a note: exact where the child's own point is known or zero.
TEST(Mvnx, OffsetsOfPointsTheFileDoesNotListAreMeasuredInItsFrames) {
  test::Random random(7102);
  for (int c = 0; c < 100; ++c) {
    const bool identity = c % 2 == 0;
    const bool points = c % 4 < 2; // without an identity frame, child points stay known
    const RandomTree tree(random, 3 + static_cast<std::size_t>(random.uniform(0, 12)), points);
    std::vector<bool> listed(tree.parent.size());
    for (std::size_t i = 0; i < listed.size(); ++i) {
      listed[i] = points && random.uniform(0, 1) < 0.5;
    }
    listed[1] = false; // at least one measured
    const Capture capture =
        parse_mvnx(tree.file(points ? "pos_b" : "", listed, identity), "tree.mvnx");
    ASSERT_NE(capture.skeleton(), nullptr);
    for (const Joint& joint : capture.skeleton()->joints) {
      const std::size_t i = std::stoul(joint.name.substr(1));
      ASSERT_TRUE(test::near_vec(joint.offset, tree.offset[i], 1e-9))
          << "case " << c << ", " << joint.name << (identity ? ", identity frame" : "");
    }
    EXPECT_TRUE(test::has_note(capture.info(), identity ? "measured in the identity (rest) frame"
                                                        : "measured in the first normal frame"));
  }
  // What the frame must hold to be measured in, named.
  test::Random one(7103);
  const RandomTree tree(one, 4, false);
  std::string broken = tree.file("", std::vector<bool>(4, false), true);
  broken.replace(broken.find("<orientation>", broken.find("type=\"identity\"")), 13,
                 "<orientation>x ");
  EXPECT_NE(test::error_message<LoadError>([&] {
              parse_mvnx(broken, "tree.mvnx");
            }).find("the identity frame must hold a finite orientation"),
            std::string::npos);
}

TEST(Mvnx, ABrokenHierarchyIsNamed) {
  const auto error = [](const std::string& joints) {
    return test::error_message<LoadError>(
        [&] { parse_mvnx(test::mvnx_leg("<joints>" + joints + "</joints>\n"), "bad.mvnx"); });
  };
  const auto joint = [](const std::string& from, const std::string& to) {
    return "<joint label=\"j\"><connector1>" + from + "</connector1><connector2>" + to +
           "</connector2></joint>";
  };
  EXPECT_NE(error(joint("Pelvis/jRightHip", "Tail/j")).find("'Tail', which are not both"),
            std::string::npos);
  EXPECT_NE(error(joint("Pelvis", "RightUpperLeg/j")).find("must read segment/point"),
            std::string::npos);
  EXPECT_NE(
      error(joint("Pelvis/a", "RightUpperLeg/a") + joint("RightLowerLeg/b", "RightUpperLeg/b"))
          .find("second parent"),
      std::string::npos);
  EXPECT_NE(error(joint("RightUpperLeg/a", "RightLowerLeg/a") +
                  joint("RightLowerLeg/b", "RightUpperLeg/b"))
                .find("cycle"),
            std::string::npos);
  EXPECT_NE(error(joint("Pelvis/a", "Tail/a")).find("bad.mvnx: byte "), std::string::npos);
  EXPECT_EQ(error(joint("Pelvis/a", "RightUpperLeg/a")), "no error"); // a partial tree is fine
}

} // namespace
} // namespace odemocap
