#include "checks.hpp"
#include "rates.hpp"

#include <odemocap/error.hpp>
#include <odemocap/quat.hpp>

#include <algorithm>
#include <cmath>

namespace odemocap {
namespace {

constexpr double k_min_length = 1e-12;

/// sin(x)/x, with its Taylor series where the quotient loses precision.
double sinc(double x) {
  if (std::fabs(x) < 1e-4) {
    const double x2 = x * x;
    return 1.0 - x2 / 6.0 + x2 * x2 / 120.0;
  }
  return std::sin(x) / x;
}

} // namespace

Vec3 normalized(const Vec3& a) {
  const double n = norm(a);
  if (!(n >= k_min_length) || !std::isfinite(n)) {
    detail::throw_bad_argument("normalized", "vector", detail::describe(a),
                               "must be finite with length >= 1e-12");
  }
  return a / n;
}

Quat normalized(const Quat& q) {
  const double n = norm(q);
  if (!(n >= k_min_length) || !std::isfinite(n)) {
    detail::throw_bad_argument("normalized", "quaternion", detail::describe(q),
                               "must be finite with length >= 1e-12");
  }
  return q * (1.0 / n);
}

Quat from_axis_angle(const Vec3& axis, double angle) {
  detail::require_finite(angle, "from_axis_angle", "angle");
  const Vec3 u = normalized(axis);
  const double half = 0.5 * angle;
  const double s = std::sin(half);
  return {std::cos(half), u.x * s, u.y * s, u.z * s};
}

AxisAngle to_axis_angle(const Quat& q_in) {
  const Quat q = q_in.w < 0.0 ? -q_in : q_in;
  const Vec3 v = q.vec();
  const double s = norm(v);
  if (s == 0.0) {
    return {};
  }
  // atan2 keeps full precision at every angle, unlike acos(w) near 0 and asin(s) near pi.
  return {v / s, 2.0 * std::atan2(s, q.w)};
}

Quat from_rotation_vector(const Vec3& v) {
  const double angle = norm(v);
  const double half = 0.5 * angle;
  // sin(half)/angle = 0.5 sinc(half): no division by a vanishing angle.
  const double k = 0.5 * sinc(half);
  return {std::cos(half), v.x * k, v.y * k, v.z * k};
}

Vec3 to_rotation_vector(const Quat& q) {
  const AxisAngle aa = to_axis_angle(q);
  return aa.axis * aa.angle;
}

double angle_between(const Quat& a, const Quat& b) { return to_axis_angle(b * conj(a)).angle; }

Mat3 to_matrix(const Quat& q) {
  const double w = q.w, x = q.x, y = q.y, z = q.z;
  Mat3 r;
  r.m[0][0] = 1.0 - 2.0 * (y * y + z * z);
  r.m[0][1] = 2.0 * (x * y - w * z);
  r.m[0][2] = 2.0 * (x * z + w * y);
  r.m[1][0] = 2.0 * (x * y + w * z);
  r.m[1][1] = 1.0 - 2.0 * (x * x + z * z);
  r.m[1][2] = 2.0 * (y * z - w * x);
  r.m[2][0] = 2.0 * (x * z - w * y);
  r.m[2][1] = 2.0 * (y * z + w * x);
  r.m[2][2] = 1.0 - 2.0 * (x * x + y * y);
  return r;
}

namespace {

void require_rotation(const Mat3& r) {
  double deviation = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (!std::isfinite(r.m[i][j])) {
        detail::throw_bad_argument("from_matrix", "matrix", "a non-finite element",
                                   "must be finite");
      }
      double rrt = 0.0;
      for (int k = 0; k < 3; ++k) {
        rrt += r.m[i][k] * r.m[j][k];
      }
      deviation = std::max(deviation, std::fabs(rrt - (i == j ? 1.0 : 0.0)));
    }
  }
  const double det = r.m[0][0] * (r.m[1][1] * r.m[2][2] - r.m[1][2] * r.m[2][1]) -
                     r.m[0][1] * (r.m[1][0] * r.m[2][2] - r.m[1][2] * r.m[2][0]) +
                     r.m[0][2] * (r.m[1][0] * r.m[2][1] - r.m[1][1] * r.m[2][0]);
  if (deviation > 1e-6 || std::fabs(det - 1.0) > 1e-6) {
    detail::throw_bad_argument("from_matrix", "matrix",
                               "|m m^T - I| = " + detail::describe(deviation) +
                                   ", det = " + detail::describe(det),
                               "must be a proper rotation (orthonormal, det +1, tolerance 1e-6)");
  }
}

} // namespace

