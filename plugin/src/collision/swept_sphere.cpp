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

std::optional<SweepHit> sweep_sphere_half_space(const Vec3& c, double r, const Vec3& d) {
  if (c.z <= r) {
    return SweepHit{0.0, {c.x, c.y, 0.0}, {0, 0, 1}};
  }
  if (!(d.z < 0.0) || c.z - r > -d.z) {
    return std::nullopt; // moving away, along, or not far enough
  }
  const double t = (c.z - r) / -d.z;
  return SweepHit{t, {c.x + t * d.x, c.y + t * d.y, 0.0}, {0, 0, 1}};
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
  return sweep_sphere_polygon(c, r, d, v, n, polygon_normal(v));
}

Vec3 polygon_normal(const Vec3* v) {
  const Vec3 normal = cross(v[1] - v[0], v[2] - v[0]);
  return norm(normal) > 0.0 ? normalized(normal) : Vec3{};
}

std::optional<SweepHit> sweep_sphere_polygon(const Vec3& c, double r, const Vec3& d, const Vec3* v,
                                             int n, const Vec3& normal) {
  if (!(dot(normal, normal) > 0.0)) {
    return std::nullopt; // degenerate
  }
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
  const double signed_side = dot(c - v[0], normal);
  const double signed_end = signed_side + dot(d, normal);
  if ((signed_side > r && signed_end > r) || (signed_side < -r && signed_end < -r)) {
    return std::nullopt; // the path stays beyond reach of the polygon's plane
  }
  const Vec3 facing = signed_side >= 0.0 ? normal : -1.0 * normal; // toward the centre
  const double side = std::fabs(signed_side);
  // Already within reach: of the face, or of an edge.
  const Vec3 foot = c - side * facing;
  if (side <= r && inside(foot)) {
    return SweepHit{0.0, foot, facing};
  }
  // The face: the plane pushed out by r toward the centre. Hit within the polygon, that is
  // the first touch: the plane is a supporting plane of the rounded polygon, which the path
  // cannot have entered before reaching it.
  const double approach = dot(d, facing);
  if (approach < 0.0 && side > r) {
    const double t = (side - r) / -approach;
    if (t <= 1.0) {
      const Vec3 q = c + t * d - r * facing;
      if (inside(q)) {
        return SweepHit{t, q, facing};
      }
    }
  }
  std::optional<SweepHit> best;
  for (int i = 0; i < n; ++i) {
    keep_first(best, sweep_sphere_capsule(c, r, d, v[i], v[(i + 1) % n], 0.0));
  }
  return best;
}

std::optional<SweepHit> sweep_sphere_triangle(const Vec3& c, double r, const Vec3& d,
                                              const Vec3& p0, const Vec3& p1, const Vec3& p2) {
  const Vec3 v[3] = {p0, p1, p2};
  return sweep_sphere_polygon(c, r, d, v, 3);
}

std::optional<BoxEntry> enter_box(const Vec3& c, const Vec3& d, const Vec3& half) {
  const double h[3] = {half.x, half.y, half.z};
  const double c0[3] = {c.x, c.y, c.z};
  const double step[3] = {d.x, d.y, d.z};
  BoxEntry entry;
  double leave = 1.0;
  for (int i = 0; i < 3; ++i) {
    if (step[i] == 0.0) {
      if (c0[i] < -h[i] || c0[i] > h[i]) {
        return std::nullopt;
      }
      continue;
    }
    const double t0 = (-h[i] - c0[i]) / step[i];
    const double t1 = (h[i] - c0[i]) / step[i];
    if (std::min(t0, t1) > entry.t) {
      entry.t = std::min(t0, t1);
      entry.axis = i;
    }
    leave = std::min(leave, std::max(t0, t1));
    if (entry.t > leave) {
      return std::nullopt;
    }
  }
  return entry;
}

