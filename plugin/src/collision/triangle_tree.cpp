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

std::optional<SweepHit> TriangleTree::sweep(const Vec3& c, double r, const Vec3& d) const {
  std::optional<SweepHit> best;
  if (nodes_.empty()) {
    return best;
  }
  // Depth first, boxes the grown path enters no later than the best touch so far. The tree is
  // balanced: 32 levels hold 2^32 triangles, more than the indices can name.
  std::array<std::uint32_t, 40> stack{};
  std::size_t top = 0;
  stack[top++] = 0;
  const Vec3 grow{r, r, r};
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    const auto entry = enter_box(c - node.centre, d, node.half + grow);
    if (!entry || (best && entry->t >= best->t)) {
      continue;
    }
    if (node.count == 0) {
      const auto inner = static_cast<std::uint32_t>(&node - nodes_.data());
      stack[top++] = node.second;
      stack[top++] = inner + 1; // the first child, taken first
      continue;
    }
    for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Triangle& t = triangles_[i];
      const auto hit = sweep_sphere_triangle(c, r, d, t[0], t[1], t[2]);
      if (hit && (!best || hit->t < best->t)) {
        best = hit;
      }
    }
  }
  return best;
}

} // namespace odemocap::detail
