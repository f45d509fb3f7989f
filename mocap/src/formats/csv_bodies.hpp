#pragma once
// Rows of a rigid-body table (generic CSV or Motive CSV) into tracks: one time column, an
// optional frame column, and per body three position and four quaternion columns.

#include "csv_reader.hpp"
#include "load_common.hpp"

#include <string>
#include <vector>

namespace odemocap::detail {

/// Where a body's values are; -1 for a column not (yet) found.
struct BodyColumns {
  std::string name;
  int position[3] = {-1, -1, -1};       ///< x, y, z
  int quaternion[4] = {-1, -1, -1, -1}; ///< w, x, y, z
  std::size_t header_column = 0;        ///< byte column of the body's first header cell

  /// A marker: x, y, z columns and no quaternion column at all.
  bool position_only() const {
    return quaternion[0] < 0 && quaternion[1] < 0 && quaternion[2] < 0 && quaternion[3] < 0;
  }
};

/// The table's layout, from the header.
struct TableLayout {
  int time_column = -1;
  int frame_column = -1;
  double frame_rate = 0.0; ///< used when there is no time column
  std::size_t header_cells = 0;
  std::vector<BodyColumns> bodies;
};

/// What the rows showed besides the samples.
struct RowStats {
  std::size_t rows = 0;
  std::size_t frame_jumps = 0;  ///< frame numbers that do not follow the previous one
  std::size_t renormalized = 0; ///< quaternions scaled to unit length (LoadOptions::renormalize)
  double worst_length = 1.0;    ///< the length furthest from 1 among those
  std::string first_jump;       ///< e.g. "72838 -> 76400 at line 637"
  /// The last line, when it ends without a line break before the header's last column (a
  /// file cut short mid-row): dropped, 0 when there is none. `cut_cells`: its cells.
  std::size_t cut_line = 0;
  std::size_t cut_cells = 0;
  /// The finest the time column is printed to (s; see printed_resolution), when there is one.
  double time_resolution = 0.0;
};

/// Records that header cell `index` (at byte `column`) holds component `slot` (0..6: x, y, z,
/// qw, qx, qy, qz) of body `name`, adding the body when new. A second column for the same
/// component is a LoadError naming `cell_text`.
void assign_column(TableLayout& layout, const std::string& name, int slot, std::size_t index,
                   std::size_t column, const std::string& cell_text, const CsvReader& reader);

/// Throws LoadError (at the header line) naming the first body that lacks a column: each needs
/// x, y, z, and all four quaternion components or none (a marker, loaded position-only).
void check_complete(const TableLayout& layout, const CsvReader& reader);

/// Checks that the requested tracks exist, reads every remaining row (read_body_rows) and
/// returns the capture made of `info` and the tracks; frame jumps become a note. `lines` is the
/// input's line count (it bounds the rows: the tracks reserve that much once). `stats`
/// receives what the rows showed.
Capture read_capture(CsvReader& reader, const TableLayout& layout, bool decimal_comma,
                     const PoseConversion& conversion, const LoadOptions& options,
                     std::size_t lines, CaptureInfo info, RowStats& stats);

/// Reads every remaining row into one track per selected body. Empty or NaN cells make the
/// body's sample a gap; a cell that is not a number, a missing time, or a pose a Track rejects
/// is a LoadError at its line and column.
RowStats read_body_rows(CsvReader& reader, const TableLayout& layout, bool decimal_comma,
                        bool renormalize, const PoseConversion& conversion,
                        const TrackSelection& selection, std::size_t expected_rows,
                        std::vector<Track>& tracks);

/// Reads body `body`'s cells of a row and appends the sample at `time` to `track`, as
/// read_body_rows does for each body: empty or NaN cells make a gap; a quaternion off unit
/// length by more than Track::k_unit_tolerance is a LoadError unless `renormalize` (then
/// scaled, and counted in `stats`).
void append_body_sample(const CsvReader& reader, const std::vector<CsvCell>& cells,
                        const BodyColumns& body, bool decimal_comma, bool renormalize, double time,
                        const PoseConversion& conversion, Track& track, RowStats& stats);

/// Reads a marker's X, Y, Z cells from cell `first` of a row and appends the sample at `time`
/// to `track` (position-only): empty cells, or a row that ends before them, make a gap; a cell
/// that is not a number is a LoadError at its column.
void append_marker_sample(const CsvReader& reader, const std::vector<CsvCell>& cells,
                          std::size_t first, double time, const PoseConversion& conversion,
                          Track& track);

} // namespace odemocap::detail
