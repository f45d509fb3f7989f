#include "support/error_message.hpp"
#include "support/reference_math.hpp"

#include "math/rates.hpp" // private kernel, tested against asin directly
#include "math/step_velocities.hpp" // each kind of lanes, tested on its own

#include <odemocap/error.hpp>
#include <odemocap/velocity.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::near_vec;
using test::Random;
using test::same_rotation;

/// The formula written out literally, with acos for theta: the independent reference.
Vec3 literal_slerp_derivative(const Quat& q0, Quat q1, double dt) {
  if (dot(q0, q1) < 0) {
    q1 = -q1;
  }
  const double c = dot(q0, q1);
  const double theta = std::acos(c);
  const Quat dq = (q1 - q0 * c) * (theta / std::sin(theta) / dt);
  return (dq * conj(q0)).vec() * 2.0;
}

TEST(AngularVelocity, ExactIntegrationLandsOnTheNextSampleFromTinyToNearHalfTurn) {
  Random rnd(1);
  const double lo = std::log(1e-10), hi = std::log(179.0 * k_pi / 180.0);
  double worst = 0;
  for (int n = 0; n < 100000; ++n) {
    const Quat q0 = rnd.rotation();
    const double angle = std::exp(rnd.uniform(lo, hi));
    const Quat q1 = from_axis_angle(rnd.unit_vector(), angle) * q0;
    const Quat q1_given = rnd.uniform(0, 1) < 0.5 ? q1 : -q1; // either sign of the same pose
    const double dt = rnd.uniform(1e-4, 0.1);
    const Vec3 omega = angular_velocity(q0, q1_given, dt);
    const double d = test::quat_distance(integrate(q0, omega, dt), q1);
    worst = std::fmax(worst, d);
    ASSERT_LE(d, 1e-12) << "angle " << angle << " dt " << dt;
  }
  std::printf("[ metric ] worst |integrate(q0, omega, dt) - q1| over 1e5 cases: %.3g\n", worst);
}

TEST(AngularVelocity, ConstantRateRotationIsRecoveredToRoundOff) {
  Random rnd(2);
  // Quaternion components carry ~1e-16 absolute error, so the relative accuracy of a rate
  // is bounded by 1e-16 / (step angle): 1e-12 needs steps above ~1e-4 rad (0.1 rad/s here).
  for (int n = 0; n < 10000; ++n) {
    const Quat q0 = rnd.rotation();
    const double rate = std::exp(rnd.uniform(std::log(0.1), std::log(300.0)));
    const Vec3 omega = rnd.unit_vector() * rate;
    const double dt = std::fmin(1.0 / 120, 3.1 / rate); // keep the step under a half turn
    const Quat q1 = from_axis_angle(omega, rate * dt) * q0;
    ASSERT_TRUE(near_vec(angular_velocity(q0, q1, dt), omega, 1e-12 * rate)) << rate;
  }
  // Below that the error stays at the absolute floor of a few ulps over dt.
  for (int n = 0; n < 10000; ++n) {
    const Quat q0 = rnd.rotation();
    const Vec3 omega = rnd.unit_vector() * std::exp(rnd.uniform(std::log(1e-9), std::log(0.1)));
    const double dt = 1.0 / 120;
    const Quat q1 = from_axis_angle(omega, norm(omega) * dt) * q0;
    ASSERT_TRUE(near_vec(angular_velocity(q0, q1, dt), omega, 1e-15 / dt));
  }
}

TEST(AngularVelocity, MatchesTheLiteralFormulaAndAxisAngleOverDt) {
  Random rnd(3);
  for (int n = 0; n < 10000; ++n) {
    const Quat q0 = rnd.rotation();
    const Quat q1 = rnd.rotation(); // anything, including the far hemisphere
    const double dt = 0.01;
    const Vec3 omega = angular_velocity(q0, q1, dt);
    const Vec3 axis_angle = to_rotation_vector(q1 * conj(q0)) / dt;
    ASSERT_TRUE(near_vec(omega, axis_angle, 1e-10 * norm(axis_angle)));
    if (std::fabs(dot(q0, q1)) < 0.99) { // acos is too ill-conditioned near 0 for a reference
      ASSERT_TRUE(near_vec(omega, literal_slerp_derivative(q0, q1, dt), 1e-10 * norm(omega)));
    }
  }
}

