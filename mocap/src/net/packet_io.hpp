#pragma once
// Bounds-checked little-endian packet reading and writing for the network codecs (NatNet,
// QTM RT). A Reader's failures name the packet, the field and its byte offset.

#include <odemocap/error.hpp>
#include <odemocap/vec3.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace odemocap::packet_io {

/// Bounds-checked little-endian reads; every failure names the field and its byte offset.
class Reader {
public:
  Reader(const std::uint8_t* data, std::size_t size, const char* what)
      : data_(data), size_(size), what_(what) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    fail_at(pos_, field, problem);
  }
  /// A failure of the field that starts at byte `offset`.
  [[noreturn]] void fail_at(std::size_t offset, const std::string& field,
                            const std::string& problem) const {
    throw MocapError(std::string(what_) + ": " + field + " at byte " + std::to_string(offset) +
                     ": " + problem);
  }
  std::size_t left() const { return size_ - pos_; }
  std::size_t pos() const { return pos_; }

  std::uint64_t bytes(std::size_t n, const char* field) {
    if (left() < n) {
      fail(field, "the packet ends (" + std::to_string(left()) + " bytes left, " +
                      std::to_string(n) + " needed)");
    }
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= static_cast<std::uint64_t>(data_[pos_ + i]) << (8 * i);
    }
    pos_ += n;
    return v;
  }
  std::uint16_t u16(const char* f) { return static_cast<std::uint16_t>(bytes(2, f)); }
  std::int16_t i16(const char* f) { return static_cast<std::int16_t>(bytes(2, f)); }
  std::uint32_t u32(const char* f) { return static_cast<std::uint32_t>(bytes(4, f)); }
  std::int32_t i32(const char* f) { return static_cast<std::int32_t>(bytes(4, f)); }
  std::uint64_t u64(const char* f) { return bytes(8, f); }
  float f32(const char* f) {
    const auto u = static_cast<std::uint32_t>(bytes(4, f));
    float v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  double f64(const char* f) {
    const std::uint64_t u = bytes(8, f);
    double v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  Vec3 vec3(const char* f) {
    const float x = f32(f), y = f32(f), z = f32(f);
    return {x, y, z};
  }
  /// A count of elements at least `min_bytes` each: refused when the bytes left cannot hold
  /// them, before anything is allocated.
  std::size_t count(const char* field, std::size_t min_bytes) {
    const std::size_t start = pos_;
    const std::int32_t n = i32(field);
    if (n < 0 || static_cast<std::size_t>(n) > left() / min_bytes) {
      fail_at(start, field,
              "claims " + std::to_string(n) + " elements, the " + std::to_string(left()) +
                  " bytes left hold at most " + std::to_string(left() / min_bytes));
    }
    return static_cast<std::size_t>(n);
  }
  std::string cstr(const char* field, std::size_t max) {
    const std::size_t limit = std::min(left(), max);
    const void* end = std::memchr(data_ + pos_, 0, limit);
    if (end == nullptr) {
      fail(field, "no terminating NUL within " + std::to_string(limit) + " bytes");
    }
    const auto n = static_cast<std::size_t>(static_cast<const std::uint8_t*>(end) - (data_ + pos_));
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n + 1;
    return s;
  }
  void skip(std::size_t n, const char* field) {
    if (left() < n) {
      fail(field, "the packet ends (" + std::to_string(left()) + " bytes left, " +
                      std::to_string(n) + " needed)");
    }
    pos_ += n;
  }

private:
  const std::uint8_t* data_;
  std::size_t size_;
  const char* what_;
  std::size_t pos_ = 0;
};

class Writer {
public:
  void bytes(std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
  }
  void u16(std::uint16_t v) { bytes(v, 2); }
  void i16(std::int16_t v) { bytes(static_cast<std::uint16_t>(v), 2); }
  void u32(std::uint32_t v) { bytes(v, 4); }
  void i32(std::int32_t v) { bytes(static_cast<std::uint32_t>(v), 4); }
  void u64(std::uint64_t v) { bytes(v, 8); }
  void f32(double value) {
    const auto v = static_cast<float>(value);
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    bytes(u, 4);
  }
  void f64(double v) {
    std::uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    bytes(u, 8);
  }
  void vec3(const Vec3& v) {
    f32(v.x);
    f32(v.y);
    f32(v.z);
  }
  void count(std::size_t n) {
    i32(static_cast<std::int32_t>(std::min<std::size_t>(n, 0x7fffffff)));
  }
  /// A NUL-terminated string (up to its first NUL, if it has one).
  void cstr(const std::string& s) {
    for (char c : s) {
      if (c == '\0') {
        break;
      }
      out.push_back(static_cast<std::uint8_t>(c));
    }
    out.push_back(0);
  }
  std::vector<std::uint8_t> out;
};

} // namespace odemocap::packet_io
