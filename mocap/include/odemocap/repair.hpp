#pragma once
/// Repairs that make new tracks from old ones: filling short gaps and resampling.

#include <odemocap/track.hpp>

#include <cstddef>

namespace odemocap {

/// A copy of `track` whose gaps of at most `max_samples` invalid samples are filled by
/// interpolating between the valid samples on either side (`interp`); longer gaps, and gaps at
/// the ends, stay gaps.
Track fill_gaps(const Track& track, std::size_t max_samples, Interp interp = Interp::Linear);

/// `track` sampled at the times start + k / rate (rate in Hz, finite and > 0) that lie within
/// its recording: an interval of `break_factor` (> 1) times the median interval or more is a
/// break (dropped frames, a frame-number jump between excerpts) and gets no samples, so the
/// result's times jump where the track's do. A time next to an invalid sample (inside a gap)
/// is a gap in the result. Resampling never invents data across a gap or a break. Throws
/// MocapError for a bad rate or factor, or a result of more than 1e8 samples.
Track resample(const Track& track, double rate, Interp interp = Interp::Linear,
               double break_factor = 1.5);

} // namespace odemocap
