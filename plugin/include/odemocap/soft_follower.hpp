#pragma once
/// SoftFollower: a DYNAMIC body that follows a captured pose with bounded force and torque, so
/// that it stops at what it meets (a table, an object it grasps) instead of going through it.

#include <odemocap/interpolation.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/quat_joint.hpp>
#include <odemocap/track.hpp>

#include <ode/ode.h>

#include <cstddef>
#include <memory>

namespace odemocap {

/// Settings of a SoftFollower; every field has a default, the constructor validates them.
struct FollowSettings {
  /// Largest force (N, magnitude, world frame) the position servo applies; > 0, may be
  /// infinite. Weight is part of what it carries: below m g the body sinks.
  double max_force = 200.0;
  /// Largest torque (N m, magnitude, world frame) the orientation servo applies; > 0, may be
  /// infinite.
  double max_torque = 20.0;
  /// The body frame in the track's (or ghost's) frame: target = pose * offset (m; unit
  /// quaternion). For a body whose centre of mass is not at the captured point.
  Pose offset;
  /// Track time (s) at driver time 0, and track seconds per simulated second (> 0), as for a
  /// kinematic binding; unused when following a ghost body.
  double time_offset = 0.0;
  double playback_rate = 1.0;
  /// After the last sample: Hold and Loop as for a kinematic binding; Release lets go (the
  /// servos apply no force and the body falls freely).
  TrackEnd at_end = TrackEnd::Hold;
  Interp interp = Interp::Linear;
  /// How deep (m, > 0, may be infinite) the follower goes into static geometry or a kinematic
  /// body that holds it back, beyond the world's contact surface layer (where ODE's contacts
  /// hold a body): it pushes no further in once there. ODE's hard contacts hold the body at
  /// the layer under any press, so this bounds only what an unconverged dWorldQuickStep lets
  /// the body sink. Contacts made soft (soft_cfm and soft_erp) give way under a press: set it
  /// to how far such a surface should give (infinity: no bound), or the follower stops
  /// pressing at this depth.
  double press_depth = 0.001;
};

namespace detail {
class FollowerCore;
} // namespace detail

/// Makes a dynamic body (created by the user, with its mass and geoms) follow a track, or a
/// kinematic "ghost" body that the driver moves, through a linear motor and an angular motor
/// whose targets KinematicDriver::prestep() recomputes each step: the velocities that carry
/// the body from where it is to the next target pose in one step (the geodesic ones the
/// driver gives kinematic bodies), with the force that needs as the motors' lead direction.
/// Unobstructed and below its limits the body lands on every target pose like a kinematic
/// one; obstructed it pushes with at most max_force and max_torque, and moves at most 1 mm a
/// step further into what held it back (lately) than it moves now (so a contact that vanishes for a
/// step does not let the whole force throw it in), and no deeper than press_depth into static
/// geometry or a kinematic body. A body held by other joints (not
/// contacts), whose needs cannot be predicted from its own mass, gets the limits spread
/// equally over the world axes instead: never more than the limits, at least 58% of them in
/// any direction. The body uses finite rotation mode. Owns its two ODE joints, never the body.
/// Movable, not copyable; destroy it (or detach()) before the world.
class SoftFollower {
public:
  /// Follows `track` (copied). Throws PluginError for a null or kinematic body, a body of
  /// another world, a track without valid samples, or invalid settings.
  SoftFollower(KinematicDriver& driver, dBodyID body, const Track& track,
               const FollowSettings& settings = {});
  /// Follows the pose `ghost` (any body of the same world, usually one the driver moves) will
  /// have at the end of each step, predicted from its pose and velocities.
  SoftFollower(KinematicDriver& driver, dBodyID body, dBodyID ghost,
               const FollowSettings& settings = {});
  ~SoftFollower();
  SoftFollower(SoftFollower&&) noexcept;
  SoftFollower& operator=(SoftFollower&&) noexcept;
  SoftFollower(const SoftFollower&) = delete;
  SoftFollower& operator=(const SoftFollower&) = delete;

  /// Changes the limits (N, N m; > 0, may be infinite) from the next prestep on.
  void set_limits(double max_force, double max_torque);
  /// The pose the last prestep aimed at for the end of the step (world frame).
  Pose target() const;
  /// Distance (m) and angle (rad, [0, pi]) between the body's pose now and target().
  double position_error() const;
  double angle_error() const;
  /// Force and torque (world frame, on the body: force1/torque1) the servos applied in the
  /// last step; both bounded by the limits.
  JointFeedback feedback() const;
  /// Steps whose solve ODE's LCP solver gave up on (dWorldStep's "LCP internal error"): the
  /// motors applied nothing, and the next prestep put the body back where it was before that
  /// step instead of letting it fall.
  std::size_t solver_failures() const;
  /// Loop seams crossed (TrackEnd::Loop on a track, or a ghost the driver carried across its
  /// loop's seam): at each the body was carried by the jump from the loop's last pose to its
  /// first, its velocities turned with it, and with it what it holds by a joint.
  std::size_t seams() const;
  dBodyID body() const;
  /// Destroys the ODE joints now; the body is left to ODE. Safe to call twice.
  void detach();

private:
  detail::FollowerCore& core() const;
  std::unique_ptr<detail::FollowerCore> core_;
};

} // namespace odemocap
