#include "support/error_message.hpp"
#include "support/reference_math.hpp"

#include <odemocap/capture.hpp>
#include <odemocap/error.hpp>
#include <odemocap/track.hpp>
#include <odemocap/velocity.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace odemocap {
namespace {

using test::near_vec;
using test::Random;
using test::same_rotation;

// Analytic motion used as truth: constant velocity plus constant-rate rotation.
const Vec3 k_velocity{0.3, -0.1, 0.7};
const Vec3 k_omega{0.5, 2.0, -1.0};
const Quat k_q0 = from_axis_angle({0, 1, 1}, 0.3);

Pose truth(double t) { return {Vec3{1, 2, 3} + k_velocity * t, integrate(k_q0, k_omega, t)}; }

Track analytic_track(const std::vector<double>& times) {
  Track track("analytic");
  for (double t : times) {
    track.append(t, truth(t));
  }
  return track;
}

std::vector<double> uniform_times(int n, double dt) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    t.push_back(i * dt);
  }
  return t;
}

std::vector<double> jittered_times(int n, double dt, unsigned seed) {
  Random rnd(seed);
  std::vector<double> t{0.0};
  for (int i = 1; i < n; ++i) {
    t.push_back(t.back() + dt * rnd.uniform(0.3, 1.7));
  }
  return t;
}

TEST(Track, AppendRejectsBadSamplesNamingTrackAndSample) {
  Track track("hand");
  track.append(0.0, {});
  try {
    track.append(0.0, {});
    FAIL() << "equal time accepted";
  } catch (const MocapError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'hand'"), std::string::npos) << m;
    EXPECT_NE(m.find("sample 1"), std::string::npos) << m;
  }
  EXPECT_THROW(track.append(-1.0, {}), MocapError);
  EXPECT_THROW(track.append(NAN, {}), MocapError);
  EXPECT_THROW(track.append(1.0, {Vec3{NAN, 0, 0}, Quat{}}), MocapError);
  EXPECT_THROW(track.append(1.0, {Vec3{}, Quat{0.5, 0, 0, 0}}), MocapError);
  EXPECT_THROW(track.append(1.0, {Vec3{}, Quat{NAN, 0, 0, 0}}), MocapError);
  EXPECT_THROW(track.append_gap(0.0), MocapError);
  // Plausibility limits keep every derived velocity finite.
  EXPECT_THROW(track.append(1e-12, {}), MocapError);                       // < 1e-9 s later
  EXPECT_THROW(track.append(2e9, {}), MocapError);                         // beyond 1e9 s
  EXPECT_THROW(track.append(1.0, {Vec3{1e308, 0, 0}, Quat{}}), MocapError); // beyond 1e9 m
  EXPECT_EQ(track.size(), 1u); // nothing half-appended
  track.append(1.0, {Vec3{}, Quat{1.0005, 0, 0, 0}}); // within tolerance: renormalised
  EXPECT_EQ(track.orientation(1).w, 1.0);
}

TEST(Track, RetimeReplacesTheTimesAndTheEndsOrRefusesAndLeavesThemAlone) {
  Track t("m");
  t.append(0.0, {{0, 0, 0}, {}});
  t.append_gap(0.004);
  t.append(0.008, {{2, 0, 0}, {}});
  t.append(0.012, {{3, 0, 0}, {}});
  t.retime({0.0, 1.0 / 240, 2.0 / 240, 3.0 / 240});
  EXPECT_EQ(t.time(2), 2.0 / 240);
  EXPECT_EQ(t.end_time(), 3.0 / 240);
  // The interval search uses the new ends and spacing: halfway between samples 2 and 3.
  EXPECT_NEAR(t.sample(2.5 / 240).p.x, 2.5, 1e-12);
  EXPECT_NEAR(t.sample(1.0 / 240).p.x, 1.0, 1e-12); // across the gap, from the new times
  const std::string e = test::error_message<MocapError>([&] {
    t.retime({0.0, 0.01, 0.005, 0.02});
  });
  EXPECT_NE(e.find("track 'm', sample 2"), std::string::npos) << e;
  EXPECT_THROW(t.retime({0.0, 0.01}), MocapError);
  EXPECT_EQ(t.time(2), 2.0 / 240); // unchanged
}

