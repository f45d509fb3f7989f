#include "checks.hpp"

#include <odemocap/error.hpp>
#include <odemocap/repair.hpp>

#include <algorithm>
#include <cmath>

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

Track resample(const Track& track, double rate, Interp interp) {
  detail::require_positive_finite(rate, "resample", "rate");
  Track out(track.name());
  if (track.empty()) {
    return out;
  }
  const double start = track.start_time();
  const double span = track.end_time() - start;
  const double count = std::floor(span * rate + 1e-9) + 1.0;
  if (count > 1e8) {
    throw MocapError("resample: " + detail::describe(count) + " samples at " +
                     detail::describe(rate) + " Hz is more than the limit of 1e8");
  }
  const auto samples = static_cast<std::size_t>(count);
  out.reserve(samples);
  const auto& times = track.times();
  for (std::size_t k = 0; k < samples; ++k) {
    const double t = start + static_cast<double>(k) / rate;
    // The samples around t: i with times[i] <= t < times[i + 1] (or the last one).
    const auto upper = std::upper_bound(times.begin(), times.end(), t);
    const std::size_t i = static_cast<std::size_t>(upper - times.begin()) - 1;
    const bool at_sample = times[i] == t;
    const bool usable = at_sample ? track.valid(i)
                                  : track.valid(i) && i + 1 < track.size() && track.valid(i + 1);
    if (usable) {
      out.append(t, track.sample(t, interp));
    } else {
      out.append_gap(t);
    }
  }
  return out;
}

} // namespace odemocap
