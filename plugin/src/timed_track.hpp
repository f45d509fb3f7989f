#pragma once
// A track with the timing of a binding (time offset, playback rate, end behaviour,
// interpolation) and a body offset: what followers and puppet bones sample each step.

#include <odemocap/interpolation.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/track.hpp>

#include <string>

namespace odemocap::detail {

/// Throws PluginError from `function` unless the offset is finite with a unit quaternion,
/// the time offset finite and the rate finite and positive.
void check_timing(const Pose& offset, double time_offset, double playback_rate,
                  const char* function);
/// The offset part of check_timing.
void check_pose(const Pose& offset, const char* function);

/// a * b: frame b given in frame a.
inline Pose compose(const Pose& a, const Pose& b) {
  return {a.p + rotate(a.q, b.p), a.q * b.q};
}

class TimedTrack {
public:
  /// Copies `track`; validates the timing (check_timing).
  TimedTrack(const Track& track, const Pose& offset, double time_offset, double playback_rate,
             TrackEnd at_end, Interp interp, const char* function);

  /// Track time (s) at driver time t.
  double track_time(double t) const { return time_offset_ + rate_ * t; }
  /// The pose asked for at driver time t (s), offset included.
  Pose at(double t) const;
  /// TrackEnd::Release and driver time t is past the last sample.
  bool released(double t) const {
    return at_end_ == TrackEnd::Release && track_time(t) > track_.end_time();
  }
  const Track& track() const { return track_; }

private:
  Track track_;
  Pose offset_;
  double time_offset_;
  double rate_;
  TrackEnd at_end_;
  Interp interp_;
};

} // namespace odemocap::detail
