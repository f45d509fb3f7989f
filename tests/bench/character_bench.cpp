// A soft character (a puppet: 30 dynamic bones on ball joints and bounded servos, the root
// kinematic) against the kinematic character of the same capture, in the same scene (CMU hop
// looping on a floor, alone or among 100 dynamic boxes) and the same run: the ratio of their
// whole steps (prestep, collision, dWorldQuickStep).
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <chrono>

namespace {

using namespace odemocap::bench;

double step(CaptureScene& scene) {
  const Clock::time_point t0 = Clock::now();
  scene.driver->prestep(k_h);
  scene.collide_and_step(k_h);
  return seconds(t0, Clock::now());
}

/// Each iteration steps both scenes, alternating which goes first; the benchmark's time is the
/// soft one's step, the counters give both and their ratio from the same iterations.
void soft_vs_kinematic_character_step(benchmark::State& state) {
  const int boxes = static_cast<int>(state.range(0));
  CaptureScene kinematic(capture_path(), boxes, false);
  CaptureScene soft(capture_path(), boxes, true);
  double kinematic_s = 0.0, soft_s = 0.0;
  bool soft_first = false;
  for (auto _ : state) {
    if (soft_first) {
      const double s = step(soft);
      state.SetIterationTime(s);
      soft_s += s;
      kinematic_s += step(kinematic);
    } else {
      kinematic_s += step(kinematic);
      const double s = step(soft);
      state.SetIterationTime(s);
      soft_s += s;
    }
    soft_first = !soft_first;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["kinematic_us"] = kinematic_s / n * 1e6;
  state.counters["soft_us"] = soft_s / n * 1e6;
  state.counters["soft_over_kinematic"] = soft_s / kinematic_s;
}
BENCHMARK(soft_vs_kinematic_character_step)
    ->ArgName("boxes")
    ->Arg(0)
    ->Arg(100)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
