#include <odemocap/ode_math.hpp>
#include <odemocap/quat_hinge_joint.hpp>

#include "quat_joint_core.hpp"

#include <cmath>

namespace odemocap {
namespace {

Quat orientation(dBodyID body) {
  return body != nullptr ? quat_from_ode(dBodyGetQuaternion(body)) : Quat{};
}

detail::QuatJointCore& use(const std::unique_ptr<detail::QuatJointCore>& core) {
  if (!core) {
    throw PluginError("QuatHingeJoint: the joint was moved from");
  }
  return *core;
}

} // namespace

QuatHingeJoint::QuatHingeJoint(KinematicDriver& driver, const QuatHingeSettings& settings) {
  const double length = norm(settings.axis);
  if (!(length > 1e-12) || !std::isfinite(length)) {
    throw PluginError("QuatHingeJoint: axis must be finite and non-zero");
  }
  detail::QuatJointSetup setup;
  setup.name = "QuatHingeJoint";
  setup.kind = detail::QuatJointKind::Hinge;
  setup.body1 = settings.body1;
  setup.body2 = settings.body2;
  setup.anchor = settings.anchor;
  // Both constraint frames coincide now, with their x axis on the hinge axis: the error
  // rotation starts at the identity and the hinge angle at 0.
  const Quat axis_frame = from_to({1.0, 0.0, 0.0}, settings.axis / length);
  setup.frame1 = conj(orientation(settings.body1)) * axis_frame;
  setup.frame2 = conj(orientation(settings.body2)) * axis_frame;
  setup.lower = settings.lower;
  setup.upper = settings.upper;
  setup.softness = settings.softness;
  core_ = std::make_unique<detail::QuatJointCore>(driver, setup);
}

QuatHingeJoint::~QuatHingeJoint() = default;
QuatHingeJoint::QuatHingeJoint(QuatHingeJoint&&) noexcept = default;
QuatHingeJoint& QuatHingeJoint::operator=(QuatHingeJoint&&) noexcept = default;

double QuatHingeJoint::angle() const {
  return use(core_).hinge_angle();
}

double QuatHingeJoint::axis_error() const {
  return detail::swing_angle(use(core_).error_rotation(), {1.0, 0.0, 0.0});
}

double QuatHingeJoint::anchor_error() const {
  return use(core_).anchor_error();
}
JointFeedback QuatHingeJoint::feedback() const {
  return use(core_).feedback();
}
void QuatHingeJoint::detach() {
  use(core_).detach();
}
bool QuatHingeJoint::attached() const {
  return core_ && core_->attached();
}
dJointID QuatHingeJoint::ball() const {
  return use(core_).ball();
}
dJointID QuatHingeJoint::motor() const {
  return use(core_).motor();
}

} // namespace odemocap
