// step_velocities(): a kinematic step of many bodies, four at a time in AVX registers where the
// processor has AVX, else two at a time in SSE2 registers (math/step_lanes.hpp); a group with a
// lane beyond the series' range (a step over 29 degrees) is done by the one-body path instead.

#include <odemocap/velocity.hpp>

#include "math/step_lanes.hpp"
#include "math/step_velocities.hpp"

#include <algorithm>
#include <cassert>

namespace odemocap {
namespace {

/// One body, by the one-body functions: the reference the lanes reproduce.
void step_one(BodyStep& s, double inv_dt) {
  const Pose sampled = Track::interpolate_linear(s.p0, s.q0, s.p1, s.q1, s.u);
  s.goal = {sampled.p + rotate(sampled.q, s.offset.p), sampled.q * s.offset.q};
  s.linear = (s.goal.p - s.now.p) * inv_dt;
  s.angular = detail::geodesic_rate(s.now.q, s.goal.q, inv_dt);
}

/// Bodies [k, k + n) of the batch one at a time.
[[gnu::noinline]] void step_alone(BodyStepBatch& b, std::size_t k, std::size_t n, double inv_dt) {
  for (std::size_t i = k; i < k + n; ++i) {
    BodyStep s = b.get(i);
    step_one(s, inv_dt);
    BodyStepBatch::put(b.goal_p, i, s.goal.p);
    BodyStepBatch::put(b.goal_q, i, s.goal.q);
    BodyStepBatch::put(b.linear, i, s.linear);
    BodyStepBatch::put(b.angular, i, s.angular);
  }
}

/// Body `from`'s inputs as body `to`'s.
void copy_inputs(BodyStepBatch& b, std::size_t from, std::size_t to) {
  for (int c = 0; c < 3; ++c) {
    b.p0[c][to] = b.p0[c][from];
    b.p1[c][to] = b.p1[c][from];
    b.offset_p[c][to] = b.offset_p[c][from];
    b.now_p[c][to] = b.now_p[c][from];
  }
  for (int c = 0; c < 4; ++c) {
    b.q0[c][to] = b.q0[c][from];
    b.q1[c][to] = b.q1[c][from];
    b.offset_q[c][to] = b.offset_q[c][from];
    b.now_q[c][to] = b.now_q[c][from];
  }
  b.u[to] = b.u[from];
}

} // namespace

void BodyStepBatch::set(std::size_t k, const BodyStep& s) {
  put(p0, k, s.p0);
  put(p1, k, s.p1);
  put(q0, k, s.q0);
  put(q1, k, s.q1);
  u[k] = s.u;
  put(offset_p, k, s.offset.p);
  put(offset_q, k, s.offset.q);
  put(now_p, k, s.now.p);
  put(now_q, k, s.now.q);
}

BodyStep BodyStepBatch::get(std::size_t k) const {
  const auto vec = [k](const double(&rows)[3][k_size]) {
    return Vec3{rows[0][k], rows[1][k], rows[2][k]};
  };
  const auto quat = [k](const double(&rows)[4][k_size]) {
    return Quat{rows[0][k], rows[1][k], rows[2][k], rows[3][k]};
  };
  BodyStep s;
  s.p0 = vec(p0);
  s.p1 = vec(p1);
  s.q0 = quat(q0);
  s.q1 = quat(q1);
  s.u = u[k];
  s.offset = {vec(offset_p), quat(offset_q)};
  s.now = {vec(now_p), quat(now_q)};
  s.goal = {vec(goal_p), quat(goal_q)};
  s.linear = vec(linear);
  s.angular = vec(angular);
  return s;
}

namespace detail {

void step_velocities(BodyStepBatch& batch, std::size_t n, double inv_dt, StepLanes lanes) {
  assert(n <= BodyStepBatch::k_size);
#ifdef ODEMOCAP_AVX
  const bool four = lanes == StepLanes::Four;
#else
  const bool four = false; // not x86-64: step_velocities_avx.cpp is not built
#endif
  const std::size_t width = four ? 4 : 2;
  // The last group filled up with copies of body 0: each lane is computed on its own, so a copy
  // changes no other lane's bits, and it is in the series' range when body 0 is.
  const std::size_t groups = (n + width - 1) / width;
  for (std::size_t k = n; k < groups * width; ++k) {
    copy_inputs(batch, 0, k);
  }
  for (std::size_t k = 0; k < n; k += width) {
#ifdef ODEMOCAP_AVX
    const bool in_range =
        four ? step_four_avx(batch, k, inv_dt) : step_lanes<Double2>(batch, k, inv_dt);
#else
    const bool in_range = step_lanes<Double2>(batch, k, inv_dt);
#endif
    if (!in_range) {
      step_alone(batch, k, std::min(width, n - k), inv_dt);
    }
  }
}

void step_velocities(BodyStep* steps, std::size_t n, double inv_dt, StepLanes lanes) {
  BodyStepBatch batch;
  for (std::size_t first = 0; first < n; first += BodyStepBatch::k_size) {
    const std::size_t count = std::min(BodyStepBatch::k_size, n - first);
    for (std::size_t k = 0; k < count; ++k) {
      batch.set(k, steps[first + k]);
    }
    step_velocities(batch, count, inv_dt, lanes);
    for (std::size_t k = 0; k < count; ++k) {
      const BodyStep out = batch.get(k);
      steps[first + k].goal = out.goal;
      steps[first + k].linear = out.linear;
      steps[first + k].angular = out.angular;
    }
  }
}

StepLanes best_lanes() {
  return has_avx() ? StepLanes::Four : StepLanes::Two;
}

} // namespace detail

void step_velocities(BodyStep* steps, std::size_t n, double inv_dt) {
  detail::step_velocities(steps, n, inv_dt, detail::best_lanes());
}

void step_velocities(BodyStepBatch& batch, std::size_t n, double inv_dt) {
  detail::step_velocities(batch, n, inv_dt, detail::best_lanes());
}

} // namespace odemocap