TEST(Track, TurningTurnsEveryPoseAndLeavesGapsAndTimesAlone) {
  // A quarter turn about +X, written out by hand: (x, y, z) -> (x, -z, y), and an orientation q
  // becomes (cos 45, sin 45, 0, 0) q.
  const double h = std::sqrt(0.5);
  const Quat quarter{h, h, 0, 0};
  Track t("m");
  const Quat q0 = from_axis_angle({0, 0, 1}, 0.3);
  t.append(0.0, {{1, 2, 3}, q0});
  t.append_gap(0.01);
  t.append(0.02, {{-4, 5, 0.5}, {}});
  t.turn(quarter);
  EXPECT_TRUE(test::near_vec(t.position(0), {1, -3, 2}, 1e-14));
  EXPECT_TRUE(test::near_vec(t.position(2), {-4, -0.5, 5}, 1e-14));
  // (h, h, 0, 0) (cos 0.15, 0, 0, sin 0.15), multiplied out by hand.
  const double c = std::cos(0.15), s = std::sin(0.15);
  EXPECT_TRUE(test::same_rotation(t.orientation(0), {h * c, h * c, -h * s, h * s}, 1e-15));
  EXPECT_TRUE(test::same_rotation(t.orientation(2), quarter, 1e-15));
  EXPECT_FALSE(t.valid(1));
  EXPECT_TRUE(test::same_rotation(t.orientation(1), Quat{}, 0)); // the gap's placeholder
  EXPECT_EQ(t.time(2), 0.02);
  // Sampled poses turn with the samples: halfway, the turned midpoint.
  EXPECT_TRUE(test::near_vec(t.sample(0.01).p, {-1.5, -1.75, 3.5}, 1e-14));
  // Refused, and the track left as it was: a rotation that is not unit, and a turn that would
  // carry a position past +-1e9 (|p| 1.4e9 along a diagonal, turned onto an axis).
  const std::string e = test::error_message<MocapError>([&] { t.turn({1, 1, 0, 0}); });
  EXPECT_NE(e.find("track 'm'"), std::string::npos) << e;
  EXPECT_NE(e.find("unit rotation"), std::string::npos) << e;
  Track far("far");
  far.append(0.0, {{1e9, 1e9, 0}, {}});
  EXPECT_THROW(far.turn(from_axis_angle({0, 0, 1}, std::atan(1.0))), MocapError);
  EXPECT_TRUE(test::near_vec(far.position(0), {1e9, 1e9, 0}, 0));
  EXPECT_TRUE(test::near_vec(t.position(0), {1, -3, 2}, 1e-14));
}

TEST(Track, LinearSampleIsExactAtSamplesAndForConstantRateMotion) {
  for (const auto& times : {uniform_times(50, 1.0 / 120), jittered_times(50, 1.0 / 120, 4)}) {
    const Track track = analytic_track(times);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const Pose p = track.sample(times[i]);
      ASSERT_TRUE(near_vec(p.p, track.position(i), 0)); // the stored sample, bit for bit
      ASSERT_TRUE(same_rotation(p.q, track.orientation(i), 0));
      ASSERT_TRUE(same_rotation(p.q, truth(times[i]).q, 1e-15));
    }
    Random rnd(5);
    for (int n = 0; n < 500; ++n) {
      const double t = rnd.uniform(times.front(), times.back());
      const Pose p = track.sample(t, Interp::Linear);
      ASSERT_TRUE(near_vec(p.p, truth(t).p, 1e-14));
      // Slerp between samples of a constant-rate rotation is that rotation.
      ASSERT_TRUE(same_rotation(p.q, truth(t).q, 1e-14));
    }
  }
}

TEST(Track, SampleFindsTheSameIntervalAsALinearScan) {
  // Irregular spacing with long and short intervals defeats the uniform guess.
  std::vector<double> times = jittered_times(300, 0.01, 11);
  times[150] = times[149] + 1e-6;
  for (std::size_t i = 151; i < times.size(); ++i) {
    times[i] += 5.0;
  }
  Track track("irregular");
  for (std::size_t i = 0; i < times.size(); ++i) {
    track.append(times[i], {Vec3{static_cast<double>(i), 0, 0}, Quat{}});
  }
  Random rnd(6);
  for (int n = 0; n < 2000; ++n) {
    const double t = rnd.uniform(times.front(), times.back());
    std::size_t i = 0;
    while (times[i + 1] <= t) {
      ++i;
    }
    const double expected = static_cast<double>(i) + (t - times[i]) / (times[i + 1] - times[i]);
    ASSERT_NEAR(track.sample(t).p.x, expected, 1e-9);
  }
}

TEST(Track, ClampAndLoopOutsideTheRange) {
  const Track track = analytic_track(uniform_times(11, 0.1)); // 0 .. 1 s
  EXPECT_TRUE(near_vec(track.sample(-5.0).p, truth(0).p, 0));
  EXPECT_TRUE(near_vec(track.sample(7.0).p, truth(1.0).p, 0));
  EXPECT_TRUE(near_vec(track.sample(2.25, Interp::Linear, OutOfRange::Loop).p, truth(0.25).p, 1e-12));
  EXPECT_TRUE(near_vec(track.sample(-0.75, Interp::Linear, OutOfRange::Loop).p, truth(0.25).p, 1e-12));
  // A driver looping for a long time: a million periods on, the phase is still right to the
  // rounding of the time itself (ulp(1e6) = 1.2e-10 s), and times a rounding error short of a
  // period boundary land on one side of it, never outside the track.
  EXPECT_TRUE(
      near_vec(track.sample(1e6 + 0.25, Interp::Linear, OutOfRange::Loop).p, truth(0.25).p, 1e-9));
  EXPECT_TRUE(
      near_vec(track.sample(-1e6 + 0.25, Interp::Linear, OutOfRange::Loop).p, truth(0.25).p, 1e-9));
  // Absurdly far (1e300 s), the phase of the time as given is still honoured exactly.
  const Track short_track = analytic_track(uniform_times(4, 0.1)); // a period of 0.3 s + 1 ulp
  const double period = short_track.end_time();
  const double far_phase = std::fmod(1e300, period);
  ASSERT_GT(far_phase, 0.01);
  ASSERT_LT(far_phase, period - 0.01);
  EXPECT_TRUE(near_vec(short_track.sample(1e300, Interp::Linear, OutOfRange::Loop).p,
                       truth(far_phase).p, 1e-12));
  for (const double boundary : {3.0, -3.0, 1e6}) {
    for (const double t :
         {std::nextafter(boundary, -INFINITY), std::nextafter(boundary, INFINITY)}) {
      const Vec3 p = track.sample(t, Interp::Linear, OutOfRange::Loop).p;
      EXPECT_TRUE(near_vec(p, truth(0).p, 1e-9) || near_vec(p, truth(1.0).p, 1e-9)) << t;
    }
  }
  EXPECT_THROW(track.sample(NAN), MocapError);
  EXPECT_THROW(Track("empty").sample(0.0), MocapError);
}

