#pragma once
// Batch validation behind `odemocap validate`: which files, validated how, on how many threads.

#include <odemocap/load.hpp>
#include <odemocap/validate.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace odemocap::cli {

/// What validating one file found. A file that cannot be loaded has one "parse-error" finding
/// (severity Error) with the line and column of the LoadError.
struct FileReport {
  std::string path;
  std::string format;      ///< empty when the file could not be read
  std::size_t bytes = 0;
  bool readable = false;
  double duration = 0.0; ///< s, first to last sample of any track
  /// Each track's name and sample count, in the capture's order (the HTML timelines).
  std::vector<std::pair<std::string, std::size_t>> tracks;
  std::vector<Finding> findings;
  std::size_t error_line = 0;   ///< of a parse error, 0 when none or unknown
  std::size_t error_column = 0;
  std::size_t error_byte = LoadError::k_no_byte; ///< of a parse error in a binary file
};

/// The files named by `arguments`: files as given, directories searched recursively for
/// capture files (symlinked directories are not followed, so no loops; a directory that cannot
/// be listed is returned itself, to be reported as unreadable), and glob patterns. Sorted; a
/// file named twice (also as ./name or through a link) appears once; an argument that names
/// nothing is returned as given, to be reported as unreadable.
std::vector<std::string> collect_files(const std::vector<std::string>& arguments);

/// Most worker threads a batch uses: four per core (at least four). More only cost memory
/// (`-j 100000` started 100000 threads, 300 MB) while the disk and cores are already busy.
unsigned max_worker_threads();

/// The files of shard `index` of `count`: chosen by a hash of each path (FNV-1a), so a file
/// stays in its shard when others are added and the shards' outputs concatenate.
std::vector<std::string> shard(const std::vector<std::string>& files, std::size_t index,
                               std::size_t count);

/// Loads and validates every file on `threads` threads (at least 1); reports come back in the
/// order of `files`. One file's failure never stops the others; peak memory is that of the
/// `threads` largest files being validated at once, not of the batch.
/// Called after each file with the number done so far, from the worker threads.
using Progress = std::function<void(std::size_t done, std::size_t total, const std::string& path)>;

std::vector<FileReport> validate_files(const std::vector<std::string>& files,
                                       const LoadOptions& load, const ValidateOptions& checks,
                                       unsigned threads, const Progress& progress = {});

} // namespace odemocap::cli
