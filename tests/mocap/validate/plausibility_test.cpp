// The plausibility check: captures loaded with silently wrong numbers (a unit 1000 times off,
// bones doubled, a subject upside down) are named; the real captures we have are not.
#include "support/data_paths.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace odemocap {
namespace {

std::vector<std::string> checks_of(const Capture& c) {
  std::vector<std::string> out;
  for (const Finding& f : check_plausibility(c)) {
    out.push_back(f.check);
  }
  return out;
}

LoadOptions metres() {
  LoadOptions o;
  o.to_metres = true;
  return o;
}

/// A copy of `c` with every position multiplied by `k` and turned by `turn`.
Capture transformed(const Capture& c, double k, const Quat& turn = {}) {
  Capture out(c.info());
  for (const Track& t : c.tracks()) {
    Track copy(t.name());
    copy.set_position_only(t.position_only());
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t.valid(i)) {
        copy.append(t.time(i), {rotate(turn, t.position(i) * k), turn * t.orientation(i)});
      } else {
        copy.append_gap(t.time(i));
      }
    }
    out.add_track(std::move(copy));
  }
  return out;
}

TEST(Plausibility, NoRealCaptureWeHaveIsFlagged) {
  std::vector<std::string> files;
  for (const char* dir : {ODEMOCAP_REPO_DATA_DIR "/cmu", ODEMOCAP_SHARED_DATA_DIR,
                          ODEMOCAP_TEST_DATA_DIR "/c3d"}) {
    if (!std::filesystem::exists(dir)) {
      continue;
    }
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".bvh" || ext == ".c3d" || ext == ".tsv" || ext == ".csv" || ext == ".amc") {
        files.push_back(e.path().string());
      }
    }
  }
  ASSERT_GE(files.size(), 15u);
  for (const std::string& f : files) {
    const Capture c = load_capture(f, metres());
    EXPECT_TRUE(checks_of(c).empty()) << f << ": " << check_plausibility(c)[0].message;
  }
}

TEST(Plausibility, AUnitThousandTimesOffIsNamed) {
  // The Motive 2.2 case: metres read as millimetres, a subject 1.7 mm tall.
  const std::string path = test::shared_data("ezc3d/Qualisys.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture right = load_capture(path);
  ASSERT_TRUE(checks_of(right).empty());
  const std::vector<Finding> small = check_plausibility(transformed(right, 0.001));
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].check, "implausible-size");
  EXPECT_NE(small[0].message.find("1000 times too small"), std::string::npos) << small[0].message;
  const std::vector<Finding> large = check_plausibility(transformed(right, 1000.0));
  ASSERT_EQ(large.size(), 1u);
  EXPECT_NE(large[0].message.find("millimetres read as metres"), std::string::npos)
      << large[0].message;
}

TEST(Plausibility, ASubjectUpsideDownIsNamed) {
  // What the old C3D loader made of Qualisys' Y_SCREEN "-Z": the data turned half a turn.
  const std::string path = test::shared_data("ezc3d/Qualisys.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture turned =
      transformed(load_capture(path), 1.0, from_to({0, 0, 1}, {0, 0, -1}));
  const std::vector<Finding> f = check_plausibility(turned);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "upside-down");
  EXPECT_NE(f[0].message.find("below the feet along +Z"), std::string::npos) << f[0].message;
  // A CMU skeleton taken as Z up without turning it: lying on its back, flagged too? It lies
  // along Y, so its head is level with its feet along Z: not upside down, and not flagged.
  LoadOptions z;
  z.to_metres = true;
  const Capture cmu = load_capture(test::repo_data("cmu/131_01.bvh"), z);
  const Capture flipped = transformed(cmu, 1.0, from_to({0, 1, 0}, {0, -1, 0}));
  EXPECT_EQ(checks_of(flipped), std::vector<std::string>{"upside-down"});
}

TEST(Plausibility, ASubjectStandingAlongAnotherAxisIsNamedWithoutHeadOrFootNames) {
  // c3d.org's sample01 (markers RFT1, RKN1, ...: no head or foot names for the upside-down
  // check): declared and read Z up, nothing to say.
  const Capture c = load_capture(test::test_data("c3d/Eb015pi.c3d"));
  ASSERT_TRUE(checks_of(c).empty());
  // Its data turned so the subject stands along +X, and upside down along Z, the info still
  // saying +Z (what c3d.org's sample13, Dance.c3d, is: Y_SCREEN +Z, its dancer along X).
  const Capture along_x = transformed(c, 1.0, from_to({0, 0, 1}, {1, 0, 0}));
  std::vector<Finding> f = check_plausibility(along_x);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "up-axis");
  EXPECT_NE(f[0].message.find("stand along +X, not along the capture's up axis +Z (declared)"),
            std::string::npos)
      << f[0].message;
  const Capture flipped = transformed(c, 1.0, from_to({0, 0, 1}, {0, 0, -1}));
  f = check_plausibility(flipped);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("stand along -Z"), std::string::npos) << f[0].message;
}

TEST(Plausibility, DoubledBonesAreNamed) {
  // CMU 131_01 with every bone below the root twice as long: 3.4 m tall.
  const Capture cmu = load_capture(test::repo_data("cmu/131_01.bvh"), metres());
  ASSERT_TRUE(checks_of(cmu).empty());
  Skeleton doubled =
      parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_01.bvh")), "131_01.bvh");
  for (Joint& j : doubled.joints) {
    if (j.parent >= 0) {
      j.offset = j.offset * 2.0;
    }
  }
  Capture big(cmu.info());
  std::vector<Pose> world;
  for (std::size_t k = 0; k < doubled.joints.size(); ++k) {
    if (doubled.joints[k].end_site) {
      continue;
    }
    Track t(doubled.joints[k].name);
    for (std::size_t f = 0; f < doubled.frame_count; f += 10) {
      forward_kinematics(doubled, f, world);
      t.append(static_cast<double>(f) * doubled.frame_time, world[k]);
    }
    big.add_track(std::move(t));
  }
  const std::vector<Finding> f = check_plausibility(big);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("bones doubled"), std::string::npos) << f[0].message;
  EXPECT_GT(f[0].value, 2.5);
}

TEST(Plausibility, ValidateReportsItAndAnUnknownUnitIsNotJudged) {
  const std::string path = test::shared_data("ezc3d/Qualisys.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture small = transformed(load_capture(path), 0.001);
  bool found = false;
  for (const Finding& f : validate_capture(small)) {
    found = found || f.check == "implausible-size";
  }
  EXPECT_TRUE(found);
  // Without a known unit nothing is measured.
  const Capture raw = load_capture(test::repo_data("cmu/131_01.bvh"));
  ASSERT_FALSE(raw.info().metres_per_unit() > 0.0);
  EXPECT_EQ(measure_extent(raw).frames, 0u);
}

} // namespace
} // namespace odemocap
