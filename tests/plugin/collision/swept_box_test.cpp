// The box-box sweep against ODE's own box-box collider (dCollide), code we did not write: the
// set of times at which two boxes, one translating, overlap is one interval (both are convex),
// so ODE's overlap test on a fine grid of the path says whether they ever touch, and bisection
// from the first overlapping instant finds the first touch. Where ODE finds none even for the
// moving box grown by more than the grid's spacing, the boxes stay apart throughout.
#include "support/reference_math.hpp"

#include "collision/swept_box.hpp"

#include <ode/ode.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace odemocap::detail {
namespace {

/// Two ODE box geoms outside any space: B fixed at the origin, A placed where asked.
class OdeBoxes {
public:
  OdeBoxes() { dInitODE2(0); }
  ~OdeBoxes() {
    for (dGeomID g : {a_, b_}) {
      if (g != nullptr) {
        dGeomDestroy(g);
      }
    }
    dCloseODE();
  }
  OdeBoxes(const OdeBoxes&) = delete;
  OdeBoxes& operator=(const OdeBoxes&) = delete;

  void shape(const Vec3& half_a, const Vec3& half_b) {
    for (dGeomID g : {a_, b_}) {
      if (g != nullptr) {
        dGeomDestroy(g);
      }
    }
    a_ = dCreateBox(nullptr, 2 * half_a.x, 2 * half_a.y, 2 * half_a.z);
    b_ = dCreateBox(nullptr, 2 * half_b.x, 2 * half_b.y, 2 * half_b.z);
  }
  /// ODE's contacts between A (centre `at`, turned by q) and B; their count.
  int collide(const Vec3& at, const Quat& q, dContactGeom (&out)[8]) {
    dGeomSetPosition(a_, at.x, at.y, at.z);
    const dQuaternion oq = {q.w, q.x, q.y, q.z};
    dGeomSetQuaternion(a_, oq);
    return dCollide(a_, b_, 8, out, sizeof(dContactGeom));
  }
  bool overlap(const Vec3& at, const Quat& q) {
    dContactGeom c[8];
    return collide(at, q, c) > 0;
  }

private:
  dGeomID a_ = nullptr;
  dGeomID b_ = nullptr;
};

Vec3 random_half(test::Random& rng) {
  return {rng.uniform(0.01, 0.3), rng.uniform(0.01, 0.3), rng.uniform(0.01, 0.3)};
}

TEST(SweptBox, FirstTouchIsOdesFirstOverlapOnRandomPaths) {
  OdeBoxes ode;
  test::Random rng(2611);
  constexpr int k_grid = 4000;
  int hits = 0;
  int misses = 0;
  int unsure = 0;
  int single_contact = 0;
  int edge_edge = 0;         // hits whose normal is along no face of either box
  double worst_t = 0.0;      // m of travel
  double worst_normal = 0.0; // 1 - cos
  double worst_point = 0.0;  // m, where ODE reports one contact
  for (int i = 0; i < 2000; ++i) {
    const Vec3 half_a = random_half(rng);
    const Vec3 half_b = random_half(rng);
    ode.shape(half_a, half_b);
    const Quat q = rng.rotation();
    const Vec3 c = rng.unit_vector() * (norm(half_a) + norm(half_b) + rng.uniform(0.01, 0.5));
    // Half the paths run into B's core, the others anywhere near it (many pass it by).
    const Vec3 spread = i % 2 == 0 ? 0.5 * half_b : 1.5 * (half_b + Vec3{1, 1, 1} * norm(half_a));
    const Vec3 aim{rng.uniform(-spread.x, spread.x), rng.uniform(-spread.y, spread.y),
                   rng.uniform(-spread.z, spread.z)};
    const Vec3 d = (aim - c) * rng.uniform(1.0, 1.5);
    const auto hit = sweep_box_centred_box(c, q, half_a, d, half_b);
    int first = -1;
    for (int k = 0; k <= k_grid && first < 0; ++k) {
      if (ode.overlap(c + (static_cast<double>(k) / k_grid) * d, q)) {
        first = k;
      }
    }
    if (first >= 0) {
      ASSERT_GT(first, 0) << "case " << i << " starts apart by construction";
      ++hits;
      ASSERT_TRUE(hit.has_value())
          << "case " << i << ": ODE finds an overlap at t = " << static_cast<double>(first) / k_grid;
      double lo = static_cast<double>(first - 1) / k_grid;
      double hi = static_cast<double>(first) / k_grid;
      for (int k = 0; k < 60; ++k) {
        const double mid = 0.5 * (lo + hi);
        (ode.overlap(c + mid * d, q) ? hi : lo) = mid;
      }
      const double t_error = std::fabs(hit->t - hi) * norm(d);
      worst_t = std::max(worst_t, t_error);
      EXPECT_LT(t_error, 1e-7) << "case " << i << ": t " << hit->t << " against ODE's " << hi;
      dContactGeom contacts[8];
      const int n = ode.collide(c + hi * d, q, contacts);
      ASSERT_GT(n, 0);
      const Vec3 ode_normal{contacts[0].normal[0], contacts[0].normal[1], contacts[0].normal[2]};
      worst_normal = std::max(worst_normal, 1.0 - dot(ode_normal, hit->normal));
      EXPECT_GT(dot(ode_normal, hit->normal), 1.0 - 1e-6) << "case " << i;
      bool along_a_face = false;
      for (const Vec3& e : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}}) {
        along_a_face = along_a_face || std::fabs(dot(hit->normal, e)) > 1.0 - 1e-9 ||
                       std::fabs(dot(hit->normal, rotate(q, e))) > 1.0 - 1e-9;
      }
      edge_edge += along_a_face ? 0 : 1;
      if (n == 1) {
        ++single_contact;
        const Vec3 ode_point{contacts[0].pos[0], contacts[0].pos[1], contacts[0].pos[2]};
        worst_point = std::max(worst_point, norm(ode_point - hit->point));
        EXPECT_LT(norm(ode_point - hit->point), 1e-6) << "case " << i;
      }
      continue;
    }
    // Apart throughout if A grown by more than the grid's spacing (a box grown by m on every
    // side holds A's points within m) never overlaps either.
    const double margin = 1.5 * norm(d) / k_grid + 1e-6;
    ode.shape(half_a + Vec3{margin, margin, margin}, half_b);
    bool near = false;
    for (int k = 0; k <= k_grid && !near; ++k) {
      near = ode.overlap(c + (static_cast<double>(k) / k_grid) * d, q);
    }
    if (near) {
      ++unsure; // grazes within the margin: neither answer is shown wrong
      continue;
    }
    ++misses;
    EXPECT_FALSE(hit.has_value()) << "case " << i << ": hit at t = " << hit->t
                                  << " though the boxes stay apart";
  }
  std::printf("box-box sweep against ODE: %d hits (%d with one contact, %d edge on edge), %d "
              "misses, %d grazing within the grid; worst t %.2e m, normal 1-cos %.2e, point "
              "%.2e m\n",
              hits, single_contact, edge_edge, misses, unsure, worst_t, worst_normal, worst_point);
  EXPECT_GE(hits, 1000);
  EXPECT_GE(misses, 400);
  EXPECT_LE(unsure, 40);
  EXPECT_GE(edge_edge, 200);
}

