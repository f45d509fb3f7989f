#include <odemocap/quat_joint.hpp>

#include "joints/quat_joint_core.hpp"

#include <string>

namespace odemocap {

QuatJoint::QuatJoint(const char* name) : name_(name) {}
QuatJoint::~QuatJoint() = default;
QuatJoint::QuatJoint(QuatJoint&&) noexcept = default;
QuatJoint& QuatJoint::operator=(QuatJoint&&) noexcept = default;

detail::QuatJointCore& QuatJoint::core() const {
  if (!core_) {
    throw PluginError(std::string(name_) + ": the joint was moved from");
  }
  return *core_;
}

double QuatJoint::anchor_error() const {
  return core().anchor_error();
}
JointFeedback QuatJoint::feedback() const {
  return core().feedback();
}
void QuatJoint::detach() {
  core().detach();
}
bool QuatJoint::attached() const {
  return core_ && core_->attached();
}
dJointID QuatJoint::ball() const {
  return core().ball();
}
dJointID QuatJoint::motor() const {
  return core().motor();
}

} // namespace odemocap
