#include "checks.hpp"

#include <odemocap/error.hpp>

#include <cstdio>

namespace odemocap::detail {

std::string describe(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
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
