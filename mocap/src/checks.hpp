#pragma once
// Argument checks shared by the mocap sources. The checks are inline and cheap (they sit on
// per-sample paths); building the message is out of line and only happens on failure.

#include <odemocap/quat.hpp>

#include <cfloat>
#include <cmath>
#include <string>

namespace odemocap::detail {

std::string describe(double v);
std::string describe(const Vec3& v);
std::string describe(const Quat& q);

/// Throws MocapError "<function>: <argument> <requirement>, got <value>".
[[noreturn]] void throw_bad_argument(const char* function, const char* argument,
                                     const std::string& value, const char* requirement);

inline void require_positive_finite(double v, const char* function, const char* argument) {
  if (!(v > 0.0 && v <= DBL_MAX)) {
    throw_bad_argument(function, argument, describe(v), "must be finite and positive");
  }
}

inline void require_finite(double v, const char* function, const char* argument) {
  if (!std::isfinite(v)) {
    throw_bad_argument(function, argument, describe(v), "must be finite");
  }
}

inline void require_finite(const Vec3& v, const char* function, const char* argument) {
  if (!is_finite(v)) {
    throw_bad_argument(function, argument, describe(v), "must be finite");
  }
}

/// Returns v, or throws when it overflowed (finite arguments over a tiny dt).
inline Vec3 require_finite_result(const Vec3& v, const char* function) {
  if (!is_finite(v)) {
    throw_bad_argument(function, "result", describe(v),
                       "overflowed (the difference is too large for the time step)");
  }
  return v;
}

/// Checks | |q| - 1 | <= tolerance on |q|^2, without a square root (NaN and infinity fail
/// the comparison).
inline void require_unit(const Quat& q, double tolerance, const char* function,
                         const char* argument) {
  const double n2 = dot(q, q);
  if (!(n2 >= (1.0 - tolerance) * (1.0 - tolerance) && n2 <= (1.0 + tolerance) * (1.0 + tolerance))) {
    throw_bad_argument(function, argument, describe(q),
                       "must be a finite unit quaternion (normalize it first)");
  }
}

} // namespace odemocap::detail
