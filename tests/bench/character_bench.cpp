// A soft character (a puppet: 30 dynamic bones on ball joints and bounded servos, the root
// kinematic) against the kinematic character of the same capture, in the same scene (CMU hop
// looping on a floor, alone or among 100 dynamic boxes) and the same run: the ratio of their
// whole steps (prestep, collision, dWorldQuickStep). And soft followers pressed into a table
// among props against the same followers in the air: what finding the surface they press
// costs their prestep.
#include "capture_scene.hpp"

#include <benchmark/benchmark.h>

#include <chrono>

namespace {

using namespace odemocap::bench;

constexpr double k_pi = 3.14159265358979323846;

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

/// `hands` 0.4 kg hands (10 x 8 x 3 cm boxes) following circles of 0.2 m at 0.5 m/s, each
/// captured 2 cm into a static table (`pressed`: every step held back by it, so each prestep
/// finds the surface with dCollide against the table's space) or 5 cm above it, beside
/// `props` 5 cm boxes resting on the table in a hash space; dWorldQuickStep, 20 iterations.
class PressedHands : public BenchWorld {
public:
  PressedHands(int hands, int props, bool pressed) {
    driver_ = std::make_unique<odemocap::KinematicDriver>(world);
    const double top = 0.75;
    dGeomSetPosition(dCreateBox(space, 40.0, 40.0, 0.05), 0, 0, top - 0.025);
    const int row = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(props))));
    for (int i = 0; i < props; ++i) { // on the far side of the table from the hands
      box({0.05, 0.05, 0.05}, 0.1, {-1.0 - 0.3 * (i % row), -0.3 * (i / row), top + 0.025});
    }
    const double radius = 0.2, speed = 0.5;
    const double period = 2 * k_pi * radius / speed;
    const double height = top + 0.015 + (pressed ? -0.02 : 0.05);
    odemocap::FollowSettings settings;
    settings.max_force = 60;
    settings.max_torque = 5;
    settings.at_end = odemocap::TrackEnd::Loop;
    for (int k = 0; k < hands; ++k) {
      const odemocap::Vec3 centre{0.6 * (k % 10), 0.6 * (k / 10), height};
      odemocap::Track track("hand");
      const int samples = static_cast<int>(std::lround(period / k_h));
      for (int i = 0; i <= samples; ++i) {
        const double a = 2 * k_pi * i / samples;
        track.append(i * period / samples,
                     odemocap::Pose{centre + radius * odemocap::Vec3{std::cos(a), std::sin(a), 0},
                                    odemocap::from_axis_angle({0, 0, 1}, a)});
      }
      dBodyID hand = box({0.1, 0.08, 0.03}, 0.4, track.sample(0.0).p);
      followers_.emplace_back(*driver_, hand, track, settings);
    }
    for (int i = 0; i < 120; ++i) { // a second: the hands down on the table and sliding
      timed_step();
    }
  }
  ~PressedHands() {
    followers_.clear();
    driver_.reset();
  }

  /// Seconds of one step's parts.
  struct Times {
    double prestep = 0.0;
    double collide = 0.0;
    double quick = 0.0;
  };

  /// A whole step: prestep, collision, dWorldQuickStep.
  Times timed_step() {
    const Clock::time_point t0 = Clock::now();
    driver_->prestep(k_h);
    const Clock::time_point t1 = Clock::now();
    collide();
    const Clock::time_point t2 = Clock::now();
    dWorldQuickStep(world, k_h);
    const Clock::time_point t3 = Clock::now();
    dJointGroupEmpty(contacts);
    return {seconds(t0, t1), seconds(t1, t2), seconds(t2, t3)};
  }

private:
  std::unique_ptr<odemocap::KinematicDriver> driver_;
  std::vector<odemocap::SoftFollower> followers_;
};

/// Both scenes stepped in each iteration, alternating which goes first; the benchmark's time is
/// the pressed scene's prestep, the counters come from the same iterations: both presteps per
/// hand, and the prestep with the collision that follows it per hand in both scenes, with what
/// the pressed scene's adds over the other's as a percentage of its dWorldQuickStep. The
/// collision counts because the first dSpaceCollide2 or dSpaceCollide after a world step
/// recomputes the boxes of every geom that moved (ODE's hash space cleans them then): a
/// follower's search in the prestep takes that work from the collision that follows.
void pressed_followers_prestep(benchmark::State& state) {
  const int hands = static_cast<int>(state.range(0));
  const int props = static_cast<int>(state.range(1));
  PressedHands pressed(hands, props, true);
  PressedHands in_air(hands, props, false);
  PressedHands::Times p_sum, a_sum;
  const auto add = [](PressedHands::Times& sum, const PressedHands::Times& t) {
    sum.prestep += t.prestep;
    sum.collide += t.collide;
    sum.quick += t.quick;
  };
  bool pressed_first = false;
  for (auto _ : state) {
    PressedHands::Times p;
    if (pressed_first) {
      p = pressed.timed_step();
      add(a_sum, in_air.timed_step());
    } else {
      add(a_sum, in_air.timed_step());
      p = pressed.timed_step();
    }
    state.SetIterationTime(p.prestep);
    add(p_sum, p);
    pressed_first = !pressed_first;
  }
  const double n = static_cast<double>(state.iterations()) * hands;
  const double p_both = p_sum.prestep + p_sum.collide;
  const double a_both = a_sum.prestep + a_sum.collide;
  state.counters["pressed_prestep_ns_per_hand"] = p_sum.prestep / n * 1e9;
  state.counters["in_air_prestep_ns_per_hand"] = a_sum.prestep / n * 1e9;
  state.counters["pressed_with_collide_ns_per_hand"] = p_both / n * 1e9;
  state.counters["in_air_with_collide_ns_per_hand"] = a_both / n * 1e9;
  state.counters["added_pct_of_quickstep"] = 100.0 * (p_both - a_both) / p_sum.quick;
}
BENCHMARK(pressed_followers_prestep)
    ->ArgNames({"hands", "props"})
    ->Args({10, 10})
    ->Args({10, 100})
    ->Args({10, 1000})
    ->Args({1, 1000})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
