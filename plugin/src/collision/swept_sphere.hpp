#pragma once
// First contact of a moving sphere with a static shape: the sphere's centre moves from c to
// c + d over the interval t in [0, 1] (a straight line, constant speed); the answer is the
// first t at which the distance from the centre to the shape equals the sphere's radius.
//
// Each case is a ray against the shape grown by the radius (its Minkowski sum with the sphere):
// - sphere (centre s, radius R): a sphere of radius r + R; |c + d t - s| = r + R, the smaller
//   root of a quadratic;
// - capsule (segment a-b, radius R): the cylinder of radius r + R about the segment's line,
//   hit where the axial coordinate lies within the segment, and the two end spheres; the
//   earliest of these is the first contact (at any other candidate the centre is within
//   r + R of the segment, so contact began no later);
// - convex polygon (triangle, box face): its plane pushed out by r along the normal facing the
//   centre, hit inside the polygon, else the polygon's edges as capsules of radius r (their
//   ends are the vertices); again the earliest candidate;
// - half-space below the plane z = 0: that plane pushed up by r;
// - box: where the ray enters the box grown by r (slabs) says what the rounded box is there: in
//   front of one face only, that face pushed out by r (the hit is the entry); beyond two
//   faces' planes, the cylinder about their common edge; beyond three, the sphere about their
//   corner, hit if at all through one of the three edges meeting there (as capsules). A ray
//   that misses that rounding misses the rounded box.
// The distance from a point moving on a line to a convex shape is a convex function of t, which
// is how the tests check these against an independent minimisation.
//
// Conventions: a sphere already within reach at t = 0 hits at t = 0; d = 0 never hits later.
// The normal points from the shape toward the sphere's centre at the hit, unit; the point is
// the contact on the shape's surface.

#include <odemocap/pose.hpp>

#include <optional>

namespace odemocap::detail {

struct SweepHit {
  double t = 0.0; ///< fraction of the motion, in [0, 1]
  Vec3 point;     ///< on the shape's surface (world)
  Vec3 normal;    ///< unit, from the shape toward the sphere
};

std::optional<SweepHit> sweep_sphere_sphere(const Vec3& c, double r, const Vec3& d, const Vec3& s,
                                            double radius);
std::optional<SweepHit> sweep_sphere_capsule(const Vec3& c, double r, const Vec3& d, const Vec3& a,
                                             const Vec3& b, double radius);
/// A convex planar polygon of `n` >= 3 vertices (in order around it).
std::optional<SweepHit> sweep_sphere_polygon(const Vec3& c, double r, const Vec3& d,
                                             const Vec3* vertices, int n);
/// The same with the polygon's unit normal given (polygon_normal(), kept by the caller): a
/// zero normal, that of a polygon of no area, is never touched.
std::optional<SweepHit> sweep_sphere_polygon(const Vec3& c, double r, const Vec3& d,
                                             const Vec3* vertices, int n, const Vec3& normal);
/// Unit normal of the plane through the first three vertices (right-handed), zero when they
/// lie on a line.
Vec3 polygon_normal(const Vec3* vertices);
std::optional<SweepHit> sweep_sphere_triangle(const Vec3& c, double r, const Vec3& d,
                                              const Vec3& p0, const Vec3& p1, const Vec3& p2);
/// Where a point moving from c to c + d (t in [0, 1]) enters a box of half extents `half`
/// centred at the origin, its edges along the axes (slabs): t 0 and axis -1 when it starts
/// inside; empty when it misses.
struct BoxEntry {
  double t = 0.0;
  int axis = -1; ///< the axis of the face it enters through
};
std::optional<BoxEntry> enter_box(const Vec3& c, const Vec3& d, const Vec3& half);

/// The half-space z <= 0 (a plane through the origin, normal +z, solid below): first touch
/// where the centre comes within r of the plane; a centre already within r of it, or below
/// it (inside the solid), hits at t = 0.
std::optional<SweepHit> sweep_sphere_half_space(const Vec3& c, double r, const Vec3& d);

/// A box of half extents `half` (m) centred at the origin, its edges along the axes.
std::optional<SweepHit> sweep_sphere_centred_box(const Vec3& c, double r, const Vec3& d,
                                                 const Vec3& half);
/// A box of half extents `half` (m) at `pose` (its centre and orientation).
std::optional<SweepHit> sweep_sphere_box(const Vec3& c, double r, const Vec3& d, const Pose& pose,
                                         const Vec3& half);

} // namespace odemocap::detail
