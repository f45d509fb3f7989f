#pragma once
/// QuatLockJoint: holds the relative orientation of two bodies with the quaternion lock
/// constraint vec(conj(p) conj(p1) p2) = 0; with a moving target p it is a motor that drives a
/// body toward a captured orientation.

#include <odemocap/interpolation.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/quat_joint.hpp>
#include <odemocap/track.hpp>

#include <ode/ode.h>

#include <optional>

namespace odemocap {

/// Settings of a QuatLockJoint; every field has a default, the constructor validates them.
struct QuatLockSettings {
  /// The bodies, created by the user in the driver's world; one of them may be null (the
  /// static world) and either may be kinematic (e.g. driven by the KinematicDriver).
  dBodyID body1 = nullptr;
  dBodyID body2 = nullptr;
  /// Point (m) where a ball joint holds the bodies together, at creation: world coordinates,
  /// or body 1's when `in_body1` (body 1 must then not be null).
  Vec3 anchor;
  bool in_body1 = false;
  /// true: no ball joint, only the three angular rows (the bodies may drift apart freely).
  bool angular_only = false;
  /// Constraint frame of each body in that body's coordinates (world coordinates for the
  /// static world); unit quaternions.
  Quat frame1;
  Quat frame2;
  /// Orientation of frame 2 relative to frame 1 that the lock holds (unit quaternion);
  /// empty = the relative orientation at creation.
  std::optional<Quat> target;
  JointSoftness softness;
};

/// A lock joint made of a ball joint (linear rows) and a user-mode angular motor whose axes
/// and errors are recomputed from the quaternion formulas by KinematicDriver::prestep(), so it
/// works with the stock ODE library. Destroy it (or detach()) before the world.
class QuatLockJoint : public QuatJoint {
public:
  /// Creates the joint in `driver`'s world; throws PluginError for invalid settings (no body,
  /// bodies of another world, the same body twice, non-unit frames, bad softness).
  QuatLockJoint(KinematicDriver& driver, const QuatLockSettings& settings);

  /// Sets the held relative orientation (unit quaternion, frame 2 in frame 1) and stops
  /// following a track.
  void set_target(const Quat& relative);
  /// Makes the target follow `track`'s orientations (relative, frame 2 in frame 1): each
  /// prestep(h) aims at the track's orientation at driver time + h + time_offset (s), so a
  /// stiff lock lands on the track and a soft one lags like a spring. The track is copied.
  void follow(const Track& track, double time_offset = 0.0, Interp interp = Interp::Linear);
  /// The relative orientation the last prestep aimed at.
  Quat target() const;

  /// Angle (rad, [0, pi]) between the current relative orientation and the target.
  double angle_error() const;
};

} // namespace odemocap
