#pragma once
// The machinery both quaternion joints share: a ball joint for the linear rows and a
// user-mode angular motor whose rows KinematicDriver::prestep() recomputes before each step
// (quat_constraint.hpp has the formulas).

#include <odemocap/interpolation.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/quat_joint.hpp>
#include <odemocap/track.hpp>

#include "drive/controller.hpp"
#include "joints/quat_constraint.hpp"

#include <ode/ode.h>

#include <optional>

namespace odemocap::detail {

/// A body's orientation (body to world); the identity for the static world (null).
Quat body_orientation(dBodyID body);

/// The frame settings are given in: body 1's pose when `in_body1`, else the world (identity).
/// Throws PluginError naming `joint` when `in_body1` is asked of a null body 1.
Pose creation_frame(dBodyID body1, bool in_body1, const char* joint);

enum class QuatJointKind {
  Lock,  ///< three rows: vec(q) = 0
  Hinge, ///< two rows perpendicular to the frame's x axis, a third for angle limits
};

/// Everything a joint is made from, in the user's body order.
struct QuatJointSetup {
  const char* name = "QuatJoint"; ///< for messages
  QuatJointKind kind = QuatJointKind::Lock;
  dBodyID body1 = nullptr;
  dBodyID body2 = nullptr;
  Vec3 anchor;
  bool ball = true;
  Quat frame1; ///< body coordinates (world coordinates for the static world)
  Quat frame2;
  Quat target;        ///< frame 2 relative to frame 1
  double lower = 0.0; ///< hinge limits (rad)
  double upper = 0.0;
  JointSoftness softness;
};

class QuatJointCore final : public Controller {
public:
  /// Validates the setup, creates the ODE joints and registers with the driver.
  QuatJointCore(KinematicDriver& driver, const QuatJointSetup& setup);
  ~QuatJointCore() override;

  /// Recomputes the motor rows for a step of h seconds starting at driver time `time`.
  void update(double time, double h) override;

  void set_target(const Quat& relative);
  void follow(const Track& track, double time_offset, Interp interp);
  /// Target in the user's body order.
  Quat target() const { return swapped_ ? conj(target_) : target_; }

  /// Error rotation conj(p1 target) p2 (w >= 0), in the internal body order.
  Quat error_rotation() const;
  /// Hinge angle (rad) in the user's body order.
  double hinge_angle() const;
  double anchor_error() const;
  JointFeedback feedback() const;

  void detach();
  bool attached() const;
  dJointID ball() const { return attached() ? ball_ : nullptr; }
  dJointID motor() const { return attached() ? motor_ : nullptr; }

private:
  void apply_softness(double h);
  void set_limit_row(const MotorRow& row);

  QuatJointKind kind_;
  const char* name_;
  dWorldID world_;
  dBodyID body1_; ///< never null: a null body1 is swapped into body2
  dBodyID body2_;
  bool swapped_ = false;
  Quat frame1_;
  Quat frame2_;
  Quat target_;
  double lower_; ///< internal body order
  double upper_;
  bool limited_ = false;
  JointSoftness softness_;
  std::optional<Track> follow_track_;
  double follow_offset_ = 0.0;
  Interp follow_interp_ = Interp::Linear;
  dJointID ball_ = nullptr;
  dJointID motor_ = nullptr;
  dJointFeedback ball_feedback_{};
  dJointFeedback motor_feedback_{};
  double last_erp_ = -1.0; ///< what the motor's rows were last given
  double last_cfm_ = -1.0;
};

} // namespace odemocap::detail
