// OpenSim TRC (track row column) marker files: "PathFileType 4 (X/Y/Z) name", a row of keys
// (DataRate, CameraRate, NumFrames, NumMarkers, Units, OrigDataRate, ...) and one of their
// values, the marker names (Frame#, Time, then the names), the axis names (X1 Y1 Z1 X2 ...),
// then one row per frame: frame, time, and marker k's X Y Z in columns 2 + 3k. TAB-separated
// (some writers use commas: the first line tells); an empty cell, or a row that stops early, is
// a gap. Triplets beyond the named markers are kept as markers of their own. OpenSim is Y up.
//
// The header rows are read as OpenSim's own reader (TRCFileAdapter) reads them: their empty
// cells are left out and what remains is taken in order, wherever it stands. Writers pad the
// first line with spaces ("PathFileType  4"), double the TABs between values ("100.0\t\t100.0"),
// put a marker's name over its Y column, or leave out the axis row's two leading cells;
// OpenSim's own test files do all of these.

#include "checks.hpp"
#include "csv_bodies.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using detail::CsvCell;
using detail::CsvReader;
using detail::quote;

/// The next row that is not blank; false at the end.
bool next_filled(CsvReader& reader, std::vector<CsvCell>& cells) {
  while (reader.next_row(cells)) {
    if (!detail::is_blank(cells)) {
      return true;
    }
  }
  return false;
}

/// A header row's cells that are not empty, in order.
std::vector<CsvCell> filled(const std::vector<CsvCell>& cells) {
  std::vector<CsvCell> out;
  for (const CsvCell& c : cells) {
    if (!c.text.empty()) {
      out.push_back(c);
    }
  }
  return out;
}

/// Whether a names row has a name elsewhere than over its marker's X column (2 + 3k).
bool names_elsewhere(const std::vector<CsvCell>& cells) {
  std::size_t filled_before = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].text.empty()) {
      continue;
    }
    const std::size_t expected = filled_before < 2 ? filled_before : 2 + 3 * (filled_before - 2);
    if (i != expected) {
      return true;
    }
    ++filled_before;
  }
  return false;
}

double metres_per(const std::string& unit, CsvReader& reader, std::size_t column) {
  if (const std::optional<double> metres = detail::declared_unit(unit)) {
    return *metres;
  }
  reader.fail(column, "unknown Units " + quote(unit) + "; expected mm, cm or m");
}

} // namespace

