#include <odemocap/quat_hinge_joint.hpp>

#include "joints/quat_joint_core.hpp"

#include <cmath>

namespace odemocap {

QuatHingeJoint::QuatHingeJoint(KinematicDriver& driver, const QuatHingeSettings& settings)
    : QuatJoint("QuatHingeJoint") {
  const double length = norm(settings.axis);
  if (!(length > 1e-12) || !std::isfinite(length)) {
    throw PluginError("QuatHingeJoint: axis must be finite and non-zero");
  }
  const Pose frame = detail::creation_frame(settings.body1, settings.in_body1, "QuatHingeJoint");
  const Vec3 axis = rotate(frame.q, settings.axis / length);
  detail::QuatJointSetup setup;
  setup.name = name_;
  setup.kind = detail::QuatJointKind::Hinge;
  setup.body1 = settings.body1;
  setup.body2 = settings.body2;
  setup.anchor = frame.p + rotate(frame.q, settings.anchor);
  // Both constraint frames coincide now, with their x axis on the hinge axis: the error
  // rotation starts at the identity and the hinge angle at 0.
  const Quat axis_frame = from_to({1.0, 0.0, 0.0}, axis);
  setup.frame1 = conj(detail::body_orientation(settings.body1)) * axis_frame;
  setup.frame2 = conj(detail::body_orientation(settings.body2)) * axis_frame;
  setup.lower = settings.lower;
  setup.upper = settings.upper;
  setup.softness = settings.softness;
  core_ = std::make_unique<detail::QuatJointCore>(driver, setup);
}

double QuatHingeJoint::angle() const {
  return core().hinge_angle();
}

double QuatHingeJoint::axis_error() const {
  return detail::swing_angle(core().error_rotation(), {1.0, 0.0, 0.0});
}

} // namespace odemocap
