// KinematicDriver::prestep against dWorldQuickStep in the same scene and run: a CMU skeleton
// (31 captured bodies) looping among 100 dynamic boxes.
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

namespace {

using namespace odemocap::bench;

double median(std::vector<double>& values) {
  if (values.empty()) {
    return 0.0;
  }
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

/// The simulation loop with each phase timed on its own. The benchmark's time is the whole
/// step; the counters give prestep (in the caches ODE's step leaves behind) per step, per body
/// and as a percentage of dWorldQuickStep and of the whole step, all from the same iterations,
/// so the ratios do not depend on how busy the machine was. The `_p50` counters are the same
/// from the median step of each phase: a slow spell of the host (which this VM has for seconds
/// at a time) moves the means, hardly the medians.
void step_31_captured_100_boxes(benchmark::State& state) {
  CaptureScene scene(capture_path(), 100);
  double prestep = 0.0, collide = 0.0, quick_step = 0.0;
  std::vector<double> presteps, quick_steps;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    scene.driver->prestep(k_h);
    const Clock::time_point t1 = Clock::now();
    scene.collide();
    const Clock::time_point t2 = Clock::now();
    scene.step(k_h);
    const Clock::time_point t3 = Clock::now();
    prestep += seconds(t0, t1);
    collide += seconds(t1, t2);
    quick_step += seconds(t2, t3);
    presteps.push_back(seconds(t0, t1));
    quick_steps.push_back(seconds(t2, t3));
  }
  const double bodies = static_cast<double>(scene.bindings.size());
  const double n = static_cast<double>(state.iterations());
  state.counters["prestep_us"] = prestep / n * 1e6;
  state.counters["ns_per_body"] = prestep / n / bodies * 1e9;
  state.counters["pct_of_quickstep"] = 100.0 * prestep / quick_step;
  state.counters["pct_of_step"] = 100.0 * prestep / (prestep + collide + quick_step);
  state.counters["quickstep_us"] = quick_step / n * 1e6;
  const double prestep_p50 = median(presteps);
  state.counters["ns_per_body_p50"] = prestep_p50 / bodies * 1e9;
  state.counters["pct_of_quickstep_p50"] = 100.0 * prestep_p50 / median(quick_steps);
}
BENCHMARK(step_31_captured_100_boxes)->Unit(benchmark::kMicrosecond);

/// prestep without the world step between: caches stay warm, so this is the driver's compute
/// alone, the floor of the figure above. Instead of stepping, each body is put (untimed) where
/// the step would have taken it, its target at the driver's new time.
void prestep_warm_31_bodies(benchmark::State& state) {
  CaptureScene scene(capture_path(), 100);
  odemocap::KinematicDriver& driver = *scene.driver;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    driver.prestep(k_h);
    state.SetIterationTime(seconds(t0, Clock::now()));
    for (const odemocap::KinematicDriver::BindingId id : scene.bindings) {
      odemocap::set_body_pose(driver.body(id), driver.target(id, driver.time()));
    }
  }
  state.counters["ns_per_body"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(scene.bindings.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(prestep_warm_31_bodies)->UseManualTime()->Unit(benchmark::kMicrosecond);

/// The same with every body bound through a TrackSource (a PoseSource: one virtual call per
/// body and step) instead of the track itself: what a blend or a stream costs the driver
/// beyond computing its poses.
void prestep_warm_31_sources(benchmark::State& state) {
  dInitODE2(0);
  dWorldID world = dWorldCreate();
  const odemocap::Capture capture = load_cmu(capture_path());
  odemocap::KinematicDriver driver(world);
  odemocap::BindOptions options;
  options.at_end = odemocap::TrackEnd::Loop;
  std::vector<odemocap::KinematicDriver::BindingId> ids;
  for (const odemocap::Joint& joint : capture.skeleton()->joints) {
    if (!joint.end_site) {
      ids.push_back(driver.bind(dBodyCreate(world),
                                std::make_shared<odemocap::TrackSource>(capture.track(joint.name)),
                                options));
    }
  }
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    driver.prestep(k_h);
    state.SetIterationTime(seconds(t0, Clock::now()));
    for (const auto id : ids) {
      odemocap::set_body_pose(driver.body(id), driver.target(id, driver.time()));
    }
  }
  state.counters["ns_per_body"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(ids.size()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  dWorldDestroy(world);
  dCloseODE();
}
BENCHMARK(prestep_warm_31_sources)->UseManualTime()->Unit(benchmark::kMicrosecond);

/// Per-body prestep as the scene grows: N bodies (10 to 10000), each looping its own 2 s track
/// (240 samples of a circle at its own phase, so no two share cache lines), the world stepped
/// (untimed) between presteps so the caches hold what ODE's step leaves. The goal: per-body
/// cost at 10000 at most 1.3 times that at 10, read off the ns_per_body counters of one run.
void prestep_scaling(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  dInitODE2(0);
  dWorldID world = dWorldCreate();
  {
    odemocap::KinematicDriver driver(world);
    std::vector<std::shared_ptr<const odemocap::Track>> tracks;
    for (std::size_t i = 0; i < n; ++i) {
      auto track = std::make_shared<odemocap::Track>("body" + std::to_string(i));
      const double phase = 0.37 * static_cast<double>(i);
      for (int k = 0; k < 240; ++k) {
        const double a = phase + 2.0 * 3.14159265358979 * k / 240.0;
        track->append(k / 120.0, {{std::cos(a), std::sin(a), 1.0 + 0.001 * static_cast<double>(i)},
                                  odemocap::from_axis_angle({0, 0, 1}, a)});
      }
      tracks.push_back(track);
      odemocap::BindOptions loop;
      loop.at_end = odemocap::TrackEnd::Loop;
      loop.time_offset = 0.01 * static_cast<double>(i % 200);
      driver.bind(dBodyCreate(world), tracks.back(), loop);
    }
    double prestep = 0.0;
    for (auto _ : state) {
      const Clock::time_point t0 = Clock::now();
      driver.prestep(k_h);
      const double s = seconds(t0, Clock::now());
      state.SetIterationTime(s);
      prestep += s;
      dWorldQuickStep(world, k_h);
    }
    state.counters["ns_per_body"] =
        prestep / static_cast<double>(state.iterations()) / static_cast<double>(n) * 1e9;
  }
  dWorldDestroy(world);
  dCloseODE();
}
BENCHMARK(prestep_scaling)
    ->ArgName("bodies")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

/// A crowd crossing its loop's seam in one step: N kinematic bodies (10 cm spheres in one hash
/// space, 0.5 m apart), each looping the same short track (a 6 cm drift over three steps), each
/// with a 5 cm dynamic ball resting on it, gravity on. Each iteration places them (untimed),
/// times one prestep within the loop and the one that crosses the seam, where the driver looks
/// for what rests on each body (NeighbourSettings::carry_resting, on unless resting:0) and
/// carries it. The counter seam_over_ordinary is the second over the first; per body it should
/// not grow with N (the search looks at each body's neighbourhood, not at every geom of the
/// space). resting:0 is the baseline: the seam crossed without the search.
void prestep_at_a_seam(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  dInitODE2(0);
  dWorldID world = dWorldCreate();
  dWorldSetGravity(world, 0, 0, -9.81);
  dSpaceID space = dHashSpaceCreate(nullptr);
  {
    odemocap::KinematicDriver driver(world);
    odemocap::NeighbourSettings neighbours;
    neighbours.carry_resting = state.range(1) != 0;
    driver.set_neighbours(neighbours);
    auto track = std::make_shared<odemocap::Track>("drift");
    for (int k = 0; k <= 3; ++k) { // the loop's period: three steps
      track->append(k * k_h, {{0.02 * k, 0.0, 1.0}, odemocap::Quat{}});
    }
    odemocap::BindOptions loop;
    loop.at_end = odemocap::TrackEnd::Loop;
    std::vector<dBodyID> balls;
    std::vector<odemocap::Vec3> on_top;
    for (std::size_t i = 0; i < n; ++i) {
      const odemocap::Vec3 at{0.5 * static_cast<double>(i % 100),
                              0.5 * static_cast<double>(i / 100), 0.0};
      dBodyID body = dBodyCreate(world);
      dGeomSetBody(dCreateSphere(space, 0.1), body);
      odemocap::BindOptions offset = loop;
      offset.offset.p = at;
      driver.bind(body, track, offset);
      dBodyID ball = dBodyCreate(world);
      dMass mass;
      dMassSetSphereTotal(&mass, 0.1, 0.05);
      dBodySetMass(ball, &mass);
      dGeomSetBody(dCreateSphere(space, 0.05), ball);
      balls.push_back(ball);
      on_top.push_back(at + odemocap::Vec3{0.0, 0.0, 1.0 + 0.149}); // 1 mm into the body's sphere
    }
    double ordinary = 0.0, seam = 0.0;
    for (auto _ : state) {
      driver.restart();
      driver.prestep(k_h); // places every body on its first pose
      for (std::size_t i = 0; i < n; ++i) {
        dBodySetPosition(balls[i], on_top[i].x, on_top[i].y, on_top[i].z);
      }
      const Clock::time_point t0 = Clock::now();
      driver.prestep(k_h); // within the loop
      const Clock::time_point t1 = Clock::now();
      driver.prestep(
          k_h); // to the loop's end, across its seam: each body and ball carried back 6 cm
      const Clock::time_point t2 = Clock::now();
      ordinary += seconds(t0, t1);
      seam += seconds(t1, t2);
      state.SetIterationTime(seconds(t1, t2));
    }
    state.counters["seam_over_ordinary"] = seam / ordinary;
    state.counters["seam_ns_per_body"] =
        seam / static_cast<double>(state.iterations()) / static_cast<double>(n) * 1e9;
    state.counters["balls_carried"] =
        driver.carried_by(balls.front()) != nullptr && driver.carried_by(balls.back()) != nullptr
            ? 1.0
            : 0.0;
  }
  dSpaceDestroy(space);
  dWorldDestroy(world);
  dCloseODE();
}
BENCHMARK(prestep_at_a_seam)
    ->ArgNames({"bodies", "resting"})
    ->ArgsProduct({{100, 1000, 3000}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