TEST(Track, GapsAreBridgedBetweenTheNearestValidSamples) {
  Track track("occluded");
  track.append(0.0, {Vec3{0, 0, 0}, Quat{}});
  track.append_gap(0.1);
  track.append_gap(0.2);
  track.append(0.3, {Vec3{3, 0, 0}, from_axis_angle({0, 0, 1}, 0.9)});
  track.append(0.4, {Vec3{4, 0, 0}, from_axis_angle({0, 0, 1}, 1.2)});
  EXPECT_EQ(track.valid_count(), 3u);
  EXPECT_FALSE(track.valid(1));
  const Pose p = track.sample(0.2);
  EXPECT_TRUE(near_vec(p.p, {2, 0, 0}, 1e-14)); // not pulled towards a zero "sample"
  EXPECT_TRUE(same_rotation(p.q, from_axis_angle({0, 0, 1}, 0.6), 1e-15));
  const Pose c = track.sample(0.2, Interp::Cubic);
  EXPECT_TRUE(is_finite(c.p));
  Track only_gaps("blind");
  only_gaps.append_gap(0.0);
  EXPECT_THROW(only_gaps.sample(0.0), MocapError);
}

TEST(Track, CubicReproducesConstantRateMotionAndPassesThroughSamples) {
  const auto times = jittered_times(40, 1.0 / 60, 12);
  const Track track = analytic_track(times);
  Random rnd(13);
  for (int n = 0; n < 500; ++n) {
    const double t = rnd.uniform(times.front(), times.back());
    const Pose p = track.sample(t, Interp::Cubic);
    ASSERT_TRUE(near_vec(p.p, truth(t).p, 1e-13));
    ASSERT_TRUE(same_rotation(p.q, truth(t).q, 1e-13));
  }
}

/// Angular velocity of the sampled curve just before and just after time t.
std::pair<Vec3, Vec3> one_sided_rates(const Track& track, double t, Interp interp) {
  const double e = 1e-7;
  const Quat before = track.sample(t - e, interp).q;
  const Quat at = track.sample(t, interp).q;
  const Quat after = track.sample(t + e, interp).q;
  return {to_rotation_vector(at * conj(before)) / e, to_rotation_vector(after * conj(at)) / e};
}

TEST(Track, CubicIsC1AtSamplesWhereLinearIsNot) {
  // A motion whose rate changes: rotation angle and position follow sin(3t) on uneven times.
  const auto times = jittered_times(30, 0.05, 21);
  Track track("swing");
  for (double t : times) {
    track.append(t, {Vec3{std::sin(3 * t), 0, 0}, from_axis_angle({1, 1, 0}, std::sin(3 * t))});
  }
  double worst_linear_kink = 0;
  for (std::size_t i = 2; i + 2 < times.size(); ++i) {
    const auto [cubic_in, cubic_out] = one_sided_rates(track, times[i], Interp::Cubic);
    ASSERT_TRUE(near_vec(cubic_in, cubic_out, 1e-4)) << "knot " << i;
    const auto [linear_in, linear_out] = one_sided_rates(track, times[i], Interp::Linear);
    worst_linear_kink = std::fmax(worst_linear_kink, norm(linear_in - linear_out));
  }
  EXPECT_GT(worst_linear_kink, 0.1); // the naive interpolation's rate jumps at samples
}

TEST(Track, ContinuityPassRemovesHemisphereFlipsWithoutChangingRotations) {
  Track track("flippy");
  const Quat a = from_axis_angle({0, 0, 1}, 0.1);
  const Quat b = from_axis_angle({0, 0, 1}, 0.2);
  track.append(0.0, {Vec3{}, a});
  track.append(0.1, {Vec3{}, -b});
  track.append_gap(0.2);
  track.append(0.3, {Vec3{}, -b});
  EXPECT_EQ(track.make_continuous(), 2u); // sample 1 flipped, then sample 3 across the gap
  EXPECT_GT(dot(track.orientation(0), track.orientation(1)), 0.0);
  EXPECT_GT(dot(track.orientation(1), track.orientation(3)), 0.0);
  EXPECT_TRUE(same_rotation(track.orientation(3), b, 0));
  EXPECT_EQ(track.make_continuous(), 0u);
}

