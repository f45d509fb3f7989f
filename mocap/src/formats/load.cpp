#include "checks.hpp"
#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace odemocap {
namespace {

std::string locate(const std::string& path, std::size_t line, std::size_t column,
                   const std::string& message) {
  std::string where = path;
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) {
      where += ":" + std::to_string(column);
    }
  }
  return where + ": " + message;
}

/// The size of the regular file at `path`; throws LoadError for a directory, a missing or
/// unreadable file, or one over `max_bytes`.
std::size_t checked_size(const std::string& path, std::size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::error_code listing;
    std::filesystem::directory_iterator probe(path, listing);
    throw LoadError(path, 0, 0,
                    listing ? "a directory that cannot be listed: " + listing.message()
                            : "a directory, not a capture file");
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw LoadError(path, 0, 0,
                    ec                                  ? "cannot read: " + ec.message()
                    : std::filesystem::exists(path, ec) ? "not a regular file"
                                                        : "no such file");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    throw LoadError(path, 0, 0, "cannot read its size: " + ec.message());
  }
  if (size > max_bytes) {
    throw LoadError(path, 0, 0,
                    "file is " + std::to_string(size) + " bytes, above the limit of " +
                        std::to_string(max_bytes) + " (LoadOptions::max_file_bytes)");
  }
  return static_cast<std::size_t>(size);
}

} // namespace

namespace detail {

void read_on(const std::string& path, std::string& text, std::size_t count) {
  if (count == text.size() && !text.empty()) {
    return; // read whole already (an empty file is still opened: its error is the one to give)
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw LoadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  const std::size_t from = text.size();
  text.resize(count);
  in.seekg(static_cast<std::streamoff>(from));
  in.read(text.data() + from, static_cast<std::streamsize>(count - from));
  const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0));
  if (got != count - from) {
    throw LoadError(path, 0, 0,
                    "read " + std::to_string(from + got) + " of " + std::to_string(count) +
                        " bytes: the file changed or failed");
  }
}

} // namespace detail

namespace {

using detail::read_on;

/// The first `count` bytes of the file.
std::string read_prefix(const std::string& path, std::size_t count) {
  std::string text;
  read_on(path, text, count);
  return text;
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  return read_prefix(path, checked_size(path, max_bytes));
}

/// Byte 1: the parameter block number; byte 2: the key 0x50; the parameter section's fourth
/// byte: a processor type (84 Intel, 85 DEC, 86 MIPS). Text files do not pass all three.
bool looks_like_c3d(std::string_view data) {
  if (data.size() < 2 || static_cast<unsigned char>(data[1]) != 0x50 || data[0] == 0) {
    return false;
  }
  const std::size_t processor = (static_cast<unsigned char>(data[0]) - 1u) * 512 + 3;
  if (processor >= data.size()) {
    // Truncated, or text whose second character is 'P': binary data has NUL bytes early.
    return data.substr(0, 512).find('\0') != std::string_view::npos;
  }
  const auto p = static_cast<unsigned char>(data[processor]);
  return p >= 84 && p <= 86;
}

/// Binary data, not text: a NUL byte, or more than one in twenty of the first 4096 bytes a
/// control character that text files do not hold. Returns how many such bytes were seen.
std::size_t binary_bytes(std::string_view data) {
  const std::string_view head = data.substr(0, 4096);
  std::size_t count = 0;
  bool nul = false;
  for (const char ch : head) {
    const auto c = static_cast<unsigned char>(ch);
    nul = nul || c == 0;
    count += (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7F;
  }
  return nul || count * 20 > head.size() ? count : 0;
}

constexpr const char* k_formats_tried =
    "tried C3D (key byte 0x50 at byte 2), BVH ('HIERARCHY'), OptiTrack Motive CSV ('Format "
    "Version'), Qualisys TSV ('NO_OF_FRAMES'), Vicon Nexus CSV ('Trajectories' or another block "
    "name), OpenSim TRC ('PathFileType'), Acclaim AMC ('#!OML:ASF', ':FULLY-SPECIFIED'), Xsens "
    "MVNX ('<mvnx') and "
    "rigid-body CSV (a delimited header row)";

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return ext;
}

} // namespace

LoadError::LoadError(std::string path, std::size_t line, std::size_t column,
                     const std::string& message)
    : MocapError(locate(path, line, column, message)), path_(std::move(path)), line_(line),
      column_(column), message_(message) {}

