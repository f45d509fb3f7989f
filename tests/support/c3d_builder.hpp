#pragma once
// Writes small C3D files for tests, from the format's description (c3d.org): a header block,
// a parameter section (POINT, ANALOG, TRIAL and ROTATION groups as asked), a data section.
// Written independently of the reader; its DEC float encoding is checked against hand-derived
// bytes in c3d_loader_test.cpp.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace odemocap::test {

struct C3dPoint {
  double x = 0, y = 0, z = 0;
  double residual = 0; ///< < 0: invalid
};

struct C3dRotation {
  double m[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}; ///< row, column
  double reliability = 0;
};

struct C3dSpec {
  int processor = 84;  ///< 84 Intel, 85 DEC, 86 MIPS
  double scale = -0.1; ///< < 0: float storage
  double rate = 100;
  int first_frame = 1;
  std::string units = "mm";
  std::vector<std::string> labels;
  std::vector<std::vector<C3dPoint>> frames; ///< frames x points
  int analog_values = 0;                     ///< per frame, filled with a ramp
  bool trial_fields = false;                 ///< TRIAL:ACTUAL_START/END_FIELD (32-bit frames)
  std::vector<std::string> rotation_labels;
  std::vector<std::vector<C3dRotation>> rotations; ///< frames x bodies (ratio 1)
  int point_data_start = -1; ///< POINT:DATA_START as written; -1: the real block
  std::string y_screen;      ///< POINT:Y_SCREEN, e.g. "-Z"; empty: absent
  int claimed_parameter_blocks = 2; ///< the parameter section's block count as written
};

class C3dBuilder {
public:
  explicit C3dBuilder(int processor) : processor_(processor) {}

  void u8(std::string& out, int v) const { out.push_back(static_cast<char>(v & 0xff)); }
  /// A 16-bit word: low byte first, high byte first on MIPS (big-endian).
  void i16(std::string& out, int v) const {
    const auto u = static_cast<std::uint16_t>(v);
    u8(out, processor_ == 86 ? u >> 8 : u & 0xff);
    u8(out, processor_ == 86 ? u & 0xff : u >> 8);
  }
  /// IEEE single (big-endian on MIPS), or DEC F-float: the IEEE pattern of 4 v, its 16-bit
  /// halves swapped.
  void f32(std::string& out, double v) const {
    float f = static_cast<float>(processor_ == 85 ? v * 4.0 : v);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (processor_ == 85) {
      bits = (bits >> 16) | (bits << 16);
    }
    for (int k = 0; k < 4; ++k) {
      u8(out, static_cast<int>(bits >> (processor_ == 86 ? 24 - 8 * k : 8 * k)));
    }
  }