/// Everything a track reports, sample by sample, and its samples at `probes`.
void expect_same_track(const Track& a, const Track& b, const std::vector<double>& probes) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.valid_indices(), b.valid_indices());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.time(i), b.time(i)) << i;
    ASSERT_TRUE(a.position(i).x == b.position(i).x && a.position(i).y == b.position(i).y &&
                a.position(i).z == b.position(i).z)
        << i;
    const Quat qa = a.orientation(i), qb = b.orientation(i);
    ASSERT_TRUE(qa.w == qb.w && qa.x == qb.x && qa.y == qb.y && qa.z == qb.z) << i;
    ASSERT_EQ(a.valid(i), b.valid(i)) << i;
  }
  EXPECT_EQ(a.max_unit_deviation(), b.max_unit_deviation());
  EXPECT_EQ(a.max_unit_deviation_sample(), b.max_unit_deviation_sample());
  for (double t : probes) {
    for (OutOfRange range : {OutOfRange::Clamp, OutOfRange::Loop}) {
      const Pose pa = a.sample(t, Interp::Linear, range), pb = b.sample(t, Interp::Linear, range);
      ASSERT_TRUE(near_vec(pa.p, pb.p, 0.0) && same_rotation(pa.q, pb.q, 0.0)) << t;
    }
  }
}

TEST(Track, AppendingArraysIsAppendingEachSample) {
  // Random runs of samples (some off unit length, so renormalised; some with a gap before
  // them) appended as arrays of random lengths and one by one: the two tracks must be the
  // same in every sample, every derived figure and every interpolated pose.
  Random rnd(29);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = static_cast<int>(rnd.uniform(1, 300));
    std::vector<double> times;
    std::vector<Vec3> positions;
    std::vector<Quat> orientations;
    double t = rnd.uniform(-5, 5);
    for (int i = 0; i < n; ++i) {
      t += rnd.uniform(0.001, 0.02);
      times.push_back(t);
      positions.push_back({rnd.uniform(-3, 3), rnd.uniform(-3, 3), rnd.uniform(-3, 3)});
      const double stretch = rnd.uniform(0, 1) < 0.2 ? 1.0 + rnd.uniform(-5e-4, 5e-4) : 1.0;
      orientations.push_back(rnd.rotation() * stretch);
    }
    Track each("each"), arrays("arrays");
    std::size_t at = 0;
    while (at < times.size()) {
      if (rnd.uniform(0, 1) < 0.1) {
        const double gap = times[at] - 0.0005; // a gap just before the run
        each.append_gap(gap);
        arrays.append_gap(gap);
      }
      const auto run =
          std::min<std::size_t>(static_cast<std::size_t>(rnd.uniform(1, 40)), times.size() - at);
      for (std::size_t i = at; i < at + run; ++i) {
        each.append(times[i], {positions[i], orientations[i]});
      }
      arrays.append(&times[at], &positions[at], &orientations[at], run);
      at += run;
    }
    std::vector<double> probes;
    for (int k = 0; k < 20; ++k) {
      probes.push_back(rnd.uniform(times.front() - 1, times.back() + 1));
    }
    expect_same_track(each, arrays, probes);
  }
}

/// The reference interval by a linear scan: the last valid sample at or before `at` and the
/// next valid one (the same one twice before the first or after the last).
std::pair<std::size_t, std::size_t> scanned_interval(const std::vector<double>& times,
                                                     const std::vector<std::size_t>& valid,
                                                     double at) {
  std::size_t a = valid.front(), b = valid.front();
  for (std::size_t i : valid) {
    if (times[i] <= at) {
      a = b = i;
    } else {
      b = i;
      break;
    }
  }
  return {a, b};
}

TEST(Track, ValidIndicesAndSamplesAgreeWithAScanWithOrWithoutGaps) {
  // A track without gaps stores no index (sample k is valid sample k) and builds one at its
  // first gap. Random tracks, gap-free or with gaps anywhere (first, last, in runs), with times
  // from regular to wildly irregular (the interval guess and its walk fail; the binary search
  // finds it): the indices must be the samples whose valid() is true, and every interpolated
  // pose the one a linear scan of those samples gives.
  Random rnd(41);
  for (int trial = 0; trial < 200; ++trial) {
    const double gap_chance = trial % 3 == 0 ? 0.0 : rnd.uniform(0.0, 0.5);
    const double irregular = trial % 2 == 0 ? 0.0 : rnd.uniform(0.0, 4.0); // log10 spread
    const auto n = static_cast<std::size_t>(rnd.uniform(1, 120));
    Track track("random");
    std::vector<double> times;
    std::vector<Pose> poses;
    std::vector<bool> valid;
    double t = rnd.uniform(-3, 3);
    for (std::size_t i = 0; i < n; ++i) {
      t += 0.01 * std::pow(10.0, rnd.uniform(-irregular, 0.0));
      times.push_back(t);
      valid.push_back(!(rnd.uniform(0, 1) < gap_chance));
      poses.push_back(
          {{rnd.uniform(-2, 2), rnd.uniform(-2, 2), rnd.uniform(-2, 2)}, rnd.rotation()});
      if (valid.back()) {
        track.append(t, poses.back());
      } else {
        track.append_gap(t);
      }
    }
    track.make_continuous();
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(track.valid(i), valid[i]);
      if (valid[i]) {
        expected.push_back(i);
      }
    }
    const ValidIndices indices = track.valid_indices();
    ASSERT_EQ(track.valid_count(), expected.size());
    ASSERT_EQ(indices.size(), expected.size());
    ASSERT_TRUE(std::equal(indices.begin(), indices.end(), expected.begin(), expected.end()));
    for (std::size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(indices[k], expected[k]);
      ASSERT_EQ(*(indices.begin() + static_cast<std::ptrdiff_t>(k)), expected[k]);
    }
    if (expected.empty()) {
      EXPECT_THROW(track.sample(t), MocapError);
      continue;
    }
    ASSERT_EQ(indices.front(), expected.front());
    ASSERT_EQ(indices.back(), expected.back());
    for (int probe = 0; probe < 40; ++probe) {
      const double at = rnd.uniform(times.front() - 0.01, times.back() + 0.01);
      const auto [a, b] = scanned_interval(times, expected, at);
      Vec3 p = poses[a].p;
      if (a != b) {
        const double u = (at - times[a]) / (times[b] - times[a]);
        p = poses[a].p + (poses[b].p - poses[a].p) * u;
      }
      ASSERT_TRUE(near_vec(track.sample(at).p, p, 1e-12)) << trial << " " << at;
      ASSERT_TRUE(is_finite(track.sample(at, Interp::Cubic).p));
    }
  }
}

