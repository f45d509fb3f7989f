// Runs the real odemocap binary on files with known content and checks what it prints and
// writes against the analytic truth they were made from.
#include "support/data_paths.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
    dir_ = std::filesystem::temp_directory_path() /
           ("odemocap_cli_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
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
      out << 0.3 * t << ',' << -0.2 * t << ',' << 0.1 * t << ',' << std::cos(half) << ','
          << 1 * s << ',' << 2 * s << ',' << -0.5 * s << '\n';
    }
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(Cli, InfoReportsTheCapturesShapeAndSpeedsAsJson) {
  const Outcome r = run("info --format json '" + analytic_csv() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
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
  const Outcome r = run("info '" + odemocap::test::repo_data("cmu/131_01.bvh") + "' --scale 0.05644 --up z");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bvh, 31 tracks, 994 frames at 120 Hz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("up axis: Z"), std::string::npos) << r.out;
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
  const Outcome malformed = run("info '" + odemocap::test::test_data("malformed/short_row.bvh") + "'");
  EXPECT_EQ(malformed.status, 2);
  EXPECT_NE(malformed.err.find("short_row.bvh:15:4:"), std::string::npos) << malformed.err;
  EXPECT_EQ(run("--help").status, 0);
}

} // namespace
