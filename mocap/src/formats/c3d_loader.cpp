// C3D (c3d.org): a 512-byte header block, a parameter section of groups and parameters, and a
// data section of frames (points, then analog samples). Intel (little-endian IEEE), DEC
// (little-endian words, VAX F-floats) and MIPS/SGI (big-endian IEEE) processors are read.
// Every offset is checked against the file before it is read, and nothing is allocated from a
// count the file claims until the bytes it implies are known to be there.

#include "load_common.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/cluster.hpp>
#include <odemocap/load.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace odemocap {
namespace {

constexpr std::size_t k_block = 512;

enum class Processor { Intel, Dec, Mips };

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

/// Bytes [at, at + count) of a C3D file: all of it in memory (parse_c3d), or a window read
/// from the file on demand (load_capture: a large file's data section never has to be in
/// memory at once).
class ByteSource {
public:
  virtual ~ByteSource() = default;
  /// The file's size in bytes.
  virtual std::size_t size() const = 0;
  /// Bytes [at, at + count) with at + count <= size(), and as many after them as is cheap;
  /// valid until the next call. Throws LoadError when they cannot be read.
  virtual std::string_view window(std::size_t at, std::size_t count) = 0;
};

class MemorySource : public ByteSource {
public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  std::size_t size() const override { return data_.size(); }
  std::string_view window(std::size_t, std::size_t) override { return data_; }

private:
  std::string_view data_;
};

/// Bounds-checked reads of little-endian words and the processor's floats, at byte offsets
/// into the whole file; the bytes come from a ByteSource's window, moved when a read falls
/// outside it.
class Bytes {
public:
  Bytes(ByteSource& source, std::string path)
      : source_(source), size_(source.size()), path_(std::move(path)) {}

  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    throw LoadError::at_byte(path_, at, "C3D: " + message);
  }
  /// Checks that the file holds bytes [at, at + count); reads nothing.
  void need(std::size_t at, std::size_t count, const char* what) const {
    if (at > size_ || count > size_ - at) {
      throw LoadError::at_byte(path_, std::min(at, size_),
                               "C3D: " + std::string(what) + ": " + std::to_string(count) +
                                   " byte(s) needed from byte " + std::to_string(at) +
                                   ", the file ends at byte " + std::to_string(size_) +
                                   " (truncated, or a wrong pointer or count)");
    }
  }
  /// need(), then makes bytes [at, at + count) readable by the unchecked reads.
  void cover(std::size_t at, std::size_t count, const char* what) const {
    need(at, count, what);
    if (at < base_ || at - base_ + count > window_.size()) {
      window_ = source_.window(at, count);
      base_ = window_.size() == size_ ? 0 : at;
    }
  }

  std::uint8_t u8(std::size_t at, const char* what) const {
    cover(at, 1, what);
    return static_cast<std::uint8_t>(raw(at));
  }
  std::int8_t i8(std::size_t at, const char* what) const {
    return static_cast<std::int8_t>(u8(at, what));
  }
  std::uint16_t u16(std::size_t at, const char* what) const {
    cover(at, 2, what);
    return unchecked_u16(at);
  }
  std::int16_t i16(std::size_t at, const char* what) const {
    return static_cast<std::int16_t>(u16(at, what));
  }
  float f32(std::size_t at, const char* what) const {
    cover(at, 4, what);
    return unchecked_f32(at);
  }
  /// For hot loops whose range was made readable with cover().
  float unchecked_f32(std::size_t at) const {
    switch (processor_) {
    case Processor::Intel: return f32_as<Processor::Intel>(at);
    case Processor::Dec: return f32_as<Processor::Dec>(at);
    case Processor::Mips: break;
    }
    return f32_as<Processor::Mips>(at);
  }
  std::uint16_t unchecked_u16(std::size_t at) const {
    return processor_ == Processor::Mips ? u16_as<Processor::Mips>(at)
                                         : u16_as<Processor::Intel>(at);
  }
  /// A point's x, y, z (file units: integers times `scale`, or floats when `floats`) and
  /// whether its residual word says it was measured, at `at` (range made readable with
  /// cover()). The byte order is chosen once per point, not per number: the loader's hot loop.
  void unchecked_point(std::size_t at, bool floats, double scale, Vec3& p, bool& valid) const {
    switch (processor_) {
    case Processor::Intel: return point_as<Processor::Intel>(at, floats, scale, p, valid);
    case Processor::Dec: return point_as<Processor::Dec>(at, floats, scale, p, valid);
    case Processor::Mips: break;
    }
    point_as<Processor::Mips>(at, floats, scale, p, valid);
  }
  /// Valid until the next read.
  std::string_view text(std::size_t at, std::size_t count, const char* what) const {
    cover(at, count, what);
    return window_.substr(at - base_, count);
  }
  std::size_t size() const { return size_; }
  void set_processor(Processor p) { processor_ = p; }
  Processor processor() const { return processor_; }

private:
  std::uint32_t raw(std::size_t at) const {
    return static_cast<unsigned char>(window_[at - base_]);
  }

