#pragma once
/// QuatHingeJoint: lets two bodies turn about one axis only, with the quaternion hinge
/// constraint [a . vec(q), b . vec(q)] = 0 (a, b perpendicular to the axis) and optional
/// angle limits.

#include <odemocap/kinematic_driver.hpp>
#include <odemocap/quat_joint.hpp>

#include <ode/ode.h>

#include <limits>

namespace odemocap {

/// Settings of a QuatHingeJoint; every field has a default, the constructor validates them.
struct QuatHingeSettings {
  /// The bodies, created by the user in the driver's world; one may be null (static world),
  /// either may be kinematic.
  dBodyID body1 = nullptr;
  dBodyID body2 = nullptr;
  /// Point on the hinge axis (m), in the frame `in_body1` says, at creation.
  Vec3 anchor;
  /// Hinge axis (any non-zero length), in the frame `in_body1` says, at creation. The hinge
  /// angle is body 2's rotation about it relative to body 1, right-handed, 0 at creation.
  Vec3 axis{0.0, 0.0, 1.0};
  /// false: anchor and axis are in world coordinates; true: in body 1's coordinates (a
  /// door's hinge line as drawn on its frame). Body 1 must then not be null.
  bool in_body1 = false;
  /// Angle limits (rad) in [-pi, pi], lower <= upper; infinite = no limit on that side.
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  JointSoftness softness;
};

/// A hinge made of a ball joint and a user-mode angular motor with two rows (three with
/// limits) recomputed by KinematicDriver::prestep(). Destroy it (or detach()) before the world.
class QuatHingeJoint : public QuatJoint {
public:
  /// Creates the joint in `driver`'s world; throws PluginError for invalid settings.
  QuatHingeJoint(KinematicDriver& driver, const QuatHingeSettings& settings);

  /// Hinge angle (rad, [-pi, pi]) now.
  double angle() const;
  /// Angle (rad, [0, pi]) of the relative rotation that is not about the hinge axis.
  double axis_error() const;
};

} // namespace odemocap