Capture parse_trc(std::string_view text, std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  CsvReader reader(text, source, detail::detect_delimiter(detail::first_line(text)));
  std::vector<CsvCell> cells;
  if (!next_filled(reader, cells) || detail::first_word(cells[0].text) != "PathFileType") {
    reader.fail(1, "expected 'PathFileType' on the first line of a TRC file");
  }
  // Keys, then their values, read by name.
  if (!next_filled(reader, cells)) {
    reader.fail(1, "the file ends before the DataRate ... keys");
  }
  std::vector<std::string> keys;
  for (const CsvCell& c : filled(cells)) {
    keys.emplace_back(c.text);
  }
  if (!next_filled(reader, cells)) {
    reader.fail(1, "the file ends before the values of " + quote(keys[0]) + " ...");
  }
  const std::size_t values_line = reader.line();
  const std::vector<CsvCell> value_cells = filled(cells);
  std::map<std::string, std::pair<std::string, std::size_t>> values;
  for (std::size_t i = 0; i < keys.size() && i < value_cells.size(); ++i) {
    values[keys[i]] = {std::string(value_cells[i].text), value_cells[i].column};
  }
  const auto number = [&](const char* key, bool required, double fallback) {
    const auto it = values.find(key);
    if (it == values.end()) {
      if (required) {
        reader.fail(1, std::string("the header has no ") + key);
      }
      return fallback;
    }
    double v = 0.0;
    if (!detail::parse_double(detail::trim(it->second.first), v)) {
      reader.fail(it->second.second,
                  std::string(key) + " is not a number: " + quote(it->second.first));
    }
    return v;
  };
  const double rate = number("DataRate", true, 0.0);
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    reader.fail(values["DataRate"].second, "DataRate must be positive");
  }
  const double claimed_frames = number("NumFrames", false, -1.0);
  const double claimed_markers = number("NumMarkers", false, -1.0);
  const auto units = values.find("Units");
  const double unit =
      units == values.end() ? 0.0 : metres_per(units->second.first, reader, units->second.second);

  // Marker names: Frame#, Time, then the names in order; marker k's data is in columns 2 + 3k
  // whichever columns its name stands over.
  if (!next_filled(reader, cells)) {
    reader.fail(1, "expected the row of marker names (Frame#, Time, names)");
  }
  const std::vector<CsvCell> labels = filled(cells);
  if (labels.empty() || detail::lower(labels[0].text).rfind("frame", 0) != 0) {
    reader.fail(labels.empty() ? 1 : labels[0].column,
                "expected the row of marker names (Frame#, Time, names)");
  }
  const std::size_t names_line = reader.line();
  std::vector<std::string> names;
  std::vector<std::size_t> first_column;
  std::set<std::string> seen;
  const bool elsewhere = names_elsewhere(cells);
  for (std::size_t i = 2; i < labels.size(); ++i) {
    std::string name(labels[i].text);
    if (!seen.insert(name).second) {
      reader.fail(labels[i].column, "a second marker named " + quote(name));
    }
    first_column.push_back(2 + 3 * names.size());
    names.push_back(std::move(name));
  }
  CaptureInfo info;
  info.source = std::string(source);
  info.format = to_string(Format::Trc);
  info.frame_rate = rate;
  info.length_unit = units == values.end() ? "" : units->second.first;
  if (units == values.end()) {
    info.notes.push_back("no Units in the header");
  }
  // What the file gets wrong but can be read past: refused when strict, else kept as a note.
  const auto tolerate = [&](std::size_t line, const std::string& what) {
    if (options.strict) {
      throw LoadError(std::string(source), line, 0, what + " (LoadOptions::strict refuses this)");
    }
    info.tolerated.push_back(what);
  };
  if (claimed_markers >= 0 && claimed_markers != static_cast<double>(names.size())) {
    tolerate(values_line, "NumMarkers says " + detail::describe(claimed_markers) + " but line " +
                              std::to_string(names_line) + " names " +
                              std::to_string(names.size()) + " markers; the names were used");
  }
  if (elsewhere) {
    tolerate(names_line, "line " + std::to_string(names_line) +
                             " puts marker names over other columns than their X columns; "
                             "marker k was read from columns 2 + 3k, as OpenSim reads it");
  }
  // The axis row: X1 Y1 Z1 X2 ..., in order. A file that names no marker (its triplets all
  // unnamed, NumMarkers 0) may leave it blank: the next filled row is then its first data row.
  if (!next_filled(reader, cells)) {
    reader.fail(1, "the file ends before the row of axis names (X1 Y1 Z1 ...)");
  }
  double first_cell = 0.0;
  const bool data_pending =
      names.empty() && detail::read_number(cells[0], false, first_cell) == detail::CellKind::Number;
  const std::vector<CsvCell> axes = filled(cells);
  for (std::size_t m = 0; m < names.size(); ++m) {
    for (std::size_t k = 0; k < 3; ++k) {
      const std::size_t i = 3 * m + k;
      const char axis = static_cast<char>('X' + k);
      if (i >= axes.size() || std::toupper(static_cast<unsigned char>(axes[i].text[0])) != axis) {
        reader.fail(i < axes.size() ? axes[i].column : 1,
                    "marker " + quote(names[m]) + ": expected " + std::string(1, axis) +
                        std::to_string(m + 1) + " in the axis row, found " +
                        quote(i < axes.size() ? axes[i].text : std::string_view()));
      }
    }
  }
  // Read in the file's own axes (its unit converted); turned once the up axis is known.
  const detail::PoseConversion conversion{
      detail::make_conversion(options, Axis::Y, unit, info).scale, Quat{}};
  const detail::TrackSelection selection(options.tracks);
  std::vector<Track> tracks;
  for (const std::string& name : names) {
    tracks.emplace_back(name);
    tracks.back().set_position_only(true);
  }
  std::size_t rows = 0;
  double previous = -INFINITY;
  // Rows may carry more triplets than the header names: each becomes a marker named after
  // its number in the axis row (X12 Y12 Z12: "unnamed12"), with gaps before it first appears.
  const std::size_t extra_start = names.empty() ? 2 : first_column.back() + 3;
  std::vector<Track> extra;
  std::vector<double> times;
  double time_resolution = INFINITY; // the finest the time column is printed to
  for (bool pending = data_pending; pending || next_filled(reader, cells); pending = false) {
    double t = 0.0;
    if (cells.size() < 2 || detail::read_number(cells[1], false, t) != detail::CellKind::Number) {
      reader.fail(cells.size() > 1 ? cells[1].column : 1, "the time must be a number");
    }
    time_resolution = std::fmin(time_resolution, detail::printed_resolution(cells[1].text));
    if (!(t > previous)) {
      reader.fail(cells[1].column,
                  "time " + detail::describe(t) + " s is not after the previous row's");
    }
    previous = t;
    for (std::size_t m = 0; m < names.size(); ++m) {
      detail::append_marker_sample(reader, cells, first_column[m], t, conversion, tracks[m]);
    }
    for (std::size_t c = extra_start + 3 * extra.size(); c < cells.size(); c += 3) {
      if (cells[c].text.empty() && (c + 1 >= cells.size() || cells[c + 1].text.empty()) &&
          (c + 2 >= cells.size() || cells[c + 2].text.empty())) {
        continue; // trailing empty cells are no marker
      }
      while (extra_start + 3 * extra.size() <= c) {
        std::string name =
            "unnamed" + std::to_string((extra_start - 2) / 3 + extra.size() + 1);
        while (!seen.insert(name).second) {
          name += "'"; // a named marker took it
        }
        extra.emplace_back(name);
        extra.back().set_position_only(true);
        for (double earlier : times) {
          extra.back().append_gap(earlier);
        }
      }
    }
    for (std::size_t e = 0; e < extra.size(); ++e) {
      detail::append_marker_sample(reader, cells, extra_start + 3 * e, t, conversion, extra[e]);
    }
    times.push_back(t);
    ++rows;
  }
  if (!extra.empty()) {
    std::size_t samples = 0;
    for (const Track& e : extra) {
      samples += e.valid_count();
    }
    info.notes.push_back("the rows carry " + std::to_string(extra.size()) +
                         " marker(s) more than line " + std::to_string(names_line) + " names (" +
                         std::to_string(samples) + " valid samples): kept as " +
                         extra.front().name() +
                         (extra.size() > 1 ? " to " + extra.back().name() : std::string()));
    for (Track& e : extra) {
      names.push_back(e.name());
      tracks.push_back(std::move(e));
    }
  }
  if (rows == 0) {
    reader.fail(1, "the file has no data rows");
  }
  if (tracks.empty()) {
    throw LoadError(std::string(source), names_line, 1,
                    "no marker: the names row names none and no row holds a value past the time");
  }
  selection.check_found(names, source);
  detail::use_rate_grid(tracks, rate, time_resolution, info);
  // OpenSim's convention is Y up; labs export TRC files in their Z-up frames too (BTK's
  // samples, some of opensim-core's own): the markers tell, where they are a person upright
  // over a floor at the origin.
  std::vector<const Track*> places;
  for (const Track& track : tracks) {
    places.push_back(&track);
  }
  const Quat turn =
      detail::settle_marker_up(places, Axis::Y, "not OpenSim's convention, +Y", options, info);
  if (turn.w != 1.0) {
    for (Track& track : tracks) {
      try {
        track.turn(turn);
      } catch (const MocapError& e) {
        throw LoadError(std::string(source), 0, 0, e.what());
      }
    }
  }
  if (claimed_frames >= 0 && claimed_frames != static_cast<double>(rows)) {
    tolerate(values_line, "NumFrames says " + detail::describe(claimed_frames) +
                              " but the file has " + std::to_string(rows) +
                              " data rows; the rows were read");
  }
  for (const std::string& t : info.tolerated) {
    info.notes.push_back(t);
  }
  Capture capture(info);
  for (Track& track : tracks) {
    if (selection.keep(track.name())) {
      capture.add_track(std::move(track));
    }
  }
  return capture;
}

} // namespace odemocap