  template <Processor P>
  float f32_as(std::size_t at) const {
    std::uint32_t bits;
    if constexpr (P == Processor::Intel) {
      bits = raw(at) | raw(at + 1) << 8 | raw(at + 2) << 16 | raw(at + 3) << 24;
    } else if constexpr (P == Processor::Mips) {
      bits = raw(at) << 24 | raw(at + 1) << 16 | raw(at + 2) << 8 | raw(at + 3);
    } else {
      // DEC F-float: two little-endian 16-bit words, high word first; as an IEEE pattern it
      // reads 4 times too large (exponent bias 128 and a 0.1f mantissa), zero exponent is 0.
      bits = raw(at + 2) | raw(at + 3) << 8 | raw(at) << 16 | raw(at + 1) << 24;
      if ((bits & 0x7f800000u) == 0) {
        return 0.0f;
      }
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if constexpr (P == Processor::Dec) {
      return f / 4.0f;
    }
    return f;
  }
  template <Processor P>
  std::uint16_t u16_as(std::size_t at) const {
    if constexpr (P == Processor::Mips) {
      return static_cast<std::uint16_t>(raw(at) << 8 | raw(at + 1));
    }
    return static_cast<std::uint16_t>(raw(at) | raw(at + 1) << 8);
  }
  template <Processor P>
  void point_as(std::size_t at, bool floats, double scale, Vec3& p, bool& valid) const {
    if (floats) {
      p = {f32_as<P>(at), f32_as<P>(at + 4), f32_as<P>(at + 8)};
      valid = !(f32_as<P>(at + 12) < 0.0f) && is_finite(p);
      return;
    }
    const auto word = [&](std::size_t k) {
      return static_cast<std::int16_t>(u16_as<P>(at + k));
    };
    p = Vec3{static_cast<double>(word(0)), static_cast<double>(word(2)),
             static_cast<double>(word(4))} *
        scale;
    valid = word(6) >= 0;
  }

  ByteSource& source_;
  std::size_t size_;
  mutable std::string_view window_; ///< bytes [base_, base_ + window_.size()) of the file
  mutable std::size_t base_ = 0;
  std::string path_;
  Processor processor_ = Processor::Intel;
};

struct Parameter {
  std::int8_t type = 0; ///< -1 char, 1 byte, 2 int16, 4 float
  std::vector<std::size_t> dims;
  std::size_t data = 0;  ///< byte offset of the values
  std::size_t count = 0; ///< number of values
  std::size_t record = 0;
};

/// C3D strings are padded with spaces or NUL bytes (Motive pads with NULs).
std::string_view trim_padding(std::string_view s) {
  const auto first = s.find_first_not_of(std::string_view(" \t\r\n\0", 5));
  if (first == std::string_view::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(std::string_view(" \t\r\n\0", 5)) - first + 1);
}

class Parameters {
public:
  Parameters(const Bytes& bytes) : bytes_(bytes) {}
  /// The section at byte `start`; its records may run on past the blocks it claims, up to
  /// `limit` (where the data starts, or the file ends): some writers count the blocks wrong.
  Parameters(const Bytes& bytes, std::size_t start, std::size_t limit) : bytes_(bytes) {
    read(start, limit);
  }

  /// Where the records ran past the blocks the section claims: the byte after the last one
  /// (0: they did not), and how many blocks it claims.
  std::size_t overrun() const { return overrun_; }
  std::size_t claimed_blocks() const { return claimed_blocks_; }
  /// A record whose offset to the next one is negative ends the section (c3d.org sample 18):
  /// its byte and offset, or 0.
  std::size_t broken_end() const { return broken_end_; }
  int broken_offset() const { return broken_offset_; }

