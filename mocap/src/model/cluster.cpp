#include <odemocap/cluster.hpp>

#include "checks.hpp"
#include "formats/text_scanner.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace odemocap {
namespace {

/// Eigenvector of the largest eigenvalue of a symmetric 4x4 matrix, by cyclic Jacobi
/// rotations (converges quadratically; a 4x4 needs a handful of sweeps).
Quat dominant_eigenvector(double a[4][4]) {
  double v[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0;
    double scale = 0.0;
    for (int i = 0; i < 4; ++i) {
      scale += a[i][i] * a[i][i];
      for (int j = i + 1; j < 4; ++j) {
        off += a[i][j] * a[i][j];
      }
    }
    if (off <= 1e-32 * scale || off == 0.0) {
      break;
    }
    for (int p = 0; p < 3; ++p) {
      for (int q = p + 1; q < 4; ++q) {
        if (a[p][q] == 0.0) {
          continue;
        }
        // Rotation angle that zeroes a[p][q] (Golub & Van Loan, symmetric Schur 2x2).
        const double tau = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = (tau >= 0 ? 1.0 : -1.0) / (std::fabs(tau) + std::sqrt(1.0 + tau * tau));
        const double c = 1.0 / std::sqrt(1.0 + t * t);
        const double s = t * c;
        for (int k = 0; k < 4; ++k) {
          const double akp = a[k][p];
          const double akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) {
          const double apk = a[p][k];
          const double aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 4; ++k) {
          const double vkp = v[k][p];
          const double vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  int best = 0;
  for (int i = 1; i < 4; ++i) {
    if (a[i][i] > a[best][best]) {
      best = i;
    }
  }
  Quat q{v[0][best], v[1][best], v[2][best], v[3][best]};
  q = q * (1.0 / norm(q));
  return q.w < 0 ? -q : q;
}

/// Horn's symmetric matrix N of S (s[i][j] = sum a_i b_j), whose dominant eigenvector is the
/// rotation taking the a's onto the b's.
Quat horn(const double s[3][3]) {
  const double xx = s[0][0], xy = s[0][1], xz = s[0][2];
  const double yx = s[1][0], yy = s[1][1], yz = s[1][2];
  const double zx = s[2][0], zy = s[2][1], zz = s[2][2];
  double n[4][4] = {{xx + yy + zz, yz - zy, zx - xz, xy - yx},
                    {yz - zy, xx - yy - zz, xy + yx, zx + xz},
                    {zx - xz, xy + yx, -xx + yy - zz, yz + zy},
                    {xy - yx, zx + xz, yz + zy, -xx - yy + zz}};
  return dominant_eigenvector(n);
}

} // namespace

Quat best_rotation(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  if (a.size() != b.size() || a.empty()) {
    throw MocapError("best_rotation: needs two point sets of the same non-zero size, got " +
                     std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  double s[3][3] = {};
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!is_finite(a[i]) || !is_finite(b[i])) {
      throw MocapError("best_rotation: point " + std::to_string(i) + " is not finite");
    }
    const double av[3] = {a[i].x, a[i].y, a[i].z};
    const double bv[3] = {b[i].x, b[i].y, b[i].z};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        s[r][c] += av[r] * bv[c];
      }
    }
  }
  return horn(s);
}

Quat nearest_rotation(const Mat3& m, double tolerance) {
  double worst = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (!std::isfinite(m.m[i][j])) {
        throw MocapError("nearest_rotation: the matrix is not finite");
      }
      double d = 0.0;
      for (int k = 0; k < 3; ++k) {
        d += m.m[i][k] * m.m[j][k];
      }
      worst = std::fmax(worst, std::fabs(d - (i == j ? 1.0 : 0.0)));
    }
  }
  const double det = m.m[0][0] * (m.m[1][1] * m.m[2][2] - m.m[1][2] * m.m[2][1]) -
                     m.m[0][1] * (m.m[1][0] * m.m[2][2] - m.m[1][2] * m.m[2][0]) +
                     m.m[0][2] * (m.m[1][0] * m.m[2][1] - m.m[1][1] * m.m[2][0]);
  if (worst > tolerance || !(det > 0.0)) {
    throw MocapError("nearest_rotation: not a rotation matrix (|m m^T - I| up to " +
                     detail::describe(worst) + ", det " + detail::describe(det) + ")");
  }
  // a_j = e_j and b_j = m e_j (column j): s[r][c] = sum_j e_j[r] m[c][j] = m[c][r].
  double s[3][3];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      s[r][c] = m.m[c][r];
    }
  }
  return horn(s);
}

