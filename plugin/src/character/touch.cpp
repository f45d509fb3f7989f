#include "character/touch.hpp"

#include "geom_bits.hpp"

#include <odemocap/ode_math.hpp>

#include <cmath>

namespace odemocap::detail {
namespace {

struct Search {
  dBodyID body;
  Vec3 push;
  double best = 0.0; ///< the best normal's component along push
  std::optional<Touch> touch;
};

/// dSpaceCollide2's callback for a pair of one of the body's geoms and a geom or space near it
/// (in either order).
void look(void* data, dGeomID a, dGeomID b) {
  Search& s = *static_cast<Search*>(data);
  const bool a_mine = !dGeomIsSpace(a) && dGeomGetBody(a) == s.body;
  const dGeomID mine = a_mine ? a : b;
  const dGeomID theirs = a_mine ? b : a;
  if (dGeomIsSpace(theirs)) {
    dSpaceCollide2(mine, theirs, data, &look);
    return;
  }
  if (dGeomIsSpace(mine) || dGeomGetBody(mine) != s.body || dGeomGetBody(theirs) == s.body ||
      !dGeomIsEnabled(theirs) || !bits_allow(mine, theirs)) {
    return;
  }
  dContactGeom contacts[8];
  const int n = dCollide(mine, theirs, 8, contacts, sizeof(dContactGeom));
  const dBodyID other = dGeomGetBody(theirs);
  const bool unyielding = other == nullptr || dBodyIsKinematic(other);
  const auto velocity_at = [&](const dReal* at) {
    if (other == nullptr) {
      return Vec3{};
    }
    dVector3 v;
    dBodyGetPointVel(other, at[0], at[1], at[2], v);
    return vec3_from_ode(v);
  };
  for (int i = 0; i < n; ++i) {
    // ODE's convention: `mine` moved along the normal by the depth separates them.
    const Vec3 normal = vec3_from_ode(contacts[i].normal);
    const double along = dot(normal, s.push);
    if (along > s.best * (1 + 1e-9)) {
      s.best = along;
      s.touch = Touch{normal, contacts[i].depth, unyielding, velocity_at(contacts[i].pos)};
    } else if (s.touch && along >= s.best * (1 - 1e-9) && contacts[i].depth > s.touch->depth) {
      // A deeper point of the same face (a box on a table touches it at up to four).
      s.touch->depth = contacts[i].depth;
      s.touch->unyielding = s.touch->unyielding && unyielding;
      s.touch->surface_velocity = velocity_at(contacts[i].pos);
    }
  }
}

} // namespace

std::optional<Touch> touching(dBodyID body, const Vec3& push) {
  Search s{body, push, 0.0, std::nullopt};
  for (dGeomID g = dBodyGetFirstGeom(body); g != nullptr; g = dBodyGetNextGeom(g)) {
    if (!dGeomIsEnabled(g)) {
      continue;
    }
    if (const dSpaceID top = top_space(g)) {
      dSpaceCollide2(g, reinterpret_cast<dGeomID>(top), &s, &look);
    }
  }
  return s.touch;
}

} // namespace odemocap::detail
