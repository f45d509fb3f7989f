// Runs the real odemocap binary on files with known content and checks what it prints and
// writes against the analytic truth they were made from.
#include "support/data_paths.hpp"
#include "support/scratch_dir.hpp"

#include <odemocap/mocap.hpp>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = odemocap::test::make_scratch_dir(
        std::string("odemocap_cli_") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Outcome run(const std::string& arguments) {
    const std::string command = std::string("'") + ODEMOCAP_CLI_PATH + "' " + arguments + " > '" +
                                (dir_ / "out").string() + "' 2> '" + (dir_ / "err").string() + "'";
    const int raw = std::system(command.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }

  /// A rigid-body CSV of a body moving at v = (0.3, -0.2, 0.1) m/s and turning at
  /// w = (1, 2, -0.5) rad/s, 100 Hz, with rows 40 and 41 empty (a gap).
  std::string analytic_csv() {
    const std::string path = (dir_ / "analytic.csv").string();
    std::ofstream out(path);
    out.precision(17);
    out << "time,tool.x,tool.y,tool.z,tool.qw,tool.qx,tool.qy,tool.qz\n";
    for (int i = 0; i <= 100; ++i) {
      const double t = i * 0.01;
      out << t << ',';
      if (i == 40 || i == 41) {
        out << ",,,,,,\n";
        continue;
      }
      // q(t) = exp(w t): rotation by |w| t about w / |w|.
      const double rate = std::sqrt(1 + 4 + 0.25), half = 0.5 * rate * t, s = std::sin(half) / rate;
      out << 0.3 * t << ',' << -0.2 * t << ',' << 0.1 * t << ',' << std::cos(half) << ',' << 1 * s
          << ',' << 2 * s << ',' << -0.5 * s << '\n';
    }
    return path;
  }

  std::filesystem::path dir_;
};

/// The one file object of `info --format json` on one file.
nlohmann::json only_file(const std::string& out) {
  const nlohmann::json all = nlohmann::json::parse(out);
  EXPECT_EQ(all["files"].size(), 1u) << out;
  return all["files"].at(0);
}

TEST_F(Cli, InfoReportsTheCapturesShapeAndSpeedsAsJson) {
  const Outcome r = run("info --format json '" + analytic_csv() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = only_file(r.out);
  EXPECT_EQ(j["format"], "rigid-body-csv");
  ASSERT_EQ(j["tracks"].size(), 1u);
  const nlohmann::json& t = j["tracks"][0];
  EXPECT_EQ(t["name"], "tool");
  EXPECT_EQ(t["samples"], 101);
  EXPECT_EQ(t["valid"], 99);
  EXPECT_NEAR(t["max_linear_speed"].get<double>(), std::sqrt(0.09 + 0.04 + 0.01), 1e-9);
  EXPECT_NEAR(t["max_angular_speed"].get<double>(), std::sqrt(5.25), 1e-9);
  EXPECT_NEAR(t["position_max"][0].get<double>(), 0.3, 1e-12);
  EXPECT_NEAR(t["position_min"][1].get<double>(), -0.2, 1e-12);
}

TEST_F(Cli, InfoOnTheBundledCmuCapture) {
  const Outcome r = run("info '" + odemocap::test::repo_data("cmu/131_01.bvh") + "' --up z");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bvh, 31 tracks, 994 frames at 120 Hz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("up axis Z"), std::string::npos) << r.out;
}

TEST_F(Cli, InfoReportsTheFootfallsOfEachFoot) {
  const std::string hop = odemocap::test::repo_data("cmu/131_03.bvh");
  const Outcome r = run("info --format json '" + hop + "' --up z");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json feet = only_file(r.out)["footfalls"];
  ASSERT_EQ(feet.size(), 4u) << feet;
  for (const char* name : {"LeftAnkle", "LeftToe", "RightAnkle", "RightToe"}) {
    ASSERT_TRUE(feet.contains(name)) << name;
    EXPECT_GE(feet[name].size(), 2u) << name;
    for (const auto& stance : feet[name]) {
      EXPECT_LT(stance[0].get<double>(), stance[1].get<double>());
    }
  }
  const Outcome text = run("info '" + hop + "' --up z");
  EXPECT_NE(text.out.find("footfalls (stance start-end, s"), std::string::npos) << text.out;
  // A rigid-body capture has no foot: an empty object, no line.
  const Outcome tool = run("info --format json '" + analytic_csv() + "'");
  EXPECT_TRUE(only_file(tool.out)["footfalls"].empty());
}

TEST_F(Cli, VelocitiesMatchTheAnalyticMotionAndLeaveGapsEmpty) {
  const std::string out = (dir_ / "v.csv").string();
  const Outcome r = run("velocities '" + analytic_csv() + "' -o '" + out + "' --scheme forward");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(slurp(out));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "time,tool.vx,tool.vy,tool.vz,tool.wx,tool.wy,tool.wz");
  const double truth[6] = {0.3, -0.2, 0.1, 1, 2, -0.5};
  int rows = 0, empty = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string cell; std::getline(split, cell, ',');) {
      cells.push_back(cell);
    }
    ++rows;
    if (line.size() >= 6 && line.compare(line.size() - 6, 6, ",,,,,,") == 0) {
      ++empty; // a sample without an estimate: six empty cells
      continue;
    }
    ASSERT_EQ(cells.size(), 7u) << line;
    for (int c = 0; c < 6; ++c) {
      ASSERT_NEAR(std::stod(cells[c + 1]), truth[c], 1e-9) << line;
    }
  }
  EXPECT_EQ(rows, 101);
  EXPECT_EQ(empty, 2); // the gap's samples have no estimate, and no zeros either
}

