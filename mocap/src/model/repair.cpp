#include "checks.hpp"

#include <odemocap/error.hpp>
#include <odemocap/repair.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace odemocap {

Track fill_gaps(const Track& track, std::size_t max_samples, Interp interp) {
  Track out(track.name());
  out.reserve(track.size());
  const std::size_t n = track.size();
  for (std::size_t i = 0; i < n;) {
    if (track.valid(i)) {
      out.append(track.time(i), track.pose(i));
      ++i;
      continue;
    }
    std::size_t end = i; // one past the gap
    while (end < n && !track.valid(end)) {
      ++end;
    }
    const bool inner = i > 0 && end < n; // valid samples on both sides
    const bool fill = inner && end - i <= max_samples;
    for (std::size_t k = i; k < end; ++k) {
      if (fill) {
        out.append(track.time(k), track.sample(track.time(k), interp));
      } else {
        out.append_gap(track.time(k));
      }
    }
    i = end;
  }
  return out;
}

namespace {

/// Index ranges [first, last] of the samples between breaks.
std::vector<std::pair<std::size_t, std::size_t>> recording_segments(const Track& track,
                                                                    double break_factor) {
  const double limit = break_factor * track.median_interval();
  std::vector<std::pair<std::size_t, std::size_t>> segments{{0, 0}};
  for (std::size_t i = 1; i < track.size(); ++i) {
    if (track.time(i) - track.time(i - 1) >= limit) {
      segments.push_back({i, i});
    } else {
      segments.back().second = i;
    }
  }
  return segments;
}

} // namespace

Track resample(const Track& track, double rate, Interp interp, double break_factor) {
  detail::require_positive_finite(rate, "resample", "rate");
  if (!(break_factor > 1.0)) {
    detail::throw_bad_argument("resample", "break_factor", detail::describe(break_factor),
                               "must be > 1");
  }
  Track out(track.name());
  if (track.empty()) {
    return out;
  }
  const double start = track.start_time();
  const auto segments = recording_segments(track, break_factor);
  // Grid indices k of each segment: start + k / rate within [its first, its last time].
  struct Span {
    double k0, k1; // grid indices
    double t0, t1; // the segment's first and last sample times
  };
  std::vector<Span> grid;
  double count = 0.0;
  for (const auto& [first, last] : segments) {
    const double t0 = track.time(first), t1 = track.time(last);
    const double k0 = std::ceil((t0 - start) * rate - 1e-9);
    const double k1 = std::floor((t1 - start) * rate + 1e-9);
    grid.push_back({k0, k1, t0, t1});
    count += std::max(0.0, k1 - k0 + 1.0);
  }
  if (count > 1e8) {
    throw MocapError("resample: " + detail::describe(count) + " samples at " +
                     detail::describe(rate) + " Hz is more than the limit of 1e8");
  }
  out.reserve(static_cast<std::size_t>(count));
  const auto& times = track.times();
  for (const Span& span : grid) {
    for (double k = span.k0; k <= span.k1; k += 1.0) {
      // Within the rounding slack of the grid a time may fall a hair outside its segment:
      // hold it at the segment's end, never across the break.
      const double t = std::clamp(start + k / rate, span.t0, span.t1);
      // The samples around t: i with times[i] <= t < times[i + 1] (or the last one).
      const auto upper = std::upper_bound(times.begin(), times.end(), t);
      const std::size_t i = static_cast<std::size_t>(upper - times.begin()) - 1;
      const bool at_sample = times[i] == t;
      const bool usable =
          at_sample ? track.valid(i) : track.valid(i) && i + 1 < track.size() && track.valid(i + 1);
      if (usable) {
        out.append(t, track.sample(t, interp));
      } else {
        out.append_gap(t);
      }
    }
  }
  return out;
}

} // namespace odemocap
