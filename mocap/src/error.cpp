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