  const Parameter* find(const std::string& group, const std::string& name) const {
    const auto g = by_name_.find(group + ":" + name);
    return g == by_name_.end() ? nullptr : &g->second;
  }
  bool has_group(const std::string& group) const {
    for (const auto& [id, name] : groups_) {
      if (name == group) {
        return true;
      }
    }
    return false;
  }
  /// Value `index` of a numeric parameter; int16 read as unsigned when `unsigned_words`.
  double number(const Parameter& p, std::size_t index, bool unsigned_words = false) const {
    if (index >= p.count) {
      bytes_.fail(p.record, "parameter has " + std::to_string(p.count) + " value(s), value " +
                                std::to_string(index + 1) + " was needed");
    }
    switch (p.type) {
    case 1: return bytes_.u8(p.data + index, "parameter value");
    case 2:
      return unsigned_words ? bytes_.u16(p.data + 2 * index, "parameter value")
                            : bytes_.i16(p.data + 2 * index, "parameter value");
    case 4: return bytes_.f32(p.data + 4 * index, "parameter value");
    default: bytes_.fail(p.record, "a numeric parameter holds characters");
    }
  }
  std::optional<double> number(const std::string& group, const std::string& name,
                               bool unsigned_words = false) const {
    const Parameter* p = find(group, name);
    if (p == nullptr || p->count == 0) {
      return std::nullopt;
    }
    return number(*p, 0, unsigned_words);
  }
  /// Value `index` of a parameter that counts something: a whole number in [0, 2^32).
  std::size_t count(const Parameter& p, std::size_t index, const std::string& what) const {
    const double v = number(p, index, true);
    if (!(v >= 0.0 && v < 4294967296.0 && v == std::floor(v))) {
      bytes_.fail(p.record, what + " must be a whole number from 0, got " + std::to_string(v));
    }
    return static_cast<std::size_t>(v);
  }
  std::optional<std::size_t> count(const std::string& group, const std::string& name) const {
    const Parameter* p = find(group, name);
    if (p == nullptr || p->count == 0) {
      return std::nullopt;
    }
    return count(*p, 0, group + ":" + name);
  }
  /// A character parameter as strings: dims [length] is one, [length, count] is count.
  std::vector<std::string> strings(const std::string& group, const std::string& name) const {
    const Parameter* p = find(group, name);
    std::vector<std::string> out;
    if (p == nullptr || p->type != -1 || p->dims.empty()) {
      return out;
    }
    const std::size_t length = p->dims[0];
    const std::size_t count = p->count / std::max<std::size_t>(length, 1);
    for (std::size_t i = 0; i < count; ++i) {
      out.emplace_back(trim_padding(bytes_.text(p->data + i * length, length, "parameter text")));
    }
    return out;
  }

private:
  void read(std::size_t start, std::size_t limit) {
    const std::uint8_t blocks = bytes_.u8(start + 2, "parameter block count");
    if (blocks == 0) {
      bytes_.fail(start + 2, "the parameter section claims 0 blocks");
    }
    claimed_blocks_ = blocks;
    const std::size_t claimed_end = std::min(bytes_.size(), start + blocks * k_block);
    const std::size_t end = std::max(claimed_end, std::min(bytes_.size(), limit));
    std::size_t at = start + 4;
    std::map<int, std::vector<std::pair<std::string, Parameter>>> pending;
    while (at + 2 <= end) {
      const std::int8_t length = bytes_.i8(at, "parameter name length");
      if (length == 0) {
        break;
      }
      const std::int8_t id = bytes_.i8(at + 1, "group id");
      if (id == 0) {
        bytes_.fail(at + 1, "group id 0 is not allowed");
      }
      const std::size_t name_length = static_cast<std::size_t>(std::abs(length));
      const std::string name =
          upper(trim_padding(bytes_.text(at + 2, name_length, "parameter name")));
      const std::size_t offset_at = at + 2 + name_length;
      const std::int16_t next = bytes_.i16(offset_at, "offset to the next parameter");
      const std::size_t body = offset_at + 2;
      if (id < 0) {
        groups_[-id] = name;
      } else {
        const Parameter& p = pending[id].emplace_back(name, read_parameter(at, body, end)).second;
        const std::size_t p_end = p.data + p.count * static_cast<std::size_t>(std::abs(p.type));
        if (p_end > claimed_end) {
          overrun_ = std::max(overrun_, p_end);
        }
      }
      if (next < 0) {
        broken_end_ = offset_at;
        broken_offset_ = next;
        break;
      }
      if (next == 0) {
        break;
      }
      at = offset_at + static_cast<std::size_t>(next);
    }
    for (auto& [id, parameters] : pending) {
      const auto g = groups_.find(id);
      const std::string group = g == groups_.end() ? "#" + std::to_string(id) : g->second;
      for (auto& [name, p] : parameters) {
        by_name_.emplace(group + ":" + name, p);
      }
    }
  }