TEST_F(Cli, UsageErrorsAndUnreadableFilesExitWithTwo) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("velocities '" + analytic_csv() + "' -o x.csv --scheme sideways").status, 2);
  const Outcome missing = run("info /no/such/capture.bvh");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("/no/such/capture.bvh"), std::string::npos) << missing.err;
  const Outcome malformed =
      run("info '" + odemocap::test::test_data("malformed/short_row.bvh") + "'");
  EXPECT_EQ(malformed.status, 2);
  EXPECT_NE(malformed.err.find("short_row.bvh:15:4:"), std::string::npos) << malformed.err;
  EXPECT_EQ(run("--help").status, 0);
}

TEST_F(Cli, ConvertFillsShortGapsResamplesAndWritesCsvTheLoadersRead) {
  const std::string out = (dir_ / "converted.csv").string();
  const Outcome r =
      run("convert '" + analytic_csv() + "' -o '" + out + "' --fill-gaps 2 --resample 50");
  ASSERT_EQ(r.status, 0) << r.err;
  const Outcome info = run("info --format json '" + out + "'");
  ASSERT_EQ(info.status, 0) << info.err;
  const nlohmann::json j = only_file(info.out);
  EXPECT_EQ(j["format"], "rigid-body-csv");
  EXPECT_NEAR(j["frame_rate"].get<double>(), 50.0, 1e-9);
  EXPECT_EQ(j["tracks"][0]["samples"], 51);
  EXPECT_EQ(j["tracks"][0]["valid"], 51); // the 2-sample gap was filled before resampling
  EXPECT_NEAR(j["tracks"][0]["max_angular_speed"].get<double>(), std::sqrt(5.25), 1e-9);
  const Outcome bad = run("convert /no/such.bvh -o '" + out + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("/no/such.bvh"), std::string::npos);
}

// ---- validate ----

/// Writes a rigid-body CSV of smooth motion (0.3 m/s, turning at 2 rad/s, 100 Hz, 201 rows);
/// `edit(i, t, x, angle, valid)` plants a defect.
void write_capture(const std::filesystem::path& path,
                   const std::function<void(int, double&, double&, double&, bool&)>& edit) {
  std::ofstream out(path);
  out.precision(17);
  out << "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n";
  for (int i = 0; i <= 200; ++i) {
    double t = 0.01 * i, x = 0.3 * t, angle = 2.0 * t;
    bool valid = true;
    edit(i, t, x, angle, valid);
    out << t << ',';
    if (!valid) {
      out << ",,,,,,\n";
      continue;
    }
    out << x << ",0,1," << std::cos(angle / 2) << ",0,0," << std::sin(angle / 2) << '\n';
  }
}

class Validate : public Cli {
protected:
  /// A directory with one clean file, five with one defect each and one malformed file.
  std::filesystem::path batch() {
    const auto d = dir_ / "batch";
    std::filesystem::create_directories(d / "nested");
    write_capture(d / "clean.csv", [](int, double&, double&, double&, bool&) {});
    write_capture(d / "gap.csv",
                  [](int i, double&, double&, double&, bool& v) { v = i < 40 || i > 44; });
    write_capture(d / "teleport.csv",
                  [](int i, double&, double& x, double&, bool&) { x += i == 70 ? 1.0 : 0.0; });
    write_capture(d / "spin.csv",
                  [](int i, double&, double&, double& a, bool&) { a += i == 60 ? 1.5 : 0.0; });
    write_capture(d / "nested" / "dropped.csv", [](int i, double& t, double& x, double& a, bool&) {
      if (i >= 100) {
        t += 0.05;
        x = 0.3 * t;
        a = 2.0 * t;
      }
    });
    write_capture(d / "frozen.csv", [](int i, double&, double& x, double& a, bool&) {
      const double held = i < 20 ? 0.01 * i : i <= 39 ? 0.2 : 0.01 * i - 0.19;
      x = 0.3 * held;
      a = 2.0 * held;
    });
    std::ofstream(d / "broken.csv")
        << "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n0,1,2,three,1,0,0,0\n";
    std::ofstream(d / "notes.txt") << "not a capture: directories are searched for .bvh and .csv\n";
    return d;
  }

  std::map<std::string, nlohmann::json> by_file(const std::string& jsonl) {
    std::map<std::string, nlohmann::json> files;
    std::istringstream lines(jsonl);
    for (std::string line; std::getline(lines, line);) {
      const nlohmann::json j = nlohmann::json::parse(line);
      files[std::filesystem::path(j["file"].get<std::string>()).filename().string()] = j;
    }
    return files;
  }
};

TEST_F(Validate, EachPlantedDefectIsFoundAtItsFrameAndNothingElse) {
  const Outcome r = run("validate --format jsonl -j 2 '" + batch().string() + "'");
  EXPECT_EQ(r.status, 1) << r.err; // the malformed file fails the batch
  const auto files = by_file(r.out);
  ASSERT_EQ(files.size(), 7u) << r.out;
  EXPECT_EQ(files.at("clean.csv")["status"], "clean");
  const auto only = [&](const char* file, const char* check, std::size_t first, std::size_t last) {
    const nlohmann::json& findings = files.at(file)["findings"];
    ASSERT_EQ(findings.size(), 1u) << file << ": " << findings.dump();
    EXPECT_EQ(findings[0]["check"], check) << file;
    EXPECT_EQ(findings[0]["track"], "b") << file;
    EXPECT_EQ(findings[0]["first"], first) << file;
    EXPECT_EQ(findings[0]["last"], last) << file;
  };
  only("gap.csv", "gap", 40, 44);
  only("teleport.csv", "linear-speed-spike", 69, 71);
  only("spin.csv", "angular-speed-spike", 59, 61);
  only("dropped.csv", "dropped-frames", 99, 100);
  only("frozen.csv", "frozen", 20, 39);
  const nlohmann::json& broken = files.at("broken.csv");
  EXPECT_EQ(broken["status"], "unreadable");
  EXPECT_EQ(broken["findings"][0]["check"], "parse-error");
  EXPECT_EQ(broken["findings"][0]["line"], 2);
  EXPECT_EQ(broken["findings"][0]["column"], 7);
}