Quat from_matrix(const Mat3& r) {
  require_rotation(r);
  const auto& m = r.m;
  const double trace = m[0][0] + m[1][1] + m[2][2];
  // Shepperd: divide by the largest of 4w^2, 4x^2, 4y^2, 4z^2 so the square root is of a
  // number >= 1 and no branch loses precision.
  Quat q;
  if (trace >= m[0][0] && trace >= m[1][1] && trace >= m[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + trace); // 4w
    q = {0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s};
  } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]); // 4x
    q = {(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s};
  } else if (m[1][1] >= m[2][2]) {
    const double s = 2.0 * std::sqrt(1.0 - m[0][0] + m[1][1] - m[2][2]); // 4y
    q = {(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s};
  } else {
    const double s = 2.0 * std::sqrt(1.0 - m[0][0] - m[1][1] + m[2][2]); // 4z
    q = {(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s};
  }
  q = normalized(q);
  return q.w < 0.0 ? -q : q;
}

Quat from_to(const Vec3& from, const Vec3& to) {
  const Vec3 a = normalized(from);
  const Vec3 b = normalized(to);
  const Vec3 h = a + b;
  const double hn = norm(h);
  if (hn < 1e-9) {
    // Antiparallel: a half turn about any axis perpendicular to a. Cross a with the world
    // axis it is least aligned with, so the cross product is well conditioned.
    const Vec3 other = std::fabs(a.x) < 0.57 ? Vec3{1.0, 0.0, 0.0}
                       : std::fabs(a.y) < 0.57 ? Vec3{0.0, 1.0, 0.0}
                                               : Vec3{0.0, 0.0, 1.0};
    const Vec3 axis = normalized(cross(a, other));
    return {0.0, axis.x, axis.y, axis.z};
  }
  // The rotation by twice the angle between a and the half-way vector h is the one from a
  // to b: q = (a.h, a x h) with unit h.
  const Vec3 u = h / hn;
  const Vec3 c = cross(a, u);
  return normalized(Quat{dot(a, u), c.x, c.y, c.z});
}

Quat nlerp(const Quat& q0, const Quat& q1, double t) {
  const Quat q1s = same_hemisphere(q1, q0);
  return normalized(q0 * (1.0 - t) + q1s * t);
}

Quat slerp(const Quat& q0, const Quat& q1, double t) {
  // The shorter arc: q1 negated when q0.q1 < 0 (one dot product serves the test and cos).
  const double d = dot(q0, q1);
  const Quat q1s = d < 0.0 ? -q1 : q1;
  if (t == 0.0 || t == 1.0) {
    return t == 0.0 ? q0 : q1s; // the samples themselves, untouched by renormalisation
  }
  const double c = std::fabs(d);
  const Quat perp = q1s - q0 * c;
  const double s2 = dot(perp, perp);
  // Rotate q0 towards the unit vector perp/s in the plane of q0 and q1 by t * theta:
  // q0 cos(t theta) + perp sin(t theta) / s.
  if (s2 < detail::k_series_limit * detail::k_series_limit) {
    // Consecutive samples are close: theta = s * (theta / s) from the series, then
    // sin(t theta) / s = t (theta / s) sinc(t theta); no atan2, sin or cos (and no division
    // by a vanishing s).
    const double theta_over_s = detail::theta_over_sin(s2, c);
    const double x2 = t * t * theta_over_s * theta_over_s * s2; // (t theta)^2
    // Unit to rounding: q0 is unit and perp is orthogonal to it, with |perp| = sin(theta).
    return q0 * detail::small_cos(x2) + perp * (t * theta_over_s * detail::small_sinc(x2));
  }
  const double s = std::sqrt(s2);
  const double a = t * std::atan2(s, c);
  return normalized(q0 * std::cos(a) + perp * (std::sin(a) / s));
}

Quat integrate(const Quat& q, const Vec3& omega, double h) {
  return from_rotation_vector(omega * h) * q;
}

} // namespace odemocap
