#pragma once
// A triangle mesh's triangles in the mesh's own frame, under a tree of boxes, for sweeping
// spheres against it: the first touch of a sphere moving on a line is the earliest of its
// touches on the triangles (each a convex polygon, swept_sphere.hpp), and a box of the tree
// that the path, grown by the sphere's radius, never enters holds no triangle it touches.

#include "collision/swept_sphere.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace odemocap::detail {

using Triangle = std::array<Vec3, 3>;

class TriangleTree {
public:
  TriangleTree() = default;
  /// The triangles, vertices finite (the caller checks); a triangle of no area (its vertices
  /// on a line) is kept but never touched: its edges belong to the triangles beside it.
  explicit TriangleTree(std::vector<Triangle> triangles);

  std::size_t size() const { return triangles_.size(); }
  /// Radius of a sphere about the origin that holds every vertex (0 when empty).
  double bound() const { return bound_; }

  /// The first touch of a sphere of radius r whose centre moves from c to c + d (t in [0, 1]),
  /// as sweep_sphere_triangle() on every triangle would find it; empty when it touches none.
  std::optional<SweepHit> sweep(const Vec3& c, double r, const Vec3& d) const;
  /// A time no later than that first touch, from the tree's boxes alone: the first time the
  /// path enters a leaf's box grown by r; empty when it enters none (and so touches nothing).
  std::optional<double> first_entry(const Vec3& c, double r, const Vec3& d) const;

private:
  /// A box of the tree: a leaf holds triangles [first, first + count); an inner node's first
  /// child follows it and its second is at `second`.
  struct Node {
    Vec3 centre;
    Vec3 half;
    std::uint32_t first = 0;
    std::uint32_t count = 0; ///< 0 for an inner node
    std::uint32_t second = 0;
  };
  std::uint32_t build(std::uint32_t first, std::uint32_t count);
  /// Where the path, grown by r, enters node i's box (t in [0, 1]).
  std::optional<double> entry(std::uint32_t i, const Vec3& c, double r, const Vec3& d) const;
  /// Visits the leaves the grown path enters, nearer boxes first, while `visit(leaf, entry)`
  /// returns the time beyond which nothing more is wanted.
  template <class Visit> void leaves(const Vec3& c, double r, const Vec3& d, Visit&& visit) const;

  std::vector<Triangle> triangles_;
  std::vector<Vec3> normals_; ///< each triangle's unit normal (zero for one of no area)
  std::vector<Node> nodes_;
  double bound_ = 0.0;
};

} // namespace odemocap::detail
