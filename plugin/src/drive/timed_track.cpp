#include "drive/timed_track.hpp"
#include "describe.hpp"

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

} // namespace odemocap::detail
