#pragma once
// The timing of a binding (time offset, playback rate, end behaviour, interpolation: the
// fields of BindOptions) applied to a track, in one place: the driver's bindings, the soft
// followers and the characters' targets all sample their tracks through these.

#include <odemocap/interpolation.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/track.hpp>

#include <cmath>
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

/// The inverse frame: compose(a, inverse(a)) is the identity.
inline Pose inverse(const Pose& a) {
  const Quat back = conj(a.q);
  return {rotate(back, -1.0 * a.p), back};
}

/// Whether two poses are the same numbers.
inline bool same_pose(const Pose& a, const Pose& b) {
  return a.p.x == b.p.x && a.p.y == b.p.y && a.p.z == b.p.z && a.q.w == b.q.w && a.q.x == b.q.x &&
         a.q.y == b.q.y && a.q.z == b.q.z;
}

/// Whether a pose is the identity (q or -q: the same rotation).
inline bool is_identity(const Pose& p) {
  return norm(p.p) == 0.0 && std::fabs(p.q.w) == 1.0;
}

/// Track time (s) at driver time t.
inline double track_time(const BindOptions& o, double t) {
  return o.time_offset + o.playback_rate * t;
}

inline OutOfRange out_of_range(const BindOptions& o) {
  return o.at_end == TrackEnd::Loop ? OutOfRange::Loop : OutOfRange::Clamp;
}

/// The track's pose at driver time t under `o`'s timing (o.offset not applied).
inline Pose sample_timed(const Track& track, const BindOptions& o, double t) {
  return track.sample(track_time(o, t), o.interp, out_of_range(o));
}

/// The loop period (Track::Lookup::cycle) of the track time at driver time t; 0 unless `o`
/// loops. A step from t to t + h crosses the loop's seam when the two differ.
inline double loop_cycle(const Track& track, const BindOptions& o, double t) {
  return o.at_end == TrackEnd::Loop ? track.prefetch(track_time(o, t), OutOfRange::Loop).cycle
                                    : 0.0;
}

/// The jump at a loop's seam (world frame, on the left of a pose): the first pose times the
/// inverse of the last, which carries a pose at the loop's end onto its start; exactly the
/// identity for a loop that closes.
inline Pose seam_jump(const Pose& first, const Pose& last) {
  return same_pose(first, last) ? Pose{} : compose(first, inverse(last));
}
/// The same for a track looped with `interp`: its poses at its start and end times (a track
/// holds its first and last valid samples out to them).
inline Pose seam_jump(const Track& track, Interp interp) {
  return seam_jump(track.sample(track.start_time(), interp),
                   track.sample(track.end_time(), interp));
}

/// Moves a body by `jump` (world frame, on the left of its pose), turning its velocities with
/// it: what a loop's seam does to a body that follows the loop. Nothing for the identity.
void carry(dBodyID body, const Pose& jump);

/// A track (copied) with the timing and offset of a binding: what a soft follower samples.
struct TimedTrack {
  Track track;
  BindOptions timing; ///< its speed limits unused

  /// The pose asked for at driver time t (s), offset included.
  Pose at(double t) const { return compose(sample_timed(track, timing, t), timing.offset); }
  /// TrackEnd::Release and driver time t is past the last sample.
  bool released(double t) const {
    return timing.at_end == TrackEnd::Release && track_time(timing, t) > track.end_time();
  }
};

} // namespace odemocap::detail
