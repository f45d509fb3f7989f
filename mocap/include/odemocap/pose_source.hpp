#pragma once
/// PoseSource: "the pose of this body at time t", whatever produces it: a captured Track, a
/// blend of clips, a live stream, user code. KinematicDriver drives bodies along any of them
/// with the same exact velocities.

#include <odemocap/interpolation.hpp>
#include <odemocap/pose.hpp>
#include <odemocap/track.hpp>

#include <functional>
#include <limits>
#include <string>

namespace odemocap {

/// The pose of one body over time. Implementations must be safe to call from the thread that
/// steps the world; they are called once per body per step.
class PoseSource {
public:
  virtual ~PoseSource() = default;
  /// The pose at time t (s, the source's own clock): position (m, world frame) and orientation
  /// (unit quaternion, body to world); false when the source has none then (a gap, no data
  /// yet), and `out` is not to be used.
  virtual bool pose(double t, Pose& out) const = 0;
  /// First and last times (s) it has poses for; end_time() is +infinity for a source without
  /// an end (a live stream, a procedure).
  virtual double start_time() const = 0;
  virtual double end_time() const = 0;
  /// A name for messages.
  virtual std::string name() const = 0;
};

/// A Track (copied) as a PoseSource, sampled with `interp`; before its first and after its
/// last valid sample it holds the end pose (the driver's TrackEnd decides what happens there).
class TrackSource final : public PoseSource {
public:
  /// Throws MocapError for a track without a valid sample.
  explicit TrackSource(Track track, Interp interp = Interp::Linear);
  bool pose(double t, Pose& out) const override;
  double start_time() const override;
  double end_time() const override;
  std::string name() const override { return track_.name(); }
  const Track& track() const { return track_; }

private:
  Track track_;
  Interp interp_;
};

/// A PoseSource from a function: f(t, out) fills the pose at t and returns true, or returns
/// false when there is none.
class FunctionSource final : public PoseSource {
public:
  using Function = std::function<bool(double, Pose&)>;
  /// Poses for t in [start, end] (s); start may be -infinity and end +infinity. Throws
  /// MocapError for an empty function, a NaN or +infinite start, or a start after the end.
  FunctionSource(std::string name, Function f, double start = 0.0,
                 double end = std::numeric_limits<double>::infinity());
  bool pose(double t, Pose& out) const override { return f_(t, out); }
  double start_time() const override { return start_; }
  double end_time() const override { return end_; }
  std::string name() const override { return name_; }

private:
  std::string name_;
  Function f_;
  double start_;
  double end_;
};

} // namespace odemocap
