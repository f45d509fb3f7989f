// A crowd from one capture library: what binding costs per body when the driver shares a
// loaded capture's tracks (KinematicDriver::bind with a shared_ptr<const Track>, Character built
// from a shared_ptr<const Capture>) against copying them (bind with a const Track&, Character
// from a const Capture&, the only way before). Time and heap bytes per binding, counted by this
// program's own operator new, and the heap a crowd of 100 characters holds.
#include <odemocap/character.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>
#include <ode/ode.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

// The replacement operator new and delete below pair malloc with free by design; GCC cannot see
// that once they are inlined into the library's calls.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {

std::atomic<long long> g_allocated{0}; // bytes handed out by operator new, ever

} // namespace

void* operator new(std::size_t size) {
  g_allocated += static_cast<long long>(size);
  if (void* p = std::malloc(size == 0 ? 1 : size)) {
    return p;
  }
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace odemocap;
using Clock = std::chrono::steady_clock;

std::shared_ptr<const Capture> capture() {
  static const std::shared_ptr<const Capture> c = [] {
    LoadOptions options;
    options.up_axis = Axis::Z;
    options.to_metres = true;
    return std::make_shared<const Capture>(
        load_capture(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/35_07.bvh", options));
  }();
  return c;
}

struct World {
  World() {
    dInitODE2(0);
    world = dWorldCreate();
    space = dHashSpaceCreate(nullptr);
  }
  ~World() {
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  dWorldID world;
  dSpaceID space;
};

/// Binds 310 bodies (ten characters' worth) to the capture's 31 tracks per iteration; the
/// argument is 1 to share the tracks, 0 to copy them.
void bind_tracks(benchmark::State& state) {
  const bool shared = state.range(0) != 0;
  const std::shared_ptr<const Capture> c = capture();
  const std::vector<Track>& tracks = c->tracks();
  World w;
  std::vector<dBodyID> bodies(310);
  for (dBodyID& b : bodies) {
    b = dBodyCreate(w.world);
  }
  double bind_s = 0.0;
  long long bytes = 0;
  for (auto _ : state) {
    KinematicDriver driver(w.world);
    const long long before = g_allocated;
    const Clock::time_point t0 = Clock::now();
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const Track& track = tracks[i % tracks.size()];
      if (shared) {
        driver.bind(bodies[i], std::shared_ptr<const Track>(c, &track));
      } else {
        driver.bind(bodies[i], track);
      }
    }
    bind_s += std::chrono::duration<double>(Clock::now() - t0).count();
    bytes += g_allocated - before;
  }
  const double binds = static_cast<double>(state.iterations() * bodies.size());
  state.counters["us_per_bind"] = bind_s / binds * 1e6;
  state.counters["bytes_per_bind"] = static_cast<double>(bytes) / binds;
}
BENCHMARK(bind_tracks)->ArgName("shared")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// A crowd of 100 characters built from the capture and driven kinematically, once: the heap
/// bytes allocated for it (bodies and geoms included) per character.
void crowd_of_100(benchmark::State& state) {
  const bool shared = state.range(0) != 0;
  const std::shared_ptr<const Capture> c = capture();
  for (auto _ : state) {
    World w;
    KinematicDriver driver(w.world);
    std::vector<std::unique_ptr<Character>> crowd;
    const long long before = g_allocated;
    for (int i = 0; i < 100; ++i) {
      crowd.push_back(shared ? std::make_unique<Character>(w.world, w.space, c)
                             : std::make_unique<Character>(w.world, w.space, *c));
      crowd.back()->drive_kinematic(driver);
    }
    state.counters["kB_per_character"] = static_cast<double>(g_allocated - before) / 100.0 / 1e3;
    state.counters["capture_kB"] = [&] {
      double kb = 0.0;
      for (const Track& t : c->tracks()) {
        kb += static_cast<double>(t.size() * (sizeof(double) + sizeof(Vec3) + sizeof(Quat) + 1)) /
              1e3;
      }
      return kb;
    }();
  }
}
BENCHMARK(crowd_of_100)->ArgName("shared")->Arg(0)->Arg(1)->Iterations(1)->Unit(
    benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
