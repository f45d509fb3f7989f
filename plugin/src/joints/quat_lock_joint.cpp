#include <odemocap/quat_lock_joint.hpp>

#include "joints/quat_joint_core.hpp"

namespace odemocap {

QuatLockJoint::QuatLockJoint(KinematicDriver& driver, const QuatLockSettings& settings)
    : QuatJoint("QuatLockJoint") {
  detail::QuatJointSetup setup;
  setup.name = name_;
  setup.kind = detail::QuatJointKind::Lock;
  setup.body1 = settings.body1;
  setup.body2 = settings.body2;
  const Pose frame = detail::creation_frame(settings.body1, settings.in_body1, "QuatLockJoint");
  setup.anchor = frame.p + rotate(frame.q, settings.anchor);
  setup.ball = !settings.angular_only;
  setup.frame1 = settings.frame1;
  setup.frame2 = settings.frame2;
  setup.softness = settings.softness;
  // Held orientation by default: whatever frame 2 is relative to frame 1 now. The bodies are
  // read before validation, so a body of another world is only dereferenced by ODE's getters.
  setup.target = settings.target
                     ? *settings.target
                     : conj(detail::body_orientation(settings.body1) * settings.frame1) *
                           (detail::body_orientation(settings.body2) * settings.frame2);
  core_ = std::make_unique<detail::QuatJointCore>(driver, setup);
}

void QuatLockJoint::set_target(const Quat& relative) {
  core().set_target(relative);
}

void QuatLockJoint::follow(const Track& track, double time_offset, Interp interp) {
  core().follow(track, time_offset, interp);
}

Quat QuatLockJoint::target() const {
  return core().target();
}

double QuatLockJoint::angle_error() const {
  return detail::rotation_angle(core().error_rotation());
}

} // namespace odemocap
