#include <odemocap/ode_math.hpp>
#include <odemocap/soft_follower.hpp>
#include <odemocap/velocity.hpp>

#include "character/bounded_motor.hpp"
#include "character/touch.hpp"
#include "describe.hpp"
#include "drive/controller.hpp"
#include "drive/timed_track.hpp"

#include <cmath>
#include <optional>
#include <string>

namespace odemocap {
namespace detail {
namespace {

void check_limits(double max_force, double max_torque, const char* function) {
  if (!(max_force > 0.0) || !(max_torque > 0.0)) {
    throw PluginError(std::string(function) +
                      ": max_force and max_torque must be positive (infinity allowed), got " +
                      describe(max_force) + " and " + describe(max_torque));
  }
}

void check_body(dBodyID body, dWorldID world, const char* what) {
  if (body == nullptr) {
    throw PluginError(std::string("SoftFollower: ") + what + " is null");
  }
  if (dBodyGetWorld(body) != world) {
    throw PluginError(std::string("SoftFollower: ") + what +
                      " belongs to another world than the driver's");
  }
}

/// I x in world coordinates for a body of orientation q and body-frame inertia `inertia`.
Vec3 inertia_times(const Quat& q, const dMass& mass, const Vec3& x) {
  const Vec3 b = rotate(conj(q), x);
  const dReal* i = mass.I;
  const Vec3 ib{i[0] * b.x + i[1] * b.y + i[2] * b.z, i[4] * b.x + i[5] * b.y + i[6] * b.z,
                i[8] * b.x + i[9] * b.y + i[10] * b.z};
  return rotate(q, ib);
}

} // namespace

class FollowerCore final : public Controller {
public:
  FollowerCore(KinematicDriver& driver, dBodyID body, std::optional<TimedTrack> track,
               dBodyID ghost, const FollowSettings& s)
      : Controller(driver), body_(body), ghost_(ghost), track_(std::move(track)), offset_(s.offset),
        max_force_(s.max_force), max_torque_(s.max_torque), press_depth_(s.press_depth) {
    const dWorldID world = driver.world();
    check_body(body, world, "body");
    if (dBodyIsKinematic(body)) {
      throw PluginError("SoftFollower: the body is kinematic; a follower moves a dynamic body "
                        "(KinematicDriver::bind moves kinematic ones)");
    }
    if (!track_) {
      check_body(ghost, world, "ghost");
      if (ghost == body) {
        throw PluginError("SoftFollower: the body cannot follow itself");
      }
    }
    check_limits(max_force_, max_torque_, "SoftFollower");
    if (!(s.press_depth > 0.0)) {
      throw PluginError("SoftFollower: press_depth must be positive (infinity allowed), got " +
                        describe(s.press_depth));
    }
    dBodySetFiniteRotationMode(body, 1);
    dBodySetFiniteRotationAxis(body, 0, 0, 0);
    dBodySetAutoDisableFlag(body, 0);
    dBodyEnable(body);
    linear_ = create_bounded_motor(world, MotorKind::Linear, body, nullptr, &linear_feedback_);
    angular_ = create_bounded_motor(world, MotorKind::Angular, body, nullptr, &angular_feedback_);
    target_ = body_pose(body);
  }

  ~FollowerCore() override { detach(); }