  Parameter read_parameter(std::size_t record, std::size_t body, std::size_t end) const {
    Parameter p;
    p.record = record;
    p.type = bytes_.i8(body, "parameter type");
    if (p.type != -1 && p.type != 1 && p.type != 2 && p.type != 4) {
      bytes_.fail(body, "parameter type " + std::to_string(p.type) +
                            " is none of -1 (char), 1 (byte), 2 (int16), 4 (float)");
    }
    const std::uint8_t dims = bytes_.u8(body + 1, "parameter dimension count");
    std::size_t count = 1;
    for (std::size_t d = 0; d < dims; ++d) {
      p.dims.push_back(bytes_.u8(body + 2 + d, "parameter dimension"));
      count *= p.dims.back(); // <= 255^7: no overflow in 64 bits
    }
    p.data = body + 2 + dims;
    p.count = count;
    const std::size_t bytes = count * static_cast<std::size_t>(std::abs(p.type));
    if (p.data > end || bytes > end - p.data) {
      bytes_.fail(body, "parameter values (" + std::to_string(bytes) +
                            " bytes) run past the end of the parameter section");
    }
    return p;
  }

  const Bytes& bytes_;
  std::map<int, std::string> groups_;
  std::map<std::string, Parameter> by_name_;
  std::size_t overrun_ = 0;
  std::size_t claimed_blocks_ = 0;
  std::size_t broken_end_ = 0;
  int broken_offset_ = 0;
};

/// The file's up axis from POINT:Y_SCREEN ("+Z", "-Y", ...; the axis that points up the
/// screen in a viewer); when absent or unreadable, `declared` is false and Z is returned for
/// settle_up() to confirm or replace. X_SCREEN and Y_SCREEN only orient a
/// viewer's camera: ezc3d and BTK leave the data as it is, and Qualisys QTM writes "-Z" for
/// data that stands on +Z. So only the axis is taken, never the sign, and the data is never
/// turned by them (`note` says so when the sign is "-").
Axis up_axis_of(const Parameters& parameters, bool& declared, std::string& note) {
  const std::vector<std::string> y = parameters.strings("POINT", "Y_SCREEN");
  declared = false;
  if (y.empty()) {
    return Axis::Z; // the usual laboratory convention
  }
  const std::string& v = y[0];
  const char letter = static_cast<char>(
      std::toupper(static_cast<unsigned char>(v.empty() ? ' ' : v.back())));
  const bool sign_ok = v.size() == 1 || (v.size() == 2 && (v[0] == '+' || v[0] == '-'));
  if (!sign_ok || (letter != 'X' && letter != 'Y' && letter != 'Z')) {
    note = "POINT:Y_SCREEN is '" + v + "', not an axis such as +Z: read as declaring none";
    return Axis::Z;
  }
  declared = true;
  if (v[0] == '-') {
    note = "POINT:Y_SCREEN is '" + v + "': a viewer's camera setting (the screen's up), not a "
           "turn of the data; the data is kept as it is, " + std::string(1, letter) + " up";
  }
  return letter == 'X' ? Axis::X : letter == 'Y' ? Axis::Y : Axis::Z;
}

/// For a file that declares no up axis (no readable POINT:Y_SCREEN), read in its own frame:
/// its up axis is the one its markers show a person upright along (detail::infer_marker_up over
/// the points that are places, not the model outputs POINT:ANGLES, FORCES, MOMENTS, POWERS and
/// SCALARS list or their names say), else Z, the usual laboratory convention; then the capture
/// is turned to LoadOptions::up_axis as a declared axis would have been.
void settle_up(Capture& capture, const Parameters& parameters, const LoadOptions& options) {
  std::vector<std::string> outputs;
  for (const char* group : {"ANGLES", "FORCES", "MOMENTS", "POWERS", "SCALARS"}) {
    const std::vector<std::string> labels = parameters.strings("POINT", group);
    outputs.insert(outputs.end(), labels.begin(), labels.end());
  }
  std::vector<const Track*> places;
  for (const Track& t : capture.tracks()) {
    if (t.position_only() && !detail::is_model_output(t.name()) &&
        std::find(outputs.begin(), outputs.end(), t.name()) == outputs.end()) {
      places.push_back(&t);
    }
  }
  detail::settle_capture_up(capture, places, Axis::Z,
                            "the file declares no up axis; Z would be the usual", options);
}

/// Whether the header's parameter block pointer leads to a parameter section: some writers
/// leave it out (pointer 0 or 1, the data where the parameters would be, or a section of 0
/// blocks, as PhaseSpace's c3d.org sample 20).
bool has_parameter_section(const Bytes& bytes) {
  const auto byte = [&](std::size_t at) -> unsigned {
    return at < bytes.size() ? bytes.u8(at, "header") : 0u;
  };
  const unsigned block = byte(0);
  if (block < 2) {
    return false;
  }
  const unsigned data_le = byte(16) | byte(17) << 8;
  const unsigned data_be = byte(16) << 8 | byte(17);
  if (data_le == block || data_be == block) {
    return false;
  }
  const std::size_t start = (block - 1u) * k_block;
  return !(start + 4 <= bytes.size() && byte(start + 2) == 0);
}

/// For a file without parameters, the processor whose reading of the header makes sense: a
/// positive rate, a finite non-zero scale and a data section the file holds; Intel first.
std::optional<Processor> guess_processor(Bytes& bytes) {
  for (Processor p : {Processor::Intel, Processor::Dec, Processor::Mips}) {
    bytes.set_processor(p);
    if (bytes.size() < k_block) {
      return std::nullopt;
    }
    const double rate = bytes.f32(20, "header rate");
    const double scale = bytes.f32(12, "header scale");
    const std::size_t points = bytes.u16(2, "header point count");
    const std::size_t analog = bytes.u16(4, "header analog count");
    const std::size_t first = bytes.u16(6, "header first frame");
    const std::size_t last = bytes.u16(8, "header last frame");
    const std::size_t block = bytes.u16(16, "header data start");
    if (!(rate > 0.0 && rate < 1e6) || !std::isfinite(scale) || scale == 0.0 || block < 2 ||
        last < first) {
      continue;
    }
    const std::size_t frame_bytes = (4 * points + analog) * (scale < 0.0 ? 4 : 2);
    const std::size_t start = (block - 1) * k_block;
    if (start < bytes.size() && frame_bytes > 0 &&
        (bytes.size() - start) / frame_bytes >= last - first + 1) {
      return p;
    }
  }
  return std::nullopt;
}

const char* processor_name(Processor p) {
  return p == Processor::Intel ? "Intel" : p == Processor::Dec ? "DEC" : "MIPS (big-endian)";
}

/// Labels for `count` tracks: the LABELS parameters in order, then made non-empty and unique
/// among all the file's tracks (`seen` counts the names so far).
std::vector<std::string> labels_of(const Parameters& parameters, const std::string& group,
                                   std::size_t count, const char* fallback,
                                   std::map<std::string, int>& seen,
                                   std::vector<std::string>& notes) {
  std::vector<std::string> labels = parameters.strings(group, "LABELS");
  for (int k = 2; labels.size() < count && k < 100; ++k) {
    const std::vector<std::string> more = parameters.strings(group, "LABELS" + std::to_string(k));
    if (more.empty()) {
      break;
    }
    labels.insert(labels.end(), more.begin(), more.end());
  }
  labels.resize(std::max(labels.size(), count));
  labels.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (labels[i].empty()) {
      labels[i] = fallback + std::to_string(i + 1);
    }
    int n = ++seen[labels[i]];
    if (n > 1) {
      // The new name may itself be taken ("a#2" as a label): count on until it is free.
      std::string renamed = labels[i] + "#" + std::to_string(n);
      while (seen.count(renamed) > 0) {
        renamed = labels[i] + "#" + std::to_string(++n);
      }
      notes.push_back(group + " label '" + labels[i] + "' is used more than once; renamed '" +
                      renamed + "'");
      seen[renamed] = 1;
      labels[i] = renamed;
    }
  }
  return labels;
}

