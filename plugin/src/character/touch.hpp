#pragma once
// The surface a body touches, found from the geometry: a follower held back by something tells
// the normal of what holds it from the force alone only up to friction (and, at rest, up to
// how the solver split the load between its motor and the friction, which is arbitrary).

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

#include <optional>

namespace odemocap::detail {

/// Of the contacts dCollide finds now between `body`'s geoms and the other geoms of their top
/// spaces (where ODE's category and collide bits would pair them), the normal (unit, world,
/// the way the body leaves the contact) that agrees best with `push` (a force on the body):
/// nothing when no contact's normal has a positive component along `push`.
std::optional<Vec3> touching_normal(dBodyID body, const Vec3& push);

} // namespace odemocap::detail
