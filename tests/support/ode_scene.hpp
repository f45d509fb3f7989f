#pragma once
// A small ODE scene for tests: world, space, contact joints with dContactApprox1 friction,
// stepping with dWorldStep or dWorldQuickStep. Pairs without a dynamic body (kinematic with
// kinematic or with static geometry) make no contacts.

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <cmath>
#include <cstdarg>

namespace odemocap::test {

/// A dynamic box body in `world` with its geom in `space`; mass in kg, sides and position in m.
inline dBodyID box_body(dWorldID world, dSpaceID space, const Vec3& sides, double mass,
                        const Vec3& position) {
  dBodyID body = dBodyCreate(world);
  dMass m;
  dMassSetBoxTotal(&m, mass, sides.x, sides.y, sides.z);
  dBodySetMass(body, &m);
  dBodySetPosition(body, position.x, position.y, position.z);
  dGeomSetBody(dCreateBox(space, sides.x, sides.y, sides.z), body);
  return body;
}

/// ODE's messages, counted while alive, not printed: all of them, and the failures of
/// dWorldStep's LCP solver ("LCP internal error"). One at a time: ODE's handler is global.
struct OdeMessages {
  static inline int count = 0;
  static inline int lcp_failures = 0;
  OdeMessages() {
    count = 0;
    lcp_failures = 0;
    dSetMessageHandler([](int number, const char*, va_list) {
      ++count;
      lcp_failures += number == d_ERR_LCP ? 1 : 0;
    });
  }
  ~OdeMessages() { dSetMessageHandler(nullptr); }
  OdeMessages(const OdeMessages&) = delete;
  OdeMessages& operator=(const OdeMessages&) = delete;
};

/// Height (world z, m) of the lowest corner of a box of `sides` (m) carried by `body`.
inline double lowest_corner(dBodyID body, const Vec3& sides) {
  double low = INFINITY;
  for (int k = 0; k < 8; ++k) {
    dVector3 w;
    dBodyGetRelPointPos(body, (k & 1 ? 0.5 : -0.5) * sides.x, (k & 2 ? 0.5 : -0.5) * sides.y,
                        (k & 4 ? 0.5 : -0.5) * sides.z, w);
    low = std::fmin(low, w[2]);
  }
  return low;
}

class OdeScene {
public:
  explicit OdeScene(double gravity_z = -9.81) {
    dInitODE2(0);
    dRandSetSeed(1); // dWorldQuickStep shuffles rows with ODE's global generator
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, gravity_z);
    space = dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
  }
  ~OdeScene() {
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  OdeScene(const OdeScene&) = delete;
  OdeScene& operator=(const OdeScene&) = delete;

  void step(double h) {
    watched_contacts = 0;
    dSpaceCollide(space, this, &near);
    if (quick) {
      dWorldQuickStep(world, h);
    } else {
      dWorldStep(world, h);
    }
    dJointGroupEmpty(contacts);
  }

  /// A box body with its geom; mass in kg, sides in m.
  dBodyID box(const Vec3& sides, double mass, const Vec3& position) {
    return box_body(world, space, sides, mass, position);
  }

  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;
  double mu = 1.0;
  /// Soft contacts when soft_cfm > 0: a spring of soft_erp / (h soft_cfm) N/m per contact.
  double soft_cfm = 0.0;
  double soft_erp = 0.2;
  bool quick = false;
  int contacts_made = 0;
  /// Contacts of this body record their forces (the first 16 each step).
  dBodyID watched = nullptr;

  /// Sum over the last step's contacts of the watched body of the magnitude of the force each
  /// applied to it (N).
  double contact_force_on_watched() const {
    double sum = 0;
    for (int i = 0; i < watched_contacts; ++i) {
      const dJointFeedback& f = feedback_[i];
      const bool first = watched_is_first_[i];
      const dReal* v = first ? f.f1 : f.f2;
      sum += std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return sum;
  }

private:
  int watched_contacts = 0;
  dJointFeedback feedback_[16] = {};
  bool watched_is_first_[16] = {};

  static bool dynamic(dBodyID b) { return b != nullptr && !dBodyIsKinematic(b); }

  static void near(void* data, dGeomID a, dGeomID b) {
    auto* scene = static_cast<OdeScene*>(data);
    dBodyID ba = dGeomGetBody(a);
    dBodyID bb = dGeomGetBody(b);
    if (!dynamic(ba) && !dynamic(bb)) {
      return;
    }
    if (ba && bb && dAreConnectedExcluding(ba, bb, dJointTypeContact)) {
      return;
    }
    dContact contact[8];
    const int n = dCollide(a, b, 8, &contact[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      contact[i].surface.mode = dContactApprox1;
      contact[i].surface.mu = scene->mu;
      if (scene->soft_cfm > 0.0) {
        contact[i].surface.mode |= dContactSoftCFM | dContactSoftERP;
        contact[i].surface.soft_cfm = scene->soft_cfm;
        contact[i].surface.soft_erp = scene->soft_erp;
      }
      dJointID joint = dJointCreateContact(scene->world, scene->contacts, &contact[i]);
      dJointAttach(joint, ba, bb);
      ++scene->contacts_made;
      if (scene->watched != nullptr && (ba == scene->watched || bb == scene->watched) &&
          scene->watched_contacts < 16) {
        const int k = scene->watched_contacts++;
        scene->watched_is_first_[k] = ba == scene->watched;
        dJointSetFeedback(joint, &scene->feedback_[k]);
      }
    }
  }
};

/// A track sampled from `pose(t)` every `dt` seconds over [0, duration].
template <class PoseAt>
Track sampled_track(const char* name, double dt, double duration, PoseAt pose) {
  Track track(name);
  const auto n = static_cast<std::size_t>(duration / dt + 0.5);
  for (std::size_t i = 0; i <= n; ++i) {
    const double t = static_cast<double>(i) * dt;
    track.append(t, pose(t));
  }
  return track;
}

} // namespace odemocap::test
