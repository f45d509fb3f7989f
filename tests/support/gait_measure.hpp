#pragma once
// Foot sliding measured without the library's own stance detection: a foot joint stands when it
// is within 2 cm of its ground and moves slower than 0.4 m/s (central difference over 1/60 s
// either side, as the captures' frame-to-frame jitter would break stances up); a stance is a
// run of such frames;
// its slide is the horizontal spread of the joint's positions over the run (the largest
// distance between two of them). The blend's tests hold the blend to the captures it comes from
// with this measure, so it must not share code or thresholds with detect_stances.

#include <odemocap/vec3.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace odemocap::test {

/// One joint's path at a fixed frame rate, z up (metres).
struct JointPath {
  std::vector<Vec3> p;
};

struct GaitFigures {
  double mean_slide = 0.0; ///< m, over stances
  double max_slide = 0.0;  ///< m
  std::size_t stances = 0;
  double deepest = 0.0; ///< m, the furthest below its ground any sample goes (0 if none)
};

constexpr double k_stand_height = 0.02; // m above the joint's ground
constexpr double k_stand_speed = 0.4;   // m/s

/// The lowest height of a path (its ground when no other is given).
inline double lowest(const JointPath& path) {
  double low = std::numeric_limits<double>::infinity();
  for (const Vec3& p : path.p) {
    low = std::min(low, p.z);
  }
  return low;
}

/// Adds the stances of one joint's path (frame time dt, ground height `ground`) to the figures'
/// running sums; call finish() after the last joint. Stances touching the path's ends are
/// dropped: they may be cut short.
class GaitMeter {
public:
  void add(const JointPath& path, double dt, double ground) {
    const std::size_t n = path.p.size();
    const auto w = static_cast<std::size_t>(std::max(1.0, std::round(1.0 / (60.0 * dt))));
    std::size_t start = 0;
    bool standing = false;
    for (std::size_t k = w; k + w < n; ++k) {
      const double speed = norm(path.p[k + w] - path.p[k - w]) / (2.0 * static_cast<double>(w) * dt);
      const bool stands = path.p[k].z - ground <= k_stand_height && speed < k_stand_speed;
      figures_.deepest = std::max(figures_.deepest, ground - path.p[k].z);
      if (stands && !standing) {
        start = k;
      }
      if (!stands && standing && start > w) {
        record(path, start, k);
      }
      standing = stands;
    }
  }
  GaitFigures finish() const {
    GaitFigures out = figures_;
    out.mean_slide = out.stances > 0 ? sum_ / static_cast<double>(out.stances) : 0.0;
    return out;
  }

private:
  void record(const JointPath& path, std::size_t first, std::size_t end) {
    double spread = 0.0;
    for (std::size_t i = first; i < end; ++i) {
      for (std::size_t j = i + 1; j < end; ++j) {
        const Vec3 d = path.p[j] - path.p[i];
        spread = std::max(spread, std::hypot(d.x, d.y));
      }
    }
    sum_ += spread;
    figures_.max_slide = std::max(figures_.max_slide, spread);
    ++figures_.stances;
  }

  GaitFigures figures_;
  double sum_ = 0.0;
};

} // namespace odemocap::test
