// Guarded static trimeshes. The triangle tree's first touch against every triangle swept one by
// one (each sweep checked against an independent minimisation in swept_sphere_test.cpp), and
// fast balls at thin meshes in real ODE scenes against analytic bounces: a surface of random
// orientation, moved after it was guarded (the closed 1 cm wall is in
// sweep_guard_random_test.cpp, beside the box wall). Fixed seeds.
#include "support/reference_math.hpp"
#include "support/sweep_scene.hpp"

#include "collision/triangle_tree.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::MeshGeom;
using test::Random;
using test::SweepScene;

constexpr double k_h = 1.0 / 120.0;

// ---- The tree against every triangle ------------------------------------------------------------

std::optional<detail::SweepHit> every_triangle(const std::vector<detail::Triangle>& triangles,
                                               const Vec3& c, double r, const Vec3& d) {
  std::optional<detail::SweepHit> best;
  for (const detail::Triangle& t : triangles) {
    const auto hit = detail::sweep_sphere_triangle(c, r, d, t[0], t[1], t[2]);
    if (hit && (!best || hit->t < best->t)) {
      best = hit;
    }
  }
  return best;
}

Vec3 random_point(Random& random, double half) {
  return {random.uniform(-half, half), random.uniform(-half, half), random.uniform(-half, half)};
}

/// Triangles scattered in a 1 m cube, 2-20 cm across, or a bumpy 16 x 16 terrain.
std::vector<detail::Triangle> random_triangles(Random& random, bool terrain) {
  std::vector<detail::Triangle> out;
  if (!terrain) {
    for (int i = 0; i < 300; ++i) {
      const Vec3 centre = random_point(random, 0.5);
      const double size = random.uniform(0.02, 0.2);
      out.push_back({centre + size * random.unit_vector(), centre + size * random.unit_vector(),
                     centre + size * random.unit_vector()});
    }
    return out;
  }
  const int n = 16;
  std::vector<double> height((n + 1) * (n + 1));
  for (double& z : height) {
    z = random.uniform(-0.05, 0.05);
  }
  const auto at = [&](int i, int j) {
    return Vec3{-0.5 + static_cast<double>(i) / n, -0.5 + static_cast<double>(j) / n,
                height[static_cast<std::size_t>(i * (n + 1) + j)]};
  };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      out.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      out.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  }
  return out;
}

TEST(TriangleTree, FindsTheFirstTouchEverySweptTriangleFindsAndABoundNoLater) {
  Random random(90);
  int hits = 0, later = 0, cases = 0;
  for (const bool terrain : {false, true}) {
    for (int mesh = 0; mesh < 10; ++mesh) {
      const std::vector<detail::Triangle> triangles = random_triangles(random, terrain);
      const detail::TriangleTree tree(triangles);
      ASSERT_EQ(tree.size(), triangles.size());
      for (int i = 0; i < 300; ++i, ++cases) {
        const Vec3 c = random_point(random, 0.8);
        const double r = random.uniform(0.0, 1.0) < 0.2 ? 0.0 : random.uniform(0.001, 0.05);
        // Long and short paths, and some that stand still.
        const double length = random.uniform(0.0, 1.0) < 0.1 ? 0.0 : random.uniform(0.01, 1.5);
        const Vec3 d = length * random.unit_vector();
        const auto expected = every_triangle(triangles, c, r, d);
        const auto got = tree.sweep(c, r, d);
        ASSERT_EQ(got.has_value(), expected.has_value()) << "case " << cases;
        if (expected) {
          ++hits;
          ASSERT_EQ(got->t, expected->t) << "case " << cases;
          // The cheap bound from the boxes alone comes no later.
          const auto entry = tree.first_entry(c, r, d);
          ASSERT_TRUE(entry.has_value()) << "case " << cases;
          EXPECT_LE(*entry, expected->t) << "case " << cases;
          if (expected->t > 0.0) { // starting within reach of several, any of them
            ++later;
            EXPECT_LT(norm(got->point - expected->point), 1e-12) << "case " << cases;
          }
        }
      }
    }
  }
  std::printf("[ metric ] triangle tree: %d of %d random sweeps hit (%d after their start), all "
              "at the first touch of every triangle swept\n",
              hits, cases, later);
  EXPECT_GT(later, cases / 20); // the cases are not all misses, nor all touching at the start
}

TEST(TriangleTree, AnEmptyTreeIsNeverTouched) {
  const detail::TriangleTree tree;
  EXPECT_FALSE(tree.sweep({0, 0, 0}, 1.0, {1, 0, 0}));
  EXPECT_FALSE(tree.first_entry({0, 0, 0}, 1.0, {1, 0, 0}));
  EXPECT_EQ(tree.bound(), 0.0);
}

// ---- Fast balls at guarded static meshes in ODE -------------------------------------------------

