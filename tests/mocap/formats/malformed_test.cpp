// Every file in tests/data/malformed has one defect; EXPECTED.tsv says where the loader must
// point (line, column; 0 when there is no line) and a fragment of what it must say.
#include "support/data_paths.hpp"

#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace odemocap {
namespace {

struct Expected {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;
  std::string fragment;
};

std::vector<Expected> read_manifest() {
  std::ifstream in(test::test_data("malformed/EXPECTED.tsv"));
  std::vector<Expected> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::istringstream fields(line);
    Expected e;
    std::string l, c;
    std::getline(fields, e.file, '\t');
    std::getline(fields, l, '\t');
    std::getline(fields, c, '\t');
    std::getline(fields, e.fragment);
    e.line = std::stoul(l);
    e.column = std::stoul(c);
    rows.push_back(e);
  }
  return rows;
}

TEST(MalformedCorpus, ManifestCoversEveryFileAndAtLeastThirty) {
  std::set<std::string> listed;
  for (const Expected& e : read_manifest()) {
    listed.insert(e.file);
  }
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(test::test_data("malformed"))) {
    if (entry.path().filename() != "EXPECTED.tsv") {
      present.insert(entry.path().filename().string());
    }
  }
  EXPECT_EQ(listed, present);
  EXPECT_GE(present.size(), 30u);
}

TEST(MalformedCorpus, EachFileFailsWhereAndHowTheManifestSays) {
  for (const Expected& e : read_manifest()) {
    SCOPED_TRACE(e.file);
    const std::string path = test::test_data("malformed/" + e.file);
    try {
      LoadOptions strict; // what the default tolerates with a note is refused here
      strict.strict = true;
      load_capture(path, strict);
      ADD_FAILURE() << e.file << " loaded without an error";
    } catch (const LoadError& error) {
      EXPECT_EQ(error.path(), path);
      EXPECT_EQ(error.line(), e.line) << error.what();
      EXPECT_EQ(error.column(), e.column) << error.what();
      EXPECT_NE(error.message().find(e.fragment), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).rfind(path, 0), 0u) << "what() starts with the path";
    }
  }
}

TEST(LoadCapture, FilesThatCannotBeReadAreLoadErrorsNamingThePath) {
  const std::string missing = test::test_data("malformed/no_such_file.bvh");
  try {
    load_capture(missing);
    FAIL();
  } catch (const LoadError& e) {
    EXPECT_EQ(e.path(), missing);
    EXPECT_NE(e.message().find("No such file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_capture(test::test_data("malformed")), LoadError); // a directory
  LoadOptions small;
  small.max_file_bytes = 10;
  EXPECT_THROW(load_capture(test::repo_data("cmu/131_01.bvh"), small), LoadError);
  LoadOptions bad_scale;
  bad_scale.length_scale = -1;
  EXPECT_THROW(load_capture(test::repo_data("cmu/131_01.bvh"), bad_scale), LoadError);
}

TEST(LoadCapture, FormatComesFromTheContentNotTheName) {
  EXPECT_EQ(detect_format("\xEF\xBB\xBF\r\nHIERARCHY\n", "x.csv"), Format::Bvh);
  EXPECT_EQ(detect_format("\"Format Version\",1.23\n", "x.bvh"), Format::MotiveCsv);
  EXPECT_EQ(detect_format("time;a.x\n", "x.txt"), Format::RigidBodyCsv);
  EXPECT_THROW(detect_format("just words\n", "x.bvh"), LoadError);
  EXPECT_THROW(detect_format("  \n\n", "x.bvh"), LoadError);
}

} // namespace
} // namespace odemocap
