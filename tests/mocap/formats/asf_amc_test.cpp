// Acclaim ASF/AMC: CMU subject 131's skeleton and the first frames of trial 03, against the
// BVH conversion of the same trial in data/ (cgspeed's, a different program): the same
// motion must put every joint in the same place, up to the BVH's 4-decimal rounding.
#include "support/data_paths.hpp"
#include "support/notes.hpp"
#include "support/error_message.hpp"
#include "support/reference_math.hpp"
#include "support/scratch_dir.hpp"

#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace odemocap {
namespace {

constexpr double k_cmu = 0.0254 / 0.45;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AsfAmc, Cmu131MatchesItsBvhConversionJointForJoint) {
  const Capture amc = load_capture(test::repo_data("cmu/131_03_first3.amc"));
  EXPECT_EQ(amc.info().format, "asf-amc");
  EXPECT_EQ(amc.info().unit_source, "declared");
  EXPECT_NEAR(amc.info().unit_in_metres, k_cmu, 1e-15);
  EXPECT_EQ(amc.info().up_axis, Axis::Y);
  ASSERT_EQ(amc.track("root").size(), 3u);
  LoadOptions cmu;
  cmu.unit_in_metres = k_cmu;
  const Capture bvh = load_capture(test::repo_data("cmu/131_03.bvh"), cmu);
  // Each BVH joint sits at the start of the ASF bone of the same name in CMU's naming.
  const std::pair<const char*, const char*> joints[] = {{"root", "Hips"},
                                                        {"lhipjoint", "LHipJoint"},
                                                        {"lfemur", "LeftHip"},
                                                        {"ltibia", "LeftKnee"},
                                                        {"lfoot", "LeftAnkle"},
                                                        {"ltoes", "LeftToe"},
                                                        {"rfemur", "RightHip"},
                                                        {"rtibia", "RightKnee"},
                                                        {"rfoot", "RightAnkle"},
                                                        {"rtoes", "RightToe"},
                                                        {"lowerback", "lowerback"},
                                                        {"upperback", "Chest"},
                                                        {"thorax", "Chest2"},
                                                        {"lowerneck", "lowerneck"},
                                                        {"upperneck", "Neck"},
                                                        {"head", "Head"},
                                                        {"lclavicle", "LeftCollar"},
                                                        {"lhumerus", "LeftShoulder"},
                                                        {"lradius", "LeftElbow"},
                                                        {"lwrist", "LeftWrist"},
                                                        {"lhand", "lhand"},
                                                        {"lthumb", "LThumb"},
                                                        {"rhumerus", "RightShoulder"},
                                                        {"rradius", "RightElbow"},
                                                        {"rwrist", "RightWrist"},
                                                        {"rhand", "rhand"},
                                                        {"rthumb", "RThumb"}};
  // (The fingers hang from the conversion's re-based hand frame, its OFFSET along -Y: they
  // land 6 to 15 mm from the ASF's and are left out.)
  // Two differences are the conversion's, not ours: its lowerneck (and the collars) sit at the
  // start of the thorax (OFFSET 0 0 0 below Chest2), and its hands and thumbs at the start of
  // the wrists (OFFSET 0 0 0 below the wrists), which drops the thorax (1.98 units, 11 cm) and
  // the wrists (1.64 and 1.72 units). Every joint beyond is shifted by exactly those bones as
  // the ASF places them.
  const std::set<std::string> above_thorax = {"lowerneck", "upperneck", "head",     "lclavicle",
                                              "lhumerus",  "lradius",   "lwrist",   "lhand",
                                              "lfingers",  "lthumb",    "rhumerus", "rradius",
                                              "rwrist",    "rhand",     "rfingers", "rthumb"};
  double worst = 0.0;
  for (const auto& [bone, joint] : joints) {
    for (std::size_t f = 0; f < 3; ++f) {
      Vec3 d = amc.track(bone).position(f) - bvh.track(joint).position(f);
      if (above_thorax.count(bone) > 0) {
        d = d - (amc.track("lowerneck").position(f) - amc.track("thorax").position(f));
      }
      const std::string b = bone;
      if (b == "lhand" || b == "lfingers" || b == "lthumb") {
        d = d - (amc.track("lhand").position(f) - amc.track("lwrist").position(f));
      }
      if (b == "rhand" || b == "rfingers" || b == "rthumb") {
        d = d - (amc.track("rhand").position(f) - amc.track("rwrist").position(f));
      }
      worst = std::fmax(worst, norm(d));
      EXPECT_LT(norm(d), 2e-4) << bone << " / " << joint << " frame " << f;
    }
  }
  EXPECT_NEAR(norm(amc.track("lowerneck").position(0) - amc.track("thorax").position(0)),
              1.98337 * k_cmu, 1e-9);
  RecordProperty("worst_joint_distance_m", std::to_string(worst));
  // The ends of the leaves: End Sites on request, and the rest pose as the skeleton.
  LoadOptions ends;
  ends.end_sites = true;
  const Capture with_ends = load_capture(test::repo_data("cmu/131_03_first3.amc"), ends);
  EXPECT_NE(with_ends.find_track("head_End"), nullptr);
  ASSERT_NE(amc.skeleton(), nullptr);
  EXPECT_EQ(amc.skeleton()->joints.size(), 31u + 7u); // root, 30 bones, 7 leaf ends
}

