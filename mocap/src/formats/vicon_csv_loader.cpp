// Vicon Nexus and Tracker CSV exports: blocks (Devices, Trajectories, Objects, Model Outputs,
// ...), each a name line, a rate line, a row of names (for trajectories "subject:marker" at
// every third column), a row of column names (Frame, Sub Frame, X, Y, Z, ...), a row of units,
// then one row per frame up to a blank line. Trajectories are read as position-only tracks;
// Objects (tracked rigid bodies: "Global Angle (Quaternion) Tool:Tool" over RX RY RZ RW and a
// translation TX TY TZ, in either order) as rigid-body tracks, the quaternion x, y, z, w as
// its columns are named. Empty cells (and rows cut short of their padding commas) are gaps.
// Other blocks are skipped with a note.

#include "checks.hpp"
#include "csv_bodies.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
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

/// The rate line after a block's name.
double block_rate(CsvReader& reader, std::vector<CsvCell>& cells, const std::string& block) {
  double rate = 0.0;
  if (!reader.next_row(cells) || !detail::parse_double(text_at(cells, 0), rate) || !(rate > 0.0) ||
      !std::isfinite(rate)) {
    reader.fail(1, "expected the " + block + " block's frame rate (Hz) on the line after " +
                       quote(block));
  }
  return rate;
}

/// The frame number in cell 0 of a data row, as the time since frame 1 at `rate`, which must
/// follow `previous`.
double row_time(CsvReader& reader, const std::vector<CsvCell>& cells, double rate,
                double previous) {
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
  return t;
}

/// A Trajectories block after its name line: markers as position-only tracks.
void read_trajectories(CsvReader& reader, const LoadOptions& options, CaptureInfo& info,
                       std::vector<Track>& out) {
  std::vector<CsvCell> cells;
  const double rate = block_rate(reader, cells, "Trajectories");
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
  if (!reader.next_row(cells) || (text_at(cells, 0) != "Frame" && text_at(cells, 0) != "Field #")) {
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
  if (!units_row) {
    info.notes.push_back("the Trajectories block has no units row: millimetres assumed "
                         "(Vicon's unit)");
  }
  if (info.frame_rate <= 0.0) { // the first block read gives the capture's rate and unit
    info.frame_rate = rate;
    info.length_unit = units_row ? std::string(text_at(cells, unit_column)) : "mm";
  }
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, unit, info);
  const std::size_t first = out.size();
  for (const MarkerColumns& m : markers) {
    out.emplace_back(m.name);
    out.back().set_position_only(true);
  }
  double previous = -INFINITY;
  for (bool row = units_row ? reader.next_row(cells) : true; row && !detail::is_blank(cells);
       row = reader.next_row(cells)) {
    const double t = row_time(reader, cells, rate, previous);
    previous = t;
    for (std::size_t m = 0; m < markers.size(); ++m) {
      detail::append_marker_sample(reader, cells, markers[m].x, t, conversion, out[first + m]);
    }
  }
  if (out[first].empty()) {
    reader.fail(1, "the Trajectories block has no data rows");
  }
}

/// An object's name from its label in an Objects block's names row: "Global Angle
/// (Quaternion) Tool:Tool" or "Global Translation Tool:Tool" is "Tool" (Tracker names each
/// object as a subject with one segment of the same name); "Rig:Base" stays "Rig:Base".
std::string object_name(std::string_view label) {
  for (const std::string_view prefix :
       {std::string_view("Global Angle (Quaternion) "), std::string_view("Global Angle "),
        std::string_view("Global Translation ")}) {
    if (label.substr(0, prefix.size()) == prefix) {
      label.remove_prefix(prefix.size());
      break;
    }
  }
  const std::size_t colon = label.find(':');
  if (colon != std::string_view::npos && label.substr(0, colon) == label.substr(colon + 1)) {
    label = label.substr(0, colon);
  }
  return std::string(detail::trim(label));
}

