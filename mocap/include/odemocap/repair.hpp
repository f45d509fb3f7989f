#pragma once
/// Repairs that make new tracks from old ones: filling short gaps and resampling.

#include <odemocap/track.hpp>

#include <cstddef>

namespace odemocap {

/// A copy of `track` whose gaps of at most `max_samples` invalid samples are filled by
/// interpolating between the valid samples on either side (`interp`); longer gaps, and gaps at
/// the ends, stay gaps.
Track fill_gaps(const Track& track, std::size_t max_samples, Interp interp = Interp::Linear);

/// `track` sampled every 1 / rate seconds (rate in Hz, finite and > 0) from its first to its
/// last sample. A time that falls next to an invalid sample (inside a gap) is a gap in the
/// result: resampling never invents data across a gap. Throws MocapError for a bad rate or a
/// result of more than 1e8 samples.
Track resample(const Track& track, double rate, Interp interp = Interp::Linear);

} // namespace odemocap