LoadError LoadError::at_byte(std::string path, std::size_t offset, const std::string& message) {
  LoadError e(path + ": byte " + std::to_string(offset), 0, 0, message);
  e.path_ = std::move(path);
  e.byte_ = offset;
  return e;
}

const char* to_string(Format format) {
  switch (format) {
  case Format::Auto: return "auto";
  case Format::Bvh: return "bvh";
  case Format::RigidBodyCsv: return "rigid-body-csv";
  case Format::MotiveCsv: return "motive-csv";
  case Format::C3d: return "c3d";
  case Format::QualisysTsv: return "qualisys-tsv";
  case Format::ViconCsv: return "vicon-csv";
  case Format::Trc: return "trc";
  case Format::AsfAmc: return "asf-amc";
  case Format::Mvnx: return "mvnx";
  }
  return "?";
}

Format detect_format(std::string_view text, std::string_view source) {
  if (looks_like_c3d(text)) {
    return Format::C3d;
  }
  std::string_view rest = text;
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") {
    rest.remove_prefix(3);
  }
  const std::size_t start = rest.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) {
    throw LoadError(std::string(source), 0, 0, "the file is empty");
  }
  rest.remove_prefix(start);
  if (rest.substr(0, 9) == "HIERARCHY") {
    return Format::Bvh;
  }
  if (rest.substr(0, 5) == "<?xml" || rest.substr(0, 5) == "<mvnx") {
    if (rest.substr(0, 1024).find("<mvnx") != std::string_view::npos) {
      return Format::Mvnx;
    }
    throw LoadError(std::string(source), 1, 1,
                    "an XML file that is not an Xsens MVNX export (no <mvnx> element near the "
                    "start)");
  }
  // Acclaim: AMC motion ("#!OML:ASF", ":FULLY-SPECIFIED", ":DEGREES"), or an ASF skeleton.
  for (std::string_view keyword : {"#!OML:ASF", ":FULLY-SPECIFIED", ":DEGREES", ":RADIANS"}) {
    if (rest.substr(0, keyword.size()) == keyword) {
      return Format::AsfAmc;
    }
  }
  if (rest.substr(0, 8) == ":version" || rest.substr(0, 9) == "# AST/ASF") {
    throw LoadError(std::string(source), 1, 1,
                    "this is an Acclaim ASF skeleton, without motion: load the .amc motion "
                    "that goes with it (the .asf beside it is found)");
  }
  const std::string_view line = detail::first_line(rest);
  std::string_view first_cell = line.substr(0, line.find_first_of(",;\t"));
  if (!first_cell.empty() && first_cell.front() == '"') {
    first_cell.remove_prefix(1);
  }
  if (first_cell.substr(0, 14) == "Format Version") {
    return Format::MotiveCsv;
  }
  if (first_cell == "NO_OF_FRAMES") {
    return Format::QualisysTsv;
  }
  if (detail::first_word(first_cell) == "PathFileType") { // "PathFileType  4" in some writers
    return Format::Trc;
  }
  const bool alone = line.find_first_not_of(",", first_cell.size()) == std::string_view::npos;
  if (alone && (first_cell == "Trajectories" || first_cell == "Devices" ||
                first_cell == "Model Outputs" || first_cell == "Joints" ||
                first_cell == "Segments" || first_cell == "Events" || first_cell == "Objects")) {
    return Format::ViconCsv;
  }
  // No text format's signature: binary bytes would otherwise be read as a CSV header.
  if (const std::size_t binary = binary_bytes(text)) {
    throw LoadError(std::string(source), 0, 0,
                    "cannot tell the format: the bytes look binary (" + std::to_string(binary) +
                        " control or NUL byte(s) in the first " +
                        std::to_string(std::min<std::size_t>(text.size(), 4096)) +
                        "), not text, and not C3D; " + k_formats_tried);
  }
  if (line.find_first_of(",;\t") != std::string_view::npos) {
    return Format::RigidBodyCsv;
  }
  throw LoadError(std::string(source), 1, 1,
                  "cannot tell the format of the text starting " + detail::quote(line) + "; " +
                      k_formats_tried);
}

