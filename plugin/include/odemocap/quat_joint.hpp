#pragma once
/// What odemocap's quaternion joints (QuatLockJoint, QuatHingeJoint) share: how stiff their
/// angular rows are, and the forces they applied in the last step.

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

#include <memory>
#include <optional>

namespace odemocap {

/// Stiffness of a joint's angular rows. Either ODE's ERP/CFM pair, or a spring-damper.
struct JointSoftness {
  /// Fraction of the error removed per step, in [0, 1]; empty = the world's ERP at each step.
  std::optional<double> erp;
  /// Constraint force mixing (rad/(N m s)), >= 0; empty = the world's CFM at each step.
  std::optional<double> cfm;
  /// When > 0, a torsional spring (N m/rad) with `damping` (N m s/rad) replaces erp and cfm
  /// on the angular rows: ERP = h k / (h k + c), CFM = 1 / (h k + c), recomputed for each h.
  double stiffness = 0.0;
  double damping = 0.0;
};

/// Force (N) and torque (N m) the joint applied to each body in the last step, world frame,
/// about each body's centre of mass; zero for the static world.
struct JointFeedback {
  Vec3 force1;
  Vec3 torque1;
  Vec3 force2;
  Vec3 torque2;
};

namespace detail {
class QuatJointCore;
} // namespace detail

/// What every quaternion joint offers: its errors, forces and ODE joints, and detaching.
/// Owns the ODE joints (a ball joint and an angular motor); never destroys the bodies.
/// Movable, not copyable; a moved-from joint throws PluginError when used.
class QuatJoint {
public:
  QuatJoint(const QuatJoint&) = delete;
  QuatJoint& operator=(const QuatJoint&) = delete;

  /// Distance (m) between the ball joint's anchor on each body; 0 without a ball joint.
  double anchor_error() const;
  /// Force and torque applied by the last step (ball joint and motor together).
  JointFeedback feedback() const;
  /// Destroys the ODE joints now; the object stays valid and inert. Safe to call twice.
  void detach();
  /// false after detach(), or once ODE detached the joint because a body was destroyed.
  bool attached() const;
  /// The underlying ODE joints (null when detached, or no ball joint): for dAreConnected and
  /// the like, not for changing their parameters.
  dJointID ball() const;
  dJointID motor() const;

protected:
  explicit QuatJoint(const char* name);
  ~QuatJoint();
  QuatJoint(QuatJoint&&) noexcept;
  QuatJoint& operator=(QuatJoint&&) noexcept;
  detail::QuatJointCore& core() const;

  std::unique_ptr<detail::QuatJointCore> core_;
  const char* name_; ///< for messages
};

} // namespace odemocap
