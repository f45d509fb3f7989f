#include <odemocap/ode_math.hpp>
#include <odemocap/quat_lock_joint.hpp>

#include "quat_joint_core.hpp"

namespace odemocap {
namespace {

Quat orientation(dBodyID body) {
  return body != nullptr ? quat_from_ode(dBodyGetQuaternion(body)) : Quat{};
}

detail::QuatJointCore& use(const std::unique_ptr<detail::QuatJointCore>& core) {
  if (!core) {
    throw PluginError("QuatLockJoint: the joint was moved from");
  }
  return *core;
}

} // namespace

QuatLockJoint::QuatLockJoint(KinematicDriver& driver, const QuatLockSettings& settings) {
  detail::QuatJointSetup setup;
  setup.name = "QuatLockJoint";
  setup.kind = detail::QuatJointKind::Lock;
  setup.body1 = settings.body1;
  setup.body2 = settings.body2;
  setup.anchor = settings.anchor;
  setup.ball = !settings.angular_only;
  setup.frame1 = settings.frame1;
  setup.frame2 = settings.frame2;
  setup.softness = settings.softness;
  // Held orientation by default: whatever frame 2 is relative to frame 1 now. The bodies are
  // read before validation, so a body of another world is only dereferenced by ODE's getters.
  setup.target = settings.target ? *settings.target
                                 : conj(orientation(settings.body1) * settings.frame1) *
                                       (orientation(settings.body2) * settings.frame2);
  core_ = std::make_unique<detail::QuatJointCore>(driver, setup);
}

QuatLockJoint::~QuatLockJoint() = default;
QuatLockJoint::QuatLockJoint(QuatLockJoint&&) noexcept = default;
QuatLockJoint& QuatLockJoint::operator=(QuatLockJoint&&) noexcept = default;

void QuatLockJoint::set_target(const Quat& relative) {
  use(core_).set_target(relative);
}

void QuatLockJoint::follow(const Track& track, double time_offset, Interp interp) {
  use(core_).follow(track, time_offset, interp);
}

Quat QuatLockJoint::target() const {
  return use(core_).target();
}

double QuatLockJoint::angle_error() const {
  return detail::rotation_angle(use(core_).error_rotation());
}

double QuatLockJoint::anchor_error() const {
  return use(core_).anchor_error();
}
JointFeedback QuatLockJoint::feedback() const {
  return use(core_).feedback();
}
void QuatLockJoint::detach() {
  use(core_).detach();
}
bool QuatLockJoint::attached() const {
  return core_ && core_->attached();
}
dJointID QuatLockJoint::ball() const {
  return use(core_).ball();
}
dJointID QuatLockJoint::motor() const {
  return use(core_).motor();
}

} // namespace odemocap
