#pragma once
// First contact of a moving box with a box: box A, turned by q (its edges along the columns of
// q's rotation) and of half extents `half_a`, has its centre moved from c to c + d over the
// interval t in [0, 1] without turning; box B, of half extents `half_b`, sits centred at the
// origin with its edges along the axes. The answer is the first t at which they touch.
//
// Separating axes: two boxes are apart exactly when their projections onto one of 15 axes are
// (B's three face normals, A's three, and the nine cross products of an edge of each). On each
// axis the projection of A's centre moves linearly, so the projections overlap over one interval
// of t; the boxes touch over the intersection of the 15 intervals, and first touch where the last
// of them opens. That axis is the contact normal. Where the boxes meet then is found from the
// features of each that lead along the normal (a corner, an edge or a face of each): a corner
// where either leads with one, the closest points of two edges, otherwise the middle of where
// the two features overlap in the contact plane.
//
// Conventions as for the sphere sweeps (swept_sphere.hpp): boxes touching or overlapping at
// t = 0 hit at t = 0 (normal the axis of least overlap); the normal points from B toward A,
// unit; the point is on B's surface at the touch.

#include "collision/swept_sphere.hpp"

#include <odemocap/pose.hpp>

#include <optional>

namespace odemocap::detail {

std::optional<SweepHit> sweep_box_centred_box(const Vec3& c, const Quat& q, const Vec3& half_a,
                                              const Vec3& d, const Vec3& half_b);

/// The same box A against the half-space z <= 0: first touch where its lowest corner reaches
/// z = 0, at the middle of the feature that leads down (a corner, an edge, a face); normal +z.
std::optional<SweepHit> sweep_box_half_space(const Vec3& c, const Quat& q, const Vec3& half_a,
                                             const Vec3& d);

} // namespace odemocap::detail