TEST_F(Validate, JsonReportFollowsTheDocumentedSchema) {
  const Outcome r = run("validate --format json '" + batch().string() + "'");
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["files"].is_array());
  for (const nlohmann::json& f : j["files"]) {
    EXPECT_TRUE(f["file"].is_string());
    EXPECT_TRUE(f["format"].is_string());
    EXPECT_TRUE(f["bytes"].is_number_unsigned());
    EXPECT_TRUE(f["status"] == "clean" || f["status"] == "findings" || f["status"] == "unreadable");
    for (const nlohmann::json& x : f["findings"]) {
      EXPECT_TRUE(x["check"].is_string());
      EXPECT_TRUE(x["severity"] == "info" || x["severity"] == "warning" ||
                  x["severity"] == "error");
      EXPECT_TRUE(x["track"].is_string());
      EXPECT_TRUE(x["first"].is_number_unsigned());
      EXPECT_TRUE(x["last"].is_number_unsigned());
      EXPECT_TRUE(x["value"].is_number());
      EXPECT_TRUE(x["message"].is_string());
      EXPECT_EQ(x.contains("line"), x["check"] == "parse-error");
    }
  }
  EXPECT_EQ(j["summary"]["files"], 7);
  EXPECT_EQ(j["summary"]["readable"], 6);
  EXPECT_EQ(j["summary"]["clean"], 1);
  EXPECT_EQ(j["summary"]["failing"], 1);
}

TEST_F(Validate, WarningsFailOnlyWhenStrict) {
  const auto d = dir_ / "warnings";
  std::filesystem::create_directories(d);
  write_capture(d / "gap.csv", [](int i, double&, double&, double&, bool& v) { v = i != 10; });
  EXPECT_EQ(run("validate '" + d.string() + "'").status, 0);
  EXPECT_EQ(run("validate --strict '" + d.string() + "'").status, 1);
}

TEST_F(Validate, ShardsSplitTheBatchAndTheOutputDoesNotDependOnThreads) {
  const std::string d = batch().string();
  const std::string one = run("validate --format jsonl -j 1 '" + d + "'").out;
  EXPECT_EQ(run("validate --format jsonl -j 2 '" + d + "'").out, one);
  std::map<std::string, int> seen;
  for (int i = 0; i < 3; ++i) {
    for (const auto& [file, report] : by_file(
             run("validate --format jsonl --shard " + std::to_string(i) + "/3 '" + d + "'").out)) {
      ++seen[file];
    }
  }
  EXPECT_EQ(seen.size(), 7u);
  for (const auto& [file, count] : seen) {
    EXPECT_EQ(count, 1) << file; // every file in exactly one shard
  }
  EXPECT_EQ(run("validate --shard 3/3 '" + d + "'").status, 2);
}

TEST_F(Validate, TheSharedRealCapturesAreCleanOrShowTheirRealDefects) {
  const std::string shared = odemocap::test::shared_data("");
  ODEMOCAP_REQUIRE_FILE(shared);
  const Outcome r = run("validate --format jsonl '" + shared + "'");
  ASSERT_EQ(r.status, 0) << r.err; // warnings only: nothing unreadable
  const auto files = by_file(r.out);
  // Two BVH, two CSV, two C3D and one TSV file.
  EXPECT_EQ(files.size(), 7u) << r.out;
  EXPECT_EQ(files.at("stand_6D.tsv")["format"], "qualisys-tsv");
  EXPECT_EQ(files.at("stand_6D.tsv")["status"], "clean");
  EXPECT_EQ(files.at("Qualisys.c3d")["format"], "c3d");
  int gap_samples = 0;
  for (const nlohmann::json& x : files.at("Vicon.c3d")["findings"]) {
    ASSERT_EQ(x["check"], "gap") << x;
    gap_samples += x["last"].get<int>() - x["first"].get<int>() + 1;
  }
  EXPECT_EQ(gap_samples, 305); // the C3D's invalid samples, PROVENANCE's count
  EXPECT_EQ(files.at("sample_optitrack_take.csv")["status"], "findings"); // 3 empty markers
  std::map<std::string, int> checks;
  for (const nlohmann::json& x : files.at("pathviewr_motive_example_data.csv")["findings"]) {
    ++checks[x["check"].get<std::string>()];
  }
  EXPECT_EQ(checks["dropped-frames"], 12); // 4 excerpt jumps x 3 bodies
  EXPECT_EQ(checks["hemisphere-flip"], 3); // one finding per body
  EXPECT_GE(checks["gap"], 3);
  bool thumb = false;
  for (const nlohmann::json& x : files.at("131_01.bvh")["findings"]) {
    thumb = thumb || (x["check"] == "angular-speed-spike" && x["track"] == "RThumb");
  }
  EXPECT_TRUE(thumb);
}

