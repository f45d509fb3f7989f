#include "csv_reader.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

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

Vec3 axis_vector(Axis axis) {
  return axis == Axis::X ? Vec3{1, 0, 0} : axis == Axis::Y ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  std::error_code ec;
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw LoadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) {
    throw LoadError(path, 0, 0,
                    "read " + std::to_string(in.gcount()) + " of " + std::to_string(size) +
                        " bytes: the file changed or failed");
  }
  return text;
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

} // namespace

LoadError::LoadError(std::string path, std::size_t line, std::size_t column,
                     const std::string& message)
    : MocapError(locate(path, line, column, message)), path_(std::move(path)), line_(line),
      column_(column), message_(message) {}

const char* to_string(Format format) {
  switch (format) {
  case Format::Auto: return "auto";
  case Format::Bvh: return "bvh";
  case Format::RigidBodyCsv: return "rigid-body-csv";
  case Format::MotiveCsv: return "motive-csv";
  case Format::C3d: return "c3d";
  case Format::QualisysTsv: return "qualisys-tsv";
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
  if (line.find_first_of(",;\t") != std::string_view::npos) {
    return Format::RigidBodyCsv;
  }
  throw LoadError(std::string(source), 1, 1,
                  "cannot tell the format: expected 'HIERARCHY' (BVH), 'Format Version' (Motive "
                  "CSV) or a header row of delimited column names (rigid-body CSV), found " +
                      detail::quote(line));
}

Capture load_capture_from_memory(std::string_view text, std::string_view source,
                                 const LoadOptions& options) {
  const Format format =
      options.format == Format::Auto ? detect_format(text, source) : options.format;
  switch (format) {
  case Format::Bvh: return parse_bvh(text, source, options);
  case Format::RigidBodyCsv: return parse_rigid_body_csv(text, source, options);
  case Format::MotiveCsv: return parse_motive_csv(text, source, options);
  case Format::C3d: return parse_c3d(text, source, options);
  case Format::QualisysTsv: return parse_qualisys_tsv(text, source, options);
  case Format::Auto: break;
  }
  throw LoadError(std::string(source), 0, 0, "no loader for this format");
}

Capture load_capture(const std::string& path, const LoadOptions& options) {
  const std::string text = read_file(path, options.max_file_bytes);
  return load_capture_from_memory(text, path, options);
}

namespace detail {

void check_options(const LoadOptions& options, std::string_view source) {
  const auto fail = [&](const std::string& message) {
    throw LoadError(std::string(source), 0, 0, "invalid LoadOptions: " + message);
  };
  if (!(options.length_scale > 0.0) || !std::isfinite(options.length_scale)) {
    fail("length_scale must be finite and positive, got " + std::to_string(options.length_scale));
  }
  if (!(options.frame_rate >= 0.0) || !std::isfinite(options.frame_rate)) {
    fail("frame_rate must be finite and >= 0, got " + std::to_string(options.frame_rate));
  }
}

PoseConversion make_conversion(const LoadOptions& options, Axis file_up, double unit_in_metres,
                               CaptureInfo& info) {
  PoseConversion conversion;
  conversion.scale = unit_in_metres * options.length_scale;
  info.length_scale = conversion.scale;
  info.up_axis = file_up;
  if (options.up_axis && *options.up_axis != file_up) {
    conversion.rotation = from_to(axis_vector(file_up), axis_vector(*options.up_axis));
    info.up_axis = *options.up_axis;
  }
  return conversion;
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
