#pragma once
// Quaternion constraint rows (Lacoursiere's lock and hinge, in odemocap's conventions).
//
// Frames: p1, p2 are the world orientations of the two constraint frames (body orientation
// times the frame given in body coordinates). With a target relative orientation p, the
// reference frame is f = p1 p and the error rotation is q = conj(f) p2, taken with q.w >= 0
// (q and -q are the same rotation; the sign choice makes every row pull along the shorter
// arc, so a 170-degree error never flips to the far hemisphere).
//
// Derivative: with world angular velocities w1, w2, f' = 1/2 w1 f and p2' = 1/2 w2 p2, so
//   q' = 1/2 u q,  u = conj(f) (w2 - w1) f   (the relative angular velocity in frame f),
//   vec(q)' = 1/2 (q.w I - [vec q]x) u.
// A row g = r . vec(q) for a unit direction r (frame coordinates) therefore has
//   g' = G . (w2 - w1),  G = 1/2 rotate(f, q.w r + vec(q) x r)   (world frame),
// i.e. J2 = G^T and J1 = -G^T. ODE's angular motor row is a . (w1 - w2) with a unit axis a
// and an "angle" whose rate is that row, so a = -G/|G| and angle = g/|G|.
// tests/plugin/joints/quat_joint_test.cpp checks G against finite differences of g.

#include <odemocap/quat.hpp>

#include <cmath>

namespace odemocap::detail {

/// One scalar constraint: its value g and the world vector G with g' = G . (w2 - w1).
struct RowJacobian {
  double g = 0.0;
  Vec3 gradient;
};

/// One row of an ODE angular motor: unit world axis a (row a . (w1 - w2)) and the error
/// expressed along it (rad), so that its rate is the row.
struct MotorRow {
  Vec3 axis{1.0, 0.0, 0.0};
  double angle = 0.0;
  double scale = 1.0; ///< |G|: a limit of the underlying g becomes limit / scale
};

/// Error rotation conj(f) p2 on the w >= 0 hemisphere.
inline Quat error_rotation(const Quat& f, const Quat& p2) {
  const Quat q = conj(f) * p2;
  return q.w < 0.0 ? -q : q;
}

/// g = r . vec(q) for a unit direction r in frame f.
inline RowJacobian orientation_row(const Quat& f, const Quat& q, const Vec3& r) {
  const Vec3 qv = q.vec();
  return {dot(r, qv), 0.5 * rotate(f, q.w * r + cross(qv, r))};
}

/// Hinge angle about the unit direction n of frame f: theta = 2 atan2(n . vec(q), q.w), in
/// [-pi, pi]. Its gradient, from differentiating the atan2 with q' = 1/2 u q:
///   theta' = u . (q.w^2 n + q.w vec(q) x n + (n . vec(q)) vec(q)) / (q.w^2 + (n . vec(q))^2),
/// which is u . n on the hinge (vec(q) parallel to n).
inline RowJacobian twist_row(const Quat& f, const Quat& q, const Vec3& n) {
  const Vec3 qv = q.vec();
  const double s = dot(n, qv);
  const double d = q.w * q.w + s * s;
  const Vec3 g = (q.w * q.w * n + q.w * cross(qv, n) + s * qv) / d;
  return {2.0 * std::atan2(s, q.w), rotate(f, g)};
}

/// The ODE motor row of a constraint row; `fallback` is used as the axis when |G| vanishes
/// (a half turn about r itself, where the row carries no direction).
inline MotorRow motor_row(const RowJacobian& row, const Vec3& fallback) {
  const double length = norm(row.gradient);
  if (!(length > 1e-12)) {
    return {fallback, 0.0, 1.0};
  }
  return {row.gradient * (-1.0 / length), row.g / length, length};
}

/// The ODE motor row of an orientation row g = r . vec(q) of a lock or a hinge's swing: the
/// exact direction of motor_row, but the error ODE corrects is 2 g = 2 sin(angle/2) (r . axis),
/// the measure ODE's own fixed joint uses: equal to the angle to first order, increasing in
/// the angle on [0, pi] and never above 2. motor_row's g / |G| grows like 2 tan(angle/2): at
/// 170 degrees it commands 11 times the fixed joint's rate (549 rad/s at ERP 0.2, 120 Hz), so
/// a body in finite rotation mode overshot to the far side and flung what hung from it.
inline MotorRow orientation_motor_row(const RowJacobian& row, const Vec3& fallback) {
  MotorRow out = motor_row(row, fallback);
  out.angle = 2.0 * row.g;
  return out;
}

/// Angle (rad, [0, pi]) of the error rotation q (w >= 0).
inline double rotation_angle(const Quat& q) {
  return 2.0 * std::atan2(norm(q.vec()), q.w);
}

/// Angle (rad, [0, pi]) of the part of q that is not a rotation about the unit direction n:
/// q = twist(n) * swing, |swing| from the components off n.
inline double swing_angle(const Quat& q, const Vec3& n) {
  const Vec3 qv = q.vec();
  const double along = dot(n, qv);
  const double off = norm(qv - along * n);
  return 2.0 * std::atan2(off, std::sqrt(q.w * q.w + along * along));
}

} // namespace odemocap::detail
