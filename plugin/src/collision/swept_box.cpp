#include "collision/swept_box.hpp"

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

/// Below this |cos| between an edge and the normal the edge is taken as lying across it: the
/// feature that leads along the normal then runs along that edge.
constexpr double k_across = 1e-6;

/// A box's feature that leads along unit n: its corner (1 point), the ends of its edge (2) or
/// its face's corners in order around it (4). Returns the count.
int leading_feature(const Vec3& centre, const Vec3 (&axes)[3], const Vec3& half, const Vec3& n,
                    Vec3 (&out)[4]) {
  const double h[3] = {half.x, half.y, half.z};
  Vec3 base = centre;
  int along[2] = {0, 0}; // the edges lying across n
  int count = 0;
  for (int i = 0; i < 3; ++i) {
    const double s = dot(axes[i], n);
    if (std::fabs(s) > k_across || count == 2) {
      base += (s > 0.0 ? h[i] : -h[i]) * axes[i];
    } else {
      along[count++] = i;
    }
  }
  if (count == 0) {
    out[0] = base;
    return 1;
  }
  const Vec3 a = h[along[0]] * axes[along[0]];
  if (count == 1) {
    out[0] = base - a;
    out[1] = base + a;
    return 2;
  }
  const Vec3 b = h[along[1]] * axes[along[1]];
  out[0] = base - a - b;
  out[1] = base + a - b;
  out[2] = base + a + b;
  out[3] = base - a + b;
  return 4;
}

/// Midpoint of the closest points of segments p0-p1 and q0-q1 (Ericson, 5.1.9).
Vec3 between_segments(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  const Vec3 u = p1 - p0;
  const Vec3 v = q1 - q0;
  const Vec3 r = p0 - q0;
  const double a = dot(u, u);
  const double e = dot(v, v);
  const double f = dot(v, r);
  const double c = dot(u, r);
  const double b = dot(u, v);
  const double denom = a * e - b * b;
  double s = denom > 1e-12 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = e > 0.0 ? (b * s + f) / e : 0.0;
  if (t < 0.0) {
    t = 0.0;
    s = a > 0.0 ? std::clamp(-c / a, 0.0, 1.0) : 0.0;
  } else if (t > 1.0) {
    t = 1.0;
    s = a > 0.0 ? std::clamp((b - c) / a, 0.0, 1.0) : 0.0;
  }
  return 0.5 * ((p0 + s * u) + (q0 + t * v));
}

/// The middle of what `subject` (2 or 4 points) has within face `clip` (4 points in order),
/// both seen along n: the subject clipped by the face's sides (planes through them along n),
/// its points averaged. Empty result: the subject's own middle.
Vec3 middle_of_overlap(const Vec3* subject, int count, const Vec3 (&clip)[4], const Vec3& n) {
  Vec3 centre{};
  for (const Vec3& p : clip) {
    centre += 0.25 * p;
  }
  Vec3 poly[16];
  Vec3 next[16];
  int size = count;
  std::copy(subject, subject + count, poly);
  for (int i = 0; i < 4 && size > 0; ++i) {
    const Vec3& a = clip[i];
    Vec3 inward = cross(n, clip[(i + 1) % 4] - a);
    if (dot(centre - a, inward) < 0.0) {
      inward = -inward;
    }
    const auto side = [&](const Vec3& p) { return dot(p - a, inward); };
    int kept = 0;
    // A segment is clipped as an open chain, a face as a closed polygon.
    const int edges = size == 2 ? 1 : size;
    if (size == 2) {
      const double s0 = side(poly[0]);
      const double s1 = side(poly[1]);
      if (s0 >= 0.0) {
        next[kept++] = poly[0];
      }
      if ((s0 < 0.0) != (s1 < 0.0)) {
        next[kept++] = poly[0] + (s0 / (s0 - s1)) * (poly[1] - poly[0]);
      }
      if (s1 >= 0.0) {
        next[kept++] = poly[1];
      }
      size = std::min(kept, 2);
      std::copy(next, next + size, poly);
      continue;
    }
    for (int k = 0; k < edges; ++k) {
      const Vec3& p = poly[k];
      const Vec3& q = poly[(k + 1) % size];
      const double sp = side(p);
      const double sq = side(q);
      if (sp >= 0.0) {
        next[kept++] = p;
      }
      if ((sp < 0.0) != (sq < 0.0) && kept < 16) {
        next[kept++] = p + (sp / (sp - sq)) * (q - p);
      }
    }
    size = std::min(kept, 16);
    std::copy(next, next + size, poly);
  }
  Vec3 sum{};
  if (size == 0) {
    for (int k = 0; k < count; ++k) {
      sum += subject[k];
    }
    return sum / count;
  }
  for (int k = 0; k < size; ++k) {
    sum += poly[k];
  }
  return sum / size;
}