ClusterFit fit_cluster(const Capture& capture, const ClusterOptions& options) {
  const std::string who = "fit_cluster('" + options.name + "'): ";
  if (options.markers.size() < 3) {
    throw MocapError(who + "needs at least 3 markers, got " +
                     std::to_string(options.markers.size()));
  }
  if (!(options.max_rms > 0.0)) {
    throw MocapError(who + "max_rms must be positive");
  }
  std::vector<const Track*> tracks;
  for (const std::string& name : options.markers) {
    tracks.push_back(&capture.track(name)); // throws, listing the names there are
  }
  const Track& first = *tracks.front();
  for (const Track* t : tracks) {
    if (t->times() != first.times()) {
      throw MocapError(who + "marker '" + t->name() + "' does not share the time base of '" +
                       first.name() + "'");
    }
  }
  const std::size_t n = first.size();
  const auto all_valid = [&](std::size_t i) {
    for (const Track* t : tracks) {
      if (!t->valid(i)) {
        return false;
      }
    }
    return true;
  };
  ClusterFit fit;
  if (options.reference_sample) {
    fit.reference_sample = *options.reference_sample;
    if (fit.reference_sample >= n || !all_valid(fit.reference_sample)) {
      throw MocapError(who + "reference sample " + std::to_string(fit.reference_sample) +
                       " is out of range or has a marker gap");
    }
  } else {
    fit.reference_sample = n;
    for (std::size_t i = 0; i < n && fit.reference_sample == n; ++i) {
      fit.reference_sample = all_valid(i) ? i : n;
    }
    if (fit.reference_sample == n) {
      throw MocapError(who + "no sample has every marker valid; give a reference sample");
    }
  }
  Vec3 centroid;
  for (const Track* t : tracks) {
    centroid += t->position(fit.reference_sample);
  }
  centroid = centroid / static_cast<double>(tracks.size());
  for (const Track* t : tracks) {
    fit.layout.push_back(t->position(fit.reference_sample) - centroid);
  }
  // A layout without spread across two directions leaves the rotation about its line free.
  double spread[3][3] = {};
  for (const Vec3& p : fit.layout) {
    const double v[3] = {p.x, p.y, p.z};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        spread[r][c] += v[r] * v[c];
      }
    }
  }
  const double trace = spread[0][0] + spread[1][1] + spread[2][2];
  const double second = spread[0][0] * spread[1][1] + spread[1][1] * spread[2][2] +
                        spread[0][0] * spread[2][2] - spread[0][1] * spread[0][1] -
                        spread[1][2] * spread[1][2] - spread[0][2] * spread[0][2];
  if (!(second > 1e-10 * trace * trace)) {
    throw MocapError(who + "the markers are collinear in the reference sample");
  }

  fit.track = Track(options.name);
  fit.rms.assign(n, std::numeric_limits<double>::quiet_NaN());
  std::vector<Vec3> a;
  std::vector<Vec3> b;
  for (std::size_t i = 0; i < n; ++i) {
    a.clear();
    b.clear();
    Vec3 ca;
    Vec3 cb;
    for (std::size_t m = 0; m < tracks.size(); ++m) {
      if (tracks[m]->valid(i)) {
        a.push_back(fit.layout[m]);
        b.push_back(tracks[m]->position(i));
        ca += a.back();
        cb += b.back();
      }
    }
    if (a.size() < 3) {
      fit.track.append_gap(first.time(i));
      continue;
    }
    ca = ca / static_cast<double>(a.size());
    cb = cb / static_cast<double>(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      a[k] -= ca;
      b[k] -= cb;
    }
    const Quat q = best_rotation(a, b);
    // Body origin (layout origin) maps to cb - R ca.
    const Vec3 origin = cb - rotate(q, ca);
    double sum = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const Vec3 d = rotate(q, a[k]) - b[k];
      sum += dot(d, d);
    }
    fit.rms[i] = std::sqrt(sum / static_cast<double>(a.size()));
    if (fit.rms[i] > options.max_rms) {
      fit.flagged.push_back(i);
    }
    fit.track.append(first.time(i), {origin, q});
  }
  fit.track.make_continuous();
  return fit;
}

std::vector<ClusterOptions> parse_cluster_definitions(std::string_view text,
                                                      std::string_view source) {
  using detail::trim;
  std::vector<ClusterOptions> out;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') {
      continue;
    }
    const std::size_t equals = line.find('=');
    const auto fail = [&](std::size_t column, const std::string& message) {
      throw LoadError(std::string(source), line_number, column, message);
    };
    if (equals == std::string_view::npos) {
      fail(1, "expected NAME = MARKER, MARKER, MARKER");
    }
    ClusterOptions cluster;
    cluster.name = std::string(trim(line.substr(0, equals)));
    if (cluster.name.empty()) {
      fail(1, "the cluster has no name before '='");
    }
    for (const ClusterOptions& c : out) {
      if (c.name == cluster.name) {
        fail(1, "cluster '" + cluster.name + "' is defined twice");
      }
    }
    std::size_t start = equals + 1;
    for (;;) {
      const std::size_t comma = line.find(',', start);
      const std::string_view marker =
          trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
      if (marker.empty()) {
        fail(start + 1, "empty marker name");
      }
      cluster.markers.emplace_back(marker);
      if (comma == std::string_view::npos) {
        break;
      }
      start = comma + 1;
    }
    if (cluster.markers.size() < 3) {
      fail(equals + 2, "cluster '" + cluster.name + "' names " +
                           std::to_string(cluster.markers.size()) +
                           " marker(s); a rigid body needs at least 3");
    }
    out.push_back(std::move(cluster));
  }
  return out;
}

} // namespace odemocap