std::optional<SweepHit> sweep_sphere_centred_box(const Vec3& lc, double r, const Vec3& ld,
                                                 const Vec3& half) {
  if (distance_to_box(lc, half) <= r) {
    const Vec3 q{std::clamp(lc.x, -half.x, half.x), std::clamp(lc.y, -half.y, half.y),
                 std::clamp(lc.z, -half.z, half.z)};
    const Vec3 n = norm(lc - q) > 0.0 ? normalized(lc - q) : Vec3{0, 0, 1};
    return SweepHit{0.0, q, n};
  }
  const double h[3] = {half.x, half.y, half.z};
  const double c0[3] = {lc.x, lc.y, lc.z};
  const double c1[3] = {lc.x + ld.x, lc.y + ld.y, lc.z + ld.z};
  // The path against the box grown by r on every side, which holds the rounded box (the box's
  // Minkowski sum with the sphere): most paths miss it, and then they miss the box.
  const std::optional<BoxEntry> entry_of_grown = enter_box(lc, ld, half + Vec3{r, r, r});
  if (!entry_of_grown) {
    return std::nullopt;
  }
  const double enter = entry_of_grown->t;
  const int entered = entry_of_grown->axis;
  // Where the path enters the grown box says what it meets first (the box's Voronoi regions,
  // as in Ericson's Real-Time Collision Detection, 5.5.7). In front of one face only, the
  // grown box's surface is the rounded box's: a hit there and then. Beyond two faces' planes
  // the rounded box is the cylinder about their common edge, beyond three the sphere about
  // their corner: if the path misses that rounding it misses the rounded box altogether (to
  // reach a face's region from there it would have to be inside the rounding already).
  const double at[3] = {c0[0] + enter * (c1[0] - c0[0]), c0[1] + enter * (c1[1] - c0[1]),
                        c0[2] + enter * (c1[2] - c0[2])};
  int beyond = 0;  // how many of the box's slabs the entry lies outside
  int inside = -1; // an axis whose slab holds the entry
  double sign[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(at[i]) > h[i]) {
      ++beyond;
      sign[i] = at[i] > 0.0 ? 1.0 : -1.0;
    } else {
      inside = i;
    }
  }
  if (beyond <= 1) {
    const Vec3 entry{at[0], at[1], at[2]};
    const Vec3 q{std::clamp(at[0], -h[0], h[0]), std::clamp(at[1], -h[1], h[1]),
                 std::clamp(at[2], -h[2], h[2])};
    if (norm(entry - q) > 0.0) {
      return SweepHit{enter, q, normalized(entry - q)};
    }
    // A sphere of radius 0 meets the face itself, through which the path entered.
    if (entered < 0) {
      return std::nullopt; // cannot be: the path started outside, beyond the distance r
    }
    double n[3] = {0.0, 0.0, 0.0};
    n[entered] = c1[entered] > c0[entered] ? -1.0 : 1.0;
    return SweepHit{enter, q, Vec3{n[0], n[1], n[2]}};
  }
  const Vec3 corner{sign[0] * h[0], sign[1] * h[1], sign[2] * h[2]};
  const auto edge_along = [&](int axis, double from) {
    double e[3] = {corner.x, corner.y, corner.z};
    e[axis] = from;
    return Vec3{e[0], e[1], e[2]};
  };
  std::optional<SweepHit> best;
  if (beyond == 2) {
    best = sweep_sphere_capsule(lc, r, ld, edge_along(inside, -h[inside]),
                                edge_along(inside, h[inside]), 0.0);
  } else {
    for (int axis = 0; axis < 3; ++axis) {
      keep_first(best, sweep_sphere_capsule(lc, r, ld, corner,
                                            edge_along(axis, -sign[axis] * h[axis]), 0.0));
    }
  }
  return best;
}

std::optional<SweepHit> sweep_sphere_box(const Vec3& c, double r, const Vec3& d, const Pose& pose,
                                         const Vec3& half) {
  const Quat to_local = conj(pose.q);
  auto hit = sweep_sphere_centred_box(rotate(to_local, c - pose.p), r, rotate(to_local, d), half);
  if (hit) {
    hit->point = pose.p + rotate(pose.q, hit->point);
    hit->normal = rotate(pose.q, hit->normal);
  }
  return hit;
}

} // namespace odemocap::detail
