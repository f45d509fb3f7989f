#pragma once
// ODE's broad-phase filter for a pair of geoms and a geom's top space, for the searches that
// pair geoms themselves (the sweep guard's targets, what rests on a looping body, what a
// follower touches).

#include <ode/ode.h>

namespace odemocap::detail {

/// Whether ODE's broad phase would pair the two geoms: one's category bits meet the other's
/// collide bits.
inline bool bits_allow(dGeomID a, dGeomID b) {
  return (dGeomGetCategoryBits(a) & dGeomGetCollideBits(b)) != 0 ||
         (dGeomGetCategoryBits(b) & dGeomGetCollideBits(a)) != 0;
}

/// The space that holds `g`'s space and is in no other (null for a geom in no space).
inline dSpaceID top_space(dGeomID g) {
  dSpaceID top = dGeomGetSpace(g);
  if (top == nullptr) {
    return nullptr;
  }
  while (const dSpaceID up = dGeomGetSpace(reinterpret_cast<dGeomID>(top))) {
    top = up;
  }
  return top;
}

} // namespace odemocap::detail
