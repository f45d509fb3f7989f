#include "checks.hpp"

#include <odemocap/euler.hpp>

#include <cmath>

namespace odemocap {
namespace {

constexpr double k_pi = 3.14159265358979323846;

struct Axes {
  int i, j, k; // 0 = x, 1 = y, 2 = z, in application order
};

Axes axes_of(EulerOrder order) {
  switch (order) {
  case EulerOrder::XYZ: return {0, 1, 2};
  case EulerOrder::XZY: return {0, 2, 1};
  case EulerOrder::YXZ: return {1, 0, 2};
  case EulerOrder::YZX: return {1, 2, 0};
  case EulerOrder::ZXY: return {2, 0, 1};
  case EulerOrder::ZYX: return {2, 1, 0};
  case EulerOrder::XYX: return {0, 1, 0};
  case EulerOrder::XZX: return {0, 2, 0};
  case EulerOrder::YXY: return {1, 0, 1};
  case EulerOrder::YZY: return {1, 2, 1};
  case EulerOrder::ZXZ: return {2, 0, 2};
  case EulerOrder::ZYZ: return {2, 1, 2};
  }
  return {0, 1, 2};
}

Quat axis_rotation(int axis, double angle) {
  const double s = std::sin(0.5 * angle);
  Quat q{std::cos(0.5 * angle), 0.0, 0.0, 0.0};
  (axis == 0 ? q.x : axis == 1 ? q.y : q.z) = s;
  return q;
}

double component(const Quat& q, int axis) { return axis == 0 ? q.x : axis == 1 ? q.y : q.z; }

double wrap(double angle) {
  if (angle > k_pi) {
    return angle - 2.0 * k_pi;
  }
  if (angle < -k_pi) {
    return angle + 2.0 * k_pi;
  }
  return angle;
}

/// Angles of the extrinsic sequence (i, j, k): q = R_k(c) R_j(b) R_i(a). Direct method of
/// Bernardes and Viollet (2022, "Quaternion to Euler angles conversion: a direct, general and
/// computationally efficient method"): rotate q so that the problem becomes a proper Euler
/// sequence, read the middle angle from two hypot()s and the outer ones as the half sum and
/// half difference of two atan2()s.
/// At gimbal lock only the sum or the difference of the outer angles is defined; `zero_first`
/// chooses which outer angle is set to 0 then.
EulerAngles extrinsic_angles(const Quat& q, Axes axes, bool zero_first) {
  const int i = axes.i;
  const int j = axes.j;
  const bool proper = axes.i == axes.k;
  const int k = proper ? 3 - i - j : axes.k;
  const double sign = static_cast<double>((i - j) * (j - k) * (k - i) / 2); // Levi-Civita
  double a, b, c, d;
  if (proper) {
    a = q.w;
    b = component(q, i);
    c = component(q, j);
    d = component(q, k) * sign;
  } else {
    a = q.w - component(q, j);
    b = component(q, i) + component(q, k) * sign;
    c = component(q, j) + q.w;
    d = component(q, k) * sign - component(q, i);
  }
  EulerAngles out;
  out.second = 2.0 * std::atan2(std::hypot(c, d), std::hypot(a, b));
  const double half_sum = std::atan2(b, a);
  const double half_diff = std::atan2(d, c);
  constexpr double k_lock = 1e-12;
  const bool lock_zero = std::fabs(out.second) <= k_lock;
  const bool lock_pi = std::fabs(out.second - k_pi) <= k_lock;
  if (lock_zero || lock_pi) {
    // Only first + third (middle 0) or third - first (middle pi) is defined.
    const double defined = lock_zero ? 2.0 * half_sum : 2.0 * half_diff;
    if (zero_first) {
      out.third = defined;
    } else {
      out.first = lock_zero ? defined : -defined;
    }
  } else {
    out.first = half_sum - half_diff;
    out.third = half_sum + half_diff;
  }
  if (!proper) {
    out.third *= sign;
    out.second -= 0.5 * k_pi;
  }
  out.first = wrap(out.first);
  out.second = wrap(out.second);
  out.third = wrap(out.third);
  return out;
}

} // namespace

Quat from_euler(const EulerAngles& angles, EulerOrder order, EulerFrame frame) {
  detail::require_finite(angles.first, "from_euler", "first angle");
  detail::require_finite(angles.second, "from_euler", "second angle");
  detail::require_finite(angles.third, "from_euler", "third angle");
  const Axes axes = axes_of(order);
  const Quat a = axis_rotation(axes.i, angles.first);
  const Quat b = axis_rotation(axes.j, angles.second);
  const Quat c = axis_rotation(axes.k, angles.third);
  return frame == EulerFrame::Intrinsic ? a * b * c : c * b * a;
}

EulerAngles to_euler(const Quat& q, EulerOrder order, EulerFrame frame) {
  const Axes axes = axes_of(order);
  if (frame == EulerFrame::Extrinsic) {
    return extrinsic_angles(q, axes, false);
  }
  // Intrinsic (i, j, k) with angles (a, b, c) is extrinsic (k, j, i) with angles (c, b, a);
  // at gimbal lock the intrinsic third angle, the extrinsic first, is the one set to 0.
  const EulerAngles reversed = extrinsic_angles(q, {axes.k, axes.j, axes.i}, true);
  return {reversed.third, reversed.second, reversed.first};
}

const char* to_string(EulerOrder order) {
  switch (order) {
  case EulerOrder::XYZ: return "XYZ";
  case EulerOrder::XZY: return "XZY";
  case EulerOrder::YXZ: return "YXZ";
  case EulerOrder::YZX: return "YZX";
  case EulerOrder::ZXY: return "ZXY";
  case EulerOrder::ZYX: return "ZYX";
  case EulerOrder::XYX: return "XYX";
  case EulerOrder::XZX: return "XZX";
  case EulerOrder::YXY: return "YXY";
  case EulerOrder::YZY: return "YZY";
  case EulerOrder::ZXZ: return "ZXZ";
  case EulerOrder::ZYZ: return "ZYZ";
  }
  return "?";
}

} // namespace odemocap
