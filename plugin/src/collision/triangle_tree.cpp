#include "collision/triangle_tree.hpp"

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

/// Fewest triangles a box is split into two boxes for.
constexpr std::uint32_t k_leaf_size = 4;

Vec3 min_of(const Vec3& a, const Vec3& b) {
  return {std::fmin(a.x, b.x), std::fmin(a.y, b.y), std::fmin(a.z, b.z)};
}
Vec3 max_of(const Vec3& a, const Vec3& b) {
  return {std::fmax(a.x, b.x), std::fmax(a.y, b.y), std::fmax(a.z, b.z)};
}
double component(const Vec3& v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

} // namespace

TriangleTree::TriangleTree(std::vector<Triangle> triangles) : triangles_(std::move(triangles)) {
  for (const Triangle& t : triangles_) {
    for (const Vec3& v : t) {
      bound_ = std::fmax(bound_, norm(v));
    }
  }
  if (!triangles_.empty()) {
    nodes_.reserve(2 * triangles_.size() / k_leaf_size + 1);
    build(0, static_cast<std::uint32_t>(triangles_.size()));
  }
  normals_.reserve(triangles_.size());
  for (const Triangle& t : triangles_) {
    normals_.push_back(polygon_normal(t.data()));
  }
}

std::uint32_t TriangleTree::build(std::uint32_t first, std::uint32_t count) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  Vec3 low{INFINITY, INFINITY, INFINITY};
  Vec3 high = -1.0 * low;
  Vec3 centre_low = low;
  Vec3 centre_high = high;
  for (std::uint32_t i = first; i < first + count; ++i) {
    const Triangle& t = triangles_[i];
    const Vec3 centroid = (t[0] + t[1] + t[2]) * (1.0 / 3.0);
    centre_low = min_of(centre_low, centroid);
    centre_high = max_of(centre_high, centroid);
    for (const Vec3& v : t) {
      low = min_of(low, v);
      high = max_of(high, v);
    }
  }
  nodes_[index].centre = 0.5 * (low + high);
  nodes_[index].half = 0.5 * (high - low);
  if (count <= k_leaf_size) {
    nodes_[index].first = first;
    nodes_[index].count = count;
    return index;
  }
  // Halves by count along the axis the centroids spread most: the tree is balanced, its depth
  // at most log2 of the triangles' count.
  const Vec3 spread = centre_high - centre_low;
  const int axis = spread.x >= spread.y && spread.x >= spread.z ? 0 : spread.y >= spread.z ? 1 : 2;
  const auto begin = triangles_.begin() + first;
  const auto middle = begin + count / 2;
  std::nth_element(begin, middle, begin + count, [axis](const Triangle& a, const Triangle& b) {
    return component(a[0] + a[1] + a[2], axis) < component(b[0] + b[1] + b[2], axis);
  });
  build(first, count / 2);
  const std::uint32_t second = build(first + count / 2, count - count / 2);
  nodes_[index].second = second;
  return index;
}

std::optional<double> TriangleTree::entry(std::uint32_t i, const Vec3& c, double r,
                                          const Vec3& d) const {
  const Node& node = nodes_[i];
  const auto e = enter_box(c - node.centre, d, node.half + Vec3{r, r, r});
  return e ? std::optional<double>(e->t) : std::nullopt;
}

template <class Visit>
void TriangleTree::leaves(const Vec3& c, double r, const Vec3& d, Visit&& visit) const {
  if (nodes_.empty()) {
    return;
  }
  const auto root = entry(0, c, r, d);
  if (!root) {
    return;
  }
  // Depth first, the nearer child's box first; a box entered no earlier than `until` is passed
  // over. The tree is balanced: 32 levels hold 2^32 triangles, more than the indices can name.
  struct Pending {
    std::uint32_t node;
    double t;
  };
  std::array<Pending, 40> stack{};
  std::size_t top = 0;
  stack[top++] = {0, *root};
  double until = INFINITY;
  while (top > 0) {
    const Pending p = stack[--top];
    if (p.t >= until) {
      continue;
    }
    const Node& node = nodes_[p.node];
    if (node.count > 0) {
      until = visit(node, p.t, until);
      continue;
    }
    const std::uint32_t a = p.node + 1;
    const std::uint32_t b = node.second;
    const auto ta = entry(a, c, r, d);
    const auto tb = entry(b, c, r, d);
    if (ta && tb) {
      const bool a_first = *ta <= *tb;
      stack[top++] = a_first ? Pending{b, *tb} : Pending{a, *ta};
      stack[top++] = a_first ? Pending{a, *ta} : Pending{b, *tb};
    } else if (ta || tb) {
      stack[top++] = ta ? Pending{a, *ta} : Pending{b, *tb};
    }
  }
}

std::optional<SweepHit> TriangleTree::sweep(const Vec3& c, double r, const Vec3& d) const {
  std::optional<SweepHit> best;
  leaves(c, r, d, [&](const Node& leaf, double, double until) {
    for (std::uint32_t i = leaf.first; i < leaf.first + leaf.count; ++i) {
      const Triangle& t = triangles_[i];
      // The path comes within r of the triangle's plane no earlier than it touches the
      // triangle: a triangle whose plane it reaches after the best touch so far (or never) is
      // passed over without its edges' sweeps.
      const Vec3& n = normals_[i];
      const double s0 = dot(c - t[0], n);
      const double s1 = s0 + dot(d, n);
      if ((s0 > r && s1 > r) || (s0 < -r && s1 < -r)) {
        continue;
      }
      const double reach = std::fabs(s0) <= r ? 0.0
                           : s0 > r           ? (s0 - r) / (s0 - s1)
                                              : (-r - s0) / (s1 - s0);
      if (reach >= until) {
        continue;
      }
      const auto hit = sweep_sphere_polygon(c, r, d, t.data(), 3, n);
      if (hit && hit->t < until) {
        best = hit;
        until = hit->t;
      }
    }
    return until;
  });
  return best;
}

std::optional<double> TriangleTree::first_entry(const Vec3& c, double r, const Vec3& d) const {
  std::optional<double> first;
  leaves(c, r, d, [&](const Node&, double t, double) {
    first = t; // the nearer boxes come first, and later ones are passed over
    return t;
  });
  return first;
}

} // namespace odemocap::detail
