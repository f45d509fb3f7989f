// The swept-sphere times of impact against an independent truth: the distance from a point
// moving on a line to a convex shape is a convex function of time, so its minimum (ternary
// search) says whether the sphere ever touches, and bisection before the minimum finds the
// first touch. The distances here are written from the definitions, not from the sweep code.
#include "support/reference_math.hpp"

#include "collision/swept_sphere.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace odemocap::detail {
namespace {

using Distance = std::function<double(const Vec3&)>; // to the shape; 0 inside

double segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  // Minimise |a + s (b - a) - p|^2 over s in [0, 1]: a parabola in s.
  const Vec3 u = b - a;
  double s = dot(u, u) > 0 ? dot(p - a, u) / dot(u, u) : 0.0;
  s = s < 0 ? 0 : s > 1 ? 1 : s;
  return norm(a + s * u - p);
}

double triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  // Inside the prism over the triangle: the distance to the plane (barycentric coordinates of
  // the projection all >= 0); otherwise to the nearest edge.
  const Vec3 n = normalized(cross(b - a, c - a));
  const Vec3 q = p - dot(p - a, n) * n;
  const Vec3 v0 = b - a, v1 = c - a, v2 = q - a;
  const double d00 = dot(v0, v0), d01 = dot(v0, v1), d11 = dot(v1, v1);
  const double d20 = dot(v2, v0), d21 = dot(v2, v1), den = d00 * d11 - d01 * d01;
  const double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
  if (v >= 0 && w >= 0 && v + w <= 1) {
    return std::fabs(dot(p - a, n));
  }
  return std::min(
      {segment_distance(p, a, b), segment_distance(p, b, c), segment_distance(p, c, a)});
}

struct Reference {
  bool hit = false;
  double t = 0;
  double min_gap = 0; // smallest distance minus radius over [0, 1]
};

Reference reference(const Distance& dist, const Vec3& c, double r, const Vec3& d) {
  const auto f = [&](double t) { return dist(c + t * d) - r; };
  Reference ref;
  if (f(0) <= 0) {
    ref.hit = true;
    ref.min_gap = f(0);
    return ref;
  }
  double lo = 0, hi = 1;
  for (int i = 0; i < 200; ++i) { // ternary search of the convex f
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    (f(m1) < f(m2) ? hi : lo) = f(m1) < f(m2) ? m2 : m1;
  }
  const double t_min = 0.5 * (lo + hi);
  ref.min_gap = std::min(f(t_min), f(1.0));
  const double t_end = f(1.0) <= f(t_min) ? 1.0 : t_min;
  if (ref.min_gap > 0) {
    return ref;
  }
  double a = 0, b = t_end; // f(a) > 0 >= f(b), f decreasing on [0, t_min]
  for (int i = 0; i < 100; ++i) {
    const double m = 0.5 * (a + b);
    (f(m) > 0 ? a : b) = m;
  }
  ref.hit = true;
  ref.t = b;
  return ref;
}

struct Tally {
  int cases = 0, hits = 0, grazing = 0, at_start = 0, failures = 0;
  double worst_dt = 0;
};

/// Checks one case; `sweep` is the code under test.
void check(Tally& tally, const char* shape, const Distance& dist, const Vec3& c, double r,
           const Vec3& d, const std::optional<SweepHit>& hit) {
  ++tally.cases;
  const Reference ref = reference(dist, c, r, d);
  const double tol = 1e-9;
  bool ok = true;
  if (std::fabs(ref.min_gap) <= (ref.hit && ref.t == 0 ? 1e-12 : tol)) {
    ++tally.grazing; // touching within rounding of a graze: either answer, but a hit must touch
    if (hit) {
      ok = std::fabs(dist(c + hit->t * d) - r) <= 1e-8;
    }
  } else if (ref.hit != hit.has_value()) {
    ok = false;
  } else if (hit) {
    ++tally.hits;
    tally.at_start += hit->t == 0 ? 1 : 0;
    const double dt = std::fabs(hit->t - ref.t);
    tally.worst_dt = std::max(tally.worst_dt, dt);
    ok = dt <= tol;
    // The point is on the surface, the sphere's radius from the centre, along the normal.
    const Vec3 centre = c + hit->t * d;
    if (hit->t > 0) {
      ok = ok && dist(hit->point) <= 1e-9 && std::fabs(norm(centre - hit->point) - r) <= 1e-8 &&
           norm(hit->normal - normalized(centre - hit->point)) <= 1e-6;
    }
    ok = ok && std::fabs(norm(hit->normal) - 1) <= 1e-12;
  }
  if (!ok && tally.failures++ < 5) {
    ADD_FAILURE() << shape << ": c " << c.x << " " << c.y << " " << c.z << " r " << r << " d "
                  << d.x << " " << d.y << " " << d.z << " reference hit " << ref.hit << " t "
                  << ref.t << " gap " << ref.min_gap << "; sweep "
                  << (hit ? std::to_string(hit->t) : std::string("none"));
  }
}

