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

#include <array>
#include <cmath>
#include <cstdio>
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

TEST(AsfAmc, RotationsTurnInTheOrderTheSkeletonListsThem) {
  // The ASF definition's own root example lists "order tx ty tz rz ry rx": z turns first,
  // then y, then x, about the fixed axes, so M = Rx Ry Rz. Bone a points up (+Y), one unit
  // long; b starts at its end. Frame 1 turns the root rz 90 then rx 90: a's end goes
  // (0,1,0) -> (-1,0,0) -> (-1,0,0). Frame 2 turns bone a ("dof rz rx") the same way.
  // Composed X first, as CMU's order would be, it would end at (0,0,1) in both.
  const std::string asf = ":units\n  length 1\n  angle deg\n:root\n  order TX TY TZ RZ RY RX\n"
                          "  axis XYZ\n  position 0 0 0\n  orientation 0 0 0\n:bonedata\n"
                          "  begin\n    name a\n    direction 0 1 0\n    length 1\n"
                          "    axis 0 0 0 XYZ\n    dof rz rx\n  end\n"
                          "  begin\n    name b\n    direction 0 1 0\n    length 1\n"
                          "    axis 0 0 0 XYZ\n  end\n:hierarchy\n  begin\n    root a\n"
                          "    a b\n  end\n";
  const std::string amc = ":FULLY-SPECIFIED\n:DEGREES\n1\nroot 0 0 0 90 0 90\na 0 0\n"
                          "2\nroot 0 0 0 0 0 0\na 90 90\n";
  LoadOptions metres;
  metres.unit_in_metres = 1.0;
  const Capture c = parse_asf_amc(asf, amc, "zyx.amc", metres);
  for (std::size_t f = 0; f < 2; ++f) {
    EXPECT_NEAR(norm(c.track("b").position(f) - Vec3{-1, 0, 0}), 0.0, 1e-12) << "frame " << f;
    EXPECT_GT(norm(c.track("b").position(f) - Vec3{0, 0, 1}), 1.0); // not the X-first reading
  }
  // A channel listed twice, or an axis order that is not x, y and z, is refused.
  std::string twice = asf;
  twice.replace(twice.find("dof rz rx"), 9, "dof rz rz");
  const std::string e1 =
      test::error_message<LoadError>([&] { parse_asf_amc(twice, amc, "m.amc", metres); });
  EXPECT_NE(e1.find("'rz' listed twice"), std::string::npos) << e1;
  EXPECT_NE(e1.find("(skeleton):15:"), std::string::npos) << e1;
  std::string axes = asf;
  axes.replace(axes.find("0 0 0 XYZ"), 9, "0 0 0 XYW");
  const std::string e2 =
      test::error_message<LoadError>([&] { parse_asf_amc(axes, amc, "m.amc", metres); });
  EXPECT_NE(e2.find("axis order"), std::string::npos) << e2;
}

/// The rotation Rz(z) Ry(y) Rx(x) (angles in degrees) as the angles (a, b, c) of the same
/// rotation written Rx(a) Ry(b) Rz(c), from its matrix.
Vec3 xyz_to_zyx_degrees(const Vec3& xyz) {
  const double d = test::k_pi / 180.0;
  using M = std::array<std::array<double, 3>, 3>;
  const auto mul = [](const M& p, const M& q) {
    M r{};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 3; ++k) {
          r[i][j] += p[i][k] * q[k][j];
        }
      }
    }
    return r;
  };
  const double cx = std::cos(xyz.x * d), sx = std::sin(xyz.x * d);
  const double cy = std::cos(xyz.y * d), sy = std::sin(xyz.y * d);
  const double cz = std::cos(xyz.z * d), sz = std::sin(xyz.z * d);
  const M rx{{{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}}};
  const M ry{{{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}}};
  const M rz{{{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}}};
  const M r = mul(rz, mul(ry, rx));
  // Rx(a) Ry(b) Rz(c) has r02 = sin b, r12 = -sin a cos b, r22 = cos a cos b,
  // r01 = -cos b sin c, r00 = cos b cos c.
  return {std::atan2(-r[1][2], r[2][2]) / d, std::asin(r[0][2]) / d,
          std::atan2(-r[0][1], r[0][0]) / d};
}