TEST_F(Cli, ConvertFitsRigidBodiesToMarkerClustersAndFlagsNonRigidOnes) {
  const std::string vicon = odemocap::test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(vicon);
  const auto definitions = dir_ / "clusters.txt";
  std::ofstream(definitions)
      << "# the box and something that is not rigid\n"
         "box = boite:gauche_ext, boite:avant_gauche, boite:avant_droit, "
         "boite:arriere_droit\n"
         "\n"
         "trunk = Daphnee:ASISr, Daphnee:ASISl, Daphnee:PSISr, Daphnee:STER\n";
  const auto out = dir_ / "bodies.csv";
  const Outcome r = run("convert '" + vicon + "' -o '" + out.string() + "' --clusters '" +
                        definitions.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // gauche_ext has 6 gaps; the other three are always there, and three are enough.
  EXPECT_NE(r.err.find("cluster 'box': 580 of 580 samples fitted"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cluster 'box'"), std::string::npos);
  const auto box_line = r.err.substr(r.err.find("cluster 'box'"));
  EXPECT_NE(box_line.substr(0, box_line.find('\n')).find(", 0 flagged"), std::string::npos)
      << box_line;
  const auto trunk_line = r.err.substr(r.err.find("cluster 'trunk'"));
  EXPECT_EQ(trunk_line.substr(0, trunk_line.find('\n')).find(", 0 flagged"), std::string::npos)
      << trunk_line;
  const odemocap::Capture bodies = odemocap::load_capture(out.string());
  ASSERT_EQ(bodies.tracks().size(), 2u);
  EXPECT_EQ(bodies.tracks()[0].name(), "box");
  EXPECT_EQ(bodies.tracks()[0].size(), 580u);

  std::ofstream(definitions) << "box = a, b\n";
  const Outcome bad = run("convert '" + vicon + "' -o '" + out.string() + "' --clusters '" +
                          definitions.string() + "'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("clusters.txt:1:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("needs at least 3"), std::string::npos) << bad.err;
}

TEST_F(Validate, GlobsRealCapturesAndNothingReadable) {
  const Outcome real =
      run("validate --format jsonl '" + odemocap::test::repo_data("cmu") + "/*.bvh'");
  EXPECT_EQ(real.status, 0) << real.err;
  for (const auto& [file, report] : by_file(real.out)) {
    for (const nlohmann::json& x : report["findings"]) {
      if (file.find("/131_") != std::string::npos) {
        EXPECT_NE(x["check"], "linear-speed-spike") << file; // a walk and a hop, in metres
      } else if (x["check"] == "linear-speed-spike") {
        // Subject 35's files open with the converter's rest pose: the only jump is out of it.
        EXPECT_EQ(x["first"], 0) << file;
        EXPECT_EQ(x["last"], 1) << file;
      }
    }
  }
  EXPECT_EQ(by_file(real.out).size(), 4u);
  const auto empty = dir_ / "empty";
  std::filesystem::create_directories(empty);
  const Outcome none = run("validate '" + empty.string() + "'");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no capture files found"), std::string::npos);
  // The malformed corpus: some files load with what was tolerated noted (a BVH frame count
  // that disagrees with its rows), the rest are unreadable.
  EXPECT_EQ(run("validate '" + odemocap::test::test_data("malformed") + "'").status, 1);
  const auto junk = dir_ / "junk";
  std::filesystem::create_directories(junk);
  std::ofstream(junk / "a.bvh") << "HIERARCHY\nROOT\n";
  std::ofstream(junk / "b.csv") << "time,b.x\n0,x\n";
  EXPECT_EQ(run("validate '" + junk.string() + "'").status, 2);
}

} // namespace

namespace {

// ---- what a new user met: every point of the review, each with the case that failed ----

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(Cli, JsonStaysValidOnLatin1NamesAndBinaryFilesAndNamesEveryFile) {
  const auto d = dir_ / "odd";
  std::filesystem::create_directories(d);
  // A European export: a Latin-1 e-acute in the body name (byte 0xE9, not UTF-8).
  std::ofstream(d / "latin1.csv") << "time,main\xe9.x,main\xe9.y,main\xe9.z\n0,0.1,0.2,0.9\n"
                                     "0.01,0.1,0.2,0.91\n";
  std::string noise(4000, '\0');
  for (std::size_t i = 0; i < noise.size(); ++i) {
    noise[i] = static_cast<char>((i * 7919 + 13) % 251);
  }
  std::ofstream(d / "noise.c3d", std::ios::binary) << noise;
  std::ofstream(d / "noise.bvh", std::ios::binary) << noise;
  for (const char* format : {"json", "jsonl"}) {
    const Outcome r = run(std::string("validate --format ") + format + " '" + d.string() + "'");
    EXPECT_EQ(r.status, 1) << r.err; // two unreadable files fail; the run itself does not abort
    std::istringstream lines(r.out);
    std::size_t files = 0;
    for (std::string line; std::getline(lines, line) && std::string(format) == "jsonl";) {
      EXPECT_TRUE(nlohmann::json::accept(line)) << line;
      ++files;
    }
    if (std::string(format) == "json") {
      const nlohmann::json j = nlohmann::json::parse(r.out);
      files = j["files"].size();
      EXPECT_EQ(j["summary"]["unreadable"], 2);
      EXPECT_EQ(j["summary"]["with_findings"], 0);
    }
    EXPECT_EQ(files, 3u) << r.out;
  }
  const Outcome info = run("info --format json '" + d.string() + "'");
  EXPECT_EQ(info.status, 1); // some files unreadable
  const nlohmann::json j = nlohmann::json::parse(info.out);
  ASSERT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["files"][0]["tracks"][0]["name"], "main\\xe9"); // the original byte, visible
  EXPECT_EQ(j["files"][1]["status"], "unreadable");
  EXPECT_NE(j["files"][1]["error"]["message"].get<std::string>().find("binary"), std::string::npos);
  // The Latin-1 name keeps working in the other commands.
  const std::string velocities = (dir_ / "v.csv").string();
  EXPECT_EQ(run("velocities '" + (d / "latin1.csv").string() + "' -o '" + velocities + "'").status,
            0);
  EXPECT_NE(slurp(velocities).find("main\xe9.vx"), std::string::npos);
  const std::string converted = (dir_ / "c.csv").string();
  EXPECT_EQ(run("convert '" + (d / "latin1.csv").string() + "' -o '" + converted + "'").status, 0);
}

TEST_F(Cli, EveryNumericOptionIsValidatedWithExitTwo) {
  const std::string file = analytic_csv();
  for (const char* option :
       {"--max-frozen -1", "--max-frozen 0", "--max-angular-speed -5", "--max-angular-speed nan",
        "--max-linear-speed 0", "--max-acceleration inf", "--max-bone-length -1",
        "--dropped-frame-factor 1", "--scale 0", "--scale nan", "-j 0", "--max-findings 0",
        "--unit furlong", "--unit -2"}) {
    const Outcome r = run(std::string("validate ") + option + " '" + file + "'");
    EXPECT_EQ(r.status, 2) << option << ": " << r.out;
    EXPECT_NE(r.err.find("must be"), std::string::npos) << option << ": " << r.err;
    EXPECT_EQ(r.err.find("179769313486"), std::string::npos) << r.err; // no DBL_MAX ranges
  }
  EXPECT_EQ(run("info --scale 0 '" + file + "'").status, 2);
  EXPECT_EQ(run("convert '" + file + "' -o x.csv --resample -3").status, 2);
  EXPECT_EQ(run("convert '" + file + "' -o x.csv --fill-gaps -1").status, 2);
}

TEST_F(Validate, ExitStatusHelpAndReadmeAgree) {
  const Outcome help = run("validate --help");
  EXPECT_NE(help.out.find("Exit 0: no file fails (warnings and infos do not fail unless --strict)"),
            std::string::npos)
      << help.out;
  const auto d = batch();
  std::filesystem::remove(d / "broken.csv");
  const Outcome warnings = run("validate '" + d.string() + "'");
  EXPECT_EQ(warnings.status, 0) << warnings.out; // warnings only
  EXPECT_EQ(run("validate --strict '" + d.string() + "'").status, 1);
  std::ofstream(d / "broken.csv") << "time,b.x,b.y,b.z,b.qw,b.qx,b.qy,b.qz\n0,1,2,three,1,0,0,0\n";
  EXPECT_EQ(run("validate '" + d.string() + "'").status, 1); // an unreadable file fails
  const std::string readme = slurp(std::string(ODEMOCAP_REPO_DATA_DIR) + "/../mocap/README.md");
  EXPECT_NE(readme.find("warnings and infos do not fail unless `--strict`"), std::string::npos);
}

TEST_F(Validate, TheSharedCapturesReportFitsOnOneScreen) {
  const std::string shared = odemocap::test::shared_data("");
  ODEMOCAP_REQUIRE_FILE(shared);
  const Outcome r = run("validate '" + shared + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_LE(line_count(r.out), 40u) << r.out;
  EXPECT_NE(r.out.find("angular-speed-spike"), std::string::npos);
  EXPECT_NE(r.out.find("m/s^2"), std::string::npos) << "accelerations are labelled in metres";
  // The same batch, every finding: the per-track and per-finding reports are longer.
  const Outcome tracks = run("validate --report tracks --max-findings 1000 '" + shared + "'");
  const Outcome all = run("validate --report findings --max-findings 1000 '" + shared + "'");
  EXPECT_GT(line_count(tracks.out), line_count(r.out));
  EXPECT_GT(line_count(all.out), line_count(tracks.out));
  const nlohmann::json j =
      nlohmann::json::parse(run("validate --format json '" + shared + "'").out);
  EXPECT_EQ(j["summary"]["with_findings"], 6);
  EXPECT_EQ(j["summary"]["clean"], 1);
  // CMU BVH in metres by default: no linear-speed flood (there were 554 in file units).
  const std::string subject_131 = odemocap::test::repo_data("cmu") + "/131_*.bvh";
  const Outcome in_file_units = run("validate --format json --file-units '" + subject_131 + "'");
  const Outcome in_metres = run("validate --format json '" + subject_131 + "'");
  const auto linear = [](const std::string& out) {
    std::size_t n = 0;
    const nlohmann::json report = nlohmann::json::parse(out);
    for (const nlohmann::json& f : report["files"]) {
      for (const nlohmann::json& x : f["findings"]) {
        n += x["check"] == "linear-speed-spike";
      }
    }
    return n;
  };
  EXPECT_GT(linear(in_file_units.out), 100u) << in_file_units.out.substr(0, 300);
  EXPECT_EQ(linear(in_metres.out), 0u);
}

TEST_F(Cli, InfoLabelsSayWhatTheNumbersAre) {
  const std::string cmu = odemocap::test::repo_data("cmu/131_01.bvh");
  const Outcome metres = run("info '" + cmu + "'");
  EXPECT_NE(metres.out.find("positions in m (file unit CMU unit (1/0.45 in), inferred)"),
            std::string::npos)
      << metres.out;
  EXPECT_NE(metres.out.find("max m/s"), std::string::npos);
  const Outcome raw = run("info --file-units '" + cmu + "'");
  EXPECT_NE(raw.out.find("positions in length units = the file's numbers x 1 (file unit not known"),
            std::string::npos)
      << raw.out;
  EXPECT_EQ(raw.out.find("max m/s"), std::string::npos);
  const Outcome scaled = run("info --scale 1000 '" + cmu + "'");
  EXPECT_NE(scaled.out.find("x 56.4444"), std::string::npos) << scaled.out; // not "1" or "m"
  EXPECT_NE(run("velocities --help").out.find("length units/s with --file-units"),
            std::string::npos);
}

TEST_F(Cli, InfoTakesManyPathsOnceEachAndAlignsLongNames) {
  const std::string file = analytic_csv();
  const auto d = dir_ / "many";
  std::filesystem::create_directories(d);
  std::ofstream(d / "long.csv")
      << "time,a_rather_long_rigid_body_name_from_a_lab.x,a_rather_long_rigid_body_name_from_a_lab."
         "y,"
         "a_rather_long_rigid_body_name_from_a_lab.z\n0,1,2,3\n0.01,1,2,3\n";
  std::ofstream(d / "empty.csv") << "time,m.x,m.y,m.z\n0,,,\n0.01,,,\n";
  const Outcome r = run("info '" + file + "' './" +
                        std::filesystem::relative(file, std::filesystem::current_path()).string() +
                        "' '" + d.string() + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '%')), 0u);
  std::size_t headers = 0;
  for (std::size_t at = r.out.find("rigid-body-csv,"); at != std::string::npos;
       at = r.out.find("rigid-body-csv,", at + 1)) {
    ++headers;
  }
  EXPECT_EQ(headers, 3u) << r.out; // the analytic file once, though named twice
  // Columns stay aligned: the header's "kind" starts where the long name's kind does.
  std::istringstream lines(r.out);
  std::size_t header_kind = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("  track ") == 0) {
      header_kind = line.find("kind");
    }
    if (line.find("a_rather_long") != std::string::npos) {
      EXPECT_EQ(line.find("marker"), header_kind) << r.out;
    }
  }
  // A marker track (x, y, z only) and a track without any valid sample read differently.
  EXPECT_NE(r.out.find("(marker)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(no valid sample)"), std::string::npos) << r.out;
  const nlohmann::json j =
      nlohmann::json::parse(run("info --format json '" + d.string() + "'").out);
  const nlohmann::json& empty = j["files"][0]["tracks"][0];
  EXPECT_TRUE(empty["max_linear_speed"].is_null());
  EXPECT_EQ(empty["valid"], 0);
  const nlohmann::json& marker = j["files"][1]["tracks"][0];
  EXPECT_EQ(marker["kind"], "marker");
  EXPECT_TRUE(marker["max_angular_speed"].is_null());
  EXPECT_FALSE(marker["max_linear_speed"].is_null());
}

