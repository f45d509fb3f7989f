#pragma once
// The surface a body touches, found from the geometry: a follower held back by something tells
// the normal of what holds it from the force alone only up to friction (and, at rest, up to
// how the solver split the load between its motor and the friction, which is arbitrary).

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

#include <optional>

namespace odemocap::detail {

/// A contact of a body with something else.
struct Touch {
  Vec3 normal;        ///< unit, world: the way the body leaves the contact
  double depth = 0.0; ///< the deepest of the contacts along that normal (m)
  /// The other geom has no body (static geometry) or a kinematic one: nothing the body does
  /// moves it.
  bool unyielding = false;
  Vec3 surface_velocity; ///< the other geom's velocity at the deepest contact (m/s, world)
};

/// Of the contacts dCollide finds now between `body`'s geoms and the other geoms of their top
/// spaces (where ODE's category and collide bits would pair them), the one whose normal agrees
/// best with `push` (a force on the body): nothing when no contact's normal has a positive
/// component along `push`.
std::optional<Touch> touching(dBodyID body, const Vec3& push);

} // namespace odemocap::detail