namespace {

Capture parse_as(Format format, std::string_view text, std::string_view source,
                 const LoadOptions& options) {
  switch (format) {
  case Format::Bvh: return parse_bvh(text, source, options);
  case Format::RigidBodyCsv: return parse_rigid_body_csv(text, source, options);
  case Format::MotiveCsv: return parse_motive_csv(text, source, options);
  case Format::C3d: return parse_c3d(text, source, options);
  case Format::QualisysTsv: return parse_qualisys_tsv(text, source, options);
  case Format::ViconCsv: return parse_vicon_csv(text, source, options);
  case Format::Trc: return parse_trc(text, source, options);
  case Format::Mvnx: return parse_mvnx(text, source, options);
  case Format::AsfAmc: {
    if (options.skeleton_file.empty()) {
      throw LoadError(std::string(source), 0, 0,
                      "AMC motion needs its ASF skeleton: set LoadOptions::skeleton_file, or "
                      "load the .amc from a file with its .asf beside it");
    }
    const std::string asf = read_file(options.skeleton_file, options.max_file_bytes);
    return parse_asf_amc(asf, text, source, options, options.skeleton_file); // errors name it
  }
  case Format::Auto: break;
  }
  throw LoadError(std::string(source), 0, 0, "no loader for this format");
}

} // namespace

Capture load_capture_from_memory(std::string_view text, std::string_view source,
                                 const LoadOptions& options) {
  const Format format =
      options.format == Format::Auto ? detect_format(text, source) : options.format;
  return parse_as(format, text, source, options);
}

Capture load_capture(const std::string& path, const LoadOptions& options) {
  const std::size_t size = checked_size(path, options.max_file_bytes);
  if (options.format == Format::C3d) {
    return detail::load_c3d_file(path, size, options);
  }
  // The beginning tells the formats apart; read once, it serves every check below, and the
  // text is read on from its end.
  constexpr std::size_t k_head = std::size_t{1} << 20;
  std::string head = read_prefix(path, std::min(size, k_head));
  const std::string ext = lower_extension(path);
  // A C3D is read a window at a time: its data section, most of a large file, is never in
  // memory whole. Its processor byte lies within the first 255 blocks.
  if (options.format == Format::Auto && ext != ".bvh" && looks_like_c3d(head)) {
    return detail::load_c3d_file(path, size, options);
  }
  // The table formats that grow largest are read a chunk at a time too; their beginning tells
  // them apart (the first line, the first 4096 bytes for binary data).
  if (size > k_head && ext != ".bvh" && ext != ".c3d" &&
      (options.format == Format::Auto || options.format == Format::MotiveCsv ||
       options.format == Format::RigidBodyCsv)) {
    // What the table loaders read from the head: comment lines and the first line after them.
    std::size_t kept = head.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0; // past a byte order mark
    while (kept < head.size() && head[kept] == '#') {
      kept = std::min(head.find('\n', kept), head.size() - 1) + 1;
    }
    kept = head.find('\n', kept);
    if (kept != std::string::npos) {
      const Format found =
          options.format == Format::Auto ? detect_format(head, path) : options.format;
      if (found == Format::MotiveCsv || found == Format::RigidBodyCsv) {
        head.resize(kept + 1);
        head.shrink_to_fit(); // the rest of the MiB is not kept through the load
        std::ifstream in(path, std::ios::binary);
        if (!in) {
          throw LoadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
        }
        const std::size_t lines = detail::count_lines(path);
        return found == Format::MotiveCsv
                   ? detail::load_motive_csv_file(in, head, lines, path, options)
                   : detail::load_rigid_body_csv_file(in, head, lines, path, options);
      }
    }
  }
  // A BVH's motion, most of it, is read on a piece at a time as its rows are used.
  if (options.format == Format::Bvh ||
      (options.format == Format::Auto && head.find("HIERARCHY") != std::string::npos &&
       detect_format(head, path) == Format::Bvh)) {
    return detail::load_bvh_file(std::move(head), size, path, options);
  }
  std::string text = std::move(head);
  read_on(path, text, size);
  const auto with_skeleton = [&](Format format) {
    if (format != Format::AsfAmc || !options.skeleton_file.empty()) {
      return parse_as(format, text, path, options);
    }
    LoadOptions found = options;
    found.skeleton_file = detail::find_asf_for(path);
    return parse_as(format, text, path, found);
  };
  if (options.format != Format::Auto) {
    return with_skeleton(options.format);
  }
  // A name that promises BVH or C3D on content that is something else is a wrong file, not a
  // CSV to be read as one.
  const Format found = detect_format(text, path);
  if ((ext == ".bvh" && found != Format::Bvh) || (ext == ".c3d" && found != Format::C3d)) {
    throw LoadError(path, 0, 0,
                    "named " + ext + " but " +
                        (ext == ".bvh" ? "does not start with 'HIERARCHY'"
                                       : "has no C3D key (0x50) in byte 2") +
                        "; its content reads as " + to_string(found) +
                        " (give the format explicitly to load it as that: LoadOptions::format, or "
                        "--input-format " +
                        to_string(found) + " on the command line)");
  }
  return with_skeleton(found);
}