TEST_F(Cli, InfoOnAnUnreadableFileInJsonIsAJsonErrorObject) {
  std::ofstream(dir_ / "bad.csv") << "time,b.x,b.y,b.z\n0,1,2,x\n";
  const Outcome r = run("info --format json '" + (dir_ / "bad.csv").string() + "'");
  EXPECT_EQ(r.status, 2); // nothing readable
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["files"][0]["status"], "unreadable");
  EXPECT_EQ(j["files"][0]["error"]["line"], 2);
  EXPECT_EQ(j["files"][0]["error"]["column"], 7);
}

TEST_F(Cli, PrintedTimesAreRounded) {
  std::ofstream(dir_ / "late.csv") << "time,b.x,b.y,b.z\n728.42000000000007,1,2,3\n"
                                      "728.43000000000006,1,2,3\n";
  const Outcome r = run("info --format json '" + (dir_ / "late.csv").string() + "'");
  EXPECT_NE(r.out.find("\"start_time\": 728.42,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("728.4200000000001"), std::string::npos);
  EXPECT_NE(run("info '" + (dir_ / "late.csv").string() + "'").out.find("(728.42 to 728.43 s)"),
            std::string::npos);
}

TEST_F(Cli, FormatDetectionSaysWhatTheBytesLookLike) {
  std::string noise(2000, '\0');
  for (std::size_t i = 0; i < noise.size(); ++i) {
    noise[i] = static_cast<char>((i * 31 + 5) % 256);
  }
  std::ofstream(dir_ / "random.bvh", std::ios::binary) << noise;
  const Outcome binary = run("info '" + (dir_ / "random.bvh").string() + "'");
  EXPECT_EQ(binary.status, 2);
  EXPECT_NE(binary.err.find("look binary"), std::string::npos) << binary.err;
  EXPECT_NE(binary.err.find("Qualisys TSV"), std::string::npos) << binary.err;
  EXPECT_EQ(binary.err.find("no time column"), std::string::npos) << binary.err;
  std::ofstream(dir_ / "notes.bvh") << "a,b\n1,2\n";
  const Outcome text = run("info '" + (dir_ / "notes.bvh").string() + "'");
  EXPECT_NE(text.err.find("does not start with 'HIERARCHY'"), std::string::npos) << text.err;
}

// ---- What a new user meets ------------------------------------------------------------------

TEST_F(Cli, AReportThatCannotBeWrittenFailsTheCommand) {
  const std::string capture = odemocap::test::repo_data("cmu/131_03.bvh");
  for (const char* command : {"info", "validate", "info --format json"}) {
    const std::string line = std::string("'") + ODEMOCAP_CLI_PATH + "' " + command + " '" +
                             capture + "' > /dev/full 2> '" + (dir_ / "err").string() + "'";
    const int raw = std::system(line.c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_NE(WEXITSTATUS(raw), 0) << command;
    EXPECT_NE(slurp(dir_ / "err").find("writing to standard output failed"), std::string::npos)
        << command << ": " << slurp(dir_ / "err");
  }
  EXPECT_EQ(run("info '" + capture + "'").status, 0); // and to a file it works
}

TEST_F(Cli, ARefusedConvertLeavesNoFileAndAnExistingOneUntouched) {
  // A BVH joint named with a comma: the rigid-body CSV header cannot hold it.
  const std::string bvh = (dir_ / "comma.bvh").string();
  {
    std::ofstream out(bvh);
    out << "HIERARCHY\nROOT a,b\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
           "Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n"
           "MOTION\nFrames: 2\nFrame Time: 0.01\n0 0 0 0 0 0\n1 0 0 0 0 0\n";
  }
  const std::filesystem::path fresh = dir_ / "fresh.csv";
  const Outcome refused = run("convert '" + bvh + "' -o '" + fresh.string() + "' --unit m");
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("comma"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_FALSE(std::filesystem::exists(fresh.string() + ".partial"));
  const std::filesystem::path kept = dir_ / "kept.csv";
  { std::ofstream(kept) << "time,x.x,x.y,x.z\n0,1,2,3\n"; }
  EXPECT_NE(run("convert '" + bvh + "' -o '" + kept.string() + "' --unit m").status, 0);
  EXPECT_EQ(slurp(kept), "time,x.x,x.y,x.z\n0,1,2,3\n");
}

TEST_F(Cli, ConvertKeepsUnitUpAxisAndRateThroughTheCsv) {
  // The CMU walk is Y up at 120 Hz, in CMU units inferred to metres; the CSV used to read back
  // Z up, "m, inferred" and 120.00048 Hz.
  const std::string walk = odemocap::test::repo_data("cmu/35_07.bvh");
  const std::string csv = (dir_ / "walk.csv").string();
  ASSERT_EQ(run("convert '" + walk + "' -o '" + csv + "'").status, 0);
  odemocap::LoadOptions metres;
  metres.to_metres = true; // what convert does
  const odemocap::Capture original = odemocap::load_capture(walk, metres);
  const odemocap::Capture back = odemocap::load_capture(csv);
  EXPECT_EQ(back.info().up_axis, original.info().up_axis);
  EXPECT_EQ(back.info().up_axis, odemocap::Axis::Y);
  EXPECT_EQ(back.info().unit_source, "declared");
  EXPECT_EQ(back.info().unit_in_metres, 1.0);
  EXPECT_EQ(back.info().frame_rate, original.info().frame_rate);
  ASSERT_EQ(back.tracks().size(), original.tracks().size());
  const odemocap::Track& ankle = *back.find_track("LeftFoot");
  const odemocap::Track& truth = *original.find_track("LeftFoot");
  ASSERT_EQ(ankle.size(), truth.size());
  for (std::size_t i = 0; i < truth.size(); i += 37) {
    EXPECT_EQ(ankle.position(i).y, truth.position(i).y) << i;
  }
  const Outcome info = run("info --format json '" + csv + "'");
  EXPECT_NE(info.out.find("written by odemocap from bvh file"), std::string::npos);
}

TEST_F(Cli, AHugeJobCountIsCappedAndSaidSo) {
  const Outcome r = run("validate -j 100000 '" + odemocap::test::repo_data("cmu/131_03.bvh") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("worker threads"), std::string::npos) << r.err;
}

TEST_F(Cli, AFileThatCannotBeReadHasNoPositionInItsError) {
  const Outcome r = run("validate '" + (dir_ / "missing.bvh").string() + "' '" + dir_.string() +
                        "/'");
  EXPECT_NE(r.out.find("error parse-error: cannot read: No such file"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("line 0"), std::string::npos) << r.out;
}

TEST_F(Cli, AnUnreadableDirectoryIsReportedNotSkipped) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "root reads every directory";
  }
  const std::filesystem::path locked = dir_ / "locked";
  std::filesystem::create_directories(locked / "inside");
  { std::ofstream(locked / "inside" / "a.bvh") << "x"; }
  std::filesystem::permissions(locked / "inside", std::filesystem::perms::none);
  const Outcome r = run("validate '" + locked.string() + "'");
  std::filesystem::permissions(locked / "inside", std::filesystem::perms::owner_all);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("cannot be listed"), std::string::npos) << r.out;
}

TEST_F(Cli, ConvertKeepsMarkersPositionOnlyAndResamplesOnlyWhatWasRecorded) {
  const std::string vicon = odemocap::test::shared_data("ezc3d/Vicon.c3d");
  const std::string motive =
      odemocap::test::shared_data("pathviewr/pathviewr_motive_example_data.csv");
  ODEMOCAP_REQUIRE_FILE(vicon);
  const std::string markers = (dir_ / "markers.csv").string();
  ASSERT_EQ(run("convert '" + vicon + "' -o '" + markers + "'").status, 0);
  const std::string text = slurp(markers);
  const std::size_t second = text.find('\n') + 1; // after the metadata line
  const std::string header = text.substr(second, text.find('\n', second) - second);
  EXPECT_EQ(header.find(".qw"), std::string::npos) << header.substr(0, 200);
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), 51 * 3);
  const odemocap::Capture back = odemocap::load_capture(markers);
  EXPECT_TRUE(back.tracks()[0].position_only());

  const std::string resampled = (dir_ / "resampled.csv").string();
  ASSERT_EQ(run("convert '" + motive + "' -o '" + resampled + "' --resample 100").status, 0);
  const std::size_t rows = line_count(slurp(resampled)) - 2; // metadata and header lines
  EXPECT_GE(rows, 929u); // the 934 recorded samples, not 32890 across the excerpt breaks
  EXPECT_LE(rows, 934u);
}

} // namespace