/// The file read a window at a time: the header and parameters, then the data section a
/// chunk of frames after another, each read into one reused buffer.
class FileSource : public ByteSource {
public:
  FileSource(const std::string& path, std::size_t size)
      : in_(path, std::ios::binary), path_(path), size_(size) {
    if (!in_) {
      throw LoadError(path_, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    }
  }
  std::size_t size() const override { return size_; }
  std::string_view window(std::size_t at, std::size_t count) override {
    const std::size_t length = std::min(size_ - at, std::max(count, k_window));
    buffer_.resize(length);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(at));
    in_.read(buffer_.data(), static_cast<std::streamsize>(length));
    const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in_.gcount(), 0));
    if (got != length) {
      throw LoadError::at_byte(path_, at + got,
                               "C3D: read " + std::to_string(got) + " of " +
                                   std::to_string(length) + " bytes from byte " +
                                   std::to_string(at) + ": the file changed or failed");
    }
    return {buffer_.data(), length};
  }

private:
  static constexpr std::size_t k_window = 1 << 20;
  std::ifstream in_;
  std::string path_;
  std::size_t size_;
  std::vector<char> buffer_;
};

Capture parse_c3d_from(ByteSource& input, std::string_view source, const LoadOptions& options);

} // namespace

Capture parse_c3d(std::string_view data, std::string_view source, const LoadOptions& options) {
  MemorySource input(data);
  return parse_c3d_from(input, source, options);
}

namespace detail {

Capture load_c3d_file(const std::string& path, std::size_t size, const LoadOptions& options) {
  FileSource input(path, size);
  return parse_c3d_from(input, path, options);
}

} // namespace detail