namespace detail {

std::size_t count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chunk(std::size_t{1} << 20);
  std::size_t lines = 0;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0));
    lines += static_cast<std::size_t>(std::count(chunk.data(), chunk.data() + got, '\n'));
  }
  return lines;
}

void check_options(const LoadOptions& options, std::string_view source) {
  const auto fail = [&](const std::string& message) {
    throw LoadError(std::string(source), 0, 0, "invalid LoadOptions: " + message);
  };
  if (!(options.length_scale > 0.0) || !std::isfinite(options.length_scale)) {
    fail("length_scale must be finite and positive, got " + std::to_string(options.length_scale));
  }
  if (!(options.unit_in_metres >= 0.0) || !std::isfinite(options.unit_in_metres)) {
    fail("unit_in_metres must be finite and >= 0 (0: not given), got " +
         std::to_string(options.unit_in_metres));
  }
  if (!(options.frame_rate >= 0.0) || !std::isfinite(options.frame_rate)) {
    fail("frame_rate must be finite and >= 0, got " + std::to_string(options.frame_rate));
  }
}

PoseConversion make_conversion(const LoadOptions& options, Axis file_up, double declared_unit,
                               CaptureInfo& info, double inferred_unit, bool file_up_negative) {
  info.unit_in_metres = 0.0;
  info.unit_source.clear();
  if (options.unit_in_metres > 0.0) {
    info.unit_in_metres = options.unit_in_metres;
    info.unit_source = "given";
    info.length_unit = detail::describe(options.unit_in_metres) + " m";
  } else if (declared_unit > 0.0) {
    info.unit_in_metres = declared_unit;
    info.unit_source = "declared";
  } else if (inferred_unit > 0.0) {
    info.unit_in_metres = inferred_unit;
    info.unit_source = "inferred";
  }
  PoseConversion conversion;
  conversion.scale = (info.unit_in_metres > 0.0 ? info.unit_in_metres : 1.0) * options.length_scale;
  info.length_scale = conversion.scale;
  conversion.rotation = up_conversion(options, file_up, file_up_negative, info);
  return conversion;
}

Quat up_conversion(const LoadOptions& options, Axis file_up, bool file_up_negative,
                   CaptureInfo& info) {
  const Axis target = options.up_axis.value_or(file_up);
  info.up_axis = target;
  info.file_up_axis = file_up;
  if (info.up_axis_source.empty()) {
    info.up_axis_source = "format";
  }
  const Vec3 up = axis_vector(file_up) * (file_up_negative ? -1.0 : 1.0);
  return target != file_up || file_up_negative ? from_to(up, axis_vector(target)) : Quat{};
}

Quat settle_marker_up(const std::vector<const Track*>& places, Axis assumed,
                      const std::string& aside, const LoadOptions& options, CaptureInfo& info) {
  Axis up = assumed;
  bool down = false;
  std::string note;
  if (infer_marker_up(places, info.metres_per_unit(), up, down, note)) {
    info.up_axis_source = "inferred";
    if (up != assumed || down) {
      info.notes.push_back(note + " (" + aside + ")" +
                           (down ? "; the data is turned half a turn so it points up" : ""));
    }
  }
  return up_conversion(options, up, down, info);
}

void settle_capture_up(Capture& capture, const std::vector<const Track*>& places, Axis assumed,
                       const std::string& aside, const LoadOptions& options) {
  CaptureInfo& info = capture.info();
  const Quat turn = settle_marker_up(places, assumed, aside, options, info);
  if (turn.w != 1.0) {
    try {
      capture.turn(turn);
    } catch (const MocapError& e) {
      throw LoadError(info.source, 0, 0, e.what());
    }
  }
}

