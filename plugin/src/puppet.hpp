#pragma once
// The joints of a soft character: for each bone with a parent, a ball joint at the bone's
// joint and a bounded angular servo (bounded_motor.hpp) whose target each step is the relative
// angular velocity that takes the bone's orientation relative to its parent to the captured
// one, the geodesic way (angular_velocity of the relative orientations).

#include <odemocap/character.hpp>

#include "controller.hpp"

#include <ode/ode.h>

#include <vector>

namespace odemocap::detail {

class PuppetCore final : public Controller {
public:
  /// Creates the joints between the bones of `character` (placed on their start poses).
  PuppetCore(KinematicDriver& driver, const Character& character, const PuppetSettings& settings);
  ~PuppetCore() override;

  void update(double time, double h) override;
  dJointID ball(std::size_t bone) const;
  double servo_torque(std::size_t bone) const;

private:
  struct Servo {
    std::size_t bone = 0;
    std::size_t parent = 0;
    double max_torque = 0.0;
    dJointID ball = nullptr;
    dJointID motor = nullptr;
    dJointFeedback feedback{};
  };

  const Character& character_;
  std::vector<Servo> servos_;
  std::vector<int> servo_of_; ///< by bone, -1 for roots
  std::vector<Quat> targets_; ///< by bone, this step's
};

} // namespace odemocap::detail
