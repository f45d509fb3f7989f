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

/// The lowest height the foot holds for `hold` seconds: the least, over windows of valid
/// samples spanning `hold`, of the window's highest sample. A stray sample below the floor (a
/// rest-pose frame, a glitch) does not set the ground, as the plain minimum would.
double ground_height(const Track& foot, const Vec3& up, double hold) {
  const auto& valid = foot.valid_indices();
  const auto height = [&](std::size_t i) { return dot(foot.position(valid[i]), up); };
  const auto span = [&](std::size_t a, std::size_t b) {
    return foot.time(valid[b]) - foot.time(valid[a]);
  };
  double ground = INFINITY;
  for (std::size_t k = 0; k < valid.size(); ++k) {
    double highest = height(k);
    std::size_t j = k;
    while (j + 1 < valid.size() && span(k, j) < hold) {
      highest = std::fmax(highest, height(++j));
    }
    if (span(k, j) < hold) {
      break; // what is left of the track is shorter than hold
    }
    ground = std::fmin(ground, highest);
  }
  if (ground == INFINITY) { // the whole track is shorter than hold: its lowest sample
    for (std::size_t i = 0; i < valid.size(); ++i) {
      ground = std::fmin(ground, height(i));
    }
  }
  return ground;
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
  const double ground = ground_height(foot, u, options.min_duration);
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

std::vector<Stance> merge_stances(const std::vector<Stance>& stances, double min_swing) {
  std::vector<Stance> out;
  for (const Stance& s : stances) {
    if (!out.empty() && s.start - out.back().end < min_swing) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
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
