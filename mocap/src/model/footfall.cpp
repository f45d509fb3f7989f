#include <odemocap/error.hpp>
#include <odemocap/footfall.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace odemocap {
namespace {

/// The length of v across the unit `up`: along the ground.
double across(const Vec3& v, const Vec3& up) {
  return norm(v - dot(v, up) * up);
}

void check(const FootfallOptions& o) {
  const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (!positive(o.speed_on) || !positive(o.speed_off) || !positive(o.height_on) ||
      !positive(o.height_off) || !(o.min_duration >= 0.0) || !positive(o.metres_per_unit)) {
    throw MocapError("detect_stances: thresholds, min_duration and metres_per_unit must be "
                     "finite and positive");
  }
  if (!(o.speed_on < o.speed_off) || !(o.height_on < o.height_off)) {
    throw MocapError("detect_stances: the 'on' thresholds must be below the 'off' ones");
  }
}

} // namespace

std::vector<Stance> detect_stances(const Track& foot, Axis up, const FootfallOptions& options) {
  check(options);
  std::vector<Stance> out;
  const auto& valid = foot.valid_indices();
  if (valid.size() < 2) {
    return out;
  }
  const Vec3 u = axis_vector(up);
  double ground = INFINITY;
  for (std::size_t i : valid) {
    ground = std::fmin(ground, dot(foot.position(i), u));
  }
  const double to_m = options.metres_per_unit;
  bool planted = false;
  Stance current;
  const auto close = [&](double end) {
    current.end = end;
    if (current.end - current.start >= options.min_duration) {
      out.push_back(current);
    }
    planted = false;
  };
  for (std::size_t k = 1; k < valid.size(); ++k) {
    const std::size_t a = valid[k - 1];
    const std::size_t b = valid[k];
    const double dt = foot.time(b) - foot.time(a);
    if (b != a + 1) { // a gap: whatever was going on ended with the data
      if (planted) {
        close(foot.time(a));
      }
      continue;
    }
    // Speed over the interval, height at its end, both in metres.
    const double speed = across(foot.position(b) - foot.position(a), u) / dt * to_m;
    const double lift = (dot(foot.position(b), u) - ground) * to_m;
    if (!planted && speed < options.speed_on && lift < options.height_on) {
      planted = true;
      current.start = foot.time(a);
    } else if (planted && (speed > options.speed_off || lift > options.height_off)) {
      close(foot.time(a));
    }
  }
  if (planted) {
    close(foot.time(valid.back()));
  }
  return out;
}

std::vector<std::string> foot_tracks(const Capture& capture) {
  std::vector<std::string> out;
  for (const Track& t : capture.tracks()) {
    std::string name = t.name();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* word : {"foot", "ankle", "heel", "toe"}) {
      if (name.find(word) != std::string::npos) {
        out.push_back(t.name());
        break;
      }
    }
  }
  return out;
}

} // namespace odemocap
