#include "batch.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include <glob.h>

namespace odemocap::cli {
namespace {

namespace fs = std::filesystem;

bool is_capture_name(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) {
    c = static_cast<char>(c | 0x20);
  }
  return ext == ".bvh" || ext == ".csv" || ext == ".c3d" || ext == ".tsv" || ext == ".trc" ||
         ext == ".amc" || ext == ".mvnx";
}

bool has_glob_characters(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

/// Capture files below `dir`. Symlinked directories are not followed, so a link cycle cannot
/// loop. A directory that cannot be listed (no permission) is kept in `out` itself: loading it
/// fails, so it is reported as unreadable with the reason rather than skipped in silence.
void add_directory(const fs::path& dir, std::vector<std::string>& out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out.push_back(dir.string());
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.push_back(dir.string());
      return;
    }
    std::error_code type_ec;
    if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) {
      add_directory(it->path(), out);
    } else if (it->is_regular_file(type_ec) && is_capture_name(it->path())) {
      out.push_back(it->path().string());
    }
  }
}

FileReport validate_one(const std::string& path, const LoadOptions& load,
                        const ValidateOptions& checks) {
  FileReport report;
  report.path = path;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  report.bytes = ec ? 0 : static_cast<std::size_t>(size);
  try {
    const Capture capture = load_capture(path, load);
    report.format = capture.info().format;
    report.readable = true;
    double start = INFINITY, end = -INFINITY;
    for (const Track& t : capture.tracks()) {
      report.tracks.emplace_back(t.name(), t.size());
      if (!t.empty()) {
        start = std::fmin(start, t.start_time());
        end = std::fmax(end, t.end_time());
      }
    }
    report.duration = end > start ? end - start : 0.0;
    report.findings = validate_capture(capture, checks);
  } catch (const LoadError& e) {
    report.error_line = e.line();
    report.error_column = e.column();
    report.error_byte = e.byte();
    report.findings.push_back({"parse-error", Severity::Error, "", 0, 0, 0.0, e.message()});
  } catch (const std::exception& e) { // bad options, out of memory: this file only
    report.findings.push_back({"parse-error", Severity::Error, "", 0, 0, 0.0, e.what()});
  }
  return report;
}

} // namespace

std::vector<std::string> collect_files(const std::vector<std::string>& arguments) {
  std::vector<std::string> files;
  for (const std::string& argument : arguments) {
    std::error_code ec;
    if (fs::is_directory(argument, ec)) {
      add_directory(argument, files);
    } else if (fs::exists(argument, ec)) {
      files.push_back(argument);
    } else if (has_glob_characters(argument)) {
      glob_t matches{};
      if (::glob(argument.c_str(), 0, nullptr, &matches) == 0) {
        for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
          files.emplace_back(matches.gl_pathv[i]);
        }
      }
      ::globfree(&matches);
    } else {
      files.push_back(argument); // reported as unreadable, like any file that fails to load
    }
  }
  // The same file named twice (a.bvh, ./a.bvh, a directory and a file in it) is read once,
  // under the first name in sorted order.
  std::sort(files.begin(), files.end());
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& f : files) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(f, ec);
    if (seen.insert(ec ? f : canonical.string()).second) {
      unique.push_back(std::move(f));
    }
  }
  return unique;
}

std::vector<std::string> shard(const std::vector<std::string>& files, std::size_t index,
                               std::size_t count) {
  std::vector<std::string> out;
  for (const std::string& f : files) {
    std::uint64_t hash = 1469598103934665603ull; // FNV-1a, 64 bit
    for (unsigned char c : f) {
      hash = (hash ^ c) * 1099511628211ull;
    }
    if (hash % count == index) {
      out.push_back(f);
    }
  }
  return out;
}

unsigned max_worker_threads() {
  return std::max(4u, 4 * std::thread::hardware_concurrency());
}

std::vector<FileReport> validate_files(const std::vector<std::string>& files,
                                       const LoadOptions& load, const ValidateOptions& checks,
                                       unsigned threads, const Progress& progress) {
  std::vector<FileReport> reports(files.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      reports[i] = validate_one(files[i], load, checks);
      const std::size_t finished = ++done;
      if (progress) {
        progress(finished, files.size(), files[i]);
      }
    }
  };
  const unsigned count = std::max(
      1u, std::min({threads, static_cast<unsigned>(files.size()), max_worker_threads()}));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < count; ++t) {
    pool.emplace_back(work);
  }
  work(); // the calling thread works too
  for (std::thread& t : pool) {
    t.join();
  }
  return reports;
}

} // namespace odemocap::cli
