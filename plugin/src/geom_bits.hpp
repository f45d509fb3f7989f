#pragma once
// ODE's broad-phase filter for a pair of geoms, for the searches that pair geoms themselves
// (the sweep guard's targets, what rests on a looping body).

#include <ode/ode.h>

namespace odemocap::detail {

/// Whether ODE's broad phase would pair the two geoms: one's category bits meet the other's
/// collide bits.
inline bool bits_allow(dGeomID a, dGeomID b) {
  return (dGeomGetCategoryBits(a) & dGeomGetCollideBits(b)) != 0 ||
         (dGeomGetCategoryBits(b) & dGeomGetCollideBits(a)) != 0;
}

} // namespace odemocap::detail
