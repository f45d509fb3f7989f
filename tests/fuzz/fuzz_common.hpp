#pragma once
// Shared body of the loader fuzz targets: a load either succeeds or raises LoadError, and
// whatever loads can be sampled and differentiated without producing a non-finite number.
// Anything else (another exception, NaN, a sanitizer report) stops the fuzzer.

#include <odemocap/mocap.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace odemocap::fuzz {

inline void check_finite(bool finite) {
  if (!finite) {
    std::abort();
  }
}

inline void exercise(const Capture& capture) {
  for (const Track& track : capture.tracks()) {
    if (track.valid_count() == 0) {
      continue;
    }
    const double middle = 0.5 * (track.start_time() + track.end_time());
    for (Interp interp : {Interp::Linear, Interp::Cubic}) {
      const Pose p = track.sample(middle, interp);
      check_finite(is_finite(p.p) && is_finite(p.q));
    }
    const TrackVelocities v = estimate_velocities(track);
    for (std::size_t i = 0; i < v.valid.size(); ++i) {
      check_finite(is_finite(v.linear[i]) && is_finite(v.angular[i]));
    }
  }
}

template <class Parse>
int run(const std::uint8_t* data, std::size_t size, Parse parse) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    exercise(parse(text));
  } catch (const LoadError&) {
    // the expected way to refuse input
  }
  return 0;
}

} // namespace odemocap::fuzz
