// SweepGuard's cost in the benchmark capture scene (CMU hop on a kinematic Character, 31 bones,
// among 100 dynamic boxes): every bone guarded, its collide() timed against the
// dWorldQuickStep it prepares, in the same iterations.
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <chrono>

namespace {

using namespace odemocap::bench;

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
    sweeping += seconds(t0, t1);
    quick_step += seconds(t1, t2);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["guard_us"] = sweeping / n * 1e6;
  state.counters["quickstep_us"] = quick_step / n * 1e6;
  state.counters["pct_of_quickstep"] = 100.0 * sweeping / quick_step;
  state.counters["pairs_per_step"] = static_cast<double>(guard.stats().pairs_swept) / n;
  state.counters["speculative_per_step"] =
      static_cast<double>(guard.stats().speculative_contacts) / n;
  state.counters["swept_bodies_per_step"] = 31.0 - static_cast<double>(guard.stats().slow) / n;
}
BENCHMARK(guard_31_bones_100_boxes)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