  void update(double time, double h) override {
    if (!attached()) {
      return;
    }
    const double next = time + h;
    if (track_ && track_->released(next)) {
      last_.valid = false;
      set_bounded_rows(linear_, MotorKind::Linear, {}, {}, 0.0);
      set_bounded_rows(angular_, MotorKind::Angular, {}, {}, 0.0);
      return;
    }
    target_ = track_ ? track_->at(next) : ghost_target(h);
    if (solve_failed()) {
      // ODE's LCP solver gave up on the last step ("LCP internal error") and the motors
      // applied nothing: the body fell or drifted for a step. It goes back to where it was
      // before that step, as if the step had not happened, rather than drop what it carries.
      set_body_pose(body_, last_.pose);
      dBodySetLinearVel(body_, last_.v.x, last_.v.y, last_.v.z);
      dBodySetAngularVel(body_, last_.w.x, last_.w.y, last_.w.z);
      ++solver_failures_;
      last_.valid = false;
    }
    if (track_ && track_->timing.at_end == TrackEnd::Loop) {
      // Across the loop's seam the target jumps from the loop's last pose to its first: data,
      // not motion. The body is carried by the jump (as the driver carries a kinematic body),
      // its velocities turned with it, rather than thrown after the target with all its force.
      const double from = loop_cycle(track_->track, track_->timing, time);
      const double to = loop_cycle(track_->track, track_->timing, next);
      if (to != from) {
        ++seams_;
        const Pose jump = seam_jump(track_->track, track_->timing.interp);
        if (to == from + 1.0 && !is_identity(jump)) {
          carry_across(jump, body_);
          keep_velocity_off_capture(jump, time, h);
        }
      }
    } else if (Pose jump; !track_ && seam_jump_of(ghost_, jump)) {
      ++seams_; // the ghost was carried across its loop's seam: the follower goes with it
      carry_across(jump, ghost_);
    }
    flush_tiny_velocities();
    const Pose now = body_pose(body_);
    const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body_));
    const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body_));
    const Vec3 want_v = (target_.p - now.p) / h;
    const Vec3 want_w = angular_velocity(now.q, target_.q, h);
    // The force and torque the step needs to reach those velocities unobstructed: what the
    // motors must add to gravity, the user's forces and (ODE's explicit) gyroscopic torque.
    dMass mass;
    dBodyGetMass(body_, &mass);
    Vec3 gravity;
    if (dBodyGetGravityMode(body_) != 0) {
      dVector3 g;
      dWorldGetGravity(dBodyGetWorld(body_), g);
      gravity = vec3_from_ode(g);
    }
    const Vec3 user_force = vec3_from_ode(dBodyGetForce(body_));
    const Vec3 force = mass.mass * ((want_v - v) / h - gravity) - user_force;
    const std::optional<Touch> noted = note_obstruction(v, mass.mass, gravity);
    Vec3 torque =
        inertia_times(now.q, mass, (want_w - w) / h) - vec3_from_ode(dBodyGetTorque(body_));
    if (dBodyGetGyroscopicMode(body_) != 0) {
      torque = torque + cross(w, inertia_times(now.q, mass, w));
    }
    last_ = {true, now, v, w, user_force, h};
    if (joined_to_others()) {
      last_.valid = false; // no predicted need to tell a failed solve from a satisfied one
      set_isotropic_rows(linear_, MotorKind::Linear, want_v, max_force_);
      set_isotropic_rows(angular_, MotorKind::Angular, want_w, max_torque_);
      return;
    }
    last_demand_ = norm(force);
    // Held back lately by something (a table it is pressed into, an object it squeezes) and
    // heading into it: along the normal of what held it, if nothing the body does moves it
    // (static geometry, or a kinematic body), no further into it this step than k_creep beyond
    // where it was held (moved with the surface) and no deeper than press_depth beyond the
    // contact surface layer, by the depth dCollide finds the body in it now; if the body can move
    // it (an object squeezed), no more than k_creep further than the body moves now (or, once out
    // beyond where it was held, than at rest: a body the contacts threw off stops flying off).
    // Across the normal, on the capture. Should the obstruction let go for a step (ODE's box-box
    // collider finds two contacts or none at a depth of zero), the body moves k_creep into it
    // instead of being thrown in by the whole limit (a 0.4 kg hand pressed with 60 N: 11 mm in one
    // step at 120 Hz). The depth also holds a hand that dWorldQuickStep's unconverged contacts let
    // sink: relative to its own speed, the limit let each such step go k_creep faster into the
    // table (a 0.2 kg hand, 20 iterations: 6 mm deep, and 19 mm on a tilted table).
    Vec3 goal_v = want_v;
    if (held_time_left_ > 0.0) {
      const double out_beyond = dot(held_point_ - now.p, held_normal_);
      double limit = k_creep / h;
      if (held_unyielding_) {
        // The surface moves as it moved when it held the body (a static one not at all).
        limit += dot(held_surface_velocity_, held_normal_) * (held_age_ + h) / h + out_beyond / h;
        // The contact just noted is this surface's (held_normal_ was taken from it).
        const std::optional<Touch> touch = noted ? noted : touching(body_, -held_normal_);
        if (touch && touch->unyielding && dot(touch->normal, -held_normal_) > k_same_surface) {
          // ODE's contacts push a body out only as far as the surface layer: aimed at a depth
          // measured from the surface itself, a follower on a world with a 1 mm layer stopped
          // pressing where the contacts hold it (0.4 kg at 60 N: 26 N instead of 38 N down).
          const double aim =
              dWorldGetContactSurfaceLayer(dBodyGetWorld(body_)) + press_depth_ - touch->depth;
          limit = std::fmin(limit, dot(touch->surface_velocity, held_normal_) + aim / h);
        }
      } else {
        const double v_n = dot(v, held_normal_);
        limit += out_beyond > 0.0 ? std::fmax(v_n, 0.0) : v_n;
      }
      const double excess = dot(want_v, held_normal_) - limit;
      if (excess > 0.0) {
        goal_v = want_v - excess * held_normal_;
      }
    }
    // Pressing into it, the rows are set along and across the normal, so that what they cannot
    // reach across it (a slide held back by friction) does not move the body along it; they
    // keep the limits a lead along the force gives, so held there they push with all of it.
    // Led by the force instead, with the lead's speed cut, the other two rows leaned out of
    // the table with the slide (a 0.2 kg hand sliding at 60 Hz was sent 0.6 m/s up and came
    // back 19 mm into the table), and a hand that lagged its slide saturated every row and fell
    // 7 mm into the table in the step its contacts went missing (dWorldQuickStep).
    const bool pressing = held_time_left_ > 0.0 && dot(force, held_normal_) > 0.0;
    held_time_left_ -= h;
    held_age_ += h;
    if (pressing) {
      set_bounded_rows_across(linear_, MotorKind::Linear, held_normal_, force, goal_v, max_force_);
    } else {
      set_bounded_rows(linear_, MotorKind::Linear, force, goal_v, max_force_);
    }
    set_bounded_rows(angular_, MotorKind::Angular, torque, want_w, max_torque_);
  }

  std::size_t solver_failures() const { return solver_failures_; }
  std::size_t seams() const { return seams_; }

  void set_limits(double max_force, double max_torque) {
    check_limits(max_force, max_torque, "SoftFollower::set_limits");
    max_force_ = max_force;
    max_torque_ = max_torque;
  }

  const Pose& target() const { return target_; }
  dBodyID body() const { return body_; }

  JointFeedback feedback() const {
    JointFeedback out;
    if (attached()) {
      out.force1 = vec3_from_ode(linear_feedback_.f1);
      out.torque1 = vec3_from_ode(angular_feedback_.t1);
    }
    return out;
  }

  bool attached() const {
    // dBodyDestroy detaches the body's joints.
    return linear_ != nullptr && dJointGetBody(linear_, 0) != nullptr;
  }

  void detach() {
    for (dJointID* j : {&linear_, &angular_}) {
      if (*j != nullptr) {
        dJointDestroy(*j);
        *j = nullptr;
      }
    }
  }