TEST(AngularVelocity, OppositeQuaternionsMeanNoRotation) {
  Random rnd(4);
  const Quat q = rnd.rotation();
  EXPECT_LT(norm(angular_velocity(q, -q, 0.01)), 1e-13); // zero up to round-off
  EXPECT_EQ(norm(angular_velocity(Quat{}, Quat{-1, 0, 0, 0}, 0.01)), 0.0);
}

TEST(AngularVelocity, NearHalfTurnStaysFiniteAndCorrect) {
  const Quat q0 = from_axis_angle({0.2, -1, 0.4}, 1.0);
  const Vec3 axis = normalized(Vec3{1, 2, 3});
  for (double angle : {k_pi - 1e-3, k_pi - 1e-8, k_pi - 1e-12}) {
    const Quat q1 = from_axis_angle(axis, angle) * q0;
    const Vec3 omega = angular_velocity(q0, q1, 0.5);
    ASSERT_TRUE(is_finite(omega));
    EXPECT_TRUE(near_vec(omega, axis * (angle / 0.5), 1e-9)) << angle;
  }
  // Exactly a half turn: either direction is right; the magnitude is pi / dt.
  const Quat half = from_axis_angle(axis, k_pi) * q0;
  EXPECT_NEAR(norm(angular_velocity(q0, half, 0.5)), 2 * k_pi, 1e-12);
}

TEST(AngularVelocity, SeriesBranchOfThetaOverSinMatchesAsin) {
  for (double s = 1e-9; s < detail::k_series_limit; s *= 1.005) {
    const double expected = std::asin(s) / s;
    ASSERT_NEAR(detail::theta_over_sin(s * s, std::sqrt(1 - s * s)), expected, 2.3e-16) << s;
  }
  EXPECT_EQ(detail::theta_over_sin(0.0, 1.0), 1.0);
  // Across the switch to atan2 the function is continuous to round-off.
  const double s2 = detail::k_series_limit * detail::k_series_limit;
  const double c = std::sqrt(1 - s2);
  EXPECT_NEAR(detail::theta_over_sin(std::nextafter(s2, 0.0), c), detail::theta_over_sin(s2, c),
              4e-16);
}

TEST(AngularVelocity, NaiveBaselineErrorGrowsWithTheStepAngle) {
  const Vec3 axis = normalized(Vec3{1, -1, 2});
  const Quat q0 = from_axis_angle({0, 1, 0}, 0.7);
  const double dt = 1.0 / 120;
  const auto relative_error = [&](auto estimator, double angle) {
    const Vec3 truth = axis * (angle / dt);
    const Quat q1 = from_axis_angle(axis, angle) * q0;
    return norm(estimator(q0, q1, dt) - truth) / norm(truth);
  };
  const double deg = k_pi / 180;
  const double naive_30 = relative_error(angular_velocity_linear_approx, 30 * deg);
  const double naive_1 = relative_error(angular_velocity_linear_approx, 1 * deg);
  EXPECT_GT(naive_30, 1e-3);
  EXPECT_GT(naive_30, 100 * naive_1); // second order in the angle
  EXPECT_LT(relative_error(angular_velocity, 30 * deg), 1e-14);
  EXPECT_LT(relative_error(angular_velocity, 1 * deg), 1e-14);
  std::printf("[ metric ] relative error at 1/30 deg per step: naive %.3g / %.3g, geodesic < 1e-14\n",
              naive_1, naive_30);
  // And the naive estimate does not land on q1 when integrated.
  const Quat q1 = from_axis_angle(axis, 30 * deg) * q0;
  EXPECT_GT(angle_between(integrate(q0, angular_velocity_linear_approx(q0, q1, dt), dt), q1), 1e-3);
}