TEST(AsfAmc, ANaiveOrderOfTheAxisAnglesMissesTheBvh) {
  // The axis angles of lfoot (-90, 0, 20, "XYZ") composed the other way, Rx Ry Rz, turn the
  // foot about the wrong axes: its toes land centimetres away from the BVH's. Written out
  // here by swapping the order letters, which the loader reads.
  std::string asf = slurp(test::repo_data("cmu/131.asf"));
  for (std::size_t at = asf.find("XYZ"); at != std::string::npos; at = asf.find("XYZ", at + 3)) {
    if (asf.compare(at - 4, 4, "axis") != 0) { // the root's "axis XYZ" line keeps its order
      asf.replace(at, 3, "ZYX");
    }
  }
  const std::string amc = slurp(test::repo_data("cmu/131_03_first3.amc"));
  const Capture naive = parse_asf_amc(asf, amc, "naive.amc");
  LoadOptions cmu;
  cmu.unit_in_metres = k_cmu;
  const Capture bvh = load_capture(test::repo_data("cmu/131_03.bvh"), cmu);
  EXPECT_GT(norm(naive.track("ltoes").position(0) - bvh.track("LeftToe").position(0)), 0.01);
}

TEST(AsfAmc, BrokenFilesSayWhichFileLineAndWhat) {
  const std::string asf = slurp(test::repo_data("cmu/131.asf"));
  const auto error = [&](const std::string& skeleton, const std::string& motion) {
    return test::error_message<LoadError>([&] { parse_asf_amc(skeleton, motion, "t.amc"); });
  };
  EXPECT_NE(error(asf, ":DEGREES\n1\nroot 1 2 3 4 5\n").find("t.amc:3: bone 'root' has 6"),
            std::string::npos)
      << error(asf, ":DEGREES\n1\nroot 1 2 3 4 5\n");
  EXPECT_NE(error(asf, ":DEGREES\n1\nelbow 3\n").find("unknown bone 'elbow'"), std::string::npos);
  EXPECT_NE(error(asf, ":DEGREES\n").find("no frames"), std::string::npos);
  EXPECT_NE(error(asf, ":DEGREES\n1\nltibia x\n").find("not a number: 'x'"), std::string::npos);
  std::string orphan = asf;
  orphan.replace(orphan.find("    lfoot ltoes\r\n"), 17, "");
  EXPECT_NE(error(orphan, ":DEGREES\n1\n").find("(skeleton):"), std::string::npos);
  EXPECT_NE(error(orphan, ":DEGREES\n1\n").find("bone 'ltoes' is not in the hierarchy"),
            std::string::npos);
  std::string twice = asf;
  twice.replace(twice.find("name rfemur"), 11, "name lfemur");
  EXPECT_NE(error(twice, ":DEGREES\n1\n").find("a second bone named 'lfemur'"), std::string::npos);
  // A fuzzer's finding: a line of parentheses only (no words) read the first word of none.
  EXPECT_NE(error(asf + "(\n", ":DEGREES\n1\n(\n()\n").find("no error"), std::string::npos);
  // An AMC in memory needs its skeleton named; a lone ASF is not a capture.
  EXPECT_NE(test::error_message<LoadError>([] {
              load_capture_from_memory(":FULLY-SPECIFIED\n:DEGREES\n1\n", "m.amc");
            }).find("needs its ASF skeleton"),
            std::string::npos);
  EXPECT_NE(test::error_message<LoadError>([] {
              load_capture(test::repo_data("cmu/131.asf"));
            }).find("load the .amc"),
            std::string::npos);
}