private:
  /// The body's state at the last prestep: where a failed step is undone to.
  struct Last {
    bool valid = false;
    Pose pose;
    Vec3 v;
    Vec3 w;
    Vec3 user_force; ///< the user's force on the body then
    double h = 0.0;  ///< the step that followed
  };

  /// How much further into an obstruction the body may move in a step than it moves now (m).
  static constexpr double k_creep = 0.001;

  /// How long an obstruction is remembered (s): a pressed body that the contacts' error
  /// reduction throws off its table flies a step or two before it would be thrown back in.
  static constexpr double k_held_memory = 0.05;

  /// Contact normals closer than this cosine (25 degrees) are of the surface that held the body.
  static constexpr double k_same_surface = 0.9;

  /// When something other than the linear motor, gravity and the user's force at the
  /// prestep (contacts, mostly; forces the user adds after prestep() count too) changed the
  /// body's velocity in the last step by more than 1% of the force limit (of the force that
  /// changes the velocity by 1 m/s in a step, for an unlimited follower), keeps for
  /// k_held_memory seconds the normal of what pushed it: the contact the body's geoms make now
  /// whose normal agrees best with that push. The push itself is no normal: it holds the
  /// surface's friction too, and at rest however the solver split the sideways load between
  /// the motor's rows and the friction (a 0.2 kg hand held still on a table was pushed 41 N
  /// sideways by its rows, and as much back by the friction). Where no contact agrees with the
  /// push now (the contacts' error reduction has lifted the body off), the normal held is
  /// kept, or, when none is held, the push's direction is taken. Returns the contact found.
  std::optional<Touch> note_obstruction(const Vec3& v, double mass, const Vec3& gravity) {
    if (!last_.valid || !(last_.h > 0.0)) {
      return std::nullopt;
    }
    const Vec3 other = mass * (v - last_.v) / last_.h - vec3_from_ode(linear_feedback_.f1) -
                       mass * gravity - last_.user_force;
    const double scale = std::isfinite(max_force_) ? max_force_ : mass / last_.h;
    const double size = norm(other);
    if (!(size > 0.01 * scale)) {
      return std::nullopt;
    }
    const bool holding = held_time_left_ > 0.0;
    Vec3 normal = held_normal_;
    const std::optional<Touch> touch = touching(body_, other);
    if (touch) {
      normal = -touch->normal;
      held_unyielding_ = touch->unyielding;
      held_surface_velocity_ = touch->surface_velocity;
    } else if (!holding) {
      normal = -other / size;
      held_unyielding_ = false;
    }
    held_point_ = last_.pose.p;
    held_age_ = last_.h;
    held_normal_ = normal;
    held_time_left_ = k_held_memory;
    return touch;
  }

  /// Whether the last step's solve failed: the rows demanded a force (the linear one always
  /// does while it holds the body's weight or moves it) and ODE reports none from either motor.
  bool solve_failed() const {
    if (!last_.valid) {
      return false;
    }
    const auto zero = [](const dReal* f) { return f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0; };
    return zero(linear_feedback_.f1) && zero(angular_feedback_.t1) && last_demand_ > 0.0;
  }

  /// A velocity that decays towards rest under the motors reaches denormal numbers (4e-323
  /// rad/s), on which dWorldStep's LCP solver fails with "s <= 0" at every step from then on:
  /// 292 steps lost in one hold of 360, the body fallen 28 m. Below 1e-100 it is rest.
  void flush_tiny_velocities() {
    const auto flush = [](const dReal* v, double out[3]) {
      bool changed = false;
      for (int i = 0; i < 3; ++i) {
        out[i] = v[i];
        if (v[i] != 0.0 && std::fabs(v[i]) < 1e-100) {
          out[i] = 0.0;
          changed = true;
        }
      }
      return changed;
    };
    double v[3];
    if (flush(dBodyGetLinearVel(body_), v)) {
      dBodySetLinearVel(body_, v[0], v[1], v[2]);
    }
    if (flush(dBodyGetAngularVel(body_), v)) {
      dBodySetAngularVel(body_, v[0], v[1], v[2]);
    }
  }

  /// Whether a joint other than contacts and the follower's own motors holds the body: then
  /// the force the step needs depends on the bodies behind that joint (a puppet's root carries
  /// the whole puppet) and cannot be predicted from this body alone. Leading with the
  /// prediction anyway left the puppet's root 3 degrees off with 7% of its limit sideways.
  bool joined_to_others() const {
    const int n = dBodyGetNumJoints(body_);
    for (int i = 0; i < n; ++i) {
      const dJointID j = dBodyGetJoint(body_, i);
      if (j != linear_ && j != angular_ && dJointGetType(j) != dJointTypeContact) {
        return true;
      }
    }
    return false;
  }

  /// Carries the body by a seam's jump (for `by`, the carrier the driver records), and with it
  /// what it holds by a joint or what rests on it (found before it moves).
  /// What held the body back and the step before are in the frame the jump left: both are
  /// forgotten (the velocity change across the seam is the jump's, not an obstruction's).
  void carry_across(const Pose& jump, dBodyID by) {
    held_time_left_ = 0.0;
    last_.valid = false;
    note_carried(body_, by);
    carry_attached(body_, jump);
    carry(body_, jump);
  }

  /// After the carry across a seam: the body's velocities differ from the capture's at the
  /// loop's start by what they differed from the capture's before the seam (turned by the
  /// jump), rather than the end's motion turned, which a loop that is no rigid repeat does
  /// not continue. Unobstructed, the body then leaves the seam on the capture.
  void keep_velocity_off_capture(const Pose& jump, double time, double h) {
    const Track& track = track_->track;
    const BindOptions& timing = track_->timing;
    const double span = timing.playback_rate * h; // track time of one step
    const auto at = [&](double track_time) {
      return compose(track.sample(track_time, timing.interp), timing.offset);
    };
    const Pose before = track_->at(time - h);
    const Pose now = track_->at(time);
    const Pose first = at(track.start_time());
    const Pose second = at(track.start_time() + span);
    const Vec3 dv = (second.p - first.p) / h - rotate(jump.q, (now.p - before.p) / h);
    const Vec3 dw = angular_velocity(first.q, second.q, h) -
                    rotate(jump.q, angular_velocity(before.q, now.q, h));
    const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body_)) + dv;
    const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body_)) + dw;
    dBodySetLinearVel(body_, v.x, v.y, v.z);
    dBodySetAngularVel(body_, w.x, w.y, w.z);
  }

  /// Where the ghost will be after a step of h seconds: ODE moves it by its velocities (a
  /// kinematic body in finite rotation mode exactly so), then the offset.
  Pose ghost_target(double h) const {
    const Pose g = body_pose(ghost_);
    const Pose next{g.p + h * vec3_from_ode(dBodyGetLinearVel(ghost_)),
                    integrate(g.q, vec3_from_ode(dBodyGetAngularVel(ghost_)), h)};
    return compose(next, offset_);
  }

  dBodyID body_;
  dBodyID ghost_;
  std::optional<TimedTrack> track_;
  Pose offset_;
  double max_force_;
  double max_torque_;
  double press_depth_;
  Pose target_;
  dJointID linear_ = nullptr;
  dJointID angular_ = nullptr;
  dJointFeedback linear_feedback_{};
  dJointFeedback angular_feedback_{};
  Last last_;
  Vec3 held_normal_;            ///< into the last obstruction (unit, world)
  Vec3 held_point_;             ///< where the body was when the obstruction last pushed it
  bool held_unyielding_ = false; ///< the obstruction is static or kinematic
  Vec3 held_surface_velocity_;   ///< its surface's velocity where it held the body (m/s)
  double held_age_ = 0.0;        ///< how long ago the body was at held_point_ (s)
  double held_time_left_ = 0.0; ///< how much longer it is remembered (s)
  double last_demand_ = 0.0;    ///< |force| the linear rows were led with in the last step (N)
  std::size_t solver_failures_ = 0;
  std::size_t seams_ = 0;
};

} // namespace detail

