// Qualisys Track Manager TSV exports. 3D (markers): see read_markers. 6D (rigid bodies):
// KEY<TAB>value header lines, one row of
// column names, then one row per frame with, per body, X Y Z (mm), three Euler angles,
// Residual and the rotation matrix Rot[0..8] stored column by column (Rot[0] = R11,
// Rot[1] = R21, ...; checked numerically against the Euler angles in the tests). Optional
// Frame and Time columns lead the row; an empty column may separate bodies.

#include "checks.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/cluster.hpp>
#include <odemocap/load.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using detail::trim;

constexpr std::size_t k_body_columns = 16; // X Y Z, 3 angles, Residual, Rot[0..8]

struct Line {
  std::string_view text;
  std::size_t number = 0; ///< 1-based
};

/// The file's lines, without their line ends.
std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  std::size_t number = 1;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    start = 3;
  }
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.push_back({line, number++});
    start = end + 1;
  }
  return lines;
}

/// Cells of a TAB-separated line with their 1-based byte columns.
struct Cell {
  std::string_view text;
  std::size_t column;
};

void split_cells(std::string_view line, std::vector<Cell>& cells) {
  cells.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = line.find('\t', start);
    cells.push_back(
        {line.substr(start, end == std::string_view::npos ? line.npos : end - start), start + 1});
    if (end == std::string_view::npos) {
      return;
    }
    start = end + 1;
  }
}

/// A column name equal to `want`, or ending in " <want>" (names prefixed with the body's).
bool names(std::string_view cell, std::string_view want) {
  const std::string_view t = trim(cell);
  return t == want || (t.size() > want.size() && t.substr(t.size() - want.size()) == want &&
                       t[t.size() - want.size() - 1] == ' ');
}

[[noreturn]] void fail_at(const std::string& path, std::size_t line, std::size_t column,
                          const std::string& message) {
  throw LoadError(path, line, column, message);
}

/// The cells of a data row before its trailing empty ones (a row ending in TAB or space).
std::size_t filled_width(const std::vector<Cell>& cells) {
  std::size_t n = cells.size();
  while (n > 0 && trim(cells[n - 1].text).empty()) {
    --n;
  }
  return n;
}

/// A 3D export without a row of column names: QTM writes the frame number and the time before
/// the markers' X Y Z when asked to (3 N + 2 cells a row), or one of them (3 N + 1: the time if
/// the first cell steps by 1 / FREQUENCY from one row to the next, else the frame), or neither
/// (a row cut short ends in gaps). Sets where the time and the first X are; a wider row is an
/// error.
void leading_columns(const std::vector<Line>& lines, std::size_t row, std::size_t markers,
                     double frequency, const std::string& path, std::size_t& time_column,
                     std::size_t& first_x, CaptureInfo& info) {
  std::vector<std::vector<Cell>> first_rows;
  for (std::size_t r = row; r < lines.size() && first_rows.size() < 2; ++r) {
    if (!trim(lines[r].text).empty()) {
      first_rows.emplace_back();
      split_cells(lines[r].text, first_rows.back());
    }
  }
  if (first_rows.empty()) {
    return;
  }
  const std::size_t width = filled_width(first_rows[0]);
  const std::size_t values = 3 * markers;
  if (width == values + 2) {
    time_column = 1;
    first_x = 2;
    info.notes.push_back("no row of column names: the first two columns read as frame and time");
    return;
  }
  if (width == values + 1) {
    // A time printed to r steps by 1 / FREQUENCY within 2 r (0.008, 0.017 at 120 Hz).
    double a = 0.0, b = 0.0;
    const bool numbers = first_rows.size() == 2 &&
                         detail::parse_double(trim(first_rows[0][0].text), a) &&
                         detail::parse_double(trim(first_rows[1][0].text), b);
    const double r = numbers ? std::fmin(detail::printed_resolution(first_rows[0][0].text),
                                         detail::printed_resolution(first_rows[1][0].text))
                             : 0.0;
    const double slack = std::fmax(1e-3 / frequency, r < 0.25 / frequency ? 2.0 * r : 0.0);
    const bool steps = numbers && std::fabs((b - a) - 1.0 / frequency) <= slack && b - a != 1.0;
    time_column = steps ? 0 : std::numeric_limits<std::size_t>::max();
    first_x = 1;
    info.notes.push_back(std::string("no row of column names: the first column read as ") +
                         (steps ? "time" : "frame"));
    return;
  }
  if (width > values) {
    fail_at(path, lines[row].number, 1,
            "a row of " + std::to_string(width) + " values, but MARKER_NAMES names " +
                std::to_string(markers) + " markers (" + std::to_string(values) +
                " values, with the frame and time " + std::to_string(values + 2) + ")");
  }
}