/// A flat square of side 2 `half` in the plane z = `z`, facing +z, as n x n cells of two
/// triangles each.
MeshGeom square_surface(dSpaceID space, double half, int n, double z = 0.0) {
  std::vector<double> vertices;
  std::vector<dTriIndex> indices;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      vertices.insert(vertices.end(), {-half + 2 * half * i / n, -half + 2 * half * j / n, z});
    }
  }
  const auto at = [n](int i, int j) { return static_cast<dTriIndex>(i * (n + 1) + j); };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      indices.insert(indices.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      indices.insert(indices.end(), {at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  }
  return MeshGeom(space, std::move(vertices), std::move(indices));
}

void throw_ball(dBodyID ball, const Vec3& start, const Vec3& v) {
  dBodySetPosition(ball, start.x, start.y, start.z);
  dBodySetLinearVel(ball, v.x, v.y, v.z);
}

/// What a ball thrown at a surface did: its deepest reach behind the surface's front after any
/// step (m), and its velocity along the normal and across at the end.
struct Bounce {
  double deepest = -INFINITY;
  double normal_speed = 0.0;
  Vec3 across;
};

/// A ball (2-5 cm, 0.05-0.5 kg) at 25-60 m/s, up to 70 degrees from the normal, at a 4 x 4 m
/// trimesh square (8 x 8 cells) of random orientation and offset, guarded where it was made
/// and moved there afterwards; frictionless, restitution `bounce`; reached within three steps.
Bounce throw_at_surface(Random& random, double bounce, bool guarded) {
  SweepScene scene(0.0, bounce);
  MeshGeom surface = square_surface(scene.space, 2.0, 8);
  const Vec3 n = random.unit_vector();
  const double offset = random.uniform(-1.0, 1.0);
  const double radius = random.uniform(0.02, 0.05);
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, radius), random.uniform(0.05, 0.5));
  const double incidence = random.uniform(0.0, 70.0) * k_pi / 180.0;
  const Vec3 v = random.uniform(25.0, 60.0) *
                 (-std::cos(incidence) * n + std::sin(incidence) * random.perpendicular_unit(n));
  const Vec3 touch =
      (offset + radius) * n + random.uniform(-0.5, 0.5) * random.perpendicular_unit(n);
  throw_ball(ball, touch - random.uniform(0.3, 2.9) * k_h * v, v);
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  if (guarded) {
    guard.guard_static(surface.geom);
  }
  const Vec3 origin = offset * n;
  dGeomSetPosition(surface.geom, origin.x, origin.y, origin.z);
  dQuaternion q;
  to_ode(from_to({0, 0, 1}, n), q);
  dGeomSetQuaternion(surface.geom, q);
  Bounce out;
  for (int i = 0; i < 8; ++i) {
    scene.step(k_h, &guard);
    const double height = dot(vec3_from_ode(dBodyGetPosition(ball)), n) - offset;
    out.deepest = std::fmax(out.deepest, radius - height);
  }
  const Vec3 end = vec3_from_ode(dBodyGetLinearVel(ball));
  out.normal_speed = dot(end, n);
  out.across = end - out.normal_speed * n;
  // The truth: the normal speed becomes `bounce` times the approach speed, the rest unchanged.
  const double approach = -dot(v, n);
  out.normal_speed = (out.normal_speed - bounce * approach) / approach;
  out.across = (out.across - (v + approach * n)) / norm(v);
  return out;
}

TEST(SweepGuardMesh, AGuardedStaticSurfaceStopsEveryFastBallAtItsFront) {
  for (const double bounce : {0.0, 0.6}) {
    Random with(bounce > 0.0 ? 93 : 92);
    Random without(bounce > 0.0 ? 93 : 92);
    const int cases = 60;
    double deepest = 0.0, worst_normal = 0.0, worst_across = 0.0;
    int unguarded_deep = 0;
    for (int i = 0; i < cases; ++i) {
      const Bounce ours = throw_at_surface(with, bounce, true);
      deepest = std::fmax(deepest, ours.deepest);
      worst_normal = std::fmax(worst_normal, std::fabs(ours.normal_speed));
      worst_across = std::fmax(worst_across, norm(ours.across));
      unguarded_deep += throw_at_surface(without, bounce, false).deepest > 0.01 ? 1 : 0;
    }
    std::printf("[ metric ] balls at 25-60 m/s at a guarded static trimesh surface, restitution "
                "%g: deepest %.2f mm in, normal speed off by %.2f%% and speed across by %.2f%% "
                "at worst; unguarded %d of %d more than 1 cm in\n",
                bounce, 1e3 * deepest, 100 * worst_normal, 100 * worst_across, unguarded_deep,
                cases);
    EXPECT_LT(deepest, 0.003) << bounce;
    EXPECT_LT(worst_normal, 0.05) << bounce;
    EXPECT_LT(worst_across, 0.01) << bounce;
    EXPECT_GT(unguarded_deep, cases / 2) << bounce;
  }
}

TEST(SweepGuardMesh, AMeshGivenOtherDataIsReadAgain) {
  // Guarded while its data lies 10 m away, then given data in the ball's way: the guard sweeps
  // the triangles the geom has when it sweeps.
  SweepScene scene;
  MeshGeom far_away = square_surface(scene.space, 1.0, 2, -10.0);
  MeshGeom in_the_way = square_surface(scene.space, 1.0, 2, 0.0);
  dSpaceRemove(scene.space, in_the_way.geom); // only its data is used
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, 0.03), 0.1);
  throw_ball(ball, {0, 0, 0.25}, {0, 0, -40});
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  guard.guard_static(far_away.geom);
  dGeomTriMeshSetData(far_away.geom, in_the_way.data());
  for (int i = 0; i < 4; ++i) {
    scene.step(k_h, &guard);
  }
  EXPECT_GT(dBodyGetPosition(ball)[2], 0.03 - 0.003);
  EXPECT_GE(guard.stats().speculative_contacts, 1u);
}

TEST(SweepGuardMesh, AMeshWithAVertexNotFiniteIsRefused) {
  SweepScene scene;
  std::vector<double> vertices = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, NAN};
  MeshGeom mesh(scene.space, vertices, {0, 1, 2, 1, 3, 2});
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  try {
    guard.guard_static(mesh.geom);
    FAIL() << "a vertex that is not finite was accepted";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("triangle 1"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace odemocap