namespace {

detail::TimedTrack timed(const Track& track, const FollowSettings& s) {
  if (track.valid_count() == 0) {
    throw PluginError("SoftFollower: track '" + track.name() + "' has no valid sample");
  }
  detail::check_timing(s.offset, s.time_offset, s.playback_rate, "SoftFollower");
  BindOptions timing;
  timing.offset = s.offset;
  timing.time_offset = s.time_offset;
  timing.playback_rate = s.playback_rate;
  timing.at_end = s.at_end;
  timing.interp = s.interp;
  return {track, timing};
}

} // namespace

SoftFollower::SoftFollower(KinematicDriver& driver, dBodyID body, const Track& track,
                           const FollowSettings& settings)
    : core_(std::make_unique<detail::FollowerCore>(driver, body, timed(track, settings), nullptr,
                                                   settings)) {}

SoftFollower::SoftFollower(KinematicDriver& driver, dBodyID body, dBodyID ghost,
                           const FollowSettings& settings)
    : core_(std::make_unique<detail::FollowerCore>(driver, body, std::nullopt, ghost, settings)) {
  detail::check_pose(settings.offset, "SoftFollower");
}

SoftFollower::~SoftFollower() = default;
SoftFollower::SoftFollower(SoftFollower&&) noexcept = default;
SoftFollower& SoftFollower::operator=(SoftFollower&&) noexcept = default;

detail::FollowerCore& SoftFollower::core() const {
  if (!core_) {
    throw PluginError("SoftFollower: used after being moved from");
  }
  return *core_;
}

void SoftFollower::set_limits(double max_force, double max_torque) {
  core().set_limits(max_force, max_torque);
}

Pose SoftFollower::target() const {
  return core().target();
}

double SoftFollower::position_error() const {
  return norm(body_pose(core().body()).p - core().target().p);
}

double SoftFollower::angle_error() const {
  return angle_between(body_pose(core().body()).q, core().target().q);
}

JointFeedback SoftFollower::feedback() const {
  return core().feedback();
}

std::size_t SoftFollower::solver_failures() const {
  return core().solver_failures();
}

std::size_t SoftFollower::seams() const {
  return core().seams();
}

dBodyID SoftFollower::body() const {
  return core().body();
}

void SoftFollower::detach() {
  core().detach();
}

} // namespace odemocap
