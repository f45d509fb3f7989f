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

// Rows that stay bounded for every error axis. The quaternion Jacobian's rows G_i (unit
// directions of orientation_row) are orthogonal only near the target: near a half turn about an
// axis off the frame axes they are nearly dependent (G is singular at 180 degrees), and any
// per-row right-hand side then solves to a relative rate that grows like 1 / cos(angle/2):
// 46 times ODE's fixed joint at 178 degrees. A lock's three rows span every relative rate either
// way (G is invertible short of a half turn), so the velocity constraint is the same for any
// basis and only the right-hand side matters. With an orthonormal basis the solved rate is
// exactly the one asked for: relative rate u = -(ERP/h) E in frame f with E = 2 vec(q), whose
// length 2 sin(angle/2) is ODE's fixed joint's measure (equal to the angle to first order,
// increasing on [0, pi], never above 2; finite rotation mode turns 2 ERP sin(angle/2) <= angle
// per step, so a body never crosses its target). Row i is a = -rotate(f, e_i) with the "angle"
// E_i: its rate a . (w1 - w2) = e_i . u is what ODE drives to -(ERP/h) E_i.

/// The lock's rows: the axes of frame f and E = 2 vec(q) (q the error rotation, w >= 0).
inline void lock_motor_rows(const Quat& f, const Quat& q, MotorRow (&rows)[3]) {
  const Vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
  const Vec3 e = 2.0 * q.vec();
  const double components[3] = {e.x, e.y, e.z};
  for (int i = 0; i < 3; ++i) {
    rows[i] = {rotate(f, axes[i]) * -1.0, components[i], 1.0};
  }
}

/// The swing error of a hinge about frame f's x axis (frame coordinates): with body 2's axis
/// b = rotate(q, x) at the angle beta from x, E = (x cross b) / cos(beta/2), of length
/// 2 sin(beta/2) along the axis that turns b back onto x (2 vec(q)'s part off x when there is
/// no twist; with a twist, vec(q)'s part off x is the swing axis turned by half the twist, which
/// is why the hinge cannot reuse the lock's E). At a half turn the axis is undefined and any
/// perpendicular one will do.
inline Vec3 swing_error(const Quat& q) {
  const Vec3 x{1.0, 0.0, 0.0};
  const Vec3 b = rotate(q, x);
  const double half_cos_squared = 0.5 * (1.0 + b.x); // cos^2(beta/2)
  if (!(half_cos_squared > 1e-24)) {
    return {0.0, 2.0, 0.0};
  }
  return cross(x, b) / std::sqrt(half_cos_squared);
}

/// The hinge's two swing rows: frame f's y and z axes (perpendicular to body 1's hinge axis,
/// as in ODE's own hinge, so the rotation about it stays free) and swing_error's components.
inline void swing_motor_rows(const Quat& f, const Quat& q, MotorRow (&rows)[2]) {
  const Vec3 e = swing_error(q);
  rows[0] = {rotate(f, Vec3{0.0, 1.0, 0.0}) * -1.0, e.y, 1.0};
  rows[1] = {rotate(f, Vec3{0.0, 0.0, 1.0}) * -1.0, e.z, 1.0};
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
