#pragma once
/// Three-component double vector used for positions (m), velocities (m/s, rad/s) and axes.

#include <cmath>

namespace odemocap {

/// A 3-vector; the frame (world or body) is stated by whoever hands it out.
struct Vec3 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
};

constexpr Vec3 operator+(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
constexpr Vec3 operator-(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
constexpr Vec3 operator-(const Vec3& a) { return {-a.x, -a.y, -a.z}; }
constexpr Vec3 operator*(const Vec3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
constexpr Vec3 operator*(double s, const Vec3& a) { return a * s; }
constexpr Vec3 operator/(const Vec3& a, double s) { return {a.x / s, a.y / s, a.z / s}; }
constexpr Vec3& operator+=(Vec3& a, const Vec3& b) { return a = a + b; }
constexpr Vec3& operator-=(Vec3& a, const Vec3& b) { return a = a - b; }

/// Dot product.
constexpr double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/// Cross product a x b (right-handed).
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/// Euclidean length.
inline double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

/// True when every component is finite (no NaN, no infinity).
inline bool is_finite(const Vec3& a) {
  return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}

/// Unit vector along `a`; throws MocapError when `a` is not finite or shorter than 1e-12.
Vec3 normalized(const Vec3& a);

} // namespace odemocap