TEST(AngularVelocity, BodyFrameVariantIntegratesOnTheRight) {
  Random rnd(5);
  for (int n = 0; n < 1000; ++n) {
    const Quat q0 = rnd.rotation();
    const Quat q1 = from_axis_angle(rnd.unit_vector(), rnd.uniform(0, 3)) * q0;
    const Vec3 body = angular_velocity_body(q0, q1, 0.02);
    // Body-frame rates multiply on the right: q1 = q0 exp(omega_body dt).
    ASSERT_TRUE(same_rotation(q0 * from_rotation_vector(body * 0.02), q1, 1e-13));
    ASSERT_TRUE(near_vec(rotate(q0, body), angular_velocity(q0, q1, 0.02), 1e-12));
  }
}

TEST(AngularVelocity, BadArgumentsRaiseErrorsNamingArgumentAndValue) {
  const Quat q{};
  const auto message = [](auto f) { return test::error_message<MocapError>(f); };
  EXPECT_NE(message([&] { angular_velocity(q, q, 0.0); }).find("dt must be finite and positive, got 0"),
            std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(q, q, -0.5); }).find("got -0.5"), std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(q, q, NAN); }).find("got nan"), std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(q, q, INFINITY); }).find("dt"), std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(Quat{0, 0, 0, 0}, q, 1.0); }).find("q0"), std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(q, Quat{NAN, 0, 0, 0}, 1.0); }).find("q1"), std::string::npos);
  EXPECT_NE(message([&] { angular_velocity(q, Quat{1.1, 0, 0, 0}, 1.0); }).find("unit"), std::string::npos);
  EXPECT_THROW(angular_velocity_body(q, q, 0.0), MocapError);
  EXPECT_THROW(angular_velocity_linear_approx(q, q, 0.0), MocapError);
  EXPECT_THROW(linear_velocity({}, {}, 0.0), MocapError);
  EXPECT_THROW(linear_velocity({NAN, 0, 0}, {}, 1.0), MocapError);
  EXPECT_THROW(linear_velocity({}, {0, INFINITY, 0}, 1.0), MocapError);
  EXPECT_TRUE(near_vec(linear_velocity({1, 2, 3}, {2, 0, 3}, 0.5), {2, -4, 0}, 0));
  // Finite arguments whose quotient overflows are refused, never returned as infinity.
  EXPECT_NE(message([&] { linear_velocity({0, 0, 0}, {1e308, 0, 0}, 0.1); }).find("overflowed"),
            std::string::npos);
  EXPECT_THROW(angular_velocity(q, from_axis_angle({0, 0, 1}, 1.0), 1e-310), MocapError);
}

// ---- whole-track estimation ----

Track constant_motion(const std::vector<double>& times, const Vec3& v, const Vec3& w) {
  Track track("constant");
  const Quat q0 = from_axis_angle({1, 0, 1}, 0.5);
  for (double t : times) {
    track.append(t, {v * t, integrate(q0, w, t)});
  }
  return track;
}

TEST(EstimateVelocities, EverySchemeIsExactForConstantRatesOnUnevenTimes) {
  Random rnd(6);
  std::vector<double> times{0.0};
  for (int i = 0; i < 200; ++i) {
    times.push_back(times.back() + rnd.uniform(0.002, 0.02));
  }
  const Vec3 v{1, -2, 0.5}, w{20, 5, -30}; // up to 0.73 rad per step
  const Track track = constant_motion(times, v, w);
  for (DiffScheme scheme : {DiffScheme::Forward, DiffScheme::Backward, DiffScheme::Central}) {
    const TrackVelocities out = estimate_velocities(track, scheme);
    for (std::size_t i = 0; i < times.size(); ++i) {
      ASSERT_TRUE(out.valid[i]);
      ASSERT_TRUE(near_vec(out.linear[i], v, 1e-10)) << i;
      ASSERT_TRUE(near_vec(out.angular[i], w, 1e-10)) << i;
    }
  }
  // The naive estimator on the same data is off.
  const TrackVelocities naive =
      estimate_velocities(track, DiffScheme::Forward, RotationEstimator::LinearApprox);
  double worst = 0;
  for (const Vec3& a : naive.angular) {
    worst = std::fmax(worst, norm(a - w) / norm(w));
  }
  EXPECT_GT(worst, 1e-3);
}

