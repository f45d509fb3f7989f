#include "collision/nearest.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace odemocap::detail {

Vec3 nearest_on_segment(const Vec3& a, const Vec3& b, const Vec3& p, double& along) {
  const Vec3 d = b - a;
  const double dd = dot(d, d);
  along = dd > 0.0 ? std::clamp(dot(p - a, d) / dd, 0.0, 1.0) : 0.0;
  return a + along * d;
}

Vec3 nearest_to_core(const Core& core, const Vec3& a, const Vec3& b, double& along,
                     Vec3& core_point) {
  const Vec3 d = b - a;
  const double hint = std::clamp(along, 0.0, 1.0);
  if (core.kind == dSphereClass) {
    core_point = {};
    return nearest_on_segment(a, b, {}, along);
  }
  if (core.kind == dCapsuleClass) {
    // Two segments, a + u d and the axis c + v e from c = (0, 0, -l) to (0, 0, l): Ericson,
    // Real-Time Collision Detection, 5.1.9.
    const Vec3 c{0.0, 0.0, -core.half_length};
    const Vec3 e{0.0, 0.0, 2.0 * core.half_length};
    const Vec3 r = a - c;
    const double dd = dot(d, d);
    const double ee = dot(e, e);
    const double f = dot(e, r);
    double u = 0.0;
    double v = 0.0;
    if (dd <= 0.0) {
      v = ee > 0.0 ? std::clamp(f / ee, 0.0, 1.0) : 0.0;
    } else {
      const double cr = dot(d, r);
      if (ee <= 0.0) {
        u = std::clamp(-cr / dd, 0.0, 1.0);
      } else {
        const double de = dot(d, e);
        const double denom = dd * ee - de * de;
        // Parallel: every point of the overlap is nearest; the hint's, where it falls in it.
        u = denom > 1e-12 * dd * ee ? std::clamp((de * f - cr * ee) / denom, 0.0, 1.0) : hint;
        v = (de * u + f) / ee;
        if (v < 0.0) {
          v = 0.0;
          u = std::clamp(-cr / dd, 0.0, 1.0);
        } else if (v > 1.0) {
          v = 1.0;
          u = std::clamp((de - cr) / dd, 0.0, 1.0);
        }
      }
    }
    along = u;
    core_point = c + v * e;
    return a + u * d;
  }
  // A box: the squared distance from a + u d to the box is convex and, between the instants
  // the segment crosses the faces' planes, a quadratic in u: the least of each piece's least.
  const Vec3 h = core.half;
  std::array<double, 8> breaks{};
  int count = 0;
  breaks[static_cast<std::size_t>(count++)] = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double di = (&d.x)[i];
    if (di == 0.0) {
      continue;
    }
    for (const double plane : {-(&h.x)[i], (&h.x)[i]}) {
      const double u = (plane - (&a.x)[i]) / di;
      if (u > 0.0 && u < 1.0) {
        // Into its place among the sorted ones (at most eight).
        int k = count++;
        for (; k > 0 && breaks[static_cast<std::size_t>(k - 1)] > u; --k) {
          breaks[static_cast<std::size_t>(k)] = breaks[static_cast<std::size_t>(k - 1)];
        }
        breaks[static_cast<std::size_t>(k)] = u;
      }
    }
  }
  breaks[static_cast<std::size_t>(count++)] = 1.0;
  double best = INFINITY;
  along = 0.0;
  for (int k = 0; k + 1 < count; ++k) {
    const double u0 = breaks[static_cast<std::size_t>(k)];
    const double u1 = breaks[static_cast<std::size_t>(k + 1)];
    const double middle = 0.5 * (u0 + u1);
    double qa = 0.0, qb = 0.0, qc = 0.0; // qa u^2 + qb u + qc on [u0, u1]
    for (int i = 0; i < 3; ++i) {
      const double ai = (&a.x)[i];
      const double di = (&d.x)[i];
      const double hi = (&h.x)[i];
      const double x = ai + middle * di;
      if (x > hi || x < -hi) {
        const double off = ai - (x > hi ? hi : -hi);
        qa += di * di;
        qb += 2.0 * di * off;
        qc += off * off;
      }
    }
    // A piece along which the distance does not change (parallel to a face, or inside the
    // box): its point nearest the hint.
    const double u = qa > 0.0 ? std::clamp(-qb / (2.0 * qa), u0, u1) : std::clamp(hint, u0, u1);
    const double value = (qa * u + qb) * u + qc;
    if (value < best || (value == best && std::fabs(u - hint) < std::fabs(along - hint))) {
      best = value;
      along = u;
    }
  }
  const Vec3 p = a + along * d;
  core_point = {std::clamp(p.x, -h.x, h.x), std::clamp(p.y, -h.y, h.y), std::clamp(p.z, -h.z, h.z)};
  return p;
}

} // namespace odemocap::detail
