#include "character/puppet.hpp"
#include "character/bounded_motor.hpp"
#include "drive/timed_track.hpp"

#include <odemocap/ode_math.hpp>
#include <odemocap/velocity.hpp>

namespace odemocap::detail {

PuppetCore::PuppetCore(KinematicDriver& driver, const Character& character,
                       const PuppetSettings& settings,
                       const std::vector<std::shared_ptr<const Track>>& tracks)
    : Controller(driver), character_(character), tracks_(tracks), timing_(settings.timing),
      max_joint_speed_(settings.max_joint_speed) {
  const auto& bones = character.bones();
  root_of_.resize(bones.size());
  for (std::size_t i = 0; i < bones.size(); ++i) {
    std::size_t r = i;
    while (bones[r].parent >= 0) { // a tree: this ends at its root
      r = static_cast<std::size_t>(bones[r].parent);
    }
    root_of_[i] = r;
  }
  const dWorldID world = driver.world();
  servo_of_.assign(bones.size(), -1);
  targets_.resize(bones.size());
  servos_.reserve(bones.size()); // feedback addresses are given to ODE: no reallocation
  for (std::size_t i = 0; i < bones.size(); ++i) {
    const Bone& bone = bones[i];
    if (bone.parent < 0) {
      continue;
    }
    dBodyID finite[2] = {bone.body, bones[static_cast<std::size_t>(bone.parent)].body};
    for (dBodyID b : finite) {
      dBodySetFiniteRotationMode(b, 1);
      dBodySetFiniteRotationAxis(b, 0, 0, 0);
      dBodySetAutoDisableFlag(b, 0);
    }
    Servo& s = servos_.emplace_back();
    s.bone = i;
    s.parent = static_cast<std::size_t>(bone.parent);
    const auto over = settings.bone_max_torque.find(bone.name);
    s.max_torque = over != settings.bone_max_torque.end() ? over->second : settings.max_torque;
    // The joint is where the bone's track is: its body origin less the bone's offset.
    const Pose joint = character.target(i, 0.0);
    const Vec3 anchor = joint.p - rotate(joint.q, bone.offset.p);
    s.ball = dJointCreateBall(world, nullptr);
    dJointAttach(s.ball, bone.body, finite[1]);
    dJointSetBallAnchor(s.ball, anchor.x, anchor.y, anchor.z);
    s.motor = create_bounded_motor(world, MotorKind::Angular, bone.body, finite[1], &s.feedback);
    servo_of_[i] = static_cast<int>(servos_.size() - 1);
  }
}

PuppetCore::~PuppetCore() {
  for (Servo& s : servos_) {
    dJointDestroy(s.ball);
    dJointDestroy(s.motor);
  }
}

void PuppetCore::carry_across_seams(double time, double h) {
  if (timing_.at_end != TrackEnd::Loop) {
    return;
  }
  const auto& bones = character_.bones();
  for (std::size_t r = 0; r < bones.size(); ++r) {
    if (bones[r].parent >= 0 || !tracks_[r]) {
      continue;
    }
    const Track& track = *tracks_[r];
    if (loop_cycle(track, timing_, time + h) != loop_cycle(track, timing_, time) + 1.0) {
      continue;
    }
    // Each by its own track's jump: what the end's poses were to the start's. The capture's
    // poses at both ends are whole skeletons, so the joints stay closed, and each bone lands
    // on its start pose (where the root's jump alone would leave the limbs in the end's pose
    // for the servos to swing them across). A kinematic root's driver has carried the bones
    // joined to it by the root's jump already: they get the rest of their own.
    const Pose undo_root = inverse(seam_jump(track, timing_.interp));
    for (std::size_t b = 0; b < bones.size(); ++b) {
      if (b == r || root_of_[b] != r || !tracks_[b]) {
        continue;
      }
      const Pose own = seam_jump(*tracks_[b], timing_.interp);
      const bool by_root =
          driver() != nullptr && driver()->carried_by(bones[b].body) == bones[r].body;
      carry(bones[b].body, by_root ? compose(own, undo_root) : own);
      if (!by_root) {
        note_carried(bones[b].body, bones[r].body); // a soft root's follower must not again
      }
    }
  }
}

void PuppetCore::update(double time, double h) {
  carry_across_seams(time, h);
  const auto& bones = character_.bones();
  for (std::size_t i = 0; i < bones.size(); ++i) {
    targets_[i] = character_.target(i, time + h).q;
  }
  for (Servo& s : servos_) {
    const dBodyID child = bones[s.bone].body;
    const dBodyID parent = bones[s.parent].body;
    const Quat qp = quat_from_ode(dBodyGetQuaternion(parent));
    const Quat qc = quat_from_ode(dBodyGetQuaternion(child));
    // With q_child = q_parent r, the child turns relative to the parent at
    // w_child - w_parent = rotate(q_parent, w_r), w_r the rate of r in the parent's frame.
    const Quat now = conj(qp) * qc;
    const Quat want = conj(targets_[s.parent]) * targets_[s.bone];
    Vec3 want_w = rotate(qp, angular_velocity(now, want, h));
    // No faster than max_joint_speed: a capture whose bone flips (CMU's thumbs turn 175
    // degrees in one frame and stay) would otherwise be followed at 750 rad/s, and the whip
    // opened its joint by 29 mm. Such steps are counted.
    const double rate = norm(want_w);
    if (rate > max_joint_speed_) {
      want_w = want_w * (max_joint_speed_ / rate);
      ++s.rate_limited;
    }
    set_isotropic_rows(s.motor, MotorKind::Angular, want_w, s.max_torque);
  }
}

dJointID PuppetCore::ball(std::size_t bone) const {
  return bone < servo_of_.size() && servo_of_[bone] >= 0
             ? servos_[static_cast<std::size_t>(servo_of_[bone])].ball
             : nullptr;
}

std::size_t PuppetCore::rate_limited_steps(std::size_t bone) const {
  return bone < servo_of_.size() && servo_of_[bone] >= 0
             ? servos_[static_cast<std::size_t>(servo_of_[bone])].rate_limited
             : 0;
}

double PuppetCore::servo_torque(std::size_t bone) const {
  if (bone >= servo_of_.size() || servo_of_[bone] < 0) {
    return 0.0;
  }
  return norm(vec3_from_ode(servos_[static_cast<std::size_t>(servo_of_[bone])].feedback.t1));
}

} // namespace odemocap::detail
