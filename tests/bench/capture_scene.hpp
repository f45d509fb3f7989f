#pragma once
// A benchmark scene: a CMU capture looping on an odemocap Character (a capsule per bone),
// kinematic or soft (a puppet with a kinematic root), dynamic boxes on the floor around it,
// stepped with dWorldQuickStep. Shared by the driver benchmark and the soak run.

#include "support/ode_scene.hpp"

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace odemocap::bench {

/// The bundled CMU hop.
inline std::string capture_path() {
  return std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh";
}

using Clock = std::chrono::steady_clock;
constexpr double k_h = 1.0 / 120; ///< the benchmarks' step (s)

/// Seconds between two steady-clock times.
inline double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// A CMU BVH in metres, Z up.
inline Capture load_cmu(const std::string& bvh_path) {
  LoadOptions load;
  load.length_scale = 0.0254 / 0.45; // CMU units to metres
  load.up_axis = Axis::Z;
  return load_capture(bvh_path, load);
}

/// An ODE world, a hash space and a contact group, stepped with dWorldQuickStep; contacts
/// (dContactApprox1, mu 0.8, up to 4 per pair) between geoms of which one at least is on a
/// dynamic body.
class BenchWorld {
public:
  BenchWorld() {
    dInitODE2(0);
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    space = dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
  }
  ~BenchWorld() {
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  BenchWorld(const BenchWorld&) = delete;
  BenchWorld& operator=(const BenchWorld&) = delete;

  /// A dynamic box body with its geom in the space; mass in kg, sides and position in m.
  dBodyID box(const Vec3& sides, double mass, const Vec3& at) {
    return test::box_body(world, space, sides, mass, at);
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

private:
  static bool dynamic(dBodyID b) { return b != nullptr && !dBodyIsKinematic(b); }
  static void near(void* data, dGeomID a, dGeomID b) {
    auto* scene = static_cast<BenchWorld*>(data);
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

class CaptureScene : public BenchWorld {
public:
  CaptureScene(const std::string& bvh_path, int boxes, bool soft = false) {
    capture = load_cmu(bvh_path);
    driver = std::make_unique<KinematicDriver>(world);
    character = std::make_unique<Character>(world, space, capture);
    BindOptions options;
    options.at_end = TrackEnd::Loop;
    if (soft) {
      PuppetSettings puppet;
      puppet.timing = options;
      character->drive_soft(*driver, puppet);
    } else {
      character->drive_kinematic(*driver, options);
    }
    double floor_z = 1e9;
    for (std::size_t b = 0; b < character->bones().size(); ++b) {
      if (const auto id = character->binding(b)) {
        bindings.push_back(*id);
      }
      const Track& track = capture.track(character->bones()[b].name);
      for (std::size_t f = 0; f < track.size(); ++f) {
        floor_z = std::fmin(floor_z, track.position(f).z);
      }
    }
    floor_z -= 0.04;
    dCreatePlane(space, 0, 0, 1, floor_z);
    // Boxes on a grid around where the subject stands.
    const Vec3 centre = capture.track("Hips").position(0);
    const int side = static_cast<int>(std::ceil(std::sqrt(boxes)));
    for (int i = 0; i < boxes; ++i) {
      props.push_back(box({0.12, 0.12, 0.12}, 0.3,
                          {centre.x + 0.25 * (i % side - side / 2),
                           centre.y + 0.25 * (i / side - side / 2), floor_z + 0.0601}));
    }
  }
  ~CaptureScene() {
    character.reset();
    driver.reset();
  }

  Capture capture;
  std::unique_ptr<KinematicDriver> driver;
  std::unique_ptr<Character> character;
  std::vector<KinematicDriver::BindingId> bindings; ///< every bone (kinematic) or the root
  std::vector<dBodyID> props;
};

} // namespace odemocap::bench
