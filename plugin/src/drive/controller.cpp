#include "drive/controller.hpp"

#include <odemocap/kinematic_driver.hpp>

namespace odemocap::detail {

Controller::Controller(KinematicDriver& driver) : driver_(&driver) {
  driver.add_controller(this);
}

void Controller::carry_attached(dBodyID body, const Pose& jump) {
  if (driver_ != nullptr) {
    driver_->carry_attached(body, jump);
  }
}

void Controller::note_carried(dBodyID body, dBodyID by) {
  if (driver_ != nullptr) {
    driver_->note_carried(body, by);
  }
}

bool Controller::seam_jump_of(dBodyID bound, Pose& jump) const {
  if (driver_ == nullptr) {
    return false;
  }
  for (const auto& [body, by] : driver_->jumps_) {
    if (body == bound) {
      jump = by;
      return true;
    }
  }
  return false;
}

Controller::~Controller() {
  if (driver_ != nullptr) {
    driver_->remove_controller(this);
  }
}

} // namespace odemocap::detail
