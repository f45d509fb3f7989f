// Slerp-derivative angular velocity against the naive first-order baseline, per frame pair and
// over whole tracks. Ratios matter, not absolute times: both run in the same process.
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

using namespace odemocap;

/// Frame pairs whose step angle is drawn up to `max_angle` (rad) about random axes.
struct Pairs {
  std::vector<Quat> q0, q1;
};

Pairs make_pairs(std::size_t n, double max_angle) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0.0, max_angle);
  Pairs p;
  for (std::size_t i = 0; i < n; ++i) {
    const Quat q0 = normalized(Quat{g(rng), g(rng), g(rng), g(rng)});
    const Vec3 axis{g(rng), g(rng), g(rng)};
    p.q0.push_back(q0);
    p.q1.push_back(from_axis_angle(axis, u(rng)) * q0);
  }
  return p;
}

// Arg 0: pair count; arg 1: largest step angle in milliradians.
template <Vec3 (*Estimator)(const Quat&, const Quat&, double)>
void per_pair(benchmark::State& state) {
  const Pairs p = make_pairs(static_cast<std::size_t>(state.range(0)),
                             static_cast<double>(state.range(1)) * 1e-3);
  for (auto _ : state) {
    for (std::size_t i = 0; i < p.q0.size(); ++i) {
      benchmark::DoNotOptimize(Estimator(p.q0[i], p.q1[i], 1.0 / 120));
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
// Step angles up to 0.2 rad: typical captured motion at 120 Hz (up to 24 rad/s); up to
// 0.5 rad: the fastest human motion (60 rad/s); up to 3.1 rad: anything, mostly the atan2 path.
BENCHMARK_TEMPLATE(per_pair, angular_velocity)
    ->Args({4096, 200})
    ->Args({4096, 500})
    ->Args({4096, 3100});
BENCHMARK_TEMPLATE(per_pair, angular_velocity_linear_approx)
    ->Args({4096, 200})
    ->Args({4096, 500})
    ->Args({4096, 3100});

/// A track of `frames` samples at 120 Hz wandering with random angular velocity.
Track make_track(std::size_t frames) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 3.0);
  Track track("bench");
  track.reserve(frames);
  Quat q;
  Vec3 p;
  for (std::size_t i = 0; i < frames; ++i) {
    track.append(static_cast<double>(i) / 120.0, {p, q});
    q = normalized(integrate(q, {g(rng), g(rng), g(rng)}, 1.0 / 120));
    p += Vec3{g(rng), g(rng), g(rng)} * 0.01;
  }
  return track;
}

template <RotationEstimator E, DiffScheme S> void whole_track(benchmark::State& state) {
  const Track track = make_track(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(estimate_velocities(track, S, E));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK_TEMPLATE(whole_track, RotationEstimator::Geodesic, DiffScheme::Forward)
    ->Arg(1000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(whole_track, RotationEstimator::LinearApprox, DiffScheme::Forward)
    ->Arg(1000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(whole_track, RotationEstimator::Geodesic, DiffScheme::Central)
    ->Arg(1000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
