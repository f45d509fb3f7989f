// SweepGuard's cost against the dWorldQuickStep it prepares, timed in the same iterations:
// - the benchmark capture scene (CMU hop on a kinematic Character, 31 bones, among 100
//   dynamic boxes), every bone guarded: most bones are slow and not swept;
// - the worst case: 30 guarded capsules all fast (20-40 m/s, 20 rad/s) flying low over a floor
//   through 100 props resting on it (boxes and balls, gravity on), so that every guarded body
//   is swept every step;
// - the same capsules kept above the props: every body swept, none near anything;
// - 30 free balls thrown at 20-40 m/s at a guarded static trimesh terrain (8192 triangles).
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <vector>

namespace {

using namespace odemocap::bench;

/// The guard's time against the step's, per step, and what it did.
void report(benchmark::State& state, const odemocap::SweepGuard& guard, double sweeping,
            double quick_step, int guarded) {
  const double n = static_cast<double>(state.iterations());
  const odemocap::SweepStats& s = guard.stats();
  state.counters["guard_us"] = sweeping / n * 1e6;
  state.counters["quickstep_us"] = quick_step / n * 1e6;
  state.counters["pct_of_quickstep"] = 100.0 * sweeping / quick_step;
  state.counters["pairs_per_step"] = static_cast<double>(s.pairs_swept) / n;
  state.counters["speculative_per_step"] = static_cast<double>(s.speculative_contacts) / n;
  state.counters["swept_bodies_per_step"] = guarded - static_cast<double>(s.slow) / n;
  state.counters["sub_steps_max"] = s.sub_steps_max;
  state.counters["touching_per_step"] = static_cast<double>(s.touching) / n;
}

void guard_31_bones_100_boxes(benchmark::State& state) {
  CaptureScene scene(capture_path(), 100);
  odemocap::SweepGuard guard(scene.world, scene.space, scene.contacts);
  for (const odemocap::Bone& bone : scene.character->bones()) {
    guard.guard(bone.body);
  }
  double sweeping = 0.0, quick_step = 0.0;
  for (auto _ : state) {
    scene.driver->prestep(k_h);
    scene.collide();
    const Clock::time_point t0 = Clock::now();
    guard.collide(k_h);
    const Clock::time_point t1 = Clock::now();
    scene.step(k_h);
    const Clock::time_point t2 = Clock::now();
    guard.after_step();
    const Clock::time_point t3 = Clock::now();
    sweeping += seconds(t0, t1) + seconds(t2, t3);
    quick_step += seconds(t1, t2);
  }
  report(state, guard, sweeping, quick_step, 31);
}
BENCHMARK(guard_31_bones_100_boxes)->Unit(benchmark::kMicrosecond);

/// The steps of a scene of 30 guarded or guard-swept bodies (`refresh` before each), the guard
/// (collide() and after_step()) timed against dWorldQuickStep.
template <class Scene, class Refresh>
void time_guard(benchmark::State& state, Scene& scene, odemocap::SweepGuard& guard,
                const Refresh& refresh) {
  double sweeping = 0.0, quick_step = 0.0;
  for (auto _ : state) {
    refresh();
    scene.collide();
    const Clock::time_point t0 = Clock::now();
    guard.collide(k_h);
    const Clock::time_point t1 = Clock::now();
    dWorldQuickStep(scene.world, k_h);
    const Clock::time_point t2 = Clock::now();
    dJointGroupEmpty(scene.contacts);
    guard.after_step();
    const Clock::time_point t3 = Clock::now();
    sweeping += seconds(t0, t1) + seconds(t2, t3);
    quick_step += seconds(t1, t2);
  }
  report(state, guard, sweeping, quick_step, 30);
}

/// A world with gravity, a hash space and a contact group, and a near callback that gives
/// every pair with a dynamic body up to 4 contacts with the guard's default surface.
class GuardScene {
public:
  GuardScene() {
    dInitODE2(0);
    dRandSetSeed(1);
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    space = dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
  }
  ~GuardScene() {
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  GuardScene(const GuardScene&) = delete;
  GuardScene& operator=(const GuardScene&) = delete;

  void collide() { dSpaceCollide(space, this, &near); }

  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;

private:
  static void near(void* data, dGeomID a, dGeomID b) {
    auto* s = static_cast<GuardScene*>(data);
    dBodyID ba = dGeomGetBody(a);
    dBodyID bb = dGeomGetBody(b);
    if ((ba == nullptr || dBodyIsKinematic(ba)) && (bb == nullptr || dBodyIsKinematic(bb))) {
      return;
    }
    dContact c[4];
    const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface = odemocap::SweepSettings::default_surface();
      dJointAttach(dJointCreateContact(s->world, s->contacts, &c[i]), ba, bb);
    }
  }
};

/// 30 kinematic capsules flying and spinning through 100 props resting on a floor, in a 4 m
/// square from `floor` (m) up to 1 m high; capsules turn back at its walls, props that leave it
/// are put back on the floor at rest.
class FastScene : public GuardScene {
public:
  explicit FastScene(double floor = 0.1) : floor_(floor) {
    dCreatePlane(space, 0, 0, 1, 0);
    std::mt19937 random(3);
    std::uniform_real_distribution<double> inside(-k_half, k_half), unit(-1.0, 1.0),
        speed(20.0, 40.0);
    for (int i = 0; i < 100; ++i) {
      dBodyID b = dBodyCreate(world);
      dMass m;
      dGeomID g = i % 2 == 0 ? dCreateBox(space, 0.2, 0.2, 0.1) : dCreateSphere(space, 0.05);
      if (i % 2 == 0) {
        dMassSetBoxTotal(&m, 0.5, 0.2, 0.2, 0.1);
      } else {
        dMassSetSphereTotal(&m, 0.2, 0.05);
      }
      dBodySetMass(b, &m);
      dGeomSetBody(g, b);
      dBodySetPosition(b, inside(random), inside(random), 0.05);
      props.push_back(b);
    }
    for (int i = 0; i < 30; ++i) {
      dBodyID b = dBodyCreate(world);
      dBodySetKinematic(b);
      dBodySetFiniteRotationMode(b, 1);
      dGeomSetBody(dCreateCapsule(space, 0.03, 0.4), b);
      dBodySetPosition(b, inside(random), inside(random),
                       floor_ + (1.0 - floor_) * 0.5 * (1 + unit(random)));
      odemocap::Vec3 v{unit(random), unit(random), unit(random)};
      v = v * (speed(random) / odemocap::norm(v));
      dBodySetLinearVel(b, v.x, v.y, v.z);
      dBodySetAngularVel(b, 20 * unit(random), 20 * unit(random), 20 * unit(random));
      capsules.push_back(b);
    }
  }
  /// Turns capsules back at the walls and puts escaped props back.
  void keep_inside() {
    for (dBodyID b : capsules) {
      const dReal* p = dBodyGetPosition(b);
      const dReal* v = dBodyGetLinearVel(b);
      dReal w[3] = {v[0], v[1], v[2]};
      const double low[3] = {-k_half, -k_half, floor_};
      const double high[3] = {k_half, k_half, 1.0};
      for (int k = 0; k < 3; ++k) {
        if ((p[k] > high[k] && w[k] > 0) || (p[k] < low[k] && w[k] < 0)) {
          w[k] = -w[k];
        }
      }
      dBodySetLinearVel(b, w[0], w[1], w[2]);
    }
    for (dBodyID b : props) {
      const dReal* p = dBodyGetPosition(b);
      if (std::fabs(p[0]) > 2 * k_half || std::fabs(p[1]) > 2 * k_half || p[2] > 2.0) {
        dBodySetPosition(b, 0.25 * p[0], 0.25 * p[1], 0.05);
        dBodySetLinearVel(b, 0, 0, 0);
        dBodySetAngularVel(b, 0, 0, 0);
      }
    }
  }

