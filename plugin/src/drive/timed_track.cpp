#include "drive/timed_track.hpp"
#include "describe.hpp"

#include <odemocap/ode_math.hpp>

namespace odemocap::detail {

void check_pose(const Pose& offset, const char* function) {
  if (!is_finite(offset.p) || !(std::fabs(norm(offset.q) - 1.0) <= 1e-6)) {
    throw PluginError(std::string(function) +
                      ": offset must have a finite position and a unit quaternion");
  }
}

void check_timing(const Pose& offset, double time_offset, double playback_rate,
                  const char* function) {
  const auto fail = [&](const std::string& what) {
    throw PluginError(std::string(function) + ": " + what);
  };
  if (!(playback_rate > 0.0) || !std::isfinite(playback_rate)) {
    fail("playback_rate must be finite and positive, got " + describe(playback_rate));
  }
  if (!std::isfinite(time_offset)) {
    fail("time_offset must be finite, got " + describe(time_offset));
  }
  check_pose(offset, function);
}

void carry(dBodyID body, const Pose& jump) {
  if (is_identity(jump)) {
    return;
  }
  set_body_pose(body, compose(jump, body_pose(body)));
  const Vec3 v = rotate(jump.q, vec3_from_ode(dBodyGetLinearVel(body)));
  const Vec3 w = rotate(jump.q, vec3_from_ode(dBodyGetAngularVel(body)));
  dBodySetLinearVel(body, v.x, v.y, v.z);
  dBodySetAngularVel(body, w.x, w.y, w.z);
}

} // namespace odemocap::detail
