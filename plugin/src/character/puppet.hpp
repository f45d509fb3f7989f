#pragma once
// The joints of a soft character: for each bone with a parent, a ball joint at the bone's
// joint and a bounded angular servo (bounded_motor.hpp) whose target each step is the relative
// angular velocity that takes the bone's orientation relative to its parent to the captured
// one, the geodesic way (angular_velocity of the relative orientations). Its rows have equal
// limits (isotropic): the torque a relative acceleration needs depends on everything attached
// on both sides, so no lead direction can be predicted as for a single follower; leading with
// the velocity change left the CMU hop's right leg 15 degrees behind with its servo far from
// its limit.

#include <odemocap/character.hpp>

#include "drive/controller.hpp"

#include <ode/ode.h>

#include <memory>
#include <vector>

namespace odemocap::detail {

class PuppetCore final : public Controller {
public:
  /// Creates the joints between the bones of `character` (placed on their start poses);
  /// `tracks` are the bones' tracks, which settings.timing plays, held by the character (which
  /// outlives its puppet).
  PuppetCore(KinematicDriver& driver, const Character& character, const PuppetSettings& settings,
             const std::vector<std::shared_ptr<const Track>>& tracks);
  ~PuppetCore() override;

  void update(double time, double h) override;
  dJointID ball(std::size_t bone) const;
  double servo_torque(std::size_t bone) const;
  std::size_t rate_limited_steps(std::size_t bone) const;

private:
  struct Servo {
    std::size_t bone = 0;
    std::size_t parent = 0;
    double max_torque = 0.0;
    dJointID ball = nullptr;
    dJointID motor = nullptr;
    dJointFeedback feedback{};
    std::size_t rate_limited = 0; ///< steps that asked more than max_angular_speed
  };

  /// Across a looping root's seam the root is carried by the jump from its track's last pose
  /// to its first (by the driver, or by its soft follower): its descendants, dynamic, are
  /// carried too, each by its own track's jump, so no joint opens by the jump's length.
  void carry_across_seams(double time, double h);

  const Character& character_;
  const std::vector<std::shared_ptr<const Track>>& tracks_; ///< by bone, the character's
  BindOptions timing_;
  std::vector<std::size_t> root_of_; ///< by bone: its root bone (itself for a root)
  double max_joint_speed_;
  std::vector<Servo> servos_;
  std::vector<int> servo_of_; ///< by bone, -1 for roots
  std::vector<Quat> targets_; ///< by bone, this step's
};

} // namespace odemocap::detail