TEST(EstimateVelocities, CentralIsExactForQuadraticPositionOnUnevenTimes) {
  const std::vector<double> times{0.0, 0.1, 0.15, 0.4, 0.45, 0.9};
  Track track("parabola");
  const Vec3 a{2, -1, 3};
  for (double t : times) {
    track.append(t, {a * (t * t), Quat{}});
  }
  const TrackVelocities out = estimate_velocities(track, DiffScheme::Central);
  for (std::size_t i = 1; i + 1 < times.size(); ++i) {
    EXPECT_TRUE(near_vec(out.linear[i], a * (2 * times[i]), 1e-12)) << i;
  }
  const TrackVelocities forward = estimate_velocities(track, DiffScheme::Forward);
  EXPECT_GT(norm(forward.linear[1] - a * 0.2), 0.1); // one-sided is first order only
}

TEST(EstimateVelocities, GapsFallBackToTheExistingSideOrMarkNoEstimate) {
  Track track("gappy");
  const Vec3 v{1, 0, 0};
  track.append(0.0, {v * 0.0, Quat{}});
  track.append(0.1, {v * 0.1, Quat{}});
  track.append_gap(0.2);
  track.append(0.3, {v * 0.3, Quat{}}); // isolated between gaps
  track.append_gap(0.4);
  track.append(0.5, {v * 0.5, Quat{}});
  track.append(0.6, {v * 0.6, Quat{}});
  const TrackVelocities out = estimate_velocities(track, DiffScheme::Central);
  const std::vector<int> expected_valid{1, 1, 0, 0, 0, 1, 1};
  for (std::size_t i = 0; i < track.size(); ++i) {
    EXPECT_EQ(out.valid[i], expected_valid[i]) << i;
    if (out.valid[i]) {
      EXPECT_TRUE(near_vec(out.linear[i], v, 1e-12)) << i;
    } else {
      EXPECT_EQ(norm(out.linear[i]), 0.0) << i;
    }
  }
}

using StepFunction = void (*)(BodyStep*, std::size_t, double);

