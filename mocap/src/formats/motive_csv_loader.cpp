// OptiTrack Motive CSV export (format versions 1.2x): a row of key/value metadata, a blank
// row, header rows (Type, Name, ID, Motive 3's Parent, then the property row
// Rotation/Position), the column row "Frame, Time..., X, Y, Z, W...", then data. Rigid bodies and
// a skeleton's bones are loaded as bodies (quaternion X, Y, Z, W; position in "Length Units",
// converted to metres), markers, rigid body markers and bone markers as positions. Motive's
// axis convention is Y up, but its CSV export can write another (a Z-up preset for Visual3D and
// MotionMonitor, or custom axes) without saying so in the file: the axis is the one a person's
// markers and bones stand along, where they tell one (detail::settle_marker_up), else Y.
#include "csv_bodies.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace odemocap {
namespace {

using detail::CsvCell;
using detail::CsvReader;
using detail::lower;
using detail::quote;

constexpr std::size_t k_max_header_rows = 16;

struct Metadata {
  std::map<std::string, std::string> values;
  std::map<std::string, std::size_t> columns; ///< where each value was, for errors

  const std::string* find(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
  }
};

Metadata read_metadata(CsvReader& reader) {
  std::vector<CsvCell> cells;
  reader.next_row(cells);
  Metadata m;
  // Keys and values alternate; read them by name, not position (versions add and drop keys).
  for (std::size_t i = 0; i + 1 < cells.size(); i += 2) {
    m.values[std::string(cells[i].text)] = std::string(cells[i + 1].text);
    m.columns[std::string(cells[i].text)] = cells[i + 1].column;
  }
  return m;
}

double metres_per_unit(const Metadata& m, CsvReader& reader, CaptureInfo& info) {
  const std::string* units = m.find("Length Units");
  if (units == nullptr) {
    return 0.0; // inferred from the coordinates once they are read
  }
  info.length_unit = *units;
  if (const std::optional<double> metres = detail::declared_unit(*units)) {
    return *metres;
  }
  reader.fail(m.columns.at("Length Units"), "unknown Length Units " + quote(*units) +
                                                "; expected Meters, Centimeters or Millimeters");
}

/// Rigid bodies need quaternions; markers have no rotation, so a marker-only export with
/// Euler angles loads (noted). An error points at the metadata line (line 1).
void check_rotation_type(const Metadata& m, const CsvReader& reader, bool bodies,
                         CaptureInfo& info) {
  const std::string* type = m.find("Rotation Type");
  if (type == nullptr) {
    if (bodies) {
      info.notes.push_back("no 'Rotation Type' in the header: rotations taken as quaternions "
                           "(X, Y, Z, W columns)");
    }
    return;
  }
  if (lower(*type) == "quaternion") {
    return;
  }
  if (!bodies) {
    info.notes.push_back("Rotation Type " + quote(*type) + " does not matter: markers only");
    return;
  }
  throw LoadError(std::string(reader.source()), 1, m.columns.at("Rotation Type"),
                  "Rotation Type " + quote(*type) +
                      " is not supported: export the take from Motive with Rotation Type "
                      "Quaternion");
}

/// The header rows up to and including the "Frame" row, with their labels.
struct HeaderRows {
  std::vector<std::vector<std::string>> rows; ///< cells of each row before the Frame row
  std::vector<std::size_t> columns;           ///< byte column of each cell in the Frame row
  std::vector<std::string> frame_row;
};

HeaderRows read_header_rows(CsvReader& reader) {
  HeaderRows h;
  std::vector<CsvCell> cells;
  for (std::size_t n = 0; n < k_max_header_rows; ++n) {
    if (!reader.next_row(cells)) {
      reader.fail(1, "the file ends before the 'Frame' column row");
    }
    if (detail::is_blank(cells)) {
      continue; // the blank row after the metadata (1.21 writes a row of commas)
    }
    std::vector<std::string> row;
    for (const CsvCell& c : cells) {
      row.emplace_back(c.text);
    }
    if (lower(row[0]) == "frame") {
      h.frame_row = std::move(row);
      for (const CsvCell& c : cells) {
        h.columns.push_back(c.column);
      }
      return h;
    }
    h.rows.push_back(std::move(row));
  }
  reader.fail(1, "no 'Frame' column row within the first " + std::to_string(k_max_header_rows) +
                     " rows: not a Motive CSV export?");
}

/// The header row labelled `label` in its second cell (Motive 1.23+), else the one at
/// `position` (1.21 leaves the labels out); nullptr when there is none.
const std::vector<std::string>* header_row(const HeaderRows& h, const char* label,
                                           std::size_t position) {
  for (const auto& row : h.rows) {
    if (row.size() > 1 && row[1] == label) {
      return &row;
    }
  }
  return position < h.rows.size() ? &h.rows[position] : nullptr;
}

const std::string& cell(const std::vector<std::string>& row, std::size_t i) {
  static const std::string empty;
  return i < row.size() ? row[i] : empty;
}

/// Component slot (0..6: x, y, z, qw, qx, qy, qz) of a column from its property and axis
/// cells, or -1 for columns that are not a pose (marker quality, mean marker error).
int slot_of(const std::string& property, const std::string& axis) {
  if (property == "position" && axis.size() == 1 && axis[0] >= 'x' && axis[0] <= 'z') {
    return axis[0] - 'x';
  }
  if (property == "rotation" && axis.size() == 1 && axis[0] >= 'w' && axis[0] <= 'z') {
    return axis[0] == 'w' ? 3 : 4 + (axis[0] - 'x');
  }
  return -1;
}

/// Rigid bodies and bones (quaternion + position) and markers (positions only: "Marker"
/// columns, and "Rigid Body Marker" and "Bone Marker" columns, where Motive puts a body's or a
/// bone's solved marker positions). A rigid body or bone marker whose name a measured marker also
/// has becomes "<name> (rigid body marker)" or "<name> (bone marker)". A bone's pose is the
/// world's under Coordinate Space Global; under Local it is relative to its parent bone, which
/// Motive 2 does not name: the bones are then skipped, and said so. `person` gets the names of
/// what may be on a person: bones, bone markers, and labelled markers that are not a rigid
/// body's (neither its solved markers nor measured ones named "<rigid body>:...", nor
/// "Unlabeled ...").
detail::TableLayout layout_from(const HeaderRows& h, CsvReader& reader, const Metadata& metadata,
                                std::vector<std::string>& skipped_types,
                                std::set<std::string>& person, CaptureInfo& info) {
  const std::vector<std::string>* types = header_row(h, "Type", 0);
  const std::vector<std::string>* names = header_row(h, "Name", 1);
  if (types == nullptr || names == nullptr || h.rows.size() < 3) {
    reader.fail(1, "expected Type, Name, ID and property rows above the 'Frame' row");
  }
  const std::vector<std::string>& properties = h.rows.back();
  detail::TableLayout layout;
  layout.header_cells = h.frame_row.size();
  layout.frame_column = 0;
  if (h.frame_row.size() < 2 || lower(h.frame_row[1]).rfind("time", 0) != 0) {
    reader.fail(h.columns.size() > 1 ? h.columns[1] : 1, "expected a Time column after Frame");
  }
  layout.time_column = 1;
  std::set<std::string> measured_markers, rigid_bodies;
  for (std::size_t i = 2; i < h.frame_row.size(); ++i) {
    if (lower(cell(*types, i)) == "marker") {
      measured_markers.insert(cell(*names, i));
    } else if (lower(cell(*types, i)) == "rigid body") {
      rigid_bodies.insert(cell(*names, i));
    }
  }
  const auto on_a_prop = [&](const std::string& marker) {
    const std::size_t colon = marker.rfind(':');
    return lower(marker).rfind("unlabeled", 0) == 0 ||
           (colon != std::string::npos && rigid_bodies.count(marker.substr(0, colon)) > 0);
  };
  const std::string* space = metadata.find("Coordinate Space");
  const bool local = space != nullptr && lower(*space) == "local";
  for (std::size_t i = 2; i < h.frame_row.size(); ++i) {
    const std::string type = lower(cell(*types, i));
    const bool bone = type == "bone" && !local;
    const bool body = type == "rigid body" || bone;
    const bool marker = type == "marker" || type == "rigid body marker" || type == "bone marker";
    if (!body && !marker) {
      if (!type.empty() && std::find(skipped_types.begin(), skipped_types.end(), cell(*types, i)) ==
                               skipped_types.end()) {
        skipped_types.push_back(cell(*types, i)); // bones, force plates, ...
      }
      continue;
    }
    std::string name = cell(*names, i);
    if (name.empty()) {
      reader.fail(h.columns[i], cell(*types, i) + " column " + std::to_string(i + 1) +
                                    " has no name in the Name row");
    }
    if ((type == "rigid body marker" || type == "bone marker") &&
        measured_markers.count(name) > 0) {
      name += " (" + type + ")";
    }
    if (bone || type == "bone marker" || (type == "marker" && !on_a_prop(name))) {
      person.insert(name);
    }
    const int slot = slot_of(lower(cell(properties, i)), lower(h.frame_row[i]));
    if (slot < 0 || (marker && slot > 2)) {
      continue;
    }
    detail::assign_column(layout, name, slot, i, h.columns[i],
                          cell(properties, i) + " " + h.frame_row[i], reader);
  }
  if (layout.bodies.empty()) {
    reader.fail(1,
                "the export holds no rigid body, bone or marker (the Type row names " +
                    (skipped_types.empty() ? std::string("nothing") : "only " + skipped_types[0]) +
                    (local ? "; bones are skipped in Coordinate Space Local" : "") +
                    "): export the take with rigid bodies, a skeleton in global coordinates, "
                    "or markers");
  }
  if (metadata.find("Rotation Type") == nullptr) {
    // Motive 1.2x without a Rotation Type key may give a body's rotation as three angles (X, Y,
    // Z, no W): their order is not said, so they are not guessed: the body keeps its positions.
    std::string angled;
    for (detail::BodyColumns& b : layout.bodies) {
      if (b.quaternion[0] < 0 && b.quaternion[1] >= 0 && b.quaternion[2] >= 0 &&
          b.quaternion[3] >= 0) {
        std::fill(std::begin(b.quaternion), std::end(b.quaternion), -1);
        angled += (angled.empty() ? "'" : ", '") + b.name + "'";
      }
    }
    if (!angled.empty()) {
      info.notes.push_back("rigid bodies " + angled +
                           " give their rotation as three angles (X, Y, Z) and the header "
                           "declares no Rotation Type, so the angles' order is not known: "
                           "loaded as positions only (export with Rotation Type Quaternion to "
                           "keep their orientation)");
    }
  }
  check_rotation_type(metadata, reader,
                      std::any_of(layout.bodies.begin(), layout.bodies.end(),
                                  [](const detail::BodyColumns& b) { return !b.position_only(); }),
                      info);
  detail::check_complete(layout, reader);
  return layout;
}

/// The capture, read in the file's frame, stood on the axis its markers and bones show a person
/// upright along (else Motive's Y), then turned to LoadOptions::up_axis. Only what may be on a
/// person votes (`person`, from layout_from): rigid bodies and their markers are props, as often
/// lying as standing, and unlabelled markers are anything.
void settle_up(Capture& capture, const std::set<std::string>& person, const LoadOptions& options) {
  std::vector<const Track*> places;
  for (const Track& t : capture.tracks()) {
    if (person.count(t.name()) > 0) {
      places.push_back(&t);
    }
  }
  detail::settle_capture_up(
      capture, places, Axis::Y,
      "Motive's convention is +Y, but its CSV export can write other axes without saying so",
      options);
}

/// The parent of a bone of Motive's skeletons (Baseline, Core, Conventional and their finger
/// bones) by its name after the skeleton's prefix: "" for the root or a name Motive does not
/// give its bones.
std::string motive_parent(const std::string& bone) {
  static const std::map<std::string, std::string> k_parents = {
      {"Ab", "Hip"},          {"Chest", "Ab"},        {"Neck", "Chest"},  {"Head", "Neck"},
      {"LShoulder", "Chest"}, {"LUArm", "LShoulder"}, {"LFArm", "LUArm"}, {"LHand", "LFArm"},
      {"RShoulder", "Chest"}, {"RUArm", "RShoulder"}, {"RFArm", "RUArm"}, {"RHand", "RFArm"},
      {"LThigh", "Hip"},      {"LShin", "LThigh"},    {"LFoot", "LShin"}, {"LToe", "LFoot"},
      {"RThigh", "Hip"},      {"RShin", "RThigh"},    {"RFoot", "RShin"}, {"RToe", "RFoot"}};
  const auto it = k_parents.find(bone);
  if (it != k_parents.end()) {
    return it->second;
  }
  // Fingers: "LThumb1" hangs from the hand, "LThumb2" from "LThumb1", and so on.
  if (bone.size() > 2 && (bone[0] == 'L' || bone[0] == 'R') &&
      std::isdigit(static_cast<unsigned char>(bone.back())) != 0) {
    const int joint = bone.back() - '0';
    const std::string finger = bone.substr(1, bone.size() - 2);
    for (const char* known : {"Thumb", "Index", "Middle", "Ring", "Pinky"}) {
      if (finger == known) {
        return joint <= 1 ? std::string(1, bone[0]) + "Hand"
                          : bone.substr(0, bone.size() - 1) + std::to_string(joint - 1);
      }
    }
  }
  return "";
}

/// A skeleton's hierarchy from its bones' names ("Skeleton 001:LFArm" hangs from "Skeleton
/// 001:LUArm"), as the capture's Skeleton, so that a Character has parents and bones: Motive 2's
/// export names no parents. Each offset is the child's position seen from its parent in the
/// first frame both are valid in (file units, parent frame). Nothing when no bone has a parent
/// among the bones.
void attach_skeleton(Capture& capture, const std::set<std::string>& bones) {
  std::map<std::string, std::string> parent_of;
  for (const std::string& bone : bones) {
    const std::size_t colon = bone.rfind(':');
    const std::string prefix = colon == std::string::npos ? "" : bone.substr(0, colon + 1);
    const std::string parent = motive_parent(bone.substr(prefix.size()));
    if (!parent.empty() && bones.count(prefix + parent) > 0) {
      parent_of[bone] = prefix + parent;
    }
  }
  if (parent_of.empty()) {
    return;
  }
  Skeleton skeleton;
  std::map<std::string, int> index;
  // Parents before children: the roots, then each joint's children as it is placed.
  std::vector<std::string> order;
  for (const std::string& bone : bones) {
    if (parent_of.count(bone) == 0) {
      order.push_back(bone);
    }
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    for (const auto& [child, parent] : parent_of) {
      if (parent == order[k]) {
        order.push_back(child);
      }
    }
  }
  const double scale = capture.info().length_scale;
  for (const std::string& name : order) {
    Joint joint;
    joint.name = name;
    const auto parent = parent_of.find(name);
    if (parent != parent_of.end()) {
      joint.parent = index.at(parent->second);
      const Track& a = capture.track(parent->second);
      const Track& c = capture.track(name);
      for (std::size_t f = 0; f < std::min(a.size(), c.size()); ++f) {
        if (a.valid(f) && c.valid(f)) {
          joint.offset = rotate(conj(a.orientation(f)), c.position(f) - a.position(f)) / scale;
          break;
        }
      }
    }
    index[name] = static_cast<int>(skeleton.joints.size());
    skeleton.joints.push_back(joint);
  }
  skeleton.frame_count = capture.tracks().empty() ? 0 : capture.tracks().front().size();
  skeleton.frame_time = capture.info().frame_rate > 0.0 ? 1.0 / capture.info().frame_rate : 0.0;
  capture.set_skeleton(std::move(skeleton));
}

/// The Motive CSV whose beginning is `head`, read by `make_reader(delimiter)` from the start;
/// `lines` is its line count.
template <class MakeReader>
Capture parse_motive(std::string_view head, MakeReader make_reader, std::size_t lines,
                     std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  // Motive writes ','; a spreadsheet in many locales re-saves with ';' and decimal commas.
  const char delimiter = detail::detect_delimiter(detail::first_line(head));
  CsvReader reader = make_reader(delimiter);
  const Metadata metadata = read_metadata(reader);
  CaptureInfo info;
  info.source = std::string(source);
  info.format = "motive-csv";
  if (const std::string* rate = metadata.find("Export Frame Rate")) {
    double value = 0.0;
    std::string rate_text = *rate; // "120,000000" after a re-save with decimal commas
    std::replace(rate_text.begin(), rate_text.end(), ',', '.');
    if (detail::parse_double(rate_text, value) && value > 0.0) {
      info.frame_rate = value;
    }
  }
  const double unit = metres_per_unit(metadata, reader, info);
  detail::PoseConversion conversion = detail::make_conversion(options, Axis::Y, unit, info);
  conversion.rotation = Quat{}; // read in the file's frame, turned by settle_up() at the end

  std::vector<std::string> skipped;
  std::set<std::string> person;
  const HeaderRows header = read_header_rows(reader);
  const detail::TableLayout layout = layout_from(header, reader, metadata, skipped, person, info);
  for (const std::string& type : skipped) {
    info.notes.push_back("columns of type " + quote(type) + " skipped" +
                         (lower(type) == "bone" ? ": under Coordinate Space Local a bone's pose "
                                                  "is relative to its parent bone, which the file "
                                                  "does not tie to the world"
                                                : ""));
  }
  detail::RowStats stats;
  Capture capture = detail::read_capture(reader, layout, delimiter != ',', conversion, options,
                                         lines, std::move(info), stats);
  if (unit == 0.0 && options.unit_in_metres <= 0.0) {
    detail::infer_unit_from_coordinates(capture, "no 'Length Units' in the header", options);
  }
  settle_up(capture, person, options);
  std::set<std::string> bones; // on a person, with an orientation
  for (const Track& t : capture.tracks()) {
    if (!t.position_only() && person.count(t.name()) > 0) {
      bones.insert(t.name());
    }
  }
  attach_skeleton(capture, bones);
  if (const std::string* claimed = metadata.find("Total Exported Frames")) {
    if (*claimed != std::to_string(stats.rows)) {
      capture.info().notes.push_back("header claims Total Exported Frames " + *claimed +
                                     ", the file has " + std::to_string(stats.rows) + " data rows");
    }
  }
  return capture;
}

} // namespace

Capture parse_motive_csv(std::string_view text, std::string_view source,
                         const LoadOptions& options) {
  const auto reader = [&](char delimiter) { return CsvReader(text, source, delimiter); };
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return parse_motive(text, reader, lines, source, options);
}

namespace detail {

Capture load_motive_csv_file(std::istream& in, std::string_view head, std::size_t lines,
                             std::string_view source, const LoadOptions& options) {
  const auto reader = [&](char delimiter) { return CsvReader(in, source, delimiter); };
  return parse_motive(head, reader, lines, source, options);
}

} // namespace detail
} // namespace odemocap