  std::string build(const C3dSpec& s) const {
    const int points = s.labels.empty() ? 0 : static_cast<int>(s.labels.size());
    const int frames = static_cast<int>(s.frames.size());
    const bool floats = s.scale < 0;
    const std::size_t word = floats ? 4 : 2;
    const std::size_t frame_bytes = (4 * points + s.analog_values) * word;
    const int parameter_blocks = 2;
    const int data_block = 2 + parameter_blocks;
    const std::size_t data_bytes = frame_bytes * frames;
    const int rotation_block =
        data_block + static_cast<int>((data_bytes + 511) / 512) + (data_bytes == 0 ? 1 : 0);

    std::string header;
    u8(header, 2);
    u8(header, 0x50);
    i16(header, points);
    i16(header, s.analog_values);
    i16(header, s.first_frame);
    i16(header, s.first_frame + frames - 1);
    i16(header, 0);
    f32(header, s.scale);
    i16(header, data_block);
    i16(header, s.analog_values > 0 ? 1 : 0);
    f32(header, s.rate);
    header.resize(512, '\0');

    std::string params;
    u8(params, 1);
    u8(params, 0x50);
    u8(params, s.claimed_parameter_blocks);
    u8(params, s.processor);
    group(params, 1, "POINT");
    integer(params, 1, "USED", points);
    real(params, 1, "SCALE", s.scale);
    real(params, 1, "RATE", s.rate);
    integer(params, 1, "DATA_START", s.point_data_start >= 0 ? s.point_data_start : data_block);
    integer(params, 1, "FRAMES", frames);
    if (!s.y_screen.empty()) {
      text(params, 1, "Y_SCREEN", {s.y_screen});
    }
    text(params, 1, "UNITS", {s.units});
    text(params, 1, "LABELS", s.labels);
    group(params, 2, "ANALOG");
    integer(params, 2, "USED", s.analog_values);
    real(params, 2, "RATE", s.rate);
    if (s.trial_fields) {
      group(params, 3, "TRIAL");
      words(params, 3, "ACTUAL_START_FIELD", {s.first_frame & 0xffff, s.first_frame >> 16});
      const int last = s.first_frame + frames - 1;
      words(params, 3, "ACTUAL_END_FIELD", {last & 0xffff, last >> 16});
    }
    if (!s.rotation_labels.empty()) {
      group(params, 4, "ROTATION");
      integer(params, 4, "USED", static_cast<int>(s.rotation_labels.size()));
      integer(params, 4, "DATA_START", rotation_block);
      integer(params, 4, "RATIO", 1);
      text(params, 4, "LABELS", s.rotation_labels);
    }
    u8(params, 0); // end of the parameters
    u8(params, 0);
    params.resize(512 * parameter_blocks, '\0');

    std::string data;
    for (int f = 0; f < frames; ++f) {
      for (const C3dPoint& p : s.frames[f]) {
        if (floats) {
          f32(data, p.x);
          f32(data, p.y);
          f32(data, p.z);
          f32(data, p.residual);
        } else {
          const double k = std::fabs(s.scale);
          i16(data, static_cast<int>(std::lround(p.x / k)));
          i16(data, static_cast<int>(std::lround(p.y / k)));
          i16(data, static_cast<int>(std::lround(p.z / k)));
          i16(data, p.residual < 0 ? -1 : static_cast<int>(std::lround(p.residual / k)));
        }
      }
      for (int a = 0; a < s.analog_values; ++a) {
        if (floats) {
          f32(data, 1000 + a);
        } else {
          i16(data, 1000 + a);
        }
      }
    }
    data.resize(static_cast<std::size_t>(rotation_block - data_block) * 512, '\0');
    std::string rotation;
    for (const auto& frame : s.rotations) {
      for (const C3dRotation& r : frame) {
        for (int col = 0; col < 4; ++col) {
          for (int row = 0; row < 4; ++row) {
            f32(rotation, r.m[row][col]);
          }
        }
        f32(rotation, r.reliability);
      }
    }
    return header + params + data + rotation;
  }

private:
  void record(std::string& out, int id, const std::string& name, const std::string& body) const {
    u8(out, static_cast<int>(name.size()));
    u8(out, id);
    out += name;
    i16(out, static_cast<int>(body.size()) + 2);
    out += body;
  }
  void group(std::string& out, int id, const std::string& name) const {
    record(out, -id, name, std::string(1, '\0')); // empty description
  }
  void parameter(std::string& out, int id, const std::string& name, int type,
                 const std::vector<int>& dims, const std::string& values) const {
    std::string body;
    u8(body, type);
    u8(body, static_cast<int>(dims.size()));
    for (int d : dims) {
      u8(body, d);
    }
    body += values;
    u8(body, 0); // empty description
    record(out, id, name, body);
  }
  void integer(std::string& out, int id, const std::string& name, int v) const {
    std::string values;
    i16(values, v);
    parameter(out, id, name, 2, {}, values);
  }
  void words(std::string& out, int id, const std::string& name, const std::vector<int>& v) const {
    std::string values;
    for (int x : v) {
      i16(values, x);
    }
    parameter(out, id, name, 2, {static_cast<int>(v.size())}, values);
  }
  void real(std::string& out, int id, const std::string& name, double v) const {
    std::string values;
    f32(values, v);
    parameter(out, id, name, 4, {}, values);
  }
  void text(std::string& out, int id, const std::string& name,
            const std::vector<std::string>& strings) const {
    std::size_t length = 1;
    for (const std::string& s : strings) {
      length = std::max(length, s.size());
    }
    std::string values;
    for (const std::string& s : strings) {
      values += s + std::string(length - s.size(), ' ');
    }
    parameter(out, id, name, -1, {static_cast<int>(length), static_cast<int>(strings.size())},
              values);
  }

  int processor_;
};

} // namespace odemocap::test
