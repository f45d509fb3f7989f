// Which of ODE's spaces report every touching pair to the near callback. The demos and
// plugin/README.md recommend a sweep-and-prune space: Debian's ODE 0.16 hash space never
// reports some touching pairs, and the SweepGuard leaves pairs that touch at the start of a
// step to the near callback.
#include "support/reference_math.hpp"

#include <ode/ode.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

namespace {

using odemocap::test::Random;

/// Random touching pairs of a box (5 cm-1.05 m sides, 5-55 mm thick, any orientation, within a
/// metre of the origin) and a sphere (1-6 cm) or capsule (its centre within the box's outer
/// part), each pair alone in a space made by `make`: how many of the `touching` pairs (dCollide
/// finds a contact) never reach the near callback.
int unreported_touching_pairs(const std::function<dSpaceID()>& make, int& touching) {
  dInitODE2(0);
  Random random(4242);
  int unreported = 0;
  touching = 0;
  for (int i = 0; i < 20000; ++i) {
    dSpaceID space = make();
    const double sx = random.uniform(0.05, 1.05), sy = random.uniform(0.05, 1.05);
    const double sz = random.uniform(0.005, 0.055), r = random.uniform(0.01, 0.06);
    dGeomID box = dCreateBox(space, sx, sy, sz);
    dGeomSetPosition(box, random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1));
    const odemocap::Quat q = random.rotation();
    const dQuaternion oq{q.w, q.x, q.y, q.z};
    dGeomSetQuaternion(box, oq);
    dGeomID other = i % 2 == 0 ? dCreateSphere(space, r) : dCreateCapsule(space, r, 4 * r);
    const dReal* p = dGeomGetPosition(box);
    dGeomSetPosition(other, p[0] + random.uniform(-0.6, 0.6) * sx,
                     p[1] + random.uniform(-0.6, 0.6) * sy, p[2] + random.uniform(-0.6, 0.6) * sz);
    dContactGeom contact[4];
    if (dCollide(box, other, 4, contact, sizeof(dContactGeom)) > 0) {
      ++touching;
      int reported = 0;
      dSpaceCollide(space, &reported,
                    [](void* data, dGeomID, dGeomID) { ++*static_cast<int*>(data); });
      unreported += reported == 0 ? 1 : 0;
    }
    dSpaceDestroy(space);
  }
  dCloseODE();
  return unreported;
}

TEST(OdeSpaces, SweepAndPruneAndSimpleSpacesReportEveryTouchingPairAndTheHashSpaceDoesNot) {
  int touching = 0;
  const int sap = unreported_touching_pairs(
      [] { return dSweepAndPruneSpaceCreate(nullptr, dSAP_AXES_XYZ); }, touching);
  const int simple =
      unreported_touching_pairs([] { return dSimpleSpaceCreate(nullptr); }, touching);
  const int hash = unreported_touching_pairs([] { return dHashSpaceCreate(nullptr); }, touching);
  std::printf("[ metric ] touching box-sphere and box-capsule pairs never reported: "
              "sweep and prune %d, simple %d, hash %d of %d\n",
              sap, simple, hash, touching);
  EXPECT_GT(touching, 2000);
  EXPECT_EQ(sap, 0);
  EXPECT_EQ(simple, 0);
  // ODE 0.16's hash space: should this start to hold, plugin/README.md and demos/README.md
  // (which say why the demos use sweep and prune) need saying again.
  EXPECT_GT(hash, 0);
}

} // namespace