TEST(Track, IntervalFindsTheScannedSamplesAndInterpolatesAsSample) {
  // interval() + interpolate_linear(), the driver's two passes, against the reference a scan of
  // the valid samples gives (the last valid sample at or before t and the next one), and
  // against sample() bit for bit: random tracks with and without gaps, position-only ones,
  // times before, inside and after the span, on samples, clamped and looped.
  Random rnd(43);
  int inside = 0, outside = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double gap_chance = trial % 3 == 0 ? 0.0 : rnd.uniform(0.0, 0.5);
    const auto n = static_cast<std::size_t>(rnd.uniform(1, 60));
    Track track("random");
    if (trial % 5 == 0) {
      track.set_position_only(true);
    }
    std::vector<double> times;
    std::vector<std::size_t> valid;
    double t = rnd.uniform(-3, 3);
    for (std::size_t i = 0; i < n; ++i) {
      t += rnd.uniform(0.001, 0.02);
      times.push_back(t);
      if (rnd.uniform(0, 1) < gap_chance) {
        track.append_gap(t);
        continue;
      }
      valid.push_back(i);
      track.append(t,
                   {{rnd.uniform(-2, 2), rnd.uniform(-2, 2), rnd.uniform(-2, 2)}, rnd.rotation()});
    }
    if (valid.empty()) {
      EXPECT_THROW(track.interval(t), MocapError);
      EXPECT_THROW(track.interval(track.prefetch(t)), MocapError);
      continue;
    }
    EXPECT_THROW(track.interval(track.prefetch(std::nan(""))), MocapError);
    for (int probe = 0; probe < 40; ++probe) {
      const OutOfRange range = probe % 2 == 0 ? OutOfRange::Clamp : OutOfRange::Loop;
      const double at = probe % 7 == 0
                            ? times[valid[static_cast<std::size_t>(probe) % valid.size()]]
                            : rnd.uniform(times.front() - 0.1, times.back() + 0.1);
      const Track::Interval got = track.interval(at, range);
      // Going on from what prefetch() worked out is the same.
      const Track::Interval from_prefetch = track.interval(track.prefetch(at, range));
      ASSERT_EQ(from_prefetch.i, got.i);
      ASSERT_EQ(from_prefetch.j, got.j);
      ASSERT_EQ(from_prefetch.u, got.u);
      const Pose sampled = track.sample(at, Interp::Linear, range);
      const Pose interpolated = track.interpolate_linear(got);
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ((&interpolated.p.x)[c], (&sampled.p.x)[c]) << trial << " " << at;
      }
      for (int c = 0; c < 4; ++c) {
        ASSERT_EQ((&interpolated.q.w)[c], (&sampled.q.w)[c]) << trial << " " << at;
      }
      if (range == OutOfRange::Loop) {
        continue; // where a loop lands is ClampAndLoopOutsideTheRange's business
      }
      const double first = times[valid.front()], last = times[valid.back()];
      if (at <= first || at >= last) {
        ++outside;
        const std::size_t end = at <= first ? valid.front() : valid.back();
        EXPECT_EQ(got.i, end);
        EXPECT_EQ(got.j, end);
        EXPECT_EQ(got.u, 0.0);
        continue;
      }
      ++inside;
      const auto [a, b] = scanned_interval(times, valid, at);
      EXPECT_EQ(got.i, a) << trial << " " << at;
      EXPECT_EQ(got.j, b) << trial << " " << at;
      EXPECT_NEAR(got.u, (at - times[a]) / (times[b] - times[a]), 1e-12);
      EXPECT_GE(got.u, 0.0);
      EXPECT_LT(got.u, 1.0);
    }
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 100);
}