TEST(AsfAmc, CmuRewrittenInTheReverseOrderLandsEveryJointWhereCmusOwnFileDoes) {
  // CMU 131 with its root order and every three-rotation bone rewritten "rz ry rx", and each
  // frame's angles converted (outside the loader, by matrix) to that order: the same motion,
  // so every joint must land where it does in CMU's file.
  std::istringstream in(slurp(test::repo_data("cmu/131.asf")));
  std::ostringstream asf;
  std::set<std::string> reversed{"root"};
  std::string line, bone;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, value;
    words >> key >> value;
    if (key == "name") {
      bone = value;
    } else if (key == "order") {
      line = "   order TX TY TZ RZ RY RX";
    } else if (key == "dof" && line.find("rx ry rz") != std::string::npos) {
      line = "    dof rz ry rx";
      reversed.insert(bone);
    }
    asf << line << '\n';
  }
  ASSERT_GT(reversed.size(), 10u);
  std::istringstream motion(slurp(test::repo_data("cmu/131_03_first3.amc")));
  std::ostringstream amc, amc_x_first; // the latter: the same angles, written X first
  const auto joined = [](const std::string& name, const std::vector<double>& v) {
    std::ostringstream out;
    out.precision(17);
    out << name;
    for (const double x : v) {
      out << ' ' << x;
    }
    return out.str();
  };
  while (std::getline(motion, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (reversed.count(name) > 0) {
      std::vector<double> v;
      for (double x; words >> x;) {
        v.push_back(x);
      }
      const std::size_t r = v.size() - 3; // the root's translations come first
      const Vec3 zyx = xyz_to_zyx_degrees({v[r], v[r + 1], v[r + 2]});
      std::vector<double> x_first = v;
      x_first[r] = zyx.x;
      x_first[r + 1] = zyx.y;
      x_first[r + 2] = zyx.z;
      amc_x_first << joined(name, x_first) << '\n';
      v[r] = zyx.z;
      v[r + 1] = zyx.y;
      v[r + 2] = zyx.x;
      amc << joined(name, v) << '\n';
    } else {
      amc << line << '\n';
      amc_x_first << line << '\n';
    }
  }
  const Capture turned = parse_asf_amc(asf.str(), amc.str(), "zyx.amc");
  const Capture cmu = load_capture(test::repo_data("cmu/131_03_first3.amc"));
  ASSERT_EQ(turned.tracks().size(), cmu.tracks().size());
  double worst = 0.0, naive = 0.0;
  for (std::size_t t = 0; t < cmu.tracks().size(); ++t) {
    for (std::size_t f = 0; f < 3; ++f) {
      worst = std::fmax(worst, norm(turned.tracks()[t].position(f) - cmu.tracks()[t].position(f)));
    }
  }
  EXPECT_LT(worst, 1e-9);
  // Read X first (the order ignored: each value still taken as the angle its channel names),
  // the rewritten file puts joints centimetres off. CMU's file (X first) read for that.
  const Capture ignored =
      parse_asf_amc(slurp(test::repo_data("cmu/131.asf")), amc_x_first.str(), "ignored.amc");
  for (std::size_t t = 0; t < cmu.tracks().size(); ++t) {
    naive = std::fmax(naive, norm(ignored.tracks()[t].position(0) - cmu.tracks()[t].position(0)));
  }
  EXPECT_GT(naive, 0.01);
  std::printf("[ metric ] CMU 131 rewritten rz ry rx: worst joint %.2g m from CMU's; read X "
              "first: %.3f m\n",
              worst, naive);
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

/// The first three frames of CMU 131_03 with the line of `bone` left out of frame 2.
std::string frame2_without(const std::string& bone) {
  std::string amc = slurp(test::repo_data("cmu/131_03_first3.amc"));
  const std::size_t frame2 = amc.find("\n2\r\n");
  EXPECT_NE(frame2, std::string::npos);
  const std::size_t line = amc.find(bone, frame2);
  EXPECT_NE(line, std::string::npos);
  amc.erase(line, amc.find('\n', line) + 1 - line);
  return amc;
}

TEST(AsfAmc, AFrameThatLeavesOutBonesMakesGapsNotTheRestPose) {
  // Frame 2 of 131_03 without its lfemur line: lfemur, ltibia, lfoot, ltoes have no pose there.
  const std::string amc = frame2_without("lfemur");
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

TEST(AsfAmc, AGapTheTracksRefuseIsALoadErrorNamingTheFrame) {
  // Frame 2 without its root line (every bone without a pose there) at a rate that puts frames
  // 0.1 ns apart: the tracks refuse the gaps, and the loader says where, in its own error type.
  const std::string amc = frame2_without("root");
  LoadOptions fast;
  fast.frame_rate = 1e10;
  const std::string message = test::error_message<LoadError>(
      [&] { parse_asf_amc(slurp(test::repo_data("cmu/131.asf")), amc, "cut.amc", fast); });
  EXPECT_NE(message.find("frame 2: track 'root', sample 1: time 1e-10 s is less than 1e-9 s"),
            std::string::npos)
      << message;
}

} // namespace
} // namespace odemocap