namespace {

TEST_F(Cli, BinaryFileErrorsNameTheByteNotLineZero) {
  const std::string vicon = odemocap::test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(vicon);
  std::ofstream(dir_ / "cut.c3d", std::ios::binary) << slurp(vicon).substr(0, 300);
  const Outcome text = run("validate --report findings '" + (dir_ / "cut.c3d").string() + "'");
  EXPECT_NE(text.out.find("error parse-error byte 300:"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("line 0"), std::string::npos) << text.out;
  const nlohmann::json j = nlohmann::json::parse(
      run("validate --format json '" + (dir_ / "cut.c3d").string() + "'").out);
  EXPECT_EQ(j["files"][0]["findings"][0]["byte"], 300);
  // Cut inside the data: the complete frames load, and validate says what was tolerated.
  std::ofstream(dir_ / "short.c3d", std::ios::binary) << slurp(vicon).substr(0, 2000000);
  const nlohmann::json s = nlohmann::json::parse(
      run("validate --format json '" + (dir_ / "short.c3d").string() + "'").out);
  ASSERT_EQ(s["files"][0]["status"], "findings");
  EXPECT_EQ(s["files"][0]["findings"][0]["check"], "tolerated");
  EXPECT_NE(s["files"][0]["findings"][0]["message"].get<std::string>().find("of the 580 announced"),
            std::string::npos);
}

} // namespace

namespace {

TEST_F(Cli, ServeAndRecordCarryACaptureOverEitherProtocolGapsIncluded) {
  const std::string csv = analytic_csv();
  const odemocap::Capture file = odemocap::load_capture(csv);
  const odemocap::Track& tool = file.track("tool");
  // Fixed ports no other test uses; the server ends once the second (1 s) has been sent.
  for (const std::string protocol : {"natnet", "qtm"}) {
    SCOPED_TRACE(protocol);
    const std::string port = protocol == "natnet" ? "27610" : "27623";
    const std::string got = (dir_ / (protocol + ".csv")).string();
    // `timeout`: a server no client reached must not outlive the test.
    const std::string serve = std::string("timeout 30 '") + ODEMOCAP_CLI_PATH + "' serve '" + csv +
                              "' --protocol " + protocol + " --port " + port +
                              " --data-port 0 > '" + (dir_ / "serve.out").string() + "' 2>&1 &";
    ASSERT_EQ(std::system(serve.c_str()), 0);
    // The server says when it listens; record then finds it at once (it would also retry).
    for (int wait = 0;
         wait < 200 && slurp(dir_ / "serve.out").find("waiting for a client") == std::string::npos;
         ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const Outcome r = run("record --protocol " + protocol + " --port " + port +
                          " --data-port 0 --duration 2 -o '" + got + "'");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("lost 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("untracked 2"), std::string::npos) << r.out; // rows 40 and 41
    const odemocap::Capture recorded = odemocap::load_capture(got);
    const odemocap::Track& back = recorded.track("tool"); // NatNet: named by the model definitions
    ASSERT_EQ(back.size(), tool.size());
    EXPECT_EQ(back.valid_count(), tool.size() - 2);
    for (std::size_t i = 0; i < tool.size(); ++i) {
      EXPECT_NEAR(back.time(i), tool.time(i), 0.5e-6); // QTM: whole microseconds
      EXPECT_EQ(back.valid(i), tool.valid(i));
      if (tool.valid(i)) {
        EXPECT_LT(odemocap::norm(back.position(i) - tool.position(i)), 1e-6);
        EXPECT_LT(odemocap::angle_between(back.orientation(i), tool.orientation(i)), 1e-6);
      }
    }
  }
}

TEST_F(Cli, RecordWithoutAServerAndServeWithoutDataExitWithTwo) {
  const Outcome none = run("record --port 9 --data-port 0 --duration 0.2 -o x.csv");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("did not answer a connect request"), std::string::npos) << none.err;
  // Markers are served (NatNet marker sets, QTM 3D); a capture with no valid sample at all is not.
  const std::string nothing = (dir_ / "nothing.csv").string();
  std::ofstream(nothing) << "time,m.x,m.y,m.z\n0,,,\n0.01,,,\n";
  const Outcome empty = run("serve '" + nothing + "' --port 0");
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("no rigid body and no marker"), std::string::npos) << empty.err;
}

} // namespace

namespace {

TEST_F(Cli, ACutC3dSaysSoInInfoAndConvertAndEmptyTracksHaveNullRanges) {
  // c3d.org sample 1 cut 100 bytes into its fourth frame: 3 of 450 frames survive (a frame
  // is (4 x 26 points + 64 analog values) x 2 bytes = 336; the data starts at block 11).
  const std::string whole = slurp(odemocap::test::test_data("c3d/Eb015pi.c3d"));
  const std::string cut = (dir_ / "cut.c3d").string();
  std::ofstream(cut, std::ios::binary) << whole.substr(0, 10 * 512 + 3 * 336 + 100);
  const Outcome info = run("info '" + cut + "'");
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("holds 3 of the 450 announced frames"), std::string::npos) << info.out;
  const Outcome convert = run("convert '" + cut + "' -o '" + (dir_ / "cut.csv").string() + "'");
  EXPECT_EQ(convert.status, 0) << convert.err;
  EXPECT_NE(convert.err.find("holds 3 of the 450 announced frames"), std::string::npos)
      << convert.err;
  const Outcome json = run("info --format json '" + cut + "'");
  ASSERT_FALSE(only_file(json.out)["tolerated"].empty());
  // c3d.org sample 18's third point (P3) has no valid sample: its ranges are null, not absent.
  const Outcome empty =
      run("info --format json '" + odemocap::test::test_data("c3d/bad_parameter_section.c3d") + "'");
  const nlohmann::json track = only_file(empty.out)["tracks"][2];
  ASSERT_EQ(track["name"], "P3");
  ASSERT_EQ(track["valid"], 0);
  ASSERT_TRUE(track.contains("position_min"));
  EXPECT_TRUE(track["position_min"].is_null());
  EXPECT_TRUE(track["position_max"].is_null());
}

} // namespace