/// An Objects block after its name line (Vicon Tracker, and Nexus's object exports): rigid
/// bodies as tracks. Objects whose angle is not a quaternion (RX RY RZ without RW: Euler or
/// helical angles, whose convention the file does not say) are skipped and named in
/// `not_read`.
void read_objects(CsvReader& reader, const LoadOptions& options, CaptureInfo& info,
                  std::vector<Track>& out, std::vector<std::string>& not_read) {
  std::vector<CsvCell> cells;
  const double rate = block_rate(reader, cells, "Objects");
  if (!reader.next_row(cells)) {
    reader.fail(1, "the file ends before the row of object names");
  }
  // Each label names the object of the columns from it to the next label.
  std::vector<std::pair<std::size_t, std::string>> owner; // first column, object
  for (std::size_t i = 2; i < cells.size(); ++i) {
    if (cells[i].text.empty()) {
      continue;
    }
    const std::string name = object_name(cells[i].text);
    if (name.empty()) {
      reader.fail(cells[i].column, "an object label without a name: " + quote(cells[i].text));
    }
    owner.emplace_back(i, name);
  }
  if (owner.empty()) {
    reader.fail(1, "the Objects block names no object");
  }
  if (!reader.next_row(cells) || text_at(cells, 0) != "Frame") {
    reader.fail(1, "expected the column names (Frame, Sub Frame, RX, RY, RZ, RW, TX, TY, TZ)");
  }
  // Each object's columns by name; an angle without RW is no quaternion, whatever its label.
  static const std::pair<const char*, int> slots[] = {{"TX", 0}, {"TY", 1}, {"TZ", 2}, {"RW", 3},
                                                      {"RX", 4}, {"RY", 5}, {"RZ", 6}};
  std::map<std::string, std::vector<std::pair<int, std::size_t>>> columns; // object -> slots
  std::vector<std::string> objects;                                        // in file order
  for (std::size_t k = 0; k < owner.size(); ++k) {
    const std::size_t end = k + 1 < owner.size() ? owner[k + 1].first : cells.size();
    if (columns.find(owner[k].second) == columns.end()) {
      objects.push_back(owner[k].second);
    }
    std::vector<std::pair<int, std::size_t>>& found = columns[owner[k].second];
    for (std::size_t c = owner[k].first; c < end && c < cells.size(); ++c) {
      for (const auto& [column_name, slot] : slots) {
        if (cells[c].text == column_name) {
          found.emplace_back(slot, c);
        }
      }
    }
  }
  detail::TableLayout layout;
  const std::size_t names_line = reader.line();
  for (const std::string& name : objects) {
    const std::vector<std::pair<int, std::size_t>>& found = columns[name];
    const auto has = [&](int slot) {
      return std::any_of(found.begin(), found.end(),
                         [&](const std::pair<int, std::size_t>& f) { return f.first == slot; });
    };
    if ((has(4) || has(5) || has(6)) && !has(3)) {
      not_read.push_back(name);
      continue;
    }
    for (const auto& [slot, c] : found) {
      detail::assign_column(layout, name, slot, c, cells[c].column, std::string(cells[c].text),
                            reader);
    }
  }
  for (const detail::BodyColumns& body : layout.bodies) {
    if (body.position_only() || body.quaternion[0] < 0 || body.quaternion[1] < 0 ||
        body.quaternion[2] < 0 || body.quaternion[3] < 0 || body.position[0] < 0 ||
        body.position[1] < 0 || body.position[2] < 0) {
      throw LoadError(std::string(reader.source()), names_line, body.header_column,
                      "object " + quote(body.name) +
                          " needs the columns TX, TY, TZ and RX, RY, RZ, RW");
    }
  }
  if (!reader.next_row(cells)) {
    reader.fail(1, "the file ends before the row of units");
  }
  // The units row (empty under the quaternion, a length under TX); or straight to the data.
  double first_frame = 0.0;
  const bool units_row = !detail::parse_double(text_at(cells, 0), first_frame);
  double unit = 0.001;
  if (units_row && !layout.bodies.empty()) {
    const std::size_t tx = static_cast<std::size_t>(layout.bodies.front().position[0]);
    if (!text_at(cells, tx).empty()) {
      unit = metres_per(text_at(cells, tx), reader, tx < cells.size() ? cells[tx].column : 1);
    }
  }
  if (info.frame_rate <= 0.0) {
    info.frame_rate = rate;
    info.length_unit = unit == 0.001 ? "mm" : detail::describe(unit) + " m";
  }
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, unit, info);
  const std::size_t first = out.size();
  for (const detail::BodyColumns& body : layout.bodies) {
    out.emplace_back(body.name);
  }
  detail::RowStats stats;
  double previous = -INFINITY;
  for (bool row = units_row ? reader.next_row(cells) : true; row && !detail::is_blank(cells);
       row = reader.next_row(cells)) {
    const double t = row_time(reader, cells, rate, previous);
    previous = t;
    for (std::size_t b = 0; b < layout.bodies.size(); ++b) {
      detail::append_body_sample(reader, cells, layout.bodies[b], false, options.renormalize, t,
                                 conversion, out[first + b], stats);
    }
  }
  for (std::size_t b = first; b < out.size(); ++b) {
    out[b].make_continuous();
  }
  if (stats.renormalized > 0) {
    info.notes.push_back(std::to_string(stats.renormalized) +
                         " object quaternion(s) renormalised, the furthest from unit length " +
                         detail::describe(stats.worst_length));
  }
}

} // namespace

