#pragma once
/// What odemocap's quaternion joints (QuatLockJoint, QuatHingeJoint) share: how stiff their
/// angular rows are, and the forces they applied in the last step.

#include <odemocap/vec3.hpp>

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

} // namespace odemocap
