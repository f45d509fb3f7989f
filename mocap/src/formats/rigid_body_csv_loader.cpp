// Generic rigid-body CSV: a header row naming the columns, then one row per sample.
//   time column: "time", "t", "time (s)", "timestamp", ... (or a "frame" column plus
//                LoadOptions::frame_rate)
//   per body:    <body><sep>x|px, y|py, z|pz and <body><sep>qw, qx, qy, qz (or q0..q3 in
//                LoadOptions::quat_order), where <sep> is one of . _ : or a space
// Delimiter: ',', ';' or tab, whichever the header uses most; with ';' or tab a ',' inside a
// number is a decimal comma. Empty or NaN cells are gaps. Positions in the file's unit (scaled by
// LoadOptions::length_scale), Z up, unless leading comment lines ('#', skipped) include the
// metadata line write_rigid_body_csv writes (save.hpp):
//   # odemocap rigid-body-csv: unit=1; up=y; rate=120; format=bvh; source=walk.bvh
// whose unit (metres per file unit), up axis and nominal rate (Hz) are then the file's.
#include "checks.hpp"
#include "csv_bodies.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

namespace odemocap {
namespace {

using detail::CsvCell;
using detail::CsvReader;
using detail::lower;

bool is_time_name(const std::string& n) {
  static const std::set<std::string> names{"time",      "t",       "time (s)",
                                           "time(s)",   "time_s",  "time [s]",
                                           "timestamp", "seconds", "time (seconds)"};
  return names.count(n) != 0;
}

bool is_frame_name(const std::string& n) {
  return n == "frame" || n == "frames" || n == "frame #" || n == "frame_number" ||
         n == "frame number";
}

/// Component slot 0..6 (x, y, z, qw, qx, qy, qz) of a column suffix, or -1.
int component_of(const std::string& suffix, QuatOrder order) {
  static const char* const named[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  static const char* const positional[] = {"px", "py", "pz"};
  for (int i = 0; i < 7; ++i) {
    if (suffix == named[i]) {
      return i;
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (suffix == positional[i]) {
      return i;
    }
  }
  if (suffix.size() == 2 && suffix[0] == 'q' && suffix[1] >= '0' && suffix[1] <= '3') {
    const int k = suffix[1] - '0';
    return order == QuatOrder::WXYZ ? 3 + k : (k == 3 ? 3 : 4 + k);
  }
  return -1;
}

/// What the metadata line says; zero and empty for what it does not.
struct Metadata {
  double unit = 0.0;
  std::optional<Axis> up;
  double rate = 0.0;
  std::string format;
  std::string source;
};

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) {
    t.remove_prefix(1);
  }
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) {
    t.remove_suffix(1);
  }
  return t;
}

/// Reads the leading comment lines of `text`; returns the first line that is not one (for the
/// delimiter). A malformed value in the metadata line is an error naming its line and column.
std::string_view read_comments(std::string_view text, std::string_view source, Metadata& m) {
  static constexpr std::string_view k_tag = "# odemocap rigid-body-csv:";
  std::size_t line_number = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
  }
  while (!text.empty() && text.front() == '#') {
    ++line_number;
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.substr(0, k_tag.size()) != k_tag) {
      continue;
    }
    std::size_t at = k_tag.size();
    while (at < line.size()) {
      std::size_t stop = line.find(';', at);
      const std::string_view field = trim(line.substr(at, stop - at));
      const std::size_t column = at + 1;
      at = stop == std::string_view::npos ? line.size() : stop + 1;
      const std::size_t eq = field.find('=');
      if (field.empty() || eq == std::string_view::npos) {
        continue;
      }
      const std::string_view key = field.substr(0, eq);
      std::string_view value = field.substr(eq + 1);
      if (key == "source") {
        m.source = std::string(trim(line.substr(line.find("source=", column - 1) + 7)));
        break; // the rest of the line
      }
      const auto bad = [&](const char* what) {
        throw LoadError(std::string(source), line_number, column,
                        std::string("metadata ") + std::string(key) + " must be " + what +
                            ", got '" + std::string(value) + "'");
      };
      if (key == "unit" || key == "rate") {
        double v = 0.0;
        const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
        if (r.ec != std::errc() || r.ptr != value.data() + value.size() || !std::isfinite(v) ||
            !(v > 0.0)) {
          bad("a finite number > 0");
        }
        (key == "unit" ? m.unit : m.rate) = v;
      } else if (key == "up") {
        if (value != "x" && value != "y" && value != "z") {
          bad("x, y or z");
        }
        m.up = value == "x" ? Axis::X : value == "y" ? Axis::Y : Axis::Z;
      } else if (key == "format") {
        m.format = std::string(value);
      }
    }
  }
  return text;
}