  static constexpr double k_half = 2.0;
  std::vector<dBodyID> props, capsules;

private:
  double floor_;
};

void guard_30_fast_capsules_100_props(benchmark::State& state) {
  FastScene scene;
  odemocap::SweepGuard guard(scene.world, scene.space, scene.contacts);
  for (dBodyID b : scene.capsules) {
    guard.guard(b);
  }
  time_guard(state, scene, guard, [&] { scene.keep_inside(); });
}
BENCHMARK(guard_30_fast_capsules_100_props)->Unit(benchmark::kMicrosecond);

/// The same capsules and props, the capsules kept 0.6-1 m up: every guarded body is fast and
/// swept every step, and nothing is in its reach (the props rest 0.1 m high): what the guard
/// costs per fast body before any pair is swept (its set-up and broad phase).
void guard_30_fast_capsules_above_100_props(benchmark::State& state) {
  FastScene scene(0.6);
  odemocap::SweepGuard guard(scene.world, scene.space, scene.contacts);
  for (dBodyID b : scene.capsules) {
    guard.guard(b);
  }
  time_guard(state, scene, guard, [&] { scene.keep_inside(); });
}
BENCHMARK(guard_30_fast_capsules_above_100_props)->Unit(benchmark::kMicrosecond);

/// A bumpy trimesh terrain (4 x 4 m, 64 x 64 cells, 8192 triangles) guarded as static
/// geometry, and 30 free balls thrown down at it at 20-40 m/s (thrown again once slower than
/// 5 m/s or away), so that every ball is swept into the mesh every step.
class TerrainScene : public GuardScene {
public:
  TerrainScene() {
    constexpr int n = 64;
    std::uniform_real_distribution<double> bump(-0.03, 0.03);
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j) {
        vertices_.insert(vertices_.end(), {-k_half + 2 * k_half * i / n,
                                           -k_half + 2 * k_half * j / n, bump(random_)});
      }
    }
    const auto at = [](int i, int j) { return static_cast<dTriIndex>(i * (n + 1) + j); };
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        indices_.insert(indices_.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j),
                                         at(i + 1, j + 1), at(i, j + 1)});
      }
    }
    data_ = dGeomTriMeshDataCreate();
    dGeomTriMeshDataBuildDouble(data_, vertices_.data(), 3 * sizeof(double),
                                static_cast<int>(vertices_.size() / 3), indices_.data(),
                                static_cast<int>(indices_.size()), 3 * sizeof(dTriIndex));
    terrain = dCreateTriMesh(space, data_, nullptr, nullptr, nullptr);
    for (int i = 0; i < 30; ++i) {
      dBodyID b = dBodyCreate(world);
      dMass m;
      dMassSetSphereTotal(&m, 0.2, 0.04);
      dBodySetMass(b, &m);
      dGeomSetBody(dCreateSphere(space, 0.04), b);
      throw_down(b);
      balls.push_back(b);
    }
  }
  ~TerrainScene() {
    dGeomDestroy(terrain); // before its data
    dGeomTriMeshDataDestroy(data_);
  }
  TerrainScene(const TerrainScene&) = delete;
  TerrainScene& operator=(const TerrainScene&) = delete;

  /// Throws again the balls that slowed down or left.
  void keep_throwing() {
    for (dBodyID b : balls) {
      const dReal* p = dBodyGetPosition(b);
      const dReal* v = dBodyGetLinearVel(b);
      const double speed2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
      if (speed2 < 25.0 || std::fabs(p[0]) > k_half || std::fabs(p[1]) > k_half || p[2] > 3.0) {
        throw_down(b);
      }
    }
  }

  static constexpr double k_half = 2.0;
  dGeomID terrain;
  std::vector<dBodyID> balls;

private:
  void throw_down(dBodyID b) {
    std::uniform_real_distribution<double> inside(-0.8 * k_half, 0.8 * k_half), unit(-1.0, 1.0),
        speed(20.0, 40.0), height(0.5, 1.5);
    dBodySetPosition(b, inside(random_), inside(random_), height(random_));
    odemocap::Vec3 v{0.5 * unit(random_), 0.5 * unit(random_), -1.0};
    v = v * (speed(random_) / odemocap::norm(v));
    dBodySetLinearVel(b, v.x, v.y, v.z);
    dBodySetAngularVel(b, 0, 0, 0);
  }

  std::mt19937 random_{4};
  std::vector<double> vertices_;
  std::vector<dTriIndex> indices_;
  dTriMeshDataID data_ = nullptr;
};

void guard_static_terrain_30_fast_balls(benchmark::State& state) {
  TerrainScene scene;
  odemocap::SweepGuard guard(scene.world, scene.space, scene.contacts);
  guard.guard_static(scene.terrain);
  time_guard(state, scene, guard, [&] { scene.keep_throwing(); });
}
BENCHMARK(guard_static_terrain_30_fast_balls)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