namespace {

Capture parse_c3d_from(ByteSource& input, std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  Bytes bytes(input, std::string(source));
  const std::uint8_t parameter_block = bytes.u8(0, "header");
  if (bytes.u8(1, "header") != 0x50) {
    bytes.fail(1, "not a C3D file: the second byte is not 0x50");
  }
  CaptureInfo info;
  info.source = std::string(source);
  info.format = to_string(Format::C3d);
  const auto tolerate = [&](std::size_t at, const std::string& message) {
    if (options.strict) {
      bytes.fail(at, message);
    }
    info.tolerated.push_back(message);
    info.notes.push_back(message); // CaptureInfo: every tolerated defect is also a note
  };
  std::optional<Parameters> section;
  if (has_parameter_section(bytes)) {
    const std::size_t parameter_start = (parameter_block - 1u) * k_block;
    const std::uint8_t processor = bytes.u8(parameter_start + 3, "processor type");
    if (processor < 84 || processor > 86) {
      bytes.fail(parameter_start + 3, "processor type " + std::to_string(processor) +
                                          " is none of 84 (Intel), 85 (DEC), 86 (MIPS)");
    }
    bytes.set_processor(processor == 84   ? Processor::Intel
                        : processor == 85 ? Processor::Dec
                                          : Processor::Mips);
    // The parameters end where the data starts (when the header says so sensibly).
    const std::size_t data_at = (std::max<std::size_t>(bytes.u16(16, "header data start"), 1) - 1) *
                                k_block;
    section.emplace(bytes, parameter_start,
                    data_at > parameter_start ? data_at : bytes.size());
    if (section->overrun() > 0) {
      tolerate(parameter_start + 2,
               "the parameter section claims " + std::to_string(section->claimed_blocks()) +
                   " block(s) but its parameters run on to byte " +
                   std::to_string(section->overrun()) + "; they were read there");
    }
    if (section->broken_end() > 0) {
      tolerate(section->broken_end(),
               "the parameter record at byte " + std::to_string(section->broken_end()) +
                   " gives " + std::to_string(section->broken_offset()) +
                   " as the offset to the next one: the parameter section was taken to end there");
    }
  } else {
    // An empty section may still name the processor; otherwise the header must tell.
    const std::size_t processor_at = (std::max<std::size_t>(parameter_block, 1) - 1u) * k_block + 3;
    const unsigned named = parameter_block >= 2 && processor_at < bytes.size()
                               ? bytes.u8(processor_at, "processor type")
                               : 0u;
    std::optional<Processor> processor;
    if (named >= 84 && named <= 86) {
      processor = named == 84 ? Processor::Intel : named == 85 ? Processor::Dec : Processor::Mips;
    } else {
      processor = guess_processor(bytes);
    }
    if (!processor) {
      bytes.fail(0, "the file has no parameter section (the header points to block " +
                        std::to_string(parameter_block) +
                        ") and its header does not describe the data in Intel, DEC or MIPS "
                        "order (rate, scale, frames)");
    }
    bytes.set_processor(*processor);
    section.emplace(bytes);
    info.notes.push_back(std::string("the file has no parameter section: points, frames, rate "
                                     "and scale come from the header (read as ") +
                         processor_name(*processor) +
                         "), points are named point1, point2, ...; no labels, no unit");
  }
  const Parameters& parameters = *section;
  // The header's fields, overridden by the parameters that describe the same thing.
  const std::size_t points =
      parameters.count("POINT", "USED").value_or(bytes.u16(2, "header point count"));
  const std::size_t analog_values = bytes.u16(4, "header analog count");
  std::size_t first_frame = bytes.u16(6, "header first frame");
  std::size_t last_frame = bytes.u16(8, "header last frame");
  const double scale = parameters.number("POINT", "SCALE").value_or(bytes.f32(12, "header scale"));
  const std::size_t header_block = bytes.u16(16, "header data start");
  std::size_t data_block = parameters.count("POINT", "DATA_START").value_or(header_block);
  const auto inside = [&](std::size_t block) {
    return block >= 1 && (block - 1) * k_block < bytes.size();
  };
  if (data_block != header_block && !inside(data_block) && inside(header_block)) {
    // Some writers leave POINT:DATA_START 0 (or stale) and keep the header right.
    tolerate(16, "POINT:DATA_START is block " + std::to_string(data_block) +
                     ", outside the file: the header's block " + std::to_string(header_block) +
                     " was used");
    data_block = header_block;
  }
  if (first_frame == 0 && last_frame >= first_frame) {
    // Frame numbers count from 1; a header that counts from 0 means the same first frame.
    info.notes.push_back("the header's first frame is 0: read as frame 1 (time 0)");
    first_frame = 1;
    last_frame += 1;
  }
  const double rate = parameters.number("POINT", "RATE").value_or(bytes.f32(20, "header rate"));
  std::size_t frames = last_frame >= first_frame ? last_frame - first_frame + 1 : 0;
  if (const Parameter* start = parameters.find("TRIAL", "ACTUAL_START_FIELD")) {
    const Parameter* end = parameters.find("TRIAL", "ACTUAL_END_FIELD");
    if (end != nullptr && start->count >= 2 && end->count >= 2) {
      // Two unsigned words each, low word first: frame numbers beyond 65535.
      const auto field = [&](const Parameter& p) {
        return parameters.count(p, 0, "TRIAL field") +
               (parameters.count(p, 1, "TRIAL field") << 16);
      };
      const std::size_t a = field(*start);
      const std::size_t b = field(*end);
      if (b >= a) {
        first_frame = a;
        frames = b - a + 1;
      }
    }
  }
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    bytes.fail(20, "the point rate is " + std::to_string(rate) + " Hz; it must be positive");
  }
  if (!std::isfinite(scale) || scale == 0.0) {
    bytes.fail(12, "POINT:SCALE is " + std::to_string(scale) + "; it must be finite, not 0");
  }
  if (data_block == 0) {
    bytes.fail(16, "the data section starts at block 0");
  }
  const bool floats = scale < 0.0;
  const std::size_t word = floats ? 4 : 2;
  const std::size_t frame_bytes = (4 * points + analog_values) * word;
  const std::size_t data_start = (data_block - 1) * k_block;
  if (frames == 0) {
    bytes.fail(8, "the file holds no frames (last frame " + std::to_string(last_frame) +
                      ", first " + std::to_string(first_frame) + ")");
  }
  // Every point then has at least one frame of bytes behind it: no track is made from a
  // count alone. A data section cut short keeps its complete frames unless strict.
  const std::size_t complete = frame_bytes == 0 || data_start >= bytes.size()
                                   ? 0
                                   : (bytes.size() - data_start) / frame_bytes;
  if (complete < frames && complete > 0 && !options.strict) {
    tolerate(data_start, "the data section holds " + std::to_string(complete) + " of the " +
                             std::to_string(frames) + " announced frames (" +
                             std::to_string(frames - complete) +
                             " missing: the file is cut short); the complete frames were loaded");
    frames = complete;
  }
  bytes.need(data_start, frames * frame_bytes, "the data section");