TEST(AsfAmc, AnErrorInTheSkeletonFileNamesTheSkeletonFile) {
  // Loaded from files, a broken ASF beside a good AMC: the error names the .asf and its line,
  // not the .amc the user asked for.
  const std::filesystem::path dir = test::make_scratch_dir("odemocap_asf_");
  std::string asf = slurp(test::repo_data("cmu/131.asf"));
  asf.replace(asf.find("length 0.45"), 11, "length abc");
  std::ofstream(dir / "131.asf", std::ios::binary) << asf;
  std::ofstream(dir / "131_03.amc", std::ios::binary)
      << slurp(test::repo_data("cmu/131_03_first3.amc"));
  const std::string message = test::error_message<LoadError>(
      [&] { load_capture((dir / "131_03.amc").string()); });
  std::filesystem::remove_all(dir);
  EXPECT_NE(message.find("131.asf:"), std::string::npos) << message;
  EXPECT_NE(message.find("not a number: 'abc'"), std::string::npos) << message;
  EXPECT_EQ(message.find("131_03.amc"), std::string::npos) << message;
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

/// `text` with the numbers after `key` (at the start of a line, after spaces) multiplied by
/// `k`, the first `count` of them.
std::string scaled_lines(const std::string& text, const std::string& key, double k,
                         std::size_t count) {
  std::istringstream in(text);
  std::ostringstream out;
  out.precision(17);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != key) {
      out << line << '\n';
      continue;
    }
    out << first;
    std::string w;
    for (std::size_t i = 0; words >> w; ++i) {
      if (i < count) {
        out << ' ' << std::stod(w) * k;
      } else {
        out << ' ' << w;
      }
    }
    out << '\n';
  }
  return out.str();
}

TEST(AsfAmc, AnotherExportersLengthUnitIsReadByTheSkeletonsSize) {
  // CMU 131 rewritten as an exporter that writes metres: every bone length and root
  // translation converted with CMU's convention (inches / 0.45), and ":units length 0.01".
  // Read with CMU's convention it would be 2.54 times too large: hips about 2.3 m high.
  const double k = 0.0254 / 0.45;
  std::string asf = scaled_lines(slurp(test::repo_data("cmu/131.asf")), "length", k, 1);
  const std::size_t units = asf.find("length 0.0253999");
  ASSERT_NE(units, std::string::npos); // the :units line was scaled too: set it as written
  asf.replace(units, asf.find('\n', units) - units, "length 0.01");
  const std::string amc =
      scaled_lines(slurp(test::repo_data("cmu/131_03_first3.amc")), "root", k, 3);
  const Capture metres = parse_asf_amc(asf, amc, "metres.amc");
  const Capture cmu = load_capture(test::repo_data("cmu/131_03_first3.amc"));
  EXPECT_EQ(metres.info().unit_in_metres, 1.0);
  EXPECT_EQ(metres.info().unit_source, "inferred");
  ASSERT_EQ(metres.tracks().size(), cmu.tracks().size());
  for (std::size_t t = 0; t < cmu.tracks().size(); ++t) {
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(norm(metres.tracks()[t].position(i) - cmu.tracks()[t].position(i)), 0.0, 1e-9)
          << cmu.tracks()[t].name();
    }
  }
  EXPECT_TRUE(test::has_note(metres.info(), "m used"));
  // CMU's reading of the same numbers (a given unit forces it): hips 2.3 m up.
  LoadOptions naive;
  naive.unit_in_metres = 0.0254 / 0.01;
  const Capture tall = parse_asf_amc(asf, amc, "metres.amc", naive);
  EXPECT_GT(tall.track("root").position(0).y, 2.0);
  // CMU's own file keeps CMU's reading.
  EXPECT_EQ(cmu.info().unit_source, "declared");
}

TEST(AsfAmc, AFrameThatLeavesOutBonesMakesGapsNotTheRestPose) {
  // Frame 2 of 131_03 without its lfemur line: lfemur, ltibia, lfoot, ltoes have no pose there.
  std::string amc = slurp(test::repo_data("cmu/131_03_first3.amc"));
  const std::size_t frame2 = amc.find("\n2\r\n");
  ASSERT_NE(frame2, std::string::npos);
  const std::size_t femur = amc.find("lfemur", frame2);
  amc.erase(femur, amc.find('\n', femur) + 1 - femur);
  const std::string asf = slurp(test::repo_data("cmu/131.asf"));
  const Capture c = parse_asf_amc(asf, amc, "cut.amc");
  for (const char* below : {"lfemur", "ltibia", "lfoot", "ltoes"}) {
    EXPECT_FALSE(c.track(below).valid(1)) << below;
    EXPECT_TRUE(c.track(below).valid(0)) << below;
    EXPECT_TRUE(c.track(below).valid(2)) << below;
  }
  EXPECT_TRUE(c.track("rfemur").valid(1));
  EXPECT_TRUE(c.track("lhipjoint").valid(1));
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("frame 2 (line"), std::string::npos) << c.info().tolerated[0];
  EXPECT_NE(c.info().tolerated[0].find("'lfemur'"), std::string::npos);
  LoadOptions strict;
  strict.strict = true;
  EXPECT_THROW(parse_asf_amc(asf, amc, "cut.amc", strict), LoadError);
}

} // namespace
} // namespace odemocap