Capture parse_vicon_csv(std::string_view text, std::string_view source,
                        const LoadOptions& options) {
  detail::check_options(options, source);
  CsvReader reader(text, source, ',');
  std::vector<CsvCell> cells;
  std::vector<std::string> skipped;
  std::vector<std::string> not_read;
  CaptureInfo info;
  info.source = std::string(source);
  info.format = to_string(Format::ViconCsv);
  std::vector<Track> tracks;
  std::set<std::string> read;
  while (reader.next_row(cells)) {
    if (detail::is_blank(cells)) {
      continue;
    }
    const std::string block(cells[0].text);
    if (block == "Trajectories" && read.insert(block).second) {
      read_trajectories(reader, options, info, tracks);
    } else if (block == "Objects" && read.insert(block).second) {
      read_objects(reader, options, info, tracks, not_read);
    } else {
      skipped.push_back(block);
      while (reader.next_row(cells) && !detail::is_blank(cells)) {
      }
    }
  }
  if (tracks.empty()) {
    std::string found;
    for (const std::string& b : skipped) {
      found += (found.empty() ? "" : ", ") + quote(b);
    }
    std::string objects;
    for (const std::string& o : not_read) {
      objects += (objects.empty() ? "" : ", ") + quote(o);
    }
    reader.fail(1,
                "no Trajectories block (marker positions) or Objects block (rigid bodies "
                "with quaternions) in this Vicon export; it has " +
                    (found.empty() ? std::string("no other block") : found) +
                    (objects.empty() ? std::string()
                                     : "; objects whose angles are not quaternions: " + objects));
  }
  for (const std::string& other : skipped) {
    info.notes.push_back("block " + quote(other) +
                         " skipped (markers come from Trajectories, rigid bodies from Objects)");
  }
  for (const std::string& object : not_read) {
    info.notes.push_back("object " + quote(object) +
                         " skipped: its Global Angle is RX, RY, RZ (Euler or helical angles in "
                         "a convention the file does not say), not a quaternion");
  }
  std::vector<std::string> names;
  std::set<std::string> distinct;
  for (const Track& t : tracks) {
    if (!distinct.insert(t.name()).second) {
      throw LoadError(std::string(source), 0, 0,
                      "two tracks named " + quote(t.name()) + " (a marker and an object)");
    }
    names.push_back(t.name());
  }
  const detail::TrackSelection selection(options.tracks);
  selection.check_found(names, source);
  Capture capture(info);
  for (Track& t : tracks) {
    if (selection.keep(t.name())) {
      capture.add_track(std::move(t));
    }
  }
  return capture;
}

} // namespace odemocap
