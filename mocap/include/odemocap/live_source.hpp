#pragma once
/// LiveSource: a rigid body's poses arriving over a network (OptiTrack NatNet, Qualisys RT), as
/// a PoseSource. A receiver thread pushes samples stamped with the server's capture time; the
/// driver asks for poses on its own clock. In between: the clock offset between the two, a
/// jitter buffer of adaptive depth, interpolation inside it, capped geodesic extrapolation past
/// it, and counters of what the network did.

#include <odemocap/pose_source.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

namespace odemocap {

/// One received pose.
struct LiveSample {
  double capture_time = 0.0; ///< s, the server's clock: when the frame was captured
  double receive_time = 0.0; ///< s, the local clock (LiveSource's): when it arrived
  std::uint64_t frame = 0;   ///< the server's frame number (loss and order are counted on it)
  Pose pose;                 ///< m, unit quaternion body to world
  bool valid = true;         ///< the server's tracking-valid flag
};

/// How a LiveSource plays its samples; every field has a default, the constructor validates.
struct LiveSourceSettings {
  /// Longest extrapolation past the newest sample (s): beyond it the pose holds and the source
  /// is stale.
  double max_extrapolation = 0.030;
  /// Bounds of the jitter buffer's depth (s). The depth is the largest lateness (arrival
  /// after capture, beyond the clock offset) among the last `jitter_window` samples plus one
  /// frame interval (so the sample after the played time has arrived) plus how far ahead of
  /// the clock the last `jitter_window` pose() queries asked (a driver asks for the end of the
  /// step it is about to take), within these bounds.
  double min_delay = 0.0;
  double max_delay = 0.100;
  std::size_t jitter_window = 64;
  /// Samples kept (the oldest are dropped); at least 2.
  std::size_t capacity = 256;
  /// The local clock (s, monotonic) that receive times are read on and that maps driver time
  /// to local time; default: std::chrono::steady_clock.
  std::function<double()> clock;
};

/// What the stream did so far.
struct LiveStats {
  std::size_t received = 0;     ///< samples pushed
  std::size_t invalid = 0;      ///< of them not tracked (kept out of the buffer)
  std::size_t lost = 0;         ///< frame numbers skipped and never received
  std::size_t reordered = 0;    ///< arrived after a later frame (inserted in order)
  std::size_t late = 0;         ///< arrived after their time had been played (extrapolated)
  std::size_t duplicates = 0;   ///< a frame number received twice (dropped)
  std::size_t extrapolated = 0; ///< queries past the newest sample, within the cap
  std::size_t stale = 0;        ///< queries past the cap (or with one sample): the pose held
  /// Frame numbers that jump further ahead than the capture time allows (a corrupted
  /// datagram): dropped, and not counted as losses.
  std::size_t suspicious = 0;
};

/// What a LiveSource knows at one moment.
struct LiveState {
  LiveStats stats;
  double clock_offset = 0.0; ///< s, the running minimum of receive - capture time
  double delay = 0.0;        ///< s, the jitter buffer's depth
  double played_time = 0.0;  ///< s, server clock: the latest capture time a query played
  bool stale = false;        ///< the last query was past the cap (or had one sample)
};

/// A rigid body's live poses as a PoseSource. push() may be called from another thread than
/// pose() (a mutex guards the buffer; neither blocks for long).
///
/// Timing: the clock offset o is the running minimum of receive - capture time (the fastest
/// delivery seen); a sample is due at capture + o on the local clock. A query at local time L
/// plays capture time c = L - o - depth: inside the buffer, interpolated (linear positions,
/// Slerp); past the newest sample, extrapolated with its linear velocity and, along the
/// geodesic, its angular velocity (from the two newest samples), for at most
/// max_extrapolation; later, held there and counted stale. Played time never goes back (when
/// the depth grows, the stream waits) nor past the pose given (a held pose plays the cap's
/// time, so data arriving late is still ahead of it and used). Driver time t maps to local time t +
/// e, e fixed at the first query (the driver's time 0 is then).
class LiveSource final : public PoseSource {
public:
  /// Throws MocapError for invalid settings.
  explicit LiveSource(std::string name, LiveSourceSettings settings = {});

  /// Adds a received sample (a non-finite time or pose is counted invalid and dropped).
  void push(const LiveSample& sample);
  /// The local clock's time (s).
  double now() const { return clock_(); }

  /// The pose at local time `local` (s); false before the first valid sample arrives. Unlike
  /// pose(), the buffer's depth does not grow with how far ahead of the clock `local` is.
  bool pose_at_local(double local, Pose& out) const;
  /// PoseSource: the pose at driver time t (local time t + e, e fixed by the first call).
  bool pose(double t, Pose& out) const override;
  double start_time() const override { return 0.0; }
  double end_time() const override;
  std::string name() const override { return name_; }

  /// A consistent snapshot of the counters and the timing.
  LiveState state() const;

private:
  std::string name_;
  LiveSourceSettings settings_;
  std::function<double()> clock_;
  mutable std::mutex mutex_;
  std::deque<LiveSample> buffer_; ///< valid samples in capture-time order
  std::deque<double> lateness_;   ///< receive - capture of the last jitter_window samples
  double offset_ = 0.0;
  bool have_offset_ = false;
  double interval_ = 0.0; ///< s between frames, from the newest samples
  std::uint64_t newest_frame_ = 0;
  double newest_frame_time_ = 0.0;
  bool have_frame_ = false;
  mutable double played_ = -1e300; ///< latest capture time a query has played
  mutable bool stale_ = false;
  mutable bool have_epoch_ = false;
  mutable double epoch_ = 0.0;
  mutable LiveStats stats_;

  mutable std::deque<double> ahead_; ///< how far pose() queries asked ahead of the clock

  /// Loss, order and duplicate bookkeeping of a frame number; false for a duplicate.
  bool count_frame_locked(std::uint64_t frame, double capture_time);
  double depth_locked() const;
  bool pose_locked(double local, Pose& out) const;
};

} // namespace odemocap
