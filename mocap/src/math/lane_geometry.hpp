#pragma once
// Vectors and quaternions whose components each hold several values (one per lane of T:
// Double2 or Double4), with quat.hpp's and vec3.hpp's operations term for term in the same
// order, so that each lane's value is the one the scalar operation gives.
//
// Internal linkage, as for everything a file compiled with AVX includes (math/lanes.hpp).

#include "math/lanes.hpp"

namespace odemocap::detail {
namespace {

template <class T> struct Vec3x { T x, y, z; };
template <class T> struct Quatx { T w, x, y, z; };

template <class T> Vec3x<T> operator+(const Vec3x<T>& a, const Vec3x<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T> Vec3x<T> operator-(const Vec3x<T>& a, const Vec3x<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T> Vec3x<T> operator*(const Vec3x<T>& a, T s) {
  return {a.x * s, a.y * s, a.z * s};
}
template <class T> Vec3x<T> cross(const Vec3x<T>& a, const Vec3x<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> T dot(const Vec3x<T>& a, const Vec3x<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <class T> Quatx<T> operator-(const Quatx<T>& a, const Quatx<T>& b) {
  return {a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T> Quatx<T> operator-(const Quatx<T>& a) {
  return {-a.w, -a.x, -a.y, -a.z};
}
template <class T> Quatx<T> operator+(const Quatx<T>& a, const Quatx<T>& b) {
  return {a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T> Quatx<T> operator*(const Quatx<T>& a, T s) {
  return {a.w * s, a.x * s, a.y * s, a.z * s};
}
// One component a line, as in quat.hpp.
// clang-format off
template <class T> Quatx<T> operator*(const Quatx<T>& a, const Quatx<T>& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
// clang-format on
template <class T> Quatx<T> conj(const Quatx<T>& q) {
  return {q.w, -q.x, -q.y, -q.z};
}
template <class T> T dot(const Quatx<T>& a, const Quatx<T>& b) {
  return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
Quatx<T> select(typename Lanes<T>::Bits mask, const Quatx<T>& a, const Quatx<T>& b) {
  return {detail::select(mask, a.w, b.w), detail::select(mask, a.x, b.x),
          detail::select(mask, a.y, b.y), detail::select(mask, a.z, b.z)};
}

/// rotate() of quat.hpp: t = 2 qv x v, v' = v + w t + qv x t.
template <class T> Vec3x<T> rotate(const Quatx<T>& q, const Vec3x<T>& v) {
  const Vec3x<T> qv{q.x, q.y, q.z};
  const Vec3x<T> t = cross(qv, v) * splat<T>(2.0);
  return v + t * q.w + cross(qv, t);
}

} // namespace
} // namespace odemocap::detail