TEST(Track, AppendingArraysRefusesTheFirstBadSampleAndKeepsThoseBefore) {
  // A bad sample inside the run: the samples before it are appended, the error is the one
  // appending them one by one gives, and nothing after it is appended.
  const std::vector<double> times{0.0, 0.1, 0.2, 0.3, 0.4};
  std::vector<Vec3> positions(5, Vec3{1, 2, 3});
  std::vector<Quat> orientations(5, Quat{});
  const auto message = [](const std::function<void()>& append) {
    return test::error_message<MocapError>(append);
  };
  for (int bad = 0; bad < 3; ++bad) {
    std::vector<double> t = times;
    std::vector<Vec3> p = positions;
    std::vector<Quat> q = orientations;
    (bad == 0 ? p[2].y : bad == 1 ? q[2].w : t[2]) = bad == 0 ? 2e9 : bad == 1 ? 1.5 : 0.05;
    Track each("t"), arrays("t");
    const std::string expected = message([&] {
      for (std::size_t i = 0; i < t.size(); ++i) {
        each.append(t[i], {p[i], q[i]});
      }
    });
    const std::string got = message([&] { arrays.append(t.data(), p.data(), q.data(), t.size()); });
    EXPECT_NE(expected, "no error");
    EXPECT_EQ(got, expected);
    EXPECT_NE(got.find("sample 2"), std::string::npos) << got;
    expect_same_track(each, arrays, {0.0, 0.05, 0.1, 0.3});
    EXPECT_EQ(arrays.size(), 2u);
  }
}

// ---- Tracks that keep their times once (TimeBase) ------------------------------------------

/// Random samples for `n` tracks over the same times, laid out as Track::append_together()
/// takes them (track k's poses at [k * times.size(), (k + 1) * times.size())); a fifth of the
/// orientations off unit length (renormalised on the way in).
struct Block {
  std::vector<double> times;
  std::vector<Vec3> positions;
  std::vector<Quat> orientations;
};

Block random_block(Random& rnd, std::size_t n, std::size_t count, double& t) {
  Block b;
  for (std::size_t i = 0; i < count; ++i) {
    t += rnd.uniform(0.001, 0.02);
    b.times.push_back(t);
  }
  for (std::size_t k = 0; k < n * count; ++k) {
    b.positions.push_back({rnd.uniform(-3, 3), rnd.uniform(-3, 3), rnd.uniform(-3, 3)});
    const double stretch = rnd.uniform(0, 1) < 0.2 ? 1.0 + rnd.uniform(-5e-4, 5e-4) : 1.0;
    b.orientations.push_back(rnd.rotation() * stretch);
  }
  return b;
}

std::vector<Track> named_tracks(std::size_t n, const char* prefix) {
  std::vector<Track> tracks;
  for (std::size_t k = 0; k < n; ++k) {
    tracks.emplace_back(prefix + std::to_string(k));
  }
  return tracks;
}

TEST(TrackTimes, TracksFilledTogetherAreTracksFilledAloneWithTheirTimesKeptOnce) {
  // Random blocks appended to 2-8 tracks together, and the same samples appended to each track
  // alone: the same tracks in every sample, figure and interpolated pose; the tracks filled
  // together read one storage of times, the ones filled alone (the naive way) one each. With
  // and without room reserved ahead (the times then added where they are, or moved to storage
  // grown as a vector grows).
  Random rnd(61);
  for (int trial = 0; trial < 40; ++trial) {
    const auto n = static_cast<std::size_t>(rnd.uniform(2, 9));
    std::vector<Track> together = named_tracks(n, "joint");
    std::vector<Track> alone = named_tracks(n, "joint");
    if (trial % 2 == 0) {
      for (Track& t : together) {
        t.reserve(static_cast<std::size_t>(rnd.uniform(0, 400)));
      }
    }
    double t = rnd.uniform(-5, 5);
    std::vector<double> probes;
    const int blocks = static_cast<int>(rnd.uniform(1, 12));
    for (int b = 0; b < blocks; ++b) {
      const auto count = static_cast<std::size_t>(rnd.uniform(1, 40));
      const Block block = random_block(rnd, n, count, t);
      Track::append_together(together, block.times.data(), block.positions.data(),
                             block.orientations.data(), count);
      for (std::size_t k = 0; k < n; ++k) {
        alone[k].append(block.times.data(), block.positions.data() + k * count,
                        block.orientations.data() + k * count, count);
      }
      probes.push_back(rnd.uniform(block.times.front() - 0.1, block.times.back() + 0.1));
    }
    for (std::size_t k = 0; k < n; ++k) {
      expect_same_track(together[k], alone[k], probes);
      EXPECT_EQ(together[k].name(), alone[k].name());
      EXPECT_TRUE(together[k].times().shares_storage_with(together[0].times())) << k;
      EXPECT_EQ(together[k].times().data(), together[0].times().data()) << k;
      if (k > 0) {
        EXPECT_FALSE(alone[k].times().shares_storage_with(alone[0].times())) << k;
        EXPECT_NE(alone[k].times().data(), alone[0].times().data()) << k;
      }
    }
  }
}