enum class Kind { Generic, Grazing, StartInContact, Parallel, Still };

Kind kind_of(int i) {
  switch (i % 10) {
  case 0:
  case 1: return Kind::Grazing;
  case 2: return Kind::StartInContact;
  case 3: return Kind::Parallel;
  case 4: return Kind::Still;
  default: return Kind::Generic;
  }
}

/// A start, radius and motion of the kind asked, near a shape within the unit cube; `along` is
/// a direction the shape is flat or long in (for parallel motion).
void make_case(test::Random& rnd, Kind kind, const Distance& dist, const Vec3& along, Vec3& c,
               double& r, Vec3& d) {
  c = {rnd.uniform(-2, 2), rnd.uniform(-2, 2), rnd.uniform(-2, 2)};
  r = rnd.uniform(0.01, 0.3);
  d = rnd.uniform(0, 4) * rnd.unit_vector();
  if (kind == Kind::Still) {
    d = {};
  } else if (kind == Kind::Parallel) {
    d = rnd.uniform(0.5, 4) * along;
  } else if (kind == Kind::Grazing) {
    // Aim at the shape, then make the radius the closest approach: the path just touches.
    const Vec3 target{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
    d = 2.0 * (target - c) + 0.3 * rnd.unit_vector();
    double lo = 0, hi = 1;
    const auto g = [&](double t) { return dist(c + t * d); };
    for (int i = 0; i < 200; ++i) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      (g(m1) < g(m2) ? hi : lo) = g(m1) < g(m2) ? m2 : m1;
    }
    r = g(0.5 * (lo + hi));
    if (!(r > 1e-3)) {
      r = 0.05;
    }
  }
  if (kind == Kind::StartInContact) {
    r = dist(c) + rnd.uniform(0, 0.1);
  }
}

