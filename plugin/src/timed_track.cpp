#include "timed_track.hpp"
#include "describe.hpp"

#include <cmath>

namespace odemocap::detail {

void check_pose(const Pose& offset, const char* function) {
  if (!is_finite(offset.p) || !(std::fabs(norm(offset.q) - 1.0) <= 1e-6)) {
    throw PluginError(std::string(function) +
                      ": offset must have a finite position and a unit quaternion");
  }
}

void check_timing(const Pose& offset, double time_offset, double playback_rate,
                  const char* function) {
  const auto fail = [&](const std::string& what) {
    throw PluginError(std::string(function) + ": " + what);
  };
  if (!(playback_rate > 0.0) || !std::isfinite(playback_rate)) {
    fail("playback_rate must be finite and positive, got " + describe(playback_rate));
  }
  if (!std::isfinite(time_offset)) {
    fail("time_offset must be finite, got " + describe(time_offset));
  }
  check_pose(offset, function);
}

TimedTrack::TimedTrack(const Track& track, const Pose& offset, double time_offset,
                       double playback_rate, TrackEnd at_end, Interp interp, const char* function)
    : track_(track), offset_(offset), time_offset_(time_offset), rate_(playback_rate),
      at_end_(at_end), interp_(interp) {
  check_timing(offset, time_offset, playback_rate, function);
}

Pose TimedTrack::at(double t) const {
  const OutOfRange range = at_end_ == TrackEnd::Loop ? OutOfRange::Loop : OutOfRange::Clamp;
  return compose(track_.sample(track_time(t), interp_, range), offset_);
}

} // namespace odemocap::detail
