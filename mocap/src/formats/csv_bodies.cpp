#include "csv_bodies.hpp"
#include "checks.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

const char* const k_component_names[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};

/// Reads cell `index` of `cells` (absent cells are empty).
CellKind cell_number(const std::vector<CsvCell>& cells, int index, bool decimal_comma, double& out,
                     std::size_t& column) {
  const auto i = static_cast<std::size_t>(index);
  if (i >= cells.size()) {
    column = cells.empty() ? 1 : cells.back().column;
    return CellKind::Empty;
  }
  column = cells[i].column;
  return read_number(cells[i], decimal_comma, out);
}

} // namespace

void assign_column(TableLayout& layout, const std::string& name, int slot, std::size_t index,
                   std::size_t column, const std::string& cell_text, const CsvReader& reader) {
  auto body = std::find_if(layout.bodies.begin(), layout.bodies.end(),
                           [&](const BodyColumns& b) { return b.name == name; });
  if (body == layout.bodies.end()) {
    layout.bodies.push_back({name, {-1, -1, -1}, {-1, -1, -1, -1}, column});
    body = layout.bodies.end() - 1;
  }
  int& target = slot < 3 ? body->position[slot] : body->quaternion[slot - 3];
  if (target >= 0) {
    reader.fail(column, "a second column for " + std::string(k_component_names[slot]) +
                            " of body '" + name + "': " + quote(cell_text));
  }
  target = static_cast<int>(index);
}

void check_complete(const TableLayout& layout, const CsvReader& reader) {
  if (layout.bodies.empty()) {
    reader.fail(1, "no rigid-body columns found");
  }
  for (const BodyColumns& body : layout.bodies) {
    std::string missing;
    const int components = body.position_only() ? 3 : 7;
    for (int c = 0; c < components; ++c) {
      const int index = c < 3 ? body.position[c] : body.quaternion[c - 3];
      if (index < 0) {
        missing += (missing.empty() ? "" : ", ") + std::string(k_component_names[c]);
      }
    }
    if (!missing.empty()) {
      reader.fail(body.header_column,
                  "body '" + body.name + "' has no column for " + missing +
                      " (each body needs x, y, z, and a whole quaternion or none)");
    }
  }
}

void append_body_sample(const CsvReader& reader, const std::vector<CsvCell>& cells,
                        const BodyColumns& body, bool decimal_comma, bool renormalize, double time,
                        const PoseConversion& conversion, Track& track, RowStats& stats) {
  double v[7] = {0, 0, 0, 1, 0, 0, 0}; // a marker keeps the identity
  bool gap = false;
  std::size_t column = 1;
  const int components = body.position_only() ? 3 : 7;
  for (int c = 0; c < components; ++c) {
    const int index = c < 3 ? body.position[c] : body.quaternion[c - 3];
    const CellKind kind = cell_number(cells, index, decimal_comma, v[c], column);
    if (kind == CellKind::Invalid) {
      reader.fail(column, "body '" + body.name + "' " + k_component_names[c] +
                              ": expected a number, found " +
                              quote(cells[static_cast<std::size_t>(index)].text));
    }
    gap = gap || kind != CellKind::Number;
  }
  const double length = std::sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
  if (!gap && renormalize && length > 1e-12 && std::fabs(length - 1.0) > 1e-12) {
    for (int c = 3; c < 7; ++c) {
      v[c] /= length;
    }
    ++stats.renormalized;
    if (std::fabs(length - 1.0) > std::fabs(stats.worst_length - 1.0)) {
      stats.worst_length = length;
    }
  } else if (!gap && !(std::fabs(length - 1.0) <= Track::k_unit_tolerance)) {
    cell_number(cells, body.quaternion[0], decimal_comma, v[3], column);
    reader.fail(column, "body '" + body.name + "': the quaternion has length " + describe(length) +
                            "; expected unit length (tolerance 1e-3)");
  }
  try {
    if (gap) {
      track.append_gap(time);
    } else {
      track.append(time, conversion.apply({Vec3{v[0], v[1], v[2]}, Quat{v[3], v[4], v[5], v[6]}}));
    }
  } catch (const MocapError& e) {
    reader.fail(1, e.what()); // backstop: the checks above cover what Track rejects
  }
}