/// A 3D (marker) export: optional Frame and Time columns and per marker X Y Z (mm), named
/// "<marker> X" or given once; or, in older exports, the triplets without a row of names
/// (leading_columns). An empty cell or a 0, 0, 0 triplet is a gap (QTM writes zeros where a marker
/// was not seen).
Capture read_markers(const std::vector<Line>& lines, std::size_t row, double frequency,
                     double claimed_frames, std::size_t frames_line,
                     const std::vector<std::string>& marker_names, std::size_t names_header_line,
                     const std::string& path, const LoadOptions& options) {
  std::set<std::string_view> distinct;
  for (std::size_t m = 0; m < marker_names.size(); ++m) {
    if (marker_names[m].empty() || !distinct.insert(marker_names[m]).second) {
      fail_at(path, names_header_line, 1,
              "marker " + std::to_string(m + 1) + " has " +
                  (marker_names[m].empty()
                       ? "no name"
                       : "the name '" + marker_names[m] + "' of an earlier marker"));
    }
  }
  std::vector<Cell> cells;
  std::size_t time_column = std::numeric_limits<std::size_t>::max();
  std::size_t first_x = 0;
  std::size_t data_row = row;
  if (row < lines.size()) {
    split_cells(lines[row].text, cells);
    const std::string_view key = trim(cells[0].text);
    const bool named = key.empty() || !(std::isdigit(static_cast<unsigned char>(key[0])) ||
                                        key[0] == '-' || key[0] == '.');
    if (named) {
      data_row = row + 1;
      first_x = cells.size();
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (trim(cells[c].text) == "Time") {
          time_column = c;
        }
        if (names(cells[c].text, "X")) {
          first_x = std::min(first_x, c);
        }
      }
      for (std::size_t m = 0; m < marker_names.size(); ++m) {
        for (std::size_t k = 0; k < 3; ++k) {
          const std::size_t c = first_x + 3 * m + k;
          const std::string axis(1, static_cast<char>('X' + k));
          if (c >= cells.size() || !names(cells[c].text, axis)) {
            fail_at(path, lines[row].number, c < cells.size() ? cells[c].column : 0,
                    "marker '" + marker_names[m] + "': expected column '" + marker_names[m] + " " +
                        axis + "', found " +
                        (c < cells.size() ? detail::quote(cells[c].text) : "nothing"));
          }
        }
      }
    }
  }
  CaptureInfo info;
  info.source = path;
  info.format = to_string(Format::QualisysTsv);
  info.frame_rate = frequency;
  info.length_unit = "mm";
  if (data_row == row) {
    leading_columns(lines, row, marker_names.size(), frequency, path, time_column, first_x, info);
  }
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, 0.001, info);
  const detail::TrackSelection selection(options.tracks);
  selection.check_found(marker_names, path);
  std::vector<Track> tracks;
  for (const std::string& name : marker_names) {
    tracks.emplace_back(name);
    tracks.back().set_position_only(true);
  }
  std::size_t frame = 0;
  double previous_time = -std::numeric_limits<double>::infinity();
  double time_resolution = INFINITY; // the finest the time column is printed to
  for (std::size_t r = data_row; r < lines.size(); ++r) {
    const Line& line = lines[r];
    if (trim(line.text).empty()) {
      continue;
    }
    split_cells(line.text, cells);
    const auto number_at = [&](std::size_t c) {
      if (c >= cells.size()) {
        return std::numeric_limits<double>::quiet_NaN(); // a row cut short: the rest are gaps
      }
      const std::string_view t = trim(cells[c].text);
      double out = std::numeric_limits<double>::quiet_NaN();
      if (!t.empty() && t != "NaN" && t != "nan" && !detail::parse_double(t, out)) {
        fail_at(path, line.number, cells[c].column, "not a number: " + detail::quote(t));
      }
      return out;
    };
    double t = static_cast<double>(frame) / frequency;
    if (time_column != std::numeric_limits<std::size_t>::max()) {
      t = number_at(time_column);
      if (!(t > previous_time)) {
        fail_at(path, line.number, time_column < cells.size() ? cells[time_column].column : 1,
                "the time does not increase from the row before");
      }
      time_resolution =
          std::fmin(time_resolution, detail::printed_resolution(cells[time_column].text));
    }
    previous_time = t;
    for (std::size_t m = 0; m < tracks.size(); ++m) {
      const Vec3 p{number_at(first_x + 3 * m), number_at(first_x + 3 * m + 1),
                   number_at(first_x + 3 * m + 2)};
      const bool seen = is_finite(p) && !(p.x == 0.0 && p.y == 0.0 && p.z == 0.0);
      try {
        if (seen) {
          tracks[m].append(t, {conversion.apply({p, Quat{}}).p, Quat{}});
        } else {
          tracks[m].append_gap(t);
        }
      } catch (const MocapError& e) {
        fail_at(path, line.number, 1, e.what());
      }
    }
    ++frame;
  }
  if (frame == 0) {
    fail_at(path, lines.empty() ? 0 : lines.back().number, 0, "the file has no data rows");
  }
  detail::use_rate_grid(tracks, frequency, time_resolution, info);
  if (claimed_frames != static_cast<double>(frame)) {
    const std::string cut = "NO_OF_FRAMES says " + detail::describe(claimed_frames) +
                            " but the file has " + std::to_string(frame) + " data rows";
    if (options.strict) {
      fail_at(path, frames_line, 14, cut + " (LoadOptions::strict refuses this)");
    }
    info.tolerated.push_back(cut + "; the rows were read");
    info.notes.push_back(info.tolerated.back());
  }
  Capture capture(info);
  for (Track& track : tracks) {
    if (selection.keep(track.name())) {
      capture.add_track(std::move(track));
    }
  }
  return capture;
}

} // namespace