  // A unit the file names but we do not know (or no unit) is inferred from the coordinates
  // once they are read, and said so: never a silent default.
  const std::vector<std::string> units = parameters.strings("POINT", "UNITS");
  const std::optional<double> unit =
      units.empty() ? std::nullopt : detail::declared_unit(units[0]);
  info.length_unit = units.empty() ? "" : units[0];
  bool up_declared = false;
  std::string up_note;
  const Axis up = up_axis_of(parameters, up_declared, up_note);
  if (up_declared) {
    info.up_axis_source = "declared";
  }
  if (!up_note.empty()) {
    info.notes.push_back(up_note);
  }
  detail::PoseConversion conversion =
      detail::make_conversion(options, up, unit.value_or(0.0), info);
  if (!up_declared) {
    conversion.rotation = Quat{}; // read in the file's frame, turned by settle_up() at the end
  }
  info.frame_rate = rate;

  Capture capture(info);
  const detail::TrackSelection selection(options.tracks);
  std::map<std::string, int> seen;
  const std::vector<std::string> labels =
      labels_of(parameters, "POINT", points, "point", seen, capture.info().notes);
  const double to_file_units = std::fabs(scale);
  // Frame by frame, each frame's points into their tracks: the data section is read once, in
  // order, a window of frames at a time.
  std::vector<std::size_t> kept;
  std::vector<Track> tracks;
  for (std::size_t p = 0; p < points; ++p) {
    if (selection.keep(labels[p])) {
      kept.push_back(p);
      tracks.emplace_back(labels[p]);
      tracks.back().set_position_only(true);
      tracks.back().reserve(frames);
    }
  }
  const std::size_t frames_per_window =
      frame_bytes == 0 ? std::max<std::size_t>(frames, 1)
                       : std::max<std::size_t>(1, (std::size_t{1} << 20) / frame_bytes);
  for (std::size_t f = 0; f < frames; ++f) {
    if (f % frames_per_window == 0) {
      bytes.cover(data_start + f * frame_bytes,
                  std::min(frames_per_window, frames - f) * frame_bytes, "the data section");
    }
    const double t = (static_cast<double>(first_frame) - 1.0 + static_cast<double>(f)) / rate;
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const std::size_t at = data_start + f * frame_bytes + kept[k] * 4 * word;
      Vec3 position;
      bool valid;
      bytes.unchecked_point(at, floats, to_file_units, position, valid);
      try {
        if (valid) {
          tracks[k].append(t, {conversion.apply({position, Quat{}}).p, Quat{}});
        } else {
          tracks[k].append_gap(t);
        }
      } catch (const MocapError& e) {
        bytes.fail(at, "point '" + labels[kept[k]] + "' frame " + std::to_string(first_frame + f) +
                           ": " + e.what());
      }
    }
  }
  for (Track& track : tracks) {
    capture.add_track(std::move(track));
  }

  // 6DOF data of the ROTATION group: per frame RATIO sub-samples of USED rigid bodies, each a
  // 4x4 matrix of floats stored column by column, then a reliability (< 0: no data).
  const std::size_t rotations = parameters.count("ROTATION", "USED").value_or(0);
  if (rotations > 0) {
    const auto rotation_block = parameters.count("ROTATION", "DATA_START");
    if (!rotation_block || *rotation_block < 1) {
      bytes.fail(0, "ROTATION:USED is " + std::to_string(rotations) +
                        " but ROTATION:DATA_START is missing or 0");
    }
    const std::size_t ratio = parameters.count("ROTATION", "RATIO").value_or(1);
    if (ratio == 0) {
      bytes.fail(0, "ROTATION:RATIO is 0");
    }
    const std::size_t rotation_start = (*rotation_block - 1) * k_block;
    const std::size_t samples = frames * ratio;
    const std::size_t sample_bytes = rotations * 17 * 4;
    if (samples > bytes.size() / sample_bytes) { // before multiplying: no overflow
      bytes.fail(rotation_start, "the ROTATION data section (" + std::to_string(samples) +
                                     " samples of " + std::to_string(sample_bytes) +
                                     " bytes) is larger than the file");
    }
    bytes.need(rotation_start, samples * sample_bytes, "the ROTATION data section");
    const std::vector<std::string> rotation_labels =
        labels_of(parameters, "ROTATION", rotations, "rotation", seen, capture.info().notes);
    for (std::size_t r = 0; r < rotations; ++r) {
      if (!selection.keep(rotation_labels[r])) {
        continue;
      }
      Track track(rotation_labels[r]);
      track.reserve(samples);
      for (std::size_t s = 0; s < samples; ++s) {
        const double t = (static_cast<double>(first_frame) - 1.0) / rate +
                         static_cast<double>(s) / (rate * static_cast<double>(ratio));
        const std::size_t at = rotation_start + (s * rotations + r) * 17 * 4;
        bytes.cover(at, 17 * 4, "the ROTATION data section");
        float m[16];
        for (int k = 0; k < 16; ++k) {
          m[k] = bytes.unchecked_f32(at + 4 * static_cast<std::size_t>(k));
        }
        const float reliability = bytes.unchecked_f32(at + 64);
        bool valid = reliability >= 0.0f;
        for (float v : m) {
          valid = valid && std::isfinite(v);
        }
        if (!valid) {
          try {
            track.append_gap(t);
          } catch (const MocapError& e) {
            bytes.fail(at, "rotation '" + rotation_labels[r] + "' sample " + std::to_string(s) +
                               ": " + e.what());
          }
          continue;
        }
        Mat3 rotation;
        for (int row = 0; row < 3; ++row) {
          for (int col = 0; col < 3; ++col) {
            rotation.m[row][col] = m[col * 4 + row];
          }
        }
        try {
          const Pose pose{Vec3{m[12], m[13], m[14]}, nearest_rotation(rotation)};
          track.append(t, conversion.apply(pose));
        } catch (const MocapError& e) {
          bytes.fail(at, "rotation '" + rotation_labels[r] + "' sample " + std::to_string(s) +
                             ": " + e.what());
        }
      }
      track.make_continuous();
      capture.add_track(std::move(track));
    }
  }
  std::vector<std::string> available;
  for (const auto& [name, count] : seen) {
    available.push_back(name);
  }
  selection.check_found(available, source);
  if (parameters.has_group("ANALOG") && analog_values > 0) {
    capture.info().notes.push_back(std::to_string(analog_values) +
                                   " analog value(s) per frame skipped");
  }
  if (!unit && options.unit_in_metres <= 0.0) {
    detail::infer_unit_from_coordinates(
        capture, units.empty() ? std::string("POINT:UNITS is missing")
                               : "POINT:UNITS is '" + units[0] + "', not a unit we know (mm, cm, m, in)",
        options);
  }
  if (!up_declared) {
    settle_up(capture, parameters, options);
  }
  return capture;
}

} // namespace
} // namespace odemocap