double printed_resolution(std::string_view text) {
  text = trim(text);
  if (text.find_first_of("eE") != std::string_view::npos) {
    return 0.0;
  }
  const std::size_t point = text.find_first_of(".,"); // a decimal comma in a ';' table
  if (point == std::string_view::npos) {
    return text.empty() ? 0.0 : 1.0;
  }
  // A table, not pow(): the loaders call this for every row.
  static constexpr double k_powers[] = {1.0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,
                                        1e-7,  1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13,
                                        1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20};
  const std::size_t digits = text.size() - point - 1;
  return digits < std::size(k_powers) ? k_powers[digits] : 0.0;
}

void use_rate_grid(std::vector<Track>& tracks, double rate, double resolution, CaptureInfo& info) {
  if (tracks.empty()) {
    return;
  }
  const std::vector<double> times = tracks.front().times().to_vector(); // the tracks are retimed
  if (times.size() < 2 || !(rate > 0.0) || !std::isfinite(rate) || !(resolution > 0.0) ||
      !(resolution < 0.25 / rate)) {
    return;
  }
  std::vector<double> grid(times.size());
  const double first = times[0];
  double previous_k = -1.0;
  double worst = 0.0; // the largest step of a printed interval from the grid's, in intervals
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double k = std::round((times[i] - first) * rate);
    grid[i] = first + k / rate;
    if (!(k > previous_k) || !(std::fabs(times[i] - grid[i]) <= resolution * (1.0 + 1e-9))) {
      return; // not the grid: the file's times stand
    }
    if (!(std::fabs(grid[i]) <= Track::k_max_abs_time)) {
      return; // a time printed near the limit rounds past it on the grid: times stand
    }
    if (i > 0) {
      const double printed = times[i] - times[i - 1];
      const double nominal = grid[i] - grid[i - 1];
      if (!(nominal >= Track::k_min_interval)) {
        return; // a grid closer than a track's samples may be (a rate near 1 GHz): times stand
      }
      worst = std::fmax(worst, std::fabs(printed - nominal) / nominal);
    }
    previous_k = k;
  }
  if (!(worst > 1e-9)) {
    return; // the printed times are the grid already
  }
  std::size_t retimed = 0;
  for (Track& track : tracks) {
    if (track.size() == times.size()) {
      track.retime(grid);
      ++retimed;
    }
  }
  if (retimed > 0) {
    const double percent = 100.0 * worst;
    const double digits = std::pow(10.0, 1.0 - std::floor(std::log10(percent))); // two of them
    info.notes.push_back("the times, printed to " + describe(resolution) + " s, are the " +
                         describe(rate) + " Hz grid rounded (intervals up to " +
                         describe(std::round(percent * digits) / digits) +
                         "% off it): the grid's times used");
  }
}

void infer_unit_from_coordinates(Capture& capture, const std::string& why,
                                 const LoadOptions& options) {
  CaptureInfo& info = capture.info();
  if (!why.empty() && options.strict) {
    throw LoadError(info.source, 0, 0, why + ": the length unit is not known (strict)");
  }
  UnitGuess guess = infer_coordinate_unit(capture);
  capture.scale_positions(guess.metres);
  info.unit_in_metres = guess.metres;
  info.unit_source = "inferred";
  info.length_unit = guess.name;
  info.length_scale *= guess.metres;
  const std::string_view plain = "length unit not declared";
  if (!why.empty() && guess.note.compare(0, plain.size(), plain) == 0) {
    guess.note.replace(0, plain.size(), why);
  }
  info.notes.push_back(guess.note);
  if (!why.empty()) {
    info.tolerated.push_back(guess.note); // the file should have said: a defect, loaded
  }
}

void coordinates_to_metres(Capture& capture, const LoadOptions& options) {
  if (!options.to_metres || !capture.info().unit_source.empty()) {
    return;
  }
  infer_unit_from_coordinates(capture, "", options);
}

bool TrackSelection::keep(std::string_view name) const {
  return names_.empty() || std::find(names_.begin(), names_.end(), name) != names_.end();
}

void TrackSelection::check_found(const std::vector<std::string>& available,
                                 std::string_view source) const {
  std::string missing;
  for (const std::string& name : names_) {
    if (std::find(available.begin(), available.end(), name) == available.end()) {
      missing += (missing.empty() ? "'" : ", '") + name + "'";
    }
  }
  if (missing.empty()) {
    return;
  }
  std::string list;
  for (const std::string& name : available) {
    list += (list.empty() ? "'" : ", '") + name + "'";
  }
  throw LoadError(std::string(source), 0, 0,
                  "requested track(s) " + missing + " not in the file; it has " + list);
}

} // namespace detail
} // namespace odemocap
