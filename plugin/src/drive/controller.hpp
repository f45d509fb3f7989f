#pragma once
// What KinematicDriver::prestep() updates after it has moved its bindings: the quaternion
// joints, the soft followers and the puppets. A controller registers with its driver for its
// whole life; a driver destroyed first tells it so (driver_gone) and it stops unregistering.

#include <odemocap/pose.hpp>

#include <ode/ode.h>

namespace odemocap {
class KinematicDriver;
} // namespace odemocap

namespace odemocap::detail {

class Controller {
public:
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Sets the rows for a step of h seconds that starts at driver time `time`.
  virtual void update(double time, double h) = 0;
  void driver_gone() { driver_ = nullptr; }
  /// The driver, or null once it is destroyed.
  KinematicDriver* driver() const { return driver_; }
  virtual ~Controller();

protected:
  explicit Controller(KinematicDriver& driver);
  /// A controller that carries a body across a loop's seam itself (a follower, a puppet's
  /// bones) carries the dynamic bodies joined to it or resting on it through the driver (before
  /// the body moves), which carries each body once per prestep (KinematicDriver::carried_by),
  /// and tells it of the bodies it carried on its own, so that they are not carried again.
  void carry_attached(dBodyID body, const Pose& jump);
  void note_carried(dBodyID body, dBodyID by);
  /// Whether the driver carried bound body `bound` across its loop's seam in this prestep,
  /// and by what jump.
  bool seam_jump_of(dBodyID bound, Pose& jump) const;

  KinematicDriver* driver_;
};

} // namespace odemocap::detail
