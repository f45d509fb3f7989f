#include "checks.hpp"

#include <odemocap/error.hpp>

#include <charconv>

namespace odemocap::detail {

std::string describe(double v) {
  // Shortest text that reads back as the same double: 0.1, not 0.10000000000000001.
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string describe(const Vec3& v) {
  return "(" + describe(v.x) + ", " + describe(v.y) + ", " + describe(v.z) + ")";
}

std::string describe(const Quat& q) {
  return "(w=" + describe(q.w) + ", x=" + describe(q.x) + ", y=" + describe(q.y) +
         ", z=" + describe(q.z) + ")";
}

void throw_bad_argument(const char* function, const char* argument, const std::string& value,
                        const char* requirement) {
  throw MocapError(std::string(function) + ": " + argument + " " + requirement + ", got " + value);
}

} // namespace odemocap::detail

namespace odemocap {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one (overlong
/// forms, surrogates and code points above U+10FFFF are not valid).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xBF; // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    low = c == 0xE0 ? 0xA0 : 0x80;
    high = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    low = c == 0xF0 ? 0x90 : 0x80;
    high = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < low || byte(i + 1) > high) {
    return 0;
  }
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return n;
}

} // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = c >= 0x80 ? utf8_length(text, i) : 0;
    if (n > 0) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    static const char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
    ++i;
  }
  return out;
}

} // namespace odemocap
