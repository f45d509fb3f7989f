// Vicon Nexus CSV export: blocks (Devices, Trajectories, Model Outputs, ...), each a name line,
// a rate line, a row of names (for trajectories "subject:marker" at every third column), a
// row of column names (Frame, Sub Frame, X, Y, Z, ...), a row of units, then one row per frame
// up to a blank line. The Trajectories block is read: markers as position-only tracks; empty
// cells (and rows cut short of their padding commas) are gaps. Other blocks are skipped with
// a note.

#include "checks.hpp"
#include "csv_bodies.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using detail::CsvCell;
using detail::CsvReader;
using detail::quote;

std::string_view text_at(const std::vector<CsvCell>& cells, std::size_t i) {
  return i < cells.size() ? cells[i].text : std::string_view();
}

/// Metres per unit of a Trajectories units cell.
double metres_per(std::string_view unit, CsvReader& reader, std::size_t column) {
  if (const std::optional<double> metres = detail::declared_unit(unit)) {
    return *metres;
  }
  reader.fail(column, "unknown trajectory unit " + quote(unit) + "; expected mm, cm or m");
}

/// A marker's three columns.
struct MarkerColumns {
  std::string name;
  std::size_t x = 0;
};

} // namespace

Capture parse_vicon_csv(std::string_view text, std::string_view source,
                        const LoadOptions& options) {
  detail::check_options(options, source);
  CsvReader reader(text, source, ',');
  std::vector<CsvCell> cells;
  std::vector<std::string> skipped;
  CaptureInfo info;
  info.source = std::string(source);
  info.format = to_string(Format::ViconCsv);
  while (reader.next_row(cells)) {
    if (detail::is_blank(cells)) {
      continue;
    }
    const std::string block(cells[0].text);
    if (block != "Trajectories") {
      skipped.push_back(block);
      while (reader.next_row(cells) && !detail::is_blank(cells)) {
      }
      continue;
    }
    // The rate line.
    double rate = 0.0;
    if (!reader.next_row(cells) || !detail::parse_double(text_at(cells, 0), rate) ||
        !(rate > 0.0) || !std::isfinite(rate)) {
      reader.fail(1, "expected the Trajectories block's frame rate (Hz) on the line after "
                     "'Trajectories'");
    }
    // Marker names at every third column from the third.
    if (!reader.next_row(cells)) {
      reader.fail(1, "the file ends before the row of marker names");
    }
    std::vector<MarkerColumns> markers;
    std::set<std::string> names;
    for (std::size_t i = 1; i < cells.size(); ++i) { // cell 0 is under Frame
      if (cells[i].text.empty()) {
        continue;
      }
      const std::string name(cells[i].text);
      if (!names.insert(name).second) {
        reader.fail(cells[i].column, "a second marker named " + quote(name));
      }
      markers.push_back({name, i});
    }
    if (markers.empty()) {
      reader.fail(1, "the Trajectories block names no marker");
    }
    // "Frame, Sub Frame, X, Y, Z, ..." (Nexus 2) or "Field #, X, Y, Z, ..." (older exports).
    if (!reader.next_row(cells) ||
        (text_at(cells, 0) != "Frame" && text_at(cells, 0) != "Field #")) {
      reader.fail(1, "expected the column names (Frame, Sub Frame, X, Y, Z, ...)");
    }
    for (const MarkerColumns& m : markers) {
      for (std::size_t k = 0; k < 3; ++k) {
        const std::string want(1, static_cast<char>('X' + k));
        if (text_at(cells, m.x + k) != want) {
          reader.fail(m.x + k < cells.size() ? cells[m.x + k].column : 1,
                      "marker " + quote(m.name) + ": expected column " + quote(want) + ", found " +
                          quote(text_at(cells, m.x + k)));
        }
      }
    }
    if (!reader.next_row(cells)) {
      reader.fail(1, "the file ends before the row of units");
    }
    // The units row; older exports go straight to the data (a number under Frame).
    const std::size_t unit_column = markers.front().x;
    double first_frame = 0.0;
    const bool units_row = !detail::parse_double(text_at(cells, 0), first_frame);
    const double unit = units_row
                            ? metres_per(text_at(cells, unit_column), reader,
                                         unit_column < cells.size() ? cells[unit_column].column : 1)
                            : 0.001;
    info.length_unit = units_row ? std::string(text_at(cells, unit_column)) : "mm";
    if (!units_row) {
      info.notes.push_back("the Trajectories block has no units row: millimetres assumed "
                           "(Vicon's unit)");
    }
    info.frame_rate = rate;
    const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, unit, info);
    const detail::TrackSelection selection(options.tracks);
    std::vector<std::string> all;
    for (const MarkerColumns& m : markers) {
      all.push_back(m.name);
    }
    selection.check_found(all, source);
    std::vector<Track> tracks;
    for (const MarkerColumns& m : markers) {
      tracks.emplace_back(m.name);
      tracks.back().set_position_only(true);
    }
    double previous = -INFINITY;
    for (bool row = units_row ? reader.next_row(cells) : true; row && !detail::is_blank(cells);
         row = reader.next_row(cells)) {
      double frame = 0.0;
      if (detail::read_number(cells[0], false, frame) != detail::CellKind::Number ||
          frame != std::floor(frame) || std::fabs(frame) > 9007199254740992.0) {
        reader.fail(cells[0].column, "the frame number must be a whole number");
      }
      const double t = (frame - 1.0) / rate;
      if (!(t > previous)) {
        reader.fail(cells[0].column,
                    "frame " + detail::describe(frame) + " does not follow the row before");
      }
      previous = t;
      for (std::size_t m = 0; m < markers.size(); ++m) {
        detail::append_marker_sample(reader, cells, markers[m].x, t, conversion, tracks[m]);
      }
    }
    if (tracks.front().empty()) {
      reader.fail(1, "the Trajectories block has no data rows");
    }
    for (const std::string& other : skipped) {
      info.notes.push_back("block " + quote(other) + " skipped (markers come from Trajectories)");
    }
    Capture capture(info);
    for (Track& t : tracks) {
      if (selection.keep(t.name())) {
        capture.add_track(std::move(t));
      }
    }
    // Blocks after Trajectories are not read.
    return capture;
  }
  std::string found;
  for (const std::string& b : skipped) {
    found += (found.empty() ? "" : ", ") + quote(b);
  }
  reader.fail(1, "no Trajectories block (marker positions) in this Vicon export; it has " +
                     (found.empty() ? std::string("no block") : found));
}

} // namespace odemocap