Capture parse_qualisys_tsv(std::string_view text, std::string_view source,
                           const LoadOptions& options) {
  detail::check_options(options, source);
  const std::string path(source);
  const auto fail = [&](std::size_t line, std::size_t column, const std::string& message) {
    throw LoadError(path, line, column, message);
  };
  const std::vector<Line> lines = split_lines(text);
  std::map<std::string, std::vector<std::string>> header;
  std::map<std::string, std::size_t> header_line;
  std::vector<Cell> cells;
  std::size_t row = 0;
  for (; row < lines.size(); ++row) {
    split_cells(lines[row].text, cells);
    const std::string_view key = trim(cells[0].text);
    if (key.empty() && cells.size() == 1) {
      continue;
    }
    if (key == "X" || key == "Frame" || key == "Time" || names(cells[0].text, "X")) {
      break; // the column names
    }
    if (!key.empty() &&
        (std::isdigit(static_cast<unsigned char>(key[0])) || key[0] == '-' || key[0] == '.')) {
      break; // data without a row of column names (older 3D exports)
    }
    for (char c : key) {
      if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_' ||
            std::isdigit(static_cast<unsigned char>(c)))) {
        fail(lines[row].number, 1,
             "expected a header line KEY<TAB>value or the column names, found " +
                 detail::quote(lines[row].text));
      }
    }
    std::vector<std::string>& values = header[std::string(key)];
    for (std::size_t i = 1; i < cells.size(); ++i) {
      values.emplace_back(trim(cells[i].text));
    }
    while (!values.empty() && values.back().empty()) {
      values.pop_back(); // a line ending in TAB
    }
    header_line[std::string(key)] = lines[row].number;
  }
  const auto value = [&](const char* key) -> const std::vector<std::string>& {
    const auto it = header.find(key);
    if (it == header.end() || it->second.empty()) {
      fail(0, 0, std::string("the header has no ") + key + " line");
    }
    return it->second;
  };
  const auto header_number = [&](const char* key) {
    double v = 0;
    if (!detail::parse_double(value(key)[0], v)) {
      fail(header_line[key], std::string(key).size() + 2,
           std::string(key) + " is not a number: " + detail::quote(value(key)[0]));
    }
    return v;
  };
  // QTM says what it exported (DATA_INCLUDED: 3D or 6D, or derived data such as Velocity);
  // older versions do not, and their 3D exports name markers (MARKER_NAMES), not bodies.
  const bool declared = header.count("DATA_INCLUDED") && !header["DATA_INCLUDED"].empty();
  if (declared && header["DATA_INCLUDED"][0] != "3D" && header["DATA_INCLUDED"][0] != "6D") {
    fail(header_line["DATA_INCLUDED"], 15,
         "DATA_INCLUDED is " + detail::quote(header["DATA_INCLUDED"][0]) +
             ": only 6D (rigid bodies) and 3D (markers) exports are read, not derived data");
  }
  const bool markers = declared ? header["DATA_INCLUDED"][0] == "3D"
                                : header.count("MARKER_NAMES") && !header.count("BODY_NAMES");
  if (row == lines.size() && !markers) {
    fail(lines.empty() ? 0 : lines.back().number, 0,
         "no row of column names (a row starting with X, Frame or Time) after the header");
  }
  const double frequency = header_number("FREQUENCY");
  if (!(frequency > 0.0)) {
    fail(header_line["FREQUENCY"], 11, "FREQUENCY must be positive");
  }
  const double claimed_frames = header_number("NO_OF_FRAMES");
  if (markers) {
    const double claimed_markers = header_number("NO_OF_MARKERS");
    const std::vector<std::string>& marker_names = value("MARKER_NAMES");
    if (claimed_markers != static_cast<double>(marker_names.size())) {
      fail(header_line["MARKER_NAMES"], 1,
           "NO_OF_MARKERS says " + detail::quote(value("NO_OF_MARKERS")[0]) +
               " but MARKER_NAMES lists " + std::to_string(marker_names.size()));
    }
    return read_markers(lines, row, frequency, claimed_frames, header_line["NO_OF_FRAMES"],
                        marker_names, header_line["MARKER_NAMES"], path, options);
  }
  const double claimed_bodies = header_number("NO_OF_BODIES");
  const std::vector<std::string>& body_names = value("BODY_NAMES");
  if (claimed_bodies != static_cast<double>(body_names.size())) {
    fail(header_line["BODY_NAMES"], 1,
         "NO_OF_BODIES says " + detail::quote(value("NO_OF_BODIES")[0]) + " but BODY_NAMES lists " +
             std::to_string(body_names.size()));
  }
  std::set<std::string_view> distinct;
  for (std::size_t b = 0; b < body_names.size(); ++b) {
    if (body_names[b].empty()) {
      fail(header_line["BODY_NAMES"], 1, "body " + std::to_string(b + 1) + " has no name");
    }
    if (!distinct.insert(body_names[b]).second) {
      fail(header_line["BODY_NAMES"], 1, "body name '" + body_names[b] + "' is used twice");
    }
  }

  // Columns: optional Frame and Time, then per body 16 named columns.
  const Line& names_line = lines[row];
  split_cells(names_line.text, cells);
  std::size_t time_column = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> body_start;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (trim(cells[c].text) == "Time") {
      time_column = c;
    }
    if (names(cells[c].text, "X") && body_start.size() < body_names.size()) {
      body_start.push_back(c);
    }
  }
  if (body_start.empty() || (body_start.size() != 1 && body_start.size() != body_names.size())) {
    fail(names_line.number, 1,
         "the column names have " + std::to_string(body_start.size()) + " X column(s) for " +
             std::to_string(body_names.size()) + " bodies");
  }
  for (std::size_t b = 0; b < body_start.size(); ++b) {
    const std::size_t s = body_start[b];
    const auto expect = [&](std::size_t offset, const std::string& want) {
      if (s + offset >= cells.size() || !names(cells[s + offset].text, want)) {
        const std::size_t column = s + offset < cells.size() ? cells[s + offset].column : 0;
        fail(names_line.number, column,
             "body '" + body_names[b] + "': expected column " + detail::quote(want) + ", found " +
                 (s + offset < cells.size() ? detail::quote(cells[s + offset].text) : "nothing"));
      }
    };
    expect(1, "Y");
    expect(2, "Z");
    expect(6, "Residual");
    for (std::size_t k = 0; k < 9; ++k) {
      expect(7 + k, "Rot[" + std::to_string(k) + "]");
    }
  }
  std::vector<std::string> notes;
  if (body_start.size() == 1 && body_names.size() > 1) {
    // Older exports name the 16 columns once; the bodies follow each other in the data rows,
    // separated by an empty column when the first data row has one there.
    std::size_t stride = k_body_columns;
    if (row + 1 < lines.size()) {
      std::vector<Cell> first;
      split_cells(lines[row + 1].text, first);
      const std::size_t gap = body_start[0] + k_body_columns;
      if (gap < first.size() && trim(first[gap].text).empty()) {
        stride = k_body_columns + 1;
      }
    }
    for (std::size_t b = 1; b < body_names.size(); ++b) {
      body_start.push_back(body_start[0] + b * stride);
    }
    notes.push_back("the column names are given once for " + std::to_string(body_names.size()) +
                    " bodies: the bodies are read in BODY_NAMES order, " + std::to_string(stride) +
                    " columns apart");
  }
  CaptureInfo info;
  info.source = path;
  info.format = to_string(Format::QualisysTsv);
  info.frame_rate = frequency;
  info.length_unit = "mm";
  info.notes = notes;
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, 0.001, info);
  const detail::TrackSelection selection(options.tracks);
  std::vector<Track> tracks;
  std::vector<bool> kept;
  for (const std::string& name : body_names) {
    kept.push_back(selection.keep(name));
    tracks.emplace_back(name);
  }
  selection.check_found(body_names, source);

  std::size_t frame = 0;
  double previous_time = -std::numeric_limits<double>::infinity();
  double time_resolution = INFINITY; // the finest the time column is printed to
  for (std::size_t r = row + 1; r < lines.size(); ++r) {
    const Line& line = lines[r];
    if (trim(line.text).empty()) {
      continue;
    }
    split_cells(line.text, cells);
    const auto number_at = [&](std::size_t c, double& out) {
      if (c >= cells.size()) {
        fail(line.number, line.text.size() + 1,
             "the row ends after " + std::to_string(cells.size()) + " columns; column " +
                 std::to_string(c + 1) + " is needed");
      }
      const std::string_view t = trim(cells[c].text);
      if (t.empty() || t == "NaN" || t == "nan" || t == "-nan") {
        out = std::numeric_limits<double>::quiet_NaN();
        return;
      }
      if (!detail::parse_double(t, out)) {
        fail(line.number, cells[c].column, "not a number: " + detail::quote(t));
      }
    };
    double t = static_cast<double>(frame) / frequency;
    if (time_column != std::numeric_limits<std::size_t>::max()) {
      number_at(time_column, t);
      if (!(t > previous_time)) {
        fail(line.number, cells[time_column].column,
             "time " + detail::quote(trim(cells[time_column].text)) +
                 " does not increase from the row before");
      }
      time_resolution =
          std::fmin(time_resolution, detail::printed_resolution(cells[time_column].text));
    }
    previous_time = t;
    for (std::size_t b = 0; b < body_start.size(); ++b) {
      double v[k_body_columns];
      for (std::size_t k = 0; k < k_body_columns; ++k) {
        number_at(body_start[b] + k, v[k]);
      }
      if (!kept[b]) {
        continue;
      }
      bool valid = !(v[6] < 0.0) && !std::isnan(v[6]);
      for (std::size_t k : {0, 1, 2, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
        valid = valid && std::isfinite(v[k]);
      }
      try {
        if (!valid) {
          tracks[b].append_gap(t);
          continue;
        }
        Mat3 m;
        for (int col = 0; col < 3; ++col) {
          for (int rr = 0; rr < 3; ++rr) {
            m.m[rr][col] = v[7 + 3 * col + rr];
          }
        }
        Quat q;
        try {
          q = nearest_rotation(m);
        } catch (const MocapError& e) {
          fail(line.number, cells[body_start[b] + 7].column,
               "body '" + body_names[b] + "': Rot[0..8] " + e.what());
        }
        tracks[b].append(t, conversion.apply({{v[0], v[1], v[2]}, q}));
      } catch (const LoadError&) {
        throw;
      } catch (const MocapError& e) {
        fail(line.number, cells[body_start[b]].column, e.what());
      }
    }
    ++frame;
  }
  if (claimed_frames != static_cast<double>(frame)) {
    const std::string cut = "NO_OF_FRAMES says " + value("NO_OF_FRAMES")[0] + " but the file has " +
                            std::to_string(frame) + " data rows";
    if (options.strict) {
      fail(header_line["NO_OF_FRAMES"], 14, cut + " (LoadOptions::strict refuses this)");
    }
    info.tolerated.push_back(cut + "; the rows were read");
    info.notes.push_back(info.tolerated.back());
  }
  detail::use_rate_grid(tracks, frequency, time_resolution, info);
  Capture capture(info);
  for (std::size_t b = 0; b < tracks.size(); ++b) {
    if (kept[b]) {
      tracks[b].make_continuous();
      capture.add_track(std::move(tracks[b]));
    }
  }
  return capture;
}

} // namespace odemocap