TEST(SweptSphere, FirstContactMatchesAnIndependentMinimisationOn100000Cases) {
  test::Random rnd(2026);
  Tally sphere, capsule, triangle, box;
  for (int i = 0; i < 25000; ++i) {
    Vec3 c, d;
    double r = 0;
    const Kind kind = kind_of(i);
    {
      const Vec3 s{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      const double R = rnd.uniform(0.01, 0.5);
      const Distance dist = [&](const Vec3& p) { return std::max(0.0, norm(p - s) - R); };
      make_case(rnd, kind, dist, rnd.unit_vector(), c, r, d);
      check(sphere, "sphere", dist, c, r, d, sweep_sphere_sphere(c, r, d, s, R));
    }
    {
      const Vec3 a{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      const Vec3 b{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      const double R = rnd.uniform(0.0, 0.3);
      const Distance dist = [&](const Vec3& p) {
        return std::max(0.0, segment_distance(p, a, b) - R);
      };
      make_case(rnd, kind, dist, normalized(b - a), c, r, d);
      if (kind == Kind::Parallel) { // along the axis, at a distance from it
        c = a + rnd.uniform(-1, 0) * (b - a) +
            (R + r + rnd.uniform(-0.05, 0.2)) * normalized(cross(b - a, rnd.unit_vector()));
      }
      check(capsule, "capsule", dist, c, r, d, sweep_sphere_capsule(c, r, d, a, b, R));
    }
    {
      const Vec3 p0{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      const Vec3 p1{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      const Vec3 p2{rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5)};
      if (norm(cross(p1 - p0, p2 - p0)) < 1e-3) {
        continue;
      }
      const Distance dist = [&](const Vec3& p) { return triangle_distance(p, p0, p1, p2); };
      make_case(rnd, kind, dist, normalized(p1 - p0), c, r, d);
      if (kind == Kind::Parallel) { // in a plane parallel to the triangle, at about r from it
        const Vec3 n = normalized(cross(p1 - p0, p2 - p0));
        c = c - dot(c - p0, n) * n + (r + rnd.uniform(-0.05, 0.05)) * n;
      }
      check(triangle, "triangle", dist, c, r, d, sweep_sphere_triangle(c, r, d, p0, p1, p2));
    }
    {
      const Pose pose{{rnd.uniform(-0.3, 0.3), rnd.uniform(-0.3, 0.3), rnd.uniform(-0.3, 0.3)},
                      rnd.rotation()};
      const Vec3 half{rnd.uniform(0.01, 0.5), rnd.uniform(0.01, 0.5), rnd.uniform(0.01, 0.5)};
      const Distance dist = [&](const Vec3& p) {
        const Vec3 l = rotate(conj(pose.q), p - pose.p);
        const Vec3 q{std::fmax(std::fabs(l.x) - half.x, 0.0),
                     std::fmax(std::fabs(l.y) - half.y, 0.0),
                     std::fmax(std::fabs(l.z) - half.z, 0.0)};
        return norm(q);
      };
      const Vec3 face_direction = rotate(pose.q, Vec3{1, 0, 0});
      make_case(rnd, kind, dist, face_direction, c, r, d);
      if (kind == Kind::Parallel) { // sliding past a face at about r from it
        const Vec3 n = rotate(pose.q, Vec3{0, 0, 1});
        const Vec3 l = rotate(conj(pose.q), c - pose.p);
        c = pose.p + rotate(pose.q, Vec3{l.x, l.y, half.z + r + rnd.uniform(-0.05, 0.05)});
        (void)n;
      }
      check(box, "box", dist, c, r, d, sweep_sphere_box(c, r, d, pose, half));
    }
  }
  for (const auto& [name, t] : {std::pair<const char*, const Tally&>{"sphere", sphere},
                                {"capsule", capsule},
                                {"triangle", triangle},
                                {"box", box}}) {
    std::printf("  %s: %d cases, %d hits (%d at the start), %d grazing, worst |dt| %.1e, %d "
                "failures\n",
                name, t.cases, t.hits, t.at_start, t.grazing, t.worst_dt, t.failures);
    EXPECT_EQ(t.failures, 0) << name;
    EXPECT_GT(t.hits, t.cases / 10) << name; // the cases do hit, often
  }
  EXPECT_GE(sphere.cases + capsule.cases + triangle.cases + box.cases, 99000);
}

// The sign slip of the post this follows ((p3 + c) for (p3 - c) in the vertex test's
// discriminant) would put the first touch of a vertex at the wrong time; a case that hits a
// triangle's vertex first pins it: a sphere of radius 1 moving along x toward the vertex at
// the origin, first touching it when its centre is 1 from it.
TEST(SweptSphere, AVertexIsTouchedWhenTheCentreIsOneRadiusFromIt) {
  const Vec3 c{-5, 0.6, 0}, d{10, 0, 0};
  const auto hit = sweep_sphere_triangle(c, 1.0, d, {0, 0, 0}, {1, -3, 1}, {1, -3, -1});
  ASSERT_TRUE(hit);
  // |(-5 + 10 t, 0.6, 0)| = 1: -5 + 10 t = -0.8.
  EXPECT_NEAR(hit->t, 0.42, 1e-15);
  EXPECT_TRUE(test::near_vec(hit->point, {0, 0, 0}, 1e-15));
  EXPECT_TRUE(test::near_vec(hit->normal, {-0.8, 0.6, 0}, 1e-15));
}

// The box is swept by where the path enters the box grown by r: in front of one face that is
// the hit; beyond two or three faces' planes only the rounding of an edge or a corner can be.
// Hand-derived cases for each region, and the one the grown box alone gets wrong.
TEST(SweptSphere, ABoxIsMetAtAFaceAnEdgeOrACornerAsTheRegionOfEntrySays) {
  const Vec3 half{1, 1, 1};
  // A point (r = 0) along x meets the face x = -1 halfway.
  auto hit = sweep_sphere_centred_box({-3, 0.2, 0.3}, 0.0, {4, 0, 0}, half);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 0.5);
  EXPECT_TRUE(test::near_vec(hit->point, {-1, 0.2, 0.3}, 1e-15));
  EXPECT_TRUE(test::near_vec(hit->normal, {-1, 0, 0}, 0.0));
  // A sphere of radius 0.5 along z at x = y = 1.4 runs through the grown box (|x|, |y| <= 1.5)
  // but stays sqrt(0.32) = 0.566 from the edge x = y = 1: no hit.
  EXPECT_FALSE(sweep_sphere_centred_box({1.4, 1.4, -5}, 0.5, {0, 0, 10}, half));
  // At x = y = 1.3 it is 0.424 from that edge; it enters the grown box beyond three faces and
  // first touches the corner (1, 1, -1): 0.18 + (z + 1)^2 = 0.25, z = -1 - sqrt(0.07).
  hit = sweep_sphere_centred_box({1.3, 1.3, -5}, 0.5, {0, 0, 10}, half);
  ASSERT_TRUE(hit);
  const double z = -1.0 - std::sqrt(0.07);
  EXPECT_NEAR(hit->t, (z + 5.0) / 10.0, 1e-15);
  EXPECT_TRUE(test::near_vec(hit->point, {1, 1, -1}, 1e-15));
  EXPECT_TRUE(test::near_vec(hit->normal, Vec3{0.3, 0.3, z + 1.0} / 0.5, 1e-14));
  // Along x at y = 1.3, z = 0: enters beyond two faces (x = -1, y = 1) and meets the edge's
  // cylinder where (x + 1)^2 + 0.09 = 0.25, x = -1.4.
  hit = sweep_sphere_centred_box({-3, 1.3, 0}, 0.5, {4, 0, 0}, half);
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->t, 0.4, 1e-15);
  EXPECT_TRUE(test::near_vec(hit->point, {-1, 1, 0}, 1e-15));
  EXPECT_TRUE(test::near_vec(hit->normal, {-0.8, 0.6, 0}, 1e-14));
}

} // namespace
} // namespace odemocap::detail
