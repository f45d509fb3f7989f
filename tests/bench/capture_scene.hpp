#pragma once
// A benchmark scene: a CMU capture looping on kinematic capsules (one per joint), dynamic boxes
// on the floor around it, stepped with dWorldQuickStep. Shared by the driver benchmark and the
// soak run.

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace odemocap::bench {

class CaptureScene {
public:
  CaptureScene(const std::string& bvh_path, int boxes) {
    dInitODE2(0);
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    space = dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
    LoadOptions load;
    load.length_scale = 0.0254 / 0.45; // CMU units to metres
    load.up_axis = Axis::Z;
    capture = load_capture(bvh_path, load);
    driver = std::make_unique<KinematicDriver>(world);
    const Skeleton& skeleton = *capture.skeleton();
    double floor_z = 1e9;
    BindOptions options;
    options.at_end = TrackEnd::Loop;
    for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
      if (skeleton.joints[j].end_site) {
        continue;
      }
      const Track& track = capture.track(skeleton.joints[j].name);
      for (std::size_t f = 0; f < track.size(); ++f) {
        floor_z = std::fmin(floor_z, track.position(f).z);
      }
      dBodyID body = dBodyCreate(world);
      dGeomSetBody(dCreateCapsule(space, 0.04, 0.1), body);
      bindings.push_back(driver->bind(body, track, options));
    }
    floor_z -= 0.04;
    dCreatePlane(space, 0, 0, 1, floor_z);
    // Boxes on a grid around where the subject stands.
    const Vec3 centre = capture.track("Hips").position(0);
    const int side = static_cast<int>(std::ceil(std::sqrt(boxes)));
    for (int i = 0; i < boxes; ++i) {
      dBodyID b = dBodyCreate(world);
      dMass m;
      dMassSetBoxTotal(&m, 0.3, 0.12, 0.12, 0.12);
      dBodySetMass(b, &m);
      dBodySetPosition(b, centre.x + 0.25 * (i % side - side / 2), centre.y + 0.25 * (i / side - side / 2),
                       floor_z + 0.0601);
      dGeomSetBody(dCreateBox(space, 0.12, 0.12, 0.12), b);
      props.push_back(b);
    }
  }
  ~CaptureScene() {
    driver.reset();
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }

  void collide() { dSpaceCollide(space, this, &near); }
  void step(double h) {
    dWorldQuickStep(world, h);
    dJointGroupEmpty(contacts);
  }
  void collide_and_step(double h) {
    collide();
    step(h);
  }

  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;
  Capture capture;
  std::unique_ptr<KinematicDriver> driver;
  std::vector<KinematicDriver::BindingId> bindings;
  std::vector<dBodyID> props;

private:
  static bool dynamic(dBodyID b) { return b != nullptr && !dBodyIsKinematic(b); }
  static void near(void* data, dGeomID a, dGeomID b) {
    auto* scene = static_cast<CaptureScene*>(data);
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    if (!dynamic(ba) && !dynamic(bb)) {
      return;
    }
    dContact c[4];
    const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface.mode = dContactApprox1;
      c[i].surface.mu = 0.8;
      dJointAttach(dJointCreateContact(scene->world, scene->contacts, &c[i]), ba, bb);
    }
  }
};

} // namespace odemocap::bench