detail::TableLayout read_header(CsvReader& reader, const LoadOptions& options,
                                std::vector<std::string>& ignored) {
  std::vector<CsvCell> cells;
  do {
    if (!reader.next_row(cells)) {
      reader.fail(1, "the file is empty");
    }
  } while (!cells.empty() && !cells.front().text.empty() && cells.front().text.front() == '#');
  detail::TableLayout layout;
  layout.header_cells = cells.size();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string name(cells[i].text);
    const std::string lowered = lower(name);
    if (is_time_name(lowered) && layout.time_column < 0) {
      layout.time_column = static_cast<int>(i);
      continue;
    }
    if (is_frame_name(lowered) && layout.frame_column < 0) {
      layout.frame_column = static_cast<int>(i);
      continue;
    }
    const std::size_t sep = name.find_last_of("._: ");
    const int slot = sep == std::string::npos || sep == 0
                         ? -1
                         : component_of(lower(name.substr(sep + 1)), options.quat_order);
    if (slot < 0) {
      if (!name.empty()) {
        ignored.push_back(name);
      }
      continue;
    }
    detail::assign_column(layout, name.substr(0, sep), slot, i, cells[i].column, name, reader);
  }
  if (layout.time_column < 0) {
    if (layout.frame_column < 0) {
      reader.fail(1, "no time column (named time, t, time (s), timestamp...) and no frame column");
    }
    if (options.frame_rate <= 0.0) {
      reader.fail(
          static_cast<std::size_t>(cells[static_cast<std::size_t>(layout.frame_column)].column),
          "the file has frame numbers but no time column: set LoadOptions::frame_rate");
    }
    layout.frame_rate = options.frame_rate;
  }
  detail::check_complete(layout, reader);
  return layout;
}


/// The rigid-body CSV whose beginning is `head` (its comment lines and header row at least),
/// read by `make_reader(delimiter)` from the start; `lines` is its line count.
template <class MakeReader>
Capture parse_rigid_body(std::string_view head, MakeReader make_reader, std::size_t lines,
                         std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  Metadata metadata;
  const std::string_view data = read_comments(head, source, metadata);
  const char delimiter = detail::detect_delimiter(detail::first_line(data));
  CsvReader reader = make_reader(delimiter);
  std::vector<std::string> ignored;
  const detail::TableLayout layout = read_header(reader, options, ignored);

  CaptureInfo info;
  info.source = std::string(source);
  info.format = "rigid-body-csv";
  if (metadata.up) {
    info.up_axis_source = "declared";
  }
  if (metadata.unit > 0.0) {
    info.length_unit = metadata.unit == 1.0 ? "m" : detail::describe(metadata.unit) + " m";
  }
  if (!metadata.format.empty() || !metadata.source.empty()) {
    info.notes.push_back("written by odemocap from " +
                         (metadata.format.empty() ? std::string("a capture") : metadata.format) +
                         (metadata.source.empty() ? std::string() : " file " + metadata.source));
  }
  const detail::PoseConversion conversion = detail::make_conversion(
      options, metadata.up.value_or(Axis::Z), metadata.unit, info);
  if (!ignored.empty()) {
    info.notes.push_back(std::to_string(ignored.size()) + " column(s) not read, first " +
                         detail::quote(ignored.front()));
  }
  detail::RowStats stats;
  Capture capture = detail::read_capture(reader, layout, delimiter != ',', conversion, options,
                                         lines, std::move(info), stats);
  if (metadata.rate > 0.0) {
    capture.info().frame_rate = metadata.rate; // exact, where 1 / interval is not
  } else if (!capture.tracks().empty() && capture.tracks().front().size() > 1) {
    // The nominal rate is that of the median interval: dropped frames and excerpts leave it be.
    capture.info().frame_rate = 1.0 / capture.tracks().front().median_interval();
  }
  detail::coordinates_to_metres(capture, options);
  return capture;
}

} // namespace

Capture parse_rigid_body_csv(std::string_view text, std::string_view source,
                             const LoadOptions& options) {
  const auto reader = [&](char delimiter) { return CsvReader(text, source, delimiter); };
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return parse_rigid_body(text, reader, lines, source, options);
}

namespace detail {

Capture load_rigid_body_csv_file(std::istream& in, std::string_view head, std::size_t lines,
                                 std::string_view source, const LoadOptions& options) {
  const auto reader = [&](char delimiter) { return CsvReader(in, source, delimiter); };
  return parse_rigid_body(head, reader, lines, source, options);
}

} // namespace detail
} // namespace odemocap