TEST(SweptBox, FacesMeetingFlatTouchAtTheMiddleOfTheirOverlap) {
  // A (0.1 x 0.4 x 0.1) slides along -x onto B (0.2 cube), offset 0.12 in y: A's face
  // x = 0.25 - 0.5 t meets B's x = 0.1 at t = 0.3, over y in [-0.08, 0.1], z in [-0.05, 0.05].
  const auto hit =
      sweep_box_centred_box({0.3, 0.12, 0.0}, {}, {0.05, 0.2, 0.05}, {-0.5, 0, 0}, {0.1, 0.1, 0.1});
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->t, 0.3, 1e-12);
  EXPECT_TRUE(test::near_vec(hit->normal, {1, 0, 0}, 1e-12));
  EXPECT_TRUE(test::near_vec(hit->point, {0.1, 0.01, 0.0}, 1e-12));
  // Its edge along z (turned 45 deg about z) onto B's face: the middle of that edge's part
  // within the face, z in [-0.05, 0.05] of A's [-0.05, 0.05].
  const double r = 0.05 * std::sqrt(2.0);
  const auto edge = sweep_box_centred_box({0.5, 0.02, 0.0}, from_axis_angle({0, 0, 1}, M_PI / 4),
                                          {0.05, 0.05, 0.05}, {-0.5, 0, 0}, {0.1, 0.1, 0.1});
  ASSERT_TRUE(edge.has_value());
  EXPECT_NEAR(edge->t, (0.4 - r) / 0.5, 1e-12);
  EXPECT_TRUE(test::near_vec(edge->point, {0.1, 0.02, 0.0}, 1e-12));
}

TEST(SweptBox, CrossedBarsMeetThoughNoCornerOfEitherEntersTheOther) {
  // Two bars crossing at right angles, A coming down onto B: the first touch is where they
  // cross (faces meeting over a 2 x 2 cm square). The naive sweep of each box's corners against
  // the other box (as points) never enters: every corner lies 0.5 m out along its bar.
  const Vec3 half_a{0.01, 0.5, 0.01};
  const Vec3 half_b{0.5, 0.01, 0.01};
  const Vec3 c{0.0, 0.0, 0.3};
  const Vec3 d{0.0, 0.0, -0.6};
  const auto hit = sweep_box_centred_box(c, {}, half_a, d, half_b);
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->t, 0.28 / 0.6, 1e-12);
  EXPECT_TRUE(test::near_vec(hit->point, {0.0, 0.0, 0.01}, 1e-12));
  int corners_entering = 0;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner{(k & 1) != 0 ? 1.0 : -1.0, (k & 2) != 0 ? 1.0 : -1.0,
                      (k & 4) != 0 ? 1.0 : -1.0};
    const Vec3 of_a{corner.x * half_a.x, corner.y * half_a.y, corner.z * half_a.z};
    const Vec3 of_b{corner.x * half_b.x, corner.y * half_b.y, corner.z * half_b.z};
    corners_entering += sweep_sphere_centred_box(c + of_a, 0.0, d, half_b) ? 1 : 0;
    corners_entering += sweep_sphere_centred_box(of_b - c, 0.0, -1.0 * d, half_a) ? 1 : 0;
  }
  EXPECT_EQ(corners_entering, 0);
}

TEST(SweptBox, BoxesOverlappingAtTheStartHitAtOnceAndStillOnesNeverLater) {
  const auto now =
      sweep_box_centred_box({0.15, 0, 0}, {}, {0.1, 0.1, 0.1}, {1, 0, 0}, {0.1, 0.1, 0.1});
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->t, 0.0);
  EXPECT_TRUE(test::near_vec(now->normal, {1, 0, 0}, 1e-12));
  EXPECT_FALSE(sweep_box_centred_box({0.5, 0, 0}, {}, {0.1, 0.1, 0.1}, {}, {0.1, 0.1, 0.1}));
  EXPECT_FALSE(sweep_box_centred_box({0.5, 0, 0}, {}, {0.1, 0.1, 0.1}, {1, 0, 0}, {0.1, 0.1, 0.1}));
}

} // namespace
} // namespace odemocap::detail
