#include "joints/quat_joint_core.hpp"
#include "describe.hpp"

#include <odemocap/ode_math.hpp>

#include <cmath>
#include <string>
#include <utility>

namespace odemocap::detail {
namespace {

constexpr double k_pi = 3.14159265358979323846;
const Vec3 k_x{1.0, 0.0, 0.0};

bool is_unit(const Quat& q) {
  return is_finite(q) && std::fabs(norm(q) - 1.0) <= 1e-6;
}

void check(const QuatJointSetup& s, dWorldID world) {
  const auto fail = [&](const std::string& what) {
    throw PluginError(std::string(s.name) + ": " + what);
  };
  if (s.body1 == nullptr && s.body2 == nullptr) {
    fail("both bodies are null; at least one must be a body");
  }
  if (s.body1 == s.body2) {
    fail("body1 and body2 are the same body");
  }
  for (dBodyID b : {s.body1, s.body2}) {
    if (b != nullptr && dBodyGetWorld(b) != world) {
      fail("a body belongs to another world than the driver's");
    }
  }
  if (!is_finite(s.anchor)) {
    fail("anchor must be finite");
  }
  if (!is_unit(s.frame1) || !is_unit(s.frame2) || !is_unit(s.target)) {
    fail("frames and target must be unit quaternions");
  }
  const JointSoftness& j = s.softness;
  if (j.erp && !(*j.erp >= 0.0 && *j.erp <= 1.0)) {
    fail("softness.erp must be in [0, 1], got " + detail::describe(*j.erp));
  }
  if (j.cfm && !(*j.cfm >= 0.0 && std::isfinite(*j.cfm))) {
    fail("softness.cfm must be finite and >= 0, got " + detail::describe(*j.cfm));
  }
  if (!(j.stiffness >= 0.0 && std::isfinite(j.stiffness)) ||
      !(j.damping >= 0.0 && std::isfinite(j.damping))) {
    fail("softness.stiffness and damping must be finite and >= 0, got " +
         detail::describe(j.stiffness) + " and " + detail::describe(j.damping));
  }
  const bool lower_ok = s.lower == -INFINITY || (s.lower >= -k_pi && s.lower <= k_pi);
  const bool upper_ok = s.upper == INFINITY || (s.upper >= -k_pi && s.upper <= k_pi);
  if (!lower_ok || !upper_ok || !(s.lower <= s.upper)) {
    fail("angle limits must lie in [-pi, pi] (or be infinite) with lower <= upper, got " +
         detail::describe(s.lower) + " and " + detail::describe(s.upper));
  }
}

void set_axis_param(dJointID motor, int axis, int param, double value) {
  dJointSetAMotorParam(motor, param + dParamGroup * axis, value);
}

Vec3 add(const dReal* a, const dReal* b) {
  return vec3_from_ode(a) + vec3_from_ode(b);
}

} // namespace

Quat body_orientation(dBodyID body) {
  return body != nullptr ? quat_from_ode(dBodyGetQuaternion(body)) : Quat{};
}

Pose creation_frame(dBodyID body1, bool in_body1, const char* joint) {
  if (!in_body1) {
    return {};
  }
  if (body1 == nullptr) {
    throw PluginError(std::string(joint) + ": in_body1 needs a body 1 (it is null)");
  }
  return body_pose(body1);
}

QuatJointCore::QuatJointCore(KinematicDriver& driver, const QuatJointSetup& setup)
    : Controller(driver), kind_(setup.kind), name_(setup.name), world_(driver.world()),
      body1_(setup.body1), body2_(setup.body2), frame1_(setup.frame1), frame2_(setup.frame2),
      target_(setup.target), lower_(setup.lower), upper_(setup.upper), softness_(setup.softness) {
  check(setup, world_);
  if (body1_ == nullptr) {
    // ODE reverses joints attached as (0, body); swapping here keeps every row's sign ours:
    // the error rotation becomes its conjugate and hinge angles change sign.
    std::swap(body1_, body2_);
    std::swap(frame1_, frame2_);
    target_ = conj(target_);
    lower_ = -setup.upper;
    upper_ = -setup.lower;
    swapped_ = true;
  }
  limited_ = kind_ == QuatJointKind::Hinge && (std::isfinite(lower_) || std::isfinite(upper_));
  if (setup.ball) {
    ball_ = dJointCreateBall(world_, nullptr);
    dJointAttach(ball_, body1_, body2_);
    dJointSetBallAnchor(ball_, setup.anchor.x, setup.anchor.y, setup.anchor.z);
    dJointSetFeedback(ball_, &ball_feedback_);
    if (softness_.erp) {
      dJointSetBallParam(ball_, dParamERP, *softness_.erp);
    }
    if (softness_.cfm) {
      dJointSetBallParam(ball_, dParamCFM, *softness_.cfm);
    }
  }
  motor_ = dJointCreateAMotor(world_, nullptr);
  dJointAttach(motor_, body1_, body2_);
  dJointSetAMotorMode(motor_, dAMotorUser);
  const int rows = kind_ == QuatJointKind::Lock ? 3 : (limited_ ? 3 : 2);
  dJointSetAMotorNumAxes(motor_, rows);
  // Rows with both stops at 0 are bilateral: ODE turns the stop into an equality whose right
  // hand side is -(ERP/h) * angle, the Baumgarte term of the quaternion constraint.
  for (int i = 0; i < (kind_ == QuatJointKind::Lock ? 3 : 2); ++i) {
    set_axis_param(motor_, i, dParamLoStop, 0.0);
    set_axis_param(motor_, i, dParamHiStop, 0.0);
  }
  dJointSetFeedback(motor_, &motor_feedback_);
}

QuatJointCore::~QuatJointCore() {
  detach();
}

void QuatJointCore::detach() {
  if (ball_ != nullptr) {
    dJointDestroy(ball_);
    ball_ = nullptr;
  }
  if (motor_ != nullptr) {
    dJointDestroy(motor_);
    motor_ = nullptr;
  }
}

bool QuatJointCore::attached() const {
  // dBodyDestroy detaches the joints of the body from both sides; body1_ is never null.
  return motor_ != nullptr && dJointGetBody(motor_, 0) != nullptr;
}

void QuatJointCore::set_target(const Quat& relative) {
  if (!is_unit(relative)) {
    throw PluginError(std::string(name_) + "::set_target: the target must be a unit quaternion");
  }
  follow_track_.reset();
  target_ = swapped_ ? conj(relative) : relative;
}

void QuatJointCore::follow(const Track& track, double time_offset, Interp interp) {
  if (track.valid_count() == 0) {
    throw PluginError(std::string(name_) + "::follow: track '" + track.name() +
                      "' has no valid sample");
  }
  if (!std::isfinite(time_offset)) {
    throw PluginError(std::string(name_) + "::follow: time_offset must be finite");
  }
  follow_track_ = track;
  follow_offset_ = time_offset;
  follow_interp_ = interp;
}

Quat QuatJointCore::error_rotation() const {
  const Quat f = body_orientation(body1_) * frame1_ * target_;
  return detail::error_rotation(f, body_orientation(body2_) * frame2_);
}

double QuatJointCore::hinge_angle() const {
  const Quat q = error_rotation();
  const double theta = 2.0 * std::atan2(q.x, q.w);
  return swapped_ ? -theta : theta;
}

double QuatJointCore::anchor_error() const {
  if (ball_ == nullptr || !attached()) {
    return 0.0;
  }
  dVector3 a1;
  dVector3 a2;
  dJointGetBallAnchor(ball_, a1);
  dJointGetBallAnchor2(ball_, a2);
  return norm(vec3_from_ode(a1) - vec3_from_ode(a2));
}

JointFeedback QuatJointCore::feedback() const {
  JointFeedback f;
  if (!attached()) {
    return f;
  }
  const dJointFeedback& b = ball_feedback_;
  const dJointFeedback& m = motor_feedback_;
  f.force1 = add(b.f1, m.f1);
  f.torque1 = add(b.t1, m.t1);
  f.force2 = add(b.f2, m.f2);
  f.torque2 = add(b.t2, m.t2);
  if (swapped_) {
    std::swap(f.force1, f.force2);
    std::swap(f.torque1, f.torque2);
  }
  return f;
}

void QuatJointCore::apply_softness(double h) {
  double erp = softness_.erp ? *softness_.erp : dWorldGetERP(world_);
  double cfm = softness_.cfm ? *softness_.cfm : dWorldGetCFM(world_);
  if (softness_.stiffness > 0.0 || softness_.damping > 0.0) {
    // The implicit spring-damper of ODE's manual ("How do I make a spring?").
    const double hk = h * softness_.stiffness;
    erp = hk / (hk + softness_.damping);
    cfm = 1.0 / (hk + softness_.damping);
  }
  if (erp == last_erp_ && cfm == last_cfm_) {
    return;
  }
  for (int i = 0; i < dJointGetAMotorNumAxes(motor_); ++i) {
    set_axis_param(motor_, i, dParamStopERP, erp);
    set_axis_param(motor_, i, dParamStopCFM, cfm);
  }
  last_erp_ = erp;
  last_cfm_ = cfm;
}

void QuatJointCore::set_limit_row(const MotorRow& row) {
  // Stops scale with the row like the angle does. Lower first to -inf so that no order of
  // updates is ever refused as lower > upper.
  set_axis_param(motor_, 2, dParamLoStop, -dInfinity);
  set_axis_param(motor_, 2, dParamHiStop, std::isfinite(upper_) ? upper_ / row.scale : dInfinity);
  set_axis_param(motor_, 2, dParamLoStop, std::isfinite(lower_) ? lower_ / row.scale : -dInfinity);
}

void QuatJointCore::update(double time, double h) {
  if (!attached()) {
    return;
  }
  if (follow_track_) {
    const Quat sample =
        follow_track_->sample(time + h + follow_offset_, follow_interp_, OutOfRange::Clamp).q;
    target_ = swapped_ ? conj(sample) : sample;
  }
  apply_softness(h);
  const Quat f = body_orientation(body1_) * frame1_ * target_;
  const Quat q = detail::error_rotation(f, body_orientation(body2_) * frame2_);
  MotorRow rows[3];
  int count = 0;
  if (kind_ == QuatJointKind::Lock) {
    lock_motor_rows(f, q, rows);
    count = 3;
  } else {
    MotorRow swing[2];
    swing_motor_rows(f, q, swing);
    rows[0] = swing[0];
    rows[1] = swing[1];
    count = 2;
    if (limited_) {
      rows[2] = motor_row(twist_row(f, q, k_x), rotate(f, k_x));
      set_limit_row(rows[2]);
      count = 3;
    }
  }
  for (int i = 0; i < count; ++i) {
    const MotorRow& r = rows[i];
    dJointSetAMotorAxis(motor_, i, 0, r.axis.x, r.axis.y, r.axis.z);
    dJointSetAMotorAngle(motor_, i, r.angle);
  }
}

} // namespace odemocap::detail
