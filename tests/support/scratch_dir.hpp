#pragma once
// A fresh, private scratch directory per call (mkdtemp): test processes that ctest -j starts
// at the same moment never share one, unlike names built from the time or GoogleTest's seed.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace odemocap::test {

/// Creates <tmp>/<prefix>XXXXXX with a unique suffix and returns it; throws when it cannot.
inline std::filesystem::path make_scratch_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  return std::filesystem::path(buffer.data());
}

} // namespace odemocap::test