RowStats read_body_rows(CsvReader& reader, const TableLayout& layout, bool decimal_comma,
                        bool renormalize, const PoseConversion& conversion,
                        const TrackSelection& selection, std::size_t expected_rows,
                        std::vector<Track>& tracks) {
  std::vector<const BodyColumns*> selected;
  for (const BodyColumns& body : layout.bodies) {
    if (selection.keep(body.name)) {
      selected.push_back(&body);
      tracks.emplace_back(body.name);
      tracks.back().set_position_only(body.position_only()); // before reserve: no quaternions
      tracks.back().reserve(expected_rows);
    }
  }
  RowStats stats;
  std::vector<CsvCell> cells;
  double previous_frame = 0.0;
  double previous_time = 0.0;
  while (reader.next_row(cells)) {
    if (cells.size() == 1 && cells[0].text.empty()) {
      continue; // blank line
    }
    if (!reader.row_terminated() && cells.size() < layout.header_cells) {
      // The exporters end every row with a line break: a last row without one that stops
      // before the header's columns was cut mid-row, its last number perhaps mid-digits.
      stats.cut_line = reader.line();
      stats.cut_cells = cells.size();
      break;
    }
    for (std::size_t i = layout.header_cells; i < cells.size(); ++i) {
      if (!cells[i].text.empty()) {
        reader.fail(cells[i].column, "this row has a value in column " + std::to_string(i + 1) +
                                         " but the header names only " +
                                         std::to_string(layout.header_cells) + " columns");
      }
    }
    double value = 0.0;
    std::size_t column = 1;
    double frame = 0.0;
    if (layout.frame_column >= 0) {
      constexpr double k_max_frame = 9007199254740992.0; // 2^53: whole numbers stay exact
      if (cell_number(cells, layout.frame_column, decimal_comma, value, column) !=
              CellKind::Number ||
          value != std::floor(value) || std::fabs(value) > k_max_frame) {
        reader.fail(column, "the frame number must be a whole number of at most 2^53");
      }
      frame = value;
      if (stats.rows > 0 && frame != previous_frame + 1.0) {
        if (stats.frame_jumps++ == 0) {
          stats.first_jump = std::to_string(static_cast<long long>(previous_frame)) + " -> " +
                             std::to_string(static_cast<long long>(frame)) + " at line " +
                             std::to_string(reader.line());
        }
      }
      previous_frame = frame;
    }
    double time = 0.0;
    if (layout.time_column >= 0) {
      if (cell_number(cells, layout.time_column, decimal_comma, time, column) != CellKind::Number) {
        reader.fail(column, "the time must be a number");
      }
      const double printed =
          printed_resolution(cells[static_cast<std::size_t>(layout.time_column)].text);
      stats.time_resolution = stats.rows == 0 ? printed : std::fmin(stats.time_resolution, printed);
    } else {
      time = frame / layout.frame_rate;
    }
    if (stats.rows > 0 && !(time > previous_time)) {
      reader.fail(column, "time " + describe(time) + " s is not after the previous row's " +
                              describe(previous_time) + " s (times must increase strictly)");
    }
    previous_time = time;
    for (std::size_t b = 0; b < selected.size(); ++b) {
      append_body_sample(reader, cells, *selected[b], decimal_comma, renormalize, time, conversion,
                         tracks[b], stats);
    }
    ++stats.rows;
  }
  for (Track& track : tracks) {
    track.make_continuous();
  }
  return stats;
}

void append_marker_sample(const CsvReader& reader, const std::vector<CsvCell>& cells,
                          std::size_t first, double time, const PoseConversion& conversion,
                          Track& track) {
  double v[3];
  bool gap = false;
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t c = first + k;
    if (c >= cells.size()) {
      gap = true; // the row stops before the marker: trailing empty cells
      continue;
    }
    const CellKind kind = read_number(cells[c], false, v[k]);
    if (kind == CellKind::Invalid) {
      reader.fail(cells[c].column,
                  "marker " + quote(track.name()) + ": not a number: " + quote(cells[c].text));
    }
    gap = gap || kind != CellKind::Number;
  }
  try {
    if (gap) {
      track.append_gap(time);
    } else {
      track.append(time, {conversion.apply({{v[0], v[1], v[2]}, Quat{}}).p, Quat{}});
    }
  } catch (const MocapError& e) {
    reader.fail(1, e.what());
  }
}

Capture read_capture(CsvReader& reader, const TableLayout& layout, bool decimal_comma,
                     const PoseConversion& conversion, const LoadOptions& options,
                     std::size_t lines, CaptureInfo info, RowStats& stats) {
  const TrackSelection selection(options.tracks);
  std::vector<std::string> names;
  for (const BodyColumns& body : layout.bodies) {
    names.push_back(body.name);
  }
  selection.check_found(names, reader.source());
  std::vector<Track> tracks;
  stats = read_body_rows(reader, layout, decimal_comma, options.renormalize, conversion, selection,
                         lines, tracks);
  if (stats.renormalized > 0) {
    info.notes.push_back(std::to_string(stats.renormalized) +
                         " quaternion(s) renormalised, the furthest from unit length " +
                         describe(stats.worst_length));
  }
  if (stats.cut_line > 0) {
    const std::string cut = "line " + std::to_string(stats.cut_line) +
                            ", the last, ends without a line break after " +
                            std::to_string(stats.cut_cells) + " of " +
                            std::to_string(layout.header_cells) +
                            " cells: the file was cut short; the row was dropped";
    if (options.strict) {
      throw LoadError(std::string(reader.source()), stats.cut_line, 1, cut);
    }
    info.tolerated.push_back(cut);
    info.notes.push_back(cut);
  }
  if (stats.frame_jumps > 0) {
    info.notes.push_back("frame numbers jump " + std::to_string(stats.frame_jumps) +
                         " time(s), first " + stats.first_jump);
  }
  if (layout.time_column >= 0) {
    use_rate_grid(tracks, info.frame_rate, stats.time_resolution, info);
  }
  Capture capture(std::move(info));
  for (Track& track : tracks) {
    capture.add_track(std::move(track));
  }
  return capture;
}

} // namespace odemocap::detail