namespace {

TEST_F(Cli, ARecordingKilledMidwayKeepsWhatArrived) {
  // serve loops the analytic capture; record is killed (SIGKILL, no chance to finish) after
  // 2.5 s: the CSV already holds the frames that arrived up to about half a second before
  // (the old tool wrote nothing until it ended). The bound leaves room for a slow start under
  // the sanitizers.
  const std::string csv = analytic_csv();
  const std::string got = (dir_ / "killed.csv").string();
  const std::string port = "27611";
  const std::string serve = std::string("timeout 30 '") + ODEMOCAP_CLI_PATH + "' serve '" + csv +
                            "' --loop --port " + port + " > '" + (dir_ / "serve.out").string() +
                            "' 2>&1 &";
  ASSERT_EQ(std::system(serve.c_str()), 0);
  for (int wait = 0;
       wait < 200 && slurp(dir_ / "serve.out").find("waiting for a client") == std::string::npos;
       ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const Outcome r = run("record --port " + port + " --data-port 0 --duration 10 -o '" + got +
                        "' & pid=$!; sleep 2.5; kill -9 $pid; wait $pid; true");
  (void)r;
  std::system(("pkill -f 'serve .*--port " + port + "'").c_str());
  const odemocap::Capture partial = odemocap::load_capture(got);
  const odemocap::Track& tool = partial.track("tool");
  EXPECT_GE(tool.size(), 60u); // 100 Hz for at least 0.6 s of the 2.5
  // Frames as served: the analytic motion at the frame's time (positions to float precision).
  for (std::size_t i = 0; i < tool.size(); ++i) {
    if (tool.valid(i)) {
      const double t = std::fmod(tool.time(i), 1.01);
      EXPECT_NEAR(tool.position(i).x, 0.3 * t, 1e-5) << i;
    }
  }
}

} // namespace
