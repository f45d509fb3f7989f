#pragma once
// The lanes step_velocities() computes in, chosen by the processor; named so that the tests
// run each.

#include <odemocap/velocity.hpp>

#include <cstddef>

namespace odemocap::detail {

enum class StepLanes {
  Two,  ///< two bodies per SSE2 register, on every x86-64 processor
  Four, ///< four bodies per AVX register: only where has_avx()
};

/// Four where has_avx(), else Two.
StepLanes best_lanes();

/// step_velocities() in the given lanes; Four only where has_avx().
void step_velocities(BodyStep* steps, std::size_t n, double inv_dt, StepLanes lanes);
void step_velocities(BodyStepBatch& batch, std::size_t n, double inv_dt, StepLanes lanes);

/// Bodies [k, k + 4) of the batch four to an AVX register (step_velocities_avx.cpp, compiled
/// with AVX; only where has_avx()); false, nothing written, when one is beyond the series'
/// range.
bool step_four_avx(BodyStepBatch& batch, std::size_t k, double inv_dt);

} // namespace odemocap::detail
