#pragma once
// The headless demo's outputs: a summary table on stdout and the same figures as JSON.

#include "replay_scene.hpp"

#include <functional>
#include <ostream>
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

/// A figure of a run: its label, and how to write it.
template <class Run> struct TableRow {
  const char* label;
  std::function<std::string(const Run&)> value;
};

/// A summary table: a header (`corner`, then each run's name), then a row per figure, a column
/// per run.
template <class Run, class Name>
void print_table(std::ostream& out, const std::string& corner, const std::vector<Run>& runs,
                 Name name, const std::vector<TableRow<Run>>& rows, std::size_t label_width,
                 std::size_t column_width) {
  out << pad(corner, label_width);
  for (const Run& run : runs) {
    out << pad(name(run), column_width);
  }
  out << '\n';
  for (const TableRow<Run>& row : rows) {
    out << pad(row.label, label_width);
    for (const Run& run : runs) {
      out << pad(row.value(run), column_width);
    }
    out << '\n';
  }
}

/// One column per run (drive mode), one row per figure.
void print_summary(std::ostream& out, const RunInfo& info, const std::vector<Metrics>& runs);

/// {"capture": {...}, "runs": [{...}, ...]} with the field names of Metrics.
std::string to_json(const RunInfo& info, const std::vector<Metrics>& runs);

} // namespace odemocap::replay
