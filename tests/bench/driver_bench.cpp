// KinematicDriver::prestep against dWorldQuickStep in the same scene and run: a CMU skeleton
// (31 captured bodies) looping among 100 dynamic boxes.
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <chrono>

namespace {

using odemocap::bench::CaptureScene;
constexpr double k_h = 1.0 / 120;

std::string capture_path() { return std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh"; }

/// Time of prestep alone (manual timing) inside the full simulation loop.
void prestep_31_bodies(benchmark::State& state) {
  CaptureScene scene(capture_path(), 100);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    scene.driver->prestep(k_h);
    const auto end = std::chrono::steady_clock::now();
    scene.collide_and_step(k_h);
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(scene.bindings.size()));
}
BENCHMARK(prestep_31_bodies)->UseManualTime()->Unit(benchmark::kMicrosecond);

/// The whole step: prestep, collision, dWorldQuickStep.
void full_step_31_bodies_100_boxes(benchmark::State& state) {
  CaptureScene scene(capture_path(), 100);
  for (auto _ : state) {
    scene.driver->prestep(k_h);
    scene.collide_and_step(k_h);
  }
}
BENCHMARK(full_step_31_bodies_100_boxes)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
