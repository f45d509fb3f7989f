#pragma once
// Where the tests find captures: data/ in this repository, and ../shared/data beside it
// (real captures that are not ours to copy). Paths come from CMake.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace odemocap::test {

inline std::string repo_data(const std::string& relative) {
  return std::string(ODEMOCAP_REPO_DATA_DIR) + "/" + relative;
}

inline std::string shared_data(const std::string& relative) {
  return std::string(ODEMOCAP_SHARED_DATA_DIR) + "/" + relative;
}

inline std::string test_data(const std::string& relative) {
  return std::string(ODEMOCAP_TEST_DATA_DIR) + "/" + relative;
}

/// The whole of the file at `path` (empty when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace odemocap::test

/// Skips the test when a shared capture is absent (a checkout without ../shared).
#define ODEMOCAP_REQUIRE_FILE(path)                                                           \
  do {                                                                                        \
    if (!std::filesystem::exists(path)) {                                                     \
      GTEST_SKIP() << "missing " << (path) << " (../shared/data is not beside the checkout)";  \
    }                                                                                         \
  } while (0)