/// A box's edge directions (the columns of q's rotation).
void axes_of(const Quat& q, Vec3 (&axes)[3]) {
  const Mat3 m = to_matrix(q);
  for (int i = 0; i < 3; ++i) {
    axes[i] = {m.m[0][i], m.m[1][i], m.m[2][i]};
  }
}

} // namespace

std::optional<SweepHit> sweep_box_half_space(const Vec3& c, const Quat& q, const Vec3& half_a,
                                             const Vec3& d) {
  Vec3 axes[3];
  axes_of(q, axes);
  const double reach = half_a.x * std::fabs(axes[0].z) + half_a.y * std::fabs(axes[1].z) +
                       half_a.z * std::fabs(axes[2].z);
  const double lowest = c.z - reach;
  double t = 0.0;
  if (lowest > 0.0) {
    if (!(d.z < 0.0) || lowest > -d.z) {
      return std::nullopt;
    }
    t = lowest / -d.z;
  }
  Vec3 feature[4];
  const int count = leading_feature(c + t * d, axes, half_a, {0, 0, -1}, feature);
  Vec3 middle{};
  for (int k = 0; k < count; ++k) {
    middle += feature[k] / count;
  }
  return SweepHit{t, {middle.x, middle.y, 0.0}, {0, 0, 1}};
}

std::optional<SweepHit> sweep_box_centred_box(const Vec3& c, const Quat& q, const Vec3& half_a,
                                              const Vec3& d, const Vec3& half_b) {
  Vec3 axes_a[3];
  axes_of(q, axes_a);
  const Vec3 axes_b[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double enter = -INFINITY; // latest opening of an axis's interval so far
  double leave = INFINITY;  // earliest closing
  Vec3 enter_normal{0, 0, 1};
  double apart = -INFINITY; // at t = 0: the largest gap (negative: overlap) over the axes
  Vec3 apart_normal{0, 0, 1};
  // One axis: false when the projections never overlap within [0, 1] together with the
  // axes before it.
  const auto test = [&](const Vec3& direction) {
    const double length = norm(direction);
    if (!(length > 1e-9)) {
      return true; // parallel edges: their cross product is no axis, the faces' decide
    }
    const Vec3 axis = direction / length;
    const double reach = half_a.x * std::fabs(dot(axes_a[0], axis)) +
                         half_a.y * std::fabs(dot(axes_a[1], axis)) +
                         half_a.z * std::fabs(dot(axes_a[2], axis)) + half_b.x * std::fabs(axis.x) +
                         half_b.y * std::fabs(axis.y) + half_b.z * std::fabs(axis.z);
    const double s0 = dot(c, axis);
    const double v = dot(d, axis);
    if (std::fabs(s0) - reach > apart) {
      apart = std::fabs(s0) - reach;
      apart_normal = s0 >= 0.0 ? axis : -axis;
    }
    if (v == 0.0) {
      return std::fabs(s0) <= reach;
    }
    double t0 = (-reach - s0) / v;
    double t1 = (reach - s0) / v;
    if (t0 > t1) {
      std::swap(t0, t1);
    }
    if (t0 > enter) {
      enter = t0;
      // Entering from the positive side (moving toward -axis) the normal, B toward A, is +axis.
      enter_normal = v < 0.0 ? axis : -axis;
    }
    leave = std::min(leave, t1);
    return enter <= leave && enter <= 1.0 && leave >= 0.0;
  };
  for (const Vec3& axis : axes_b) {
    if (!test(axis)) {
      return std::nullopt;
    }
  }
  for (const Vec3& axis : axes_a) {
    if (!test(axis)) {
      return std::nullopt;
    }
  }
  for (const Vec3& ea : axes_a) {
    for (const Vec3& eb : axes_b) {
      if (!test(cross(ea, eb))) {
        return std::nullopt;
      }
    }
  }
  const double t = std::max(enter, 0.0);
  const Vec3 n = enter > 0.0 ? enter_normal : apart_normal;
  Vec3 feature_a[4];
  Vec3 feature_b[4];
  const int count_a = leading_feature(c + t * d, axes_a, half_a, -n, feature_a);
  const int count_b = leading_feature({}, axes_b, half_b, n, feature_b);
  Vec3 point;
  if (count_a == 1) {
    point = feature_a[0];
  } else if (count_b == 1) {
    point = feature_b[0];
  } else if (count_a == 2 && count_b == 2) {
    point = between_segments(feature_a[0], feature_a[1], feature_b[0], feature_b[1]);
  } else if (count_b == 4) {
    point = middle_of_overlap(feature_a, count_a, feature_b, n);
  } else {
    point = middle_of_overlap(feature_b, count_b, feature_a, n);
  }
  // On B's surface: its leading feature's plane along n.
  point += (dot(feature_b[0], n) - dot(point, n)) * n;
  return SweepHit{t, point, n};
}

} // namespace odemocap::detail