TEST(TrackTimes, NoTrackSeesAnotherTracksTimesChange) {
  // Three tracks filled together with room to spare, so that the next block is added to their
  // storage where it is. A copy of one of them (a track and a bare TimeBase) and changes
  // to each alone (append, a gap, retime) must leave every other track as it was: a track's
  // times change for it alone, and storage another copy reads is never added to.
  Random rnd(62);
  double t = 0.0;
  std::vector<Track> tracks = named_tracks(3, "bone");
  tracks[0].reserve(1000);
  Block block = random_block(rnd, 3, 20, t);
  Track::append_together(tracks, block.times.data(), block.positions.data(),
                         block.orientations.data(), 20);
  // Read by these tracks alone, with room: the next block goes where the times are.
  const double* storage = tracks[0].times().data();
  block = random_block(rnd, 3, 5, t);
  Track::append_together(tracks, block.times.data(), block.positions.data(),
                         block.orientations.data(), 5);
  EXPECT_EQ(tracks[2].times().data(), storage);
  const Track snapshot = tracks[1];
  const TimeBase bare = tracks[2].times();
  const std::vector<double> before = tracks[0].times().to_vector();
  ASSERT_TRUE(snapshot.times().shares_storage_with(tracks[0].times()));
  block = random_block(rnd, 3, 10, t);
  Track::append_together(tracks, block.times.data(), block.positions.data(),
                         block.orientations.data(), 10);
  EXPECT_EQ(tracks[0].size(), 35u);
  EXPECT_EQ(snapshot.size(), 25u);
  EXPECT_EQ(snapshot.times().to_vector(), before);
  EXPECT_EQ(bare.to_vector(), before);
  // The copies' storage was not added to: the tracks moved on to storage of their own.
  EXPECT_FALSE(tracks[0].times().shares_storage_with(snapshot.times()));
  EXPECT_TRUE(snapshot.times().shares_storage_with(bare));
  EXPECT_TRUE(tracks[1].times().shares_storage_with(tracks[0].times()));

  const std::vector<double> all = tracks[0].times().to_vector();
  tracks[1].append(t + 0.01, {Vec3{}, Quat{}});
  tracks[2].append_gap(t + 0.02);
  std::vector<double> retimed = all;
  for (double& x : retimed) {
    x += 100.0;
  }
  tracks[0].retime(retimed);
  EXPECT_EQ(tracks[0].times().to_vector(), retimed);
  std::vector<double> one_more = all;
  one_more.push_back(t + 0.01);
  EXPECT_EQ(tracks[1].times().to_vector(), one_more);
  one_more.back() = t + 0.02;
  EXPECT_EQ(tracks[2].times().to_vector(), one_more);
  EXPECT_FALSE(tracks[2].valid(35));
  EXPECT_EQ(snapshot.times().to_vector(), before);
}

TEST(TrackTimes, AppendingTogetherRefusesAsAppendingEachTrackAlone) {
  // A bad sample (a position beyond 1e9, an orientation far off unit length, a time that goes
  // back) in one track of three: the samples before it are appended to every track, which
  // still share their times, and the error is the one that track gives alone. Where two tracks
  // refuse the same sample, the first one's error.
  const auto message = [](const std::function<void()>& append) {
    return test::error_message<MocapError>(append);
  };
  Random rnd(63);
  for (int bad = 0; bad < 3; ++bad) {
    for (std::size_t culprit = 0; culprit < 3; ++culprit) {
      double t = 0.0;
      Block block = random_block(rnd, 3, 5, t);
      Vec3* p = block.positions.data() + culprit * 5;
      Quat* q = block.orientations.data() + culprit * 5;
      if (bad == 0) {
        p[3].y = 2e9;
        block.positions[2 * 5 + 3].x = -3e9; // the third track too, at the same sample
      } else if (bad == 1) {
        q[3] = q[3] * 1.5;
      } else {
        block.times[3] = block.times[1];
      }
      std::vector<Track> tracks = named_tracks(3, "bone");
      const std::string got = message([&] {
        Track::append_together(tracks, block.times.data(), block.positions.data(),
                               block.orientations.data(), 5);
      });
      const std::size_t first = bad == 2 ? 0 : culprit; // a time: every track refuses it
      Track lone("bone" + std::to_string(first));
      const std::string expected = message([&] {
        lone.append(block.times.data(), block.positions.data() + first * 5,
                    block.orientations.data() + first * 5, 5);
      });
      EXPECT_NE(expected, "no error");
      EXPECT_EQ(got, expected) << bad << " " << culprit;
      EXPECT_NE(got.find("sample 3"), std::string::npos) << got;
      for (const Track& track : tracks) {
        EXPECT_EQ(track.size(), 3u);
        EXPECT_TRUE(track.times().shares_storage_with(tracks[0].times()));
      }
    }
  }
  // Tracks that do not hold the same times are refused by name.
  std::vector<Track> mixed = named_tracks(2, "bone");
  mixed[1].append(0.0, {Vec3{}, Quat{}});
  const double time = 1.0;
  const std::vector<Vec3> p(2);
  const std::vector<Quat> q(2);
  const std::string refused =
      message([&] { Track::append_together(mixed, &time, p.data(), q.data(), 1); });
  EXPECT_NE(refused.find("'bone1'"), std::string::npos) << refused;
  EXPECT_EQ(mixed[0].size(), 0u);
}

