#pragma once
// The headless demo's outputs: a summary table on stdout and the same figures as JSON.

#include "replay_scene.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace odemocap::replay {

/// What was replayed, for the report's header.
struct RunInfo {
  std::string capture;
  std::string format;
  std::size_t tracks = 0;
  double capture_seconds = 0.0;
  double capture_rate = 0.0;
  double sim_rate = 0.0;
  std::string units; ///< e.g. "m (file unit CMU unit (1/0.45 in), inferred)"
};

/// `v` formatted with a printf pattern of one double, e.g. "%.2f".
std::string format(const char* pattern, double v);
/// `s` padded with spaces to `width` characters.
std::string pad(const std::string& s, std::size_t width);

/// One column per run (drive mode), one row per figure.
void print_summary(std::ostream& out, const RunInfo& info, const std::vector<Metrics>& runs);

/// {"capture": {...}, "runs": [{...}, ...]} with the field names of Metrics.
std::string to_json(const RunInfo& info, const std::vector<Metrics>& runs);

} // namespace odemocap::replay
