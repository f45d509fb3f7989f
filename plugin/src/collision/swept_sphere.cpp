#include "collision/swept_sphere.hpp"

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

/// Keeps the earlier of two hits.
void keep_first(std::optional<SweepHit>& best, const std::optional<SweepHit>& candidate) {
  if (candidate && (!best || candidate->t < best->t)) {
    best = candidate;
  }
}

/// The smaller root in [0, 1] of a t^2 + b t + k = 0 (a >= 0), the time a point entering a
/// quadric surface crosses it; empty when it starts inside or on it (k <= 0: for a cylinder
/// about a segment, a point beyond the segment's end can be, and then only the end sphere can
/// be the first contact) or never reaches it within the interval.
std::optional<double> entry_time(double a, double b, double k) {
  if (!(a > 0.0) || !(k > 0.0)) {
    return std::nullopt; // no motion relative to the surface, or not entering it
  }
  const double disc = b * b - 4.0 * a * k;
  if (disc < 0.0 || b >= 0.0) {
    return std::nullopt; // misses, or moves away (k > 0 and b >= 0: both roots <= 0)
  }
  // The smaller root, in the form without cancellation: 2k / (-b + sqrt(disc)).
  const double t = 2.0 * k / (-b + std::sqrt(disc));
  return t <= 1.0 ? std::optional<double>(t) : std::nullopt;
}

double distance_to_box(const Vec3& local, const Vec3& half) {
  const Vec3 q{std::fmax(std::fabs(local.x) - half.x, 0.0),
               std::fmax(std::fabs(local.y) - half.y, 0.0),
               std::fmax(std::fabs(local.z) - half.z, 0.0)};
  return norm(q);
}

/// The hit of a centre at `at` against the closest point `q` of the shape (radius of the
/// shape's rounding `radius`: the surface point lies that far from q toward the centre).
SweepHit hit_at(double t, const Vec3& at, const Vec3& q, double radius) {
  const Vec3 n = normalized(at - q);
  return {t, q + radius * n, n};
}

/// Closest point of segment a-b to p.
Vec3 closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 u = b - a;
  const double l2 = dot(u, u);
  if (!(l2 > 0.0)) {
    return a;
  }
  const double s = std::clamp(dot(p - a, u) / l2, 0.0, 1.0);
  return a + s * u;
}

} // namespace

std::optional<SweepHit> sweep_sphere_sphere(const Vec3& c, double r, const Vec3& d, const Vec3& s,
                                            double radius) {
  const double reach = r + radius;
  const Vec3 m = c - s;
  const double k = dot(m, m) - reach * reach;
  if (k <= 0.0) {
    return SweepHit{0.0, s + radius * (norm(m) > 0.0 ? normalized(m) : Vec3{0, 0, 1}),
                    norm(m) > 0.0 ? normalized(m) : Vec3{0, 0, 1}};
  }
  const auto t = entry_time(dot(d, d), 2.0 * dot(d, m), k);
  if (!t) {
    return std::nullopt;
  }
  return hit_at(*t, c + *t * d, s, radius);
}

std::optional<SweepHit> sweep_sphere_capsule(const Vec3& c, double r, const Vec3& d, const Vec3& a,
                                             const Vec3& b, double radius) {
  const double reach = r + radius;
  const Vec3 start_q = closest_on_segment(c, a, b);
  if (norm(c - start_q) <= reach) {
    return hit_at(0.0, c, start_q, radius);
  }
  std::optional<SweepHit> best;
  const Vec3 u = b - a;
  const double l2 = dot(u, u);
  if (l2 > 0.0) {
    // The infinite cylinder: the components perpendicular to the axis.
    const Vec3 m = c - a;
    const Vec3 m_perp = m - (dot(m, u) / l2) * u;
    const Vec3 d_perp = d - (dot(d, u) / l2) * u;
    const auto t = entry_time(dot(d_perp, d_perp), 2.0 * dot(d_perp, m_perp),
                              dot(m_perp, m_perp) - reach * reach);
    if (t) {
      const Vec3 at = c + *t * d;
      const double axial = dot(at - a, u) / l2;
      if (axial >= 0.0 && axial <= 1.0) {
        best = hit_at(*t, at, a + axial * u, radius);
      }
    }
  }
  for (const Vec3& end : {a, b}) {
    keep_first(best, sweep_sphere_sphere(c, r, d, end, radius));
  }
  return best;
}

