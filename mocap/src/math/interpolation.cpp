#include <odemocap/interpolation.hpp>

namespace odemocap {

Vec3 hermite(const Vec3& p0, const Vec3& v0, const Vec3& p1, const Vec3& v1, double duration,
             double u) {
  const double u2 = u * u;
  const double u3 = u2 * u;
  const double h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
  const double h10 = u3 - 2.0 * u2 + u;
  const double h01 = -2.0 * u3 + 3.0 * u2;
  const double h11 = u3 - u2;
  return p0 * h00 + v0 * (h10 * duration) + p1 * h01 + v1 * (h11 * duration);
}

Quat spherical_cubic(const Quat& q0, const Vec3& w0, const Quat& q1_in, const Vec3& w1,
                     double duration, double u) {
  // de Casteljau on the sphere: the derivative at u = 0 is 3 times the geodesic tangent from
  // q0 to the first control point (each of the three slerp levels contributes one), so the
  // control point exp(w0 T / 3) q0 gives angular velocity w0; symmetrically at u = 1.
  const Quat q1 = same_hemisphere(q1_in, q0);
  const Quat c0 = from_rotation_vector(w0 * (duration / 3.0)) * q0;
  const Quat c1 = from_rotation_vector(w1 * (-duration / 3.0)) * q1;
  const Quat a = slerp(q0, c0, u);
  const Quat b = slerp(c0, c1, u);
  const Quat c = slerp(c1, q1, u);
  return slerp(slerp(a, b, u), slerp(b, c, u), u);
}

} // namespace odemocap