/// Random batches stepped by `step` against the one-body functions, to the bit.
void expect_one_body_results(StepFunction step) {
  // The batch kernel computes two or four bodies per SIMD register and hands a group beyond the
  // series' range to the one-body path: random batches of every length (groups of four, pairs
  // and a body alone),
  // steps from none to half turns, u at 0, 1 and between, identity and random offsets, bodies
  // near their goal and far from it, either sign of each quaternion. Every output must be the
  // one-body functions' to the bit, and the rate the literal formula's.
  Random rnd(29);
  int literal_checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const auto n = static_cast<std::size_t>(trial % 19);
    const double dt = rnd.uniform(1e-3, 0.1);
    const double inv_dt = 1.0 / dt;
    std::vector<BodyStep> steps(n);
    for (BodyStep& s : steps) {
      const double kind = rnd.uniform(0, 1);
      const double angle = kind < 0.1   ? 0.0
                           : kind < 0.8 ? rnd.uniform(0, 0.4)
                                        : rnd.uniform(0, k_pi);
      s.q0 = rnd.rotation();
      s.q1 = from_axis_angle(rnd.unit_vector(), angle) * s.q0;
      s.q1 = rnd.uniform(0, 1) < 0.3 ? -s.q1 : s.q1;
      s.p0 = rnd.unit_vector() * rnd.uniform(0, 3);
      s.p1 = s.p0 + rnd.unit_vector() * rnd.uniform(0, 0.2);
      const double at = rnd.uniform(0, 1);
      s.u = at < 0.1 ? 0.0 : at < 0.2 ? 1.0 : rnd.uniform(0, 1);
      if (rnd.uniform(0, 1) < 0.6) {
        s.offset = {rnd.unit_vector() * rnd.uniform(0, 0.3), rnd.rotation()};
      }
    }
    std::vector<BodyStep> expected = steps;
    for (std::size_t i = 0; i < n; ++i) {
      BodyStep& e = expected[i];
      const Pose sampled{e.p0 + (e.p1 - e.p0) * e.u, slerp(e.q0, e.q1, e.u)};
      e.goal = {sampled.p + rotate(sampled.q, e.offset.p), sampled.q * e.offset.q};
      // The body within a step's turn of its goal (mostly), or anywhere.
      const double far = rnd.uniform(0, 1) < 0.2 ? k_pi : 0.4;
      e.now.q = from_axis_angle(rnd.unit_vector(), rnd.uniform(0, far)) * e.goal.q;
      e.now.q = rnd.uniform(0, 1) < 0.3 ? -e.now.q : e.now.q;
      e.now.p = e.goal.p + rnd.unit_vector() * rnd.uniform(0, 0.5);
      steps[i].now = e.now;
      e.linear = (e.goal.p - e.now.p) * inv_dt;
      e.angular = angular_velocity(e.now.q, e.goal.q, dt);
    }
    step(steps.data(), n, inv_dt);
    for (std::size_t i = 0; i < n; ++i) {
      const BodyStep& s = steps[i];
      const BodyStep& e = expected[i];
      const double got[] = {s.goal.p.x,  s.goal.p.y,  s.goal.p.z, s.goal.q.w, s.goal.q.x,
                            s.goal.q.y,  s.goal.q.z,  s.linear.x, s.linear.y, s.linear.z,
                            s.angular.x, s.angular.y, s.angular.z};
      const double want[] = {e.goal.p.x,  e.goal.p.y,  e.goal.p.z, e.goal.q.w, e.goal.q.x,
                             e.goal.q.y,  e.goal.q.z,  e.linear.x, e.linear.y, e.linear.z,
                             e.angular.x, e.angular.y, e.angular.z};
      for (int c = 0; c < 13; ++c) {
        ASSERT_EQ(got[c], want[c]) << "trial " << trial << ", body " << i << ", output " << c;
      }
      const double turn = 2.0 * std::acos(std::fmin(1.0, std::fabs(dot(s.now.q, s.goal.q))));
      if (turn > 1e-3 && turn < k_pi - 1e-3) {
        ++literal_checked;
        const Vec3 literal = literal_slerp_derivative(s.now.q, s.goal.q, dt);
        ASSERT_TRUE(near_vec(s.angular, literal, 1e-9 * norm(literal))) << trial << " " << i;
      }
    }
  }
  EXPECT_GT(literal_checked, 3000);
}

TEST(StepVelocities, EveryBodyGetsWhatTheOneBodyFunctionsGiveBitForBit) {
  expect_one_body_results(&step_velocities);
}

TEST(StepVelocities, TwoBodiesPerRegisterGiveTheOneBodyBits) {
  expect_one_body_results([](BodyStep* steps, std::size_t n, double inv_dt) {
    detail::step_velocities(steps, n, inv_dt, detail::StepLanes::Two);
  });
}

TEST(StepVelocities, FourBodiesPerRegisterGiveTheOneBodyBits) {
  if (!detail::has_avx()) {
    GTEST_SKIP() << "this processor has no AVX: step_velocities() uses two lanes";
  }
  expect_one_body_results([](BodyStep* steps, std::size_t n, double inv_dt) {
    detail::step_velocities(steps, n, inv_dt, detail::StepLanes::Four);
  });
}

} // namespace
} // namespace odemocap
