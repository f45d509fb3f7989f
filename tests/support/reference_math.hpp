#pragma once
// Reference math for tests, written independently of the library: rotation matrices from
// Rodrigues' formula, matrix products, and comparisons that accept q or -q.

#include <odemocap/quat.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

namespace odemocap::test {

inline constexpr double k_pi = 3.14159265358979323846;

struct Matrix {
  double m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
};

/// Rotation about unit `axis` by `angle`: R = I + sin(a) K + (1 - cos(a)) K^2.
inline Matrix rodrigues(const Vec3& axis, double angle) {
  const double k[3][3] = {{0, -axis.z, axis.y}, {axis.z, 0, -axis.x}, {-axis.y, axis.x, 0}};
  Matrix r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double k2 = 0;
      for (int l = 0; l < 3; ++l) {
        k2 += k[i][l] * k[l][j];
      }
      r.m[i][j] = (i == j ? 1.0 : 0.0) + std::sin(angle) * k[i][j] + (1 - std::cos(angle)) * k2;
    }
  }
  return r;
}

inline Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int l = 0; l < 3; ++l) {
        r.m[i][j] += a.m[i][l] * b.m[l][j];
      }
    }
  }
  return r;
}

inline Vec3 apply(const Matrix& a, const Vec3& v) {
  return {a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
          a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
          a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}

inline double max_abs_diff(const Matrix& a, const double (&b)[3][3]) {
  double d = 0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      d = std::fmax(d, std::fabs(a.m[i][j] - b[i][j]));
    }
  }
  return d;
}

/// Largest component difference between a and b, or between a and -b if that is smaller.
inline double quat_distance(const Quat& a, const Quat& b) {
  const auto diff = [](const Quat& p, const Quat& q) {
    return std::fmax(std::fmax(std::fabs(p.w - q.w), std::fabs(p.x - q.x)),
                     std::fmax(std::fabs(p.y - q.y), std::fabs(p.z - q.z)));
  };
  return std::fmin(diff(a, b), diff(a, -b));
}

inline double vec_distance(const Vec3& a, const Vec3& b) { return norm(a - b); }

inline ::testing::AssertionResult same_rotation(const Quat& a, const Quat& b, double tolerance) {
  const double d = quat_distance(a, b);
  if (d <= tolerance) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "quaternions differ by " << d << " (tolerance " << tolerance << "): (" << a.w << ", "
         << a.x << ", " << a.y << ", " << a.z << ") vs (" << b.w << ", " << b.x << ", " << b.y
         << ", " << b.z << ")";
}

inline ::testing::AssertionResult near_vec(const Vec3& a, const Vec3& b, double tolerance) {
  const double d = vec_distance(a, b);
  if (d <= tolerance) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "vectors differ by " << d << " (tolerance " << tolerance
                                       << "): (" << a.x << ", " << a.y << ", " << a.z << ") vs ("
                                       << b.x << ", " << b.y << ", " << b.z << ")";
}

/// Deterministic random source for tests. Each seed is mixed with ODEMOCAP_SEED_SHIFT (a
/// number, 0 when unset), so that a run with the variable set draws other cases from the same
/// tests: what a test asserts must hold for them too.
class Random {
public:
  explicit Random(unsigned seed = 12345) : engine_(seed ^ shift()) {}
  /// ODEMOCAP_SEED_SHIFT's value, or 0.
  static unsigned shift() {
    const char* e = std::getenv("ODEMOCAP_SEED_SHIFT");
    return e ? static_cast<unsigned>(std::strtoul(e, nullptr, 10)) : 0u;
  }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
  Vec3 unit_vector() {
    std::normal_distribution<double> n;
    for (;;) {
      const Vec3 v{n(engine_), n(engine_), n(engine_)};
      const double l = norm(v);
      if (l > 1e-3) {
        return v / l;
      }
    }
  }
  /// A random unit vector perpendicular to the unit vector n.
  Vec3 perpendicular_unit(const Vec3& n) {
    for (;;) {
      const Vec3 v = unit_vector();
      const Vec3 p = v - dot(v, n) * n;
      if (norm(p) > 0.1) {
        return p / norm(p);
      }
    }
  }
  /// Uniformly distributed rotation (normalised 4-D Gaussian).
  Quat rotation() {
    std::normal_distribution<double> n;
    for (;;) {
      const Quat q{n(engine_), n(engine_), n(engine_), n(engine_)};
      const double l = norm(q);
      if (l > 1e-3) {
        return q * (1.0 / l);
      }
    }
  }

private:
  std::mt19937_64 engine_;
};

} // namespace odemocap::test