std::optional<SweepHit> sweep_sphere_polygon(const Vec3& c, double r, const Vec3& d, const Vec3* v,
                                             int n) {
  Vec3 normal = cross(v[1] - v[0], v[2] - v[0]);
  if (!(norm(normal) > 0.0)) {
    return std::nullopt; // degenerate
  }
  normal = normalized(normal);
  const auto inside = [&](const Vec3& q) {
    for (int i = 0; i < n; ++i) {
      const Vec3& p = v[i];
      const Vec3& next = v[(i + 1) % n];
      if (dot(cross(next - p, q - p), normal) < 0.0) {
        return false;
      }
    }
    return true;
  };
  double side = dot(c - v[0], normal);
  const Vec3 facing = side >= 0.0 ? normal : -1.0 * normal; // toward the centre
  side = std::fabs(side);
  // Already within reach: of the face, or of an edge.
  const Vec3 foot = c - side * facing;
  if (side <= r && inside(foot)) {
    return SweepHit{0.0, foot, facing};
  }
  std::optional<SweepHit> best;
  for (int i = 0; i < n; ++i) {
    keep_first(best, sweep_sphere_capsule(c, r, d, v[i], v[(i + 1) % n], 0.0));
  }
  if (best && best->t == 0.0) {
    return best;
  }
  // The face: the plane pushed out by r toward the centre.
  const double approach = dot(d, facing);
  if (approach < 0.0 && side > r) {
    const double t = (side - r) / -approach;
    if (t <= 1.0) {
      const Vec3 q = c + t * d - r * facing;
      if (inside(q)) {
        keep_first(best, SweepHit{t, q, facing});
      }
    }
  }
  return best;
}

std::optional<SweepHit> sweep_sphere_triangle(const Vec3& c, double r, const Vec3& d,
                                              const Vec3& p0, const Vec3& p1, const Vec3& p2) {
  const Vec3 v[3] = {p0, p1, p2};
  return sweep_sphere_polygon(c, r, d, v, 3);
}

std::optional<SweepHit> sweep_sphere_box(const Vec3& c, double r, const Vec3& d, const Pose& pose,
                                         const Vec3& half) {
  const Quat to_local = conj(pose.q);
  const Vec3 lc = rotate(to_local, c - pose.p);
  const Vec3 ld = rotate(to_local, d);
  const auto to_world = [&](SweepHit h) {
    h.point = pose.p + rotate(pose.q, h.point);
    h.normal = rotate(pose.q, h.normal);
    return h;
  };
  if (distance_to_box(lc, half) <= r) {
    const Vec3 q{std::clamp(lc.x, -half.x, half.x), std::clamp(lc.y, -half.y, half.y),
                 std::clamp(lc.z, -half.z, half.z)};
    const Vec3 n = norm(lc - q) > 0.0 ? normalized(lc - q) : Vec3{0, 0, 1};
    return to_world({0.0, q, n});
  }
  const double h[3] = {half.x, half.y, half.z};
  const double c0[3] = {lc.x, lc.y, lc.z};
  const double c1[3] = {lc.x + ld.x, lc.y + ld.y, lc.z + ld.z};
  // The path against the box grown by r on every side (a box holding the rounded one): most
  // paths miss it, and then they miss the box.
  double enter = 0.0;
  double leave = 1.0;
  for (int i = 0; i < 3; ++i) {
    const double step = c1[i] - c0[i];
    const double lo = -h[i] - r;
    const double hi = h[i] + r;
    if (step == 0.0) {
      if (c0[i] < lo || c0[i] > hi) {
        return std::nullopt;
      }
      continue;
    }
    const double t0 = (lo - c0[i]) / step;
    const double t1 = (hi - c0[i]) / step;
    enter = std::max(enter, std::min(t0, t1));
    leave = std::min(leave, std::max(t0, t1));
    if (enter > leave) {
      return std::nullopt;
    }
  }
  std::optional<SweepHit> best;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3;
    const int w = (axis + 2) % 3;
    for (const double sign : {-1.0, 1.0}) {
      // A face, its edges and corners are nearest only to points in front of its plane (the
      // Voronoi regions of a box): a path that never gets in front of it cannot touch them.
      if (std::max(sign * c0[axis], sign * c1[axis]) <= h[axis]) {
        continue;
      }
      Vec3 corner[4];
      const double su[4] = {-1, 1, 1, -1};
      const double sw[4] = {-1, -1, 1, 1};
      for (int k = 0; k < 4; ++k) {
        double p[3];
        p[axis] = sign * h[axis];
        p[u] = su[k] * h[u];
        p[w] = sw[k] * h[w];
        corner[k] = {p[0], p[1], p[2]};
      }
      keep_first(best, sweep_sphere_polygon(lc, r, ld, corner, 4));
    }
  }
  if (!best) {
    return std::nullopt;
  }
  return to_world(*best);
}

} // namespace odemocap::detail
