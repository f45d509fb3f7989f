// The cost of one blended frame of CMU 35's walk/run blend (31 bones: two clips sampled, every
// bone's local pose blended, forward kinematics, the origins moved), against what the driver
// already pays per frame for a capture: sampling the 31 tracks of one clip's capture; and what
// the foot lock adds (blend_frame with the lock off against the default, FootLock::Blended,
// which at b = 0.5 pins, solves both legs and keeps the feet above their floor).
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

using namespace odemocap;

constexpr double k_h = 1.0 / 120; // one capture frame (s)

Capture load(const char* file) {
  LoadOptions options;
  options.up_axis = Axis::Z;
  options.to_metres = true;
  return load_capture(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/" + file, options);
}

struct Data {
  Capture walk_capture = load("35_07.bvh");
  Capture run_capture = load("35_24.bvh");
  std::vector<LoopClip> clips;
  Data() {
    clips.emplace_back(walk_capture); // every cut option at its default, as a user cuts them
    clips.emplace_back(run_capture);
  }
};

const Data& data() {
  static const Data d;
  return d;
}

/// Baseline: every track of the walk capture sampled at one time, as the driver does per step.
void tracks_sample(benchmark::State& state) {
  const Capture& capture = data().walk_capture;
  double t = 0.01;
  for (auto _ : state) {
    for (const Track& track : capture.tracks()) {
      benchmark::DoNotOptimize(track.sample(t));
    }
    t = t + k_h > 2.9 ? 0.01 : t + k_h;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(tracks_sample);

/// One blended frame per iteration at weight b (per mille): 0 plays one clip, 500 blends both;
/// the second argument: 1 for the default foot lock, 0 for none.
void blend_frame(benchmark::State& state) {
  ClipBlend blend(data().clips);
  FootLockOptions lock;
  lock.mode = state.range(1) != 0 ? FootLock::Blended : FootLock::Off;
  blend.set_foot_lock(lock);
  blend.set_weight(static_cast<double>(state.range(0)) * 1e-3);
  double t = 0.0;
  for (auto _ : state) {
    t += k_h;
    benchmark::DoNotOptimize(blend.advance_to(t).data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(blend_frame)->Args({0, 0})->Args({500, 0})->Args({500, 1})->Args({0, 1});

} // namespace

BENCHMARK_MAIN();
