#include "character/bounded_motor.hpp"

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

void set_param(dJointID motor, MotorKind kind, int row, int param, double value) {
  if (kind == MotorKind::Linear) {
    dJointSetLMotorParam(motor, param + dParamGroup * row, value);
  } else {
    dJointSetAMotorParam(motor, param + dParamGroup * row, value);
  }
}

void set_axis(dJointID motor, MotorKind kind, int row, const Vec3& a) {
  if (kind == MotorKind::Linear) {
    dJointSetLMotorAxis(motor, row, 0, a.x, a.y, a.z);
  } else {
    dJointSetAMotorAxis(motor, row, 0, a.x, a.y, a.z);
  }
}

/// Three rows along orthonormal `axes` (world): each holds body 1's velocity relative to body 2
/// along its axis at `velocity`'s component, with its own force limit.
void set_rows(dJointID motor, MotorKind kind, const Vec3 (&axes)[3], const Vec3& velocity,
              const double (&caps)[3]) {
  for (int row = 0; row < 3; ++row) {
    set_axis(motor, kind, row, axes[row]);
    set_param(motor, kind, row, dParamVel, dot(axes[row], velocity));
    set_param(motor, kind, row, dParamFMax, caps[row]);
  }
}

constexpr double k_lead = 0.995;                     // the lead row's largest share
constexpr double k_equal_share = 0.5773502691896258; // 1 / sqrt(3): its smallest
constexpr double k_lead_margin = 2.0;                // its share over the predicted need

/// The lead row's share of the limit `max` (may be infinite; 0 gives the equal share) for a
/// predicted need (>= 0, same unit).
double lead_share(double need, double max) {
  if (!(max > 0.0)) {
    return k_equal_share;
  }
  return std::clamp(k_lead_margin * (need / max), k_equal_share, k_lead);
}

} // namespace

void complete_basis(const Vec3& a, Vec3& b, Vec3& c) {
  // The world axis least aligned with a gives a well-conditioned cross product.
  const Vec3 helper = std::fabs(a.x) < 0.57   ? Vec3{1, 0, 0}
                      : std::fabs(a.y) < 0.57 ? Vec3{0, 1, 0}
                                              : Vec3{0, 0, 1};
  b = normalized(cross(a, helper));
  c = cross(a, b);
}

dJointID create_bounded_motor(dWorldID world, MotorKind kind, dBodyID body1, dBodyID body2,
                              dJointFeedback* feedback) {
  dJointID motor = kind == MotorKind::Linear ? dJointCreateLMotor(world, nullptr)
                                             : dJointCreateAMotor(world, nullptr);
  dJointAttach(motor, body1, body2);
  if (kind == MotorKind::Linear) {
    dJointSetLMotorNumAxes(motor, 3);
  } else {
    dJointSetAMotorMode(motor, dAMotorUser);
    dJointSetAMotorNumAxes(motor, 3);
  }
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int row = 0; row < 3; ++row) {
    set_axis(motor, kind, row, axes[row]);
    set_param(motor, kind, row, dParamFMax, 0.0);
    // Stiff rows whatever the world's CFM (a joint copies it at creation): with 1e-5, a common
    // setting, a follower would miss every pose by CFM * force / h, 0.2 mm at 120 Hz and 200 N.
    // 1e-10 (ODE's double-precision default), not 0: rigid rows pressed against a table's
    // contacts made dWorldStep's LCP solver report "internal error, s <= 0".
    set_param(motor, kind, row, dParamCFM, 1e-10);
  }
  dJointSetFeedback(motor, feedback);
  return motor;
}

void set_bounded_rows(dJointID motor, MotorKind kind, const Vec3& lead, const Vec3& velocity,
                      double max) {
  // A lead below 1e-9 (N or N m) is rounding noise of a body at rest; a basis that turned with
  // it every step made dWorldStep's LCP solver report "internal error, s <= 0".
  const double length = norm(lead);
  Vec3 axes[3];
  const bool predicted = length > 1e-9 && std::isfinite(length);
  axes[0] = predicted ? lead / length : Vec3{1, 0, 0};
  complete_basis(axes[0], axes[1], axes[2]);
  const double share = lead_share(predicted ? length : 0.0, max);
  const double side = std::sqrt(0.5 * (1.0 - share * share));
  set_rows(motor, kind, axes, velocity, {max * share, max * side, max * side});
}

void set_bounded_rows_across(dJointID motor, MotorKind kind, const Vec3& normal, const Vec3& lead,
                             const Vec3& velocity, double max) {
  const double length = norm(lead);
  const bool predicted = length > 1e-9 && std::isfinite(length);
  const Vec3 f = predicted ? lead / length : normal;
  Vec3 axes[3];
  axes[0] = normal;
  const Vec3 across = f - dot(f, normal) * normal;
  if (norm(across) > 1e-9) {
    axes[1] = normalized(across);
    axes[2] = cross(axes[0], axes[1]);
  } else {
    complete_basis(axes[0], axes[1], axes[2]);
  }
  // The caps of set_bounded_rows' basis (the lead along f), seen along these axes: the square
  // root of each axis' share of that ellipsoid's squares, so the three still sum to `max` in
  // quadrature, and the capacity along f (f.n c_n + f.a c_a) is at least the lead's cap.
  const double share = lead_share(predicted ? length : 0.0, max);
  const double side_sq = 0.5 * (1.0 - share * share);
  const auto cap = [&](const Vec3& axis) {
    const double c = dot(f, axis);
    return max * std::sqrt(c * c * share * share + (1.0 - c * c) * side_sq);
  };
  set_rows(motor, kind, axes, velocity, {cap(axes[0]), cap(axes[1]), cap(axes[2])});
}

void set_isotropic_rows(dJointID motor, MotorKind kind, const Vec3& velocity, double max) {
  const double cap = max / std::sqrt(3.0);
  set_rows(motor, kind, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, velocity, {cap, cap, cap});
}

} // namespace odemocap::detail