TEST(TrackTimes, EqualTimesAreSharedOnRequestAndByACapture) {
  const std::vector<double> times = uniform_times(50, 0.01);
  Track a = analytic_track(times), b = analytic_track(times);
  Track later = analytic_track(uniform_times(50, 0.02));
  EXPECT_FALSE(b.times().shares_storage_with(a.times()));
  const double* own = a.times().data();
  EXPECT_TRUE(b.share_times(a));
  EXPECT_TRUE(b.times().shares_storage_with(a.times()));
  EXPECT_EQ(a.times().data(), own); // a's times stay where they were
  EXPECT_EQ(b.times().to_vector(), times);
  EXPECT_FALSE(later.share_times(a));
  EXPECT_FALSE(later.times().shares_storage_with(a.times()));
  // A capture keeps a track's times once where they are the ones of the track added before.
  Capture capture;
  Track first = analytic_track(times), second = analytic_track(times);
  later = analytic_track(uniform_times(50, 0.02));
  capture.add_track(std::move(first));
  Track renamed("second");
  renamed.append(second.times().data(), second.positions().data(), second.orientations().data(),
                 second.size());
  capture.add_track(std::move(renamed));
  Track other("later");
  other.append(later.times().data(), later.positions().data(), later.orientations().data(),
               later.size());
  capture.add_track(std::move(other));
  EXPECT_TRUE(capture.tracks()[1].times().shares_storage_with(capture.tracks()[0].times()));
  EXPECT_FALSE(capture.tracks()[2].times().shares_storage_with(capture.tracks()[0].times()));
  EXPECT_EQ(capture.tracks()[1].times().to_vector(), times);
}

TEST(Capture, TracksAreFoundByNameAndNamesAreUnique) {
  CaptureInfo info;
  info.source = "unit test";
  Capture capture(info);
  capture.add_track(Track("Hips"));
  capture.add_track(Track("Head"));
  EXPECT_EQ(&capture.track("Head"), &capture.tracks()[1]);
  EXPECT_EQ(capture.find_track("Tail"), nullptr);
  try {
    (void)capture.track("Tail");
    FAIL();
  } catch (const MocapError& e) {
    EXPECT_NE(std::string(e.what()).find("'Hips', 'Head'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(capture.add_track(Track("Hips")), MocapError);
  EXPECT_THROW(capture.add_track(Track("")), MocapError);
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

/// A marker's path with a gap, appended to a position-only track and to an ordinary one.
void fill_marker(Track& track) {
  for (int i = 0; i < 40; ++i) {
    const double t = i / 100.0;
    if (i == 17) {
      track.append_gap(t);
    } else {
      track.append(t, {{std::sin(3 * t), t * t, 0.5 - t}, Quat{}});
    }
  }
}

TEST(TrackPositionOnly, StoresNoOrientationsAndSamplesAsTheSameTrackWithIdentities) {
  Track marker("marker"), full("full");
  marker.set_position_only(true);
  fill_marker(marker);
  fill_marker(full);
  EXPECT_TRUE(marker.orientations().empty());
  EXPECT_EQ(full.orientations().size(), 40u);
  for (std::size_t i = 0; i < marker.size(); ++i) {
    EXPECT_EQ(marker.orientation(i).w, 1.0);
    EXPECT_EQ(marker.pose(i).q.x, 0.0);
  }
  for (double t = -0.1; t < 0.5; t += 0.0137) {
    for (const Interp interp : {Interp::Linear, Interp::Cubic}) {
      const Pose a = marker.sample(t, interp, OutOfRange::Loop);
      const Pose b = full.sample(t, interp, OutOfRange::Loop);
      EXPECT_EQ(a.p.x, b.p.x);
      EXPECT_EQ(a.p.y, b.p.y);
      EXPECT_EQ(a.p.z, b.p.z);
      EXPECT_EQ(a.q.w, 1.0);
      EXPECT_EQ(b.q.w, 1.0);
      marker.prefetch(t, OutOfRange::Loop); // reads no orientation
    }
  }
  const TrackVelocities va = estimate_velocities(marker, DiffScheme::Central);
  const TrackVelocities vb = estimate_velocities(full, DiffScheme::Central);
  for (std::size_t i = 0; i < marker.size(); ++i) {
    EXPECT_EQ(va.linear[i].x, vb.linear[i].x);
    EXPECT_EQ(va.angular[i].x, 0.0);
    EXPECT_EQ(va.valid[i], vb.valid[i]);
  }
  EXPECT_EQ(marker.make_continuous(), 0u);
}

TEST(TrackPositionOnly, SwitchingDropsOrGivesIdentities) {
  Track track("t");
  track.append(0.0, {{1, 2, 3}, normalized(Quat{0.9, 0.1, 0.2, 0.3})});
  track.set_position_only(true);
  EXPECT_TRUE(track.orientations().empty());
  EXPECT_EQ(track.orientation(0).w, 1.0);
  // The orientation given to a position-only track is not kept: it has none.
  track.append(1.0, {{4, 5, 6}, normalized(Quat{0.5, 0.5, 0.5, 0.5})});
  EXPECT_TRUE(track.orientations().empty());
  track.set_position_only(false);
  ASSERT_EQ(track.orientations().size(), 2u);
  EXPECT_EQ(track.orientation(1).w, 1.0);
  track.append(2.0, {{7, 8, 9}, normalized(Quat{0.5, 0.5, 0.5, 0.5})});
  EXPECT_EQ(track.orientation(2).w, 0.5);
  // A bad orientation is refused all the same: the data is wrong, whether kept or not.
  track.set_position_only(true);
  EXPECT_THROW(track.append(3.0, {{0, 0, 0}, Quat{2, 0, 0, 0}}), MocapError);
}

} // namespace
} // namespace odemocap
