#pragma once
/// Unit quaternions for rotations.
///
/// Convention (the only one in odemocap): components stored w, x, y, z, the order of ODE's
/// dQuaternion; Hamilton product (i*j = k); a unit quaternion q rotates a vector v as
/// q v conj(q), i.e. it maps body coordinates into world coordinates. q and -q are the same
/// rotation. Angular velocities are world-frame rotation vectors (rad/s) unless a function
/// says "body".

#include <odemocap/vec3.hpp>

namespace odemocap {

/// Quaternion w + x i + y j + z k; default-constructs to the identity rotation.
struct Quat {
  double w = 1.0;
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;

  /// Vector (imaginary) part.
  constexpr Vec3 vec() const { return {x, y, z}; }
};

/// Hamilton product: (a * b) rotates by b first, then by a.
constexpr Quat operator*(const Quat& a, const Quat& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
constexpr Quat operator+(const Quat& a, const Quat& b) {
  return {a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z};
}
constexpr Quat operator-(const Quat& a, const Quat& b) {
  return {a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z};
}
constexpr Quat operator-(const Quat& a) { return {-a.w, -a.x, -a.y, -a.z}; }
constexpr Quat operator*(const Quat& a, double s) { return {a.w * s, a.x * s, a.y * s, a.z * s}; }
constexpr Quat operator*(double s, const Quat& a) { return a * s; }

/// Conjugate; the inverse of a unit quaternion.
constexpr Quat conj(const Quat& q) { return {q.w, -q.x, -q.y, -q.z}; }

/// 4-D dot product; for unit quaternions the cosine of the angle between them on the 4-sphere.
constexpr double dot(const Quat& a, const Quat& b) {
  return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
}

/// 4-D Euclidean length.
inline double norm(const Quat& q) { return std::sqrt(dot(q, q)); }

/// True when every component is finite.
inline bool is_finite(const Quat& q) {
  return std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z);
}

/// q scaled to unit length; throws MocapError when q is not finite or shorter than 1e-12
/// (a near-zero quaternion carries no rotation, it is never turned into the identity).
Quat normalized(const Quat& q);

/// Rotates v by the unit quaternion q (q v conj(q)), with the 30-operation form
/// t = 2 qv x v, v' = v + w t + qv x t.
constexpr Vec3 rotate(const Quat& q, const Vec3& v) {
  const Vec3 qv = q.vec();
  const Vec3 t = 2.0 * cross(qv, v);
  return v + q.w * t + cross(qv, t);
}

/// Rotation by `angle` (rad, right-hand rule) about `axis` (any non-zero length; it is
/// normalised). Throws MocapError for a zero or non-finite axis or a non-finite angle.
Quat from_axis_angle(const Vec3& axis, double angle);

/// Axis (unit) and angle (rad) of a rotation.
struct AxisAngle {
  Vec3 axis{1.0, 0.0, 0.0};
  double angle = 0.0;
};

/// Axis and angle in [0, pi] of the unit quaternion q (q and -q give the same answer); the
/// axis is +x for the identity.
AxisAngle to_axis_angle(const Quat& q);

/// Quaternion of the rotation vector v (axis * angle, rad): the exponential map.
/// Exact for all |v|, with a Taylor branch of sin(a)/a near zero.
Quat from_rotation_vector(const Vec3& v);

/// Rotation vector (axis * angle, |result| <= pi) of the unit quaternion q: the logarithm map,
/// taking the shorter of q and -q.
Vec3 to_rotation_vector(const Quat& q);

/// Rotation angle in [0, pi] (rad) that takes unit quaternion a to unit quaternion b.
double angle_between(const Quat& a, const Quat& b);

/// Row-major 3x3 matrix acting on column vectors: world = m * body.
struct Mat3 {
  double m[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
};

/// Rotation matrix of the unit quaternion q.
Mat3 to_matrix(const Quat& q);

/// Unit quaternion (w >= 0) of a rotation matrix, robust for every trace sign (Shepperd's
/// largest-diagonal branching). Throws MocapError when m is not finite or not a proper rotation
/// (|m m^T - I| or |det m - 1| above 1e-6).
Quat from_matrix(const Mat3& m);

/// Shortest-arc rotation taking direction `from` to direction `to` (both non-zero, any length),
/// by the half-way vector method; for antiparallel inputs a half turn about an axis
/// perpendicular to `from`.
Quat from_to(const Vec3& from, const Vec3& to);

/// Normalised linear interpolation along the shorter arc; t in [0, 1].
Quat nlerp(const Quat& q0, const Quat& q1, double t);

/// Spherical linear interpolation along the shorter arc at constant angular rate; t in [0, 1].
/// t = 0 returns q0 and t = 1 returns q1 (or -q1) exactly.
Quat slerp(const Quat& q0, const Quat& q1, double t);

/// q if it lies in the hemisphere of `reference` (dot >= 0), otherwise -q.
constexpr Quat same_hemisphere(const Quat& q, const Quat& reference) {
  return dot(q, reference) < 0.0 ? -q : q;
}

/// Exact integration of q' = 1/2 omega q over h seconds at constant world-frame angular
/// velocity omega (rad/s): exp(omega h) * q, with a Taylor branch for small |omega h|.
/// This is what ODE's finite rotation mode does to a body's orientation in one step.
Quat integrate(const Quat& q, const Vec3& omega, double h);

} // namespace odemocap
