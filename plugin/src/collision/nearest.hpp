#pragma once
// Nearest points of a segment and the core of a sphere, capsule or box (the shape less its
// radius: a sphere's centre, a capsule's axis, a box itself), in closed form.

#include <odemocap/quat.hpp>

#include <ode/ode.h>

namespace odemocap::detail {

/// A shape's core in its own frame: dSphereClass (its centre, the origin), dCapsuleClass (its
/// axis, along z from -half_length to half_length) or dBoxClass (the box of half extents
/// `half` about the origin).
struct Core {
  int kind = dSphereClass;
  double half_length = 0.0;
  Vec3 half;
};

/// The point of the segment a..b nearest p; `along` is its fraction of the way from a.
Vec3 nearest_on_segment(const Vec3& a, const Vec3& b, const Vec3& p, double& along);

/// The nearest points of the segment a..b and a core: returns the segment's, `along` of the way
/// from a, and sets `core_point` to the core's. On input `along` is a hint: where several
/// points of the segment are nearest (one parallel to a capsule's axis or a box's face, or
/// through a box), the one nearest the hint.
Vec3 nearest_to_core(const Core& core, const Vec3& a, const Vec3& b, double& along,
                     Vec3& core_point);

} // namespace odemocap::detail
