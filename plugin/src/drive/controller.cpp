#include "drive/controller.hpp"

#include <odemocap/kinematic_driver.hpp>

namespace odemocap::detail {

Controller::Controller(KinematicDriver& driver) : driver_(&driver) {
  driver.add_controller(this);
}

Controller::~Controller() {
  if (driver_ != nullptr) {
    driver_->remove_controller(this);
  }
}

} // namespace odemocap::detail
