// The nearest points of a segment and a sphere's, capsule's or box's core, against the truth
// sampled along the segment: the distance from each of 20001 points of it to the core, written
// here from the shapes' definitions.
#include "support/reference_math.hpp"

#include "collision/nearest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace odemocap::detail {
namespace {

using test::Random;

/// Distance from p to the core, from its definition.
double to_core(const Core& c, const Vec3& p) {
  if (c.kind == dSphereClass) {
    return norm(p);
  }
  if (c.kind == dCapsuleClass) {
    return norm(p - Vec3{0.0, 0.0, std::clamp(p.z, -c.half_length, c.half_length)});
  }
  return norm(p - Vec3{std::clamp(p.x, -c.half.x, c.half.x), std::clamp(p.y, -c.half.y, c.half.y),
                       std::clamp(p.z, -c.half.z, c.half.z)});
}

/// A random point, on a face's plane or an axis now and then so that segments run parallel to
/// faces and axes, and lie in them.
double coordinate(Random& random, double reach) {
  const double u = random.uniform(0.0, 1.0);
  return u < 0.15 ? reach : u < 0.3 ? -reach : random.uniform(-2.0 * reach, 2.0 * reach);
}

TEST(NearestToCore, EverySegmentGetsTheNearestPointsTheSampledSegmentHas) {
  Random random(2026);
  double worst = 0.0;
  int through = 0, parallel = 0, checked = 0;
  for (int i = 0; i < 3000; ++i) {
    Core c;
    c.kind = i % 3 == 0 ? dSphereClass : i % 3 == 1 ? dCapsuleClass : dBoxClass;
    c.half_length = random.uniform(0.0, 1.0) < 0.1 ? 0.0 : random.uniform(0.01, 0.3);
    c.half = {random.uniform(0.005, 0.3), random.uniform(0.005, 0.3), random.uniform(0.005, 0.3)};
    const double reach = c.kind == dBoxClass ? c.half.x : c.half_length;
    Vec3 a{coordinate(random, reach), coordinate(random, reach), coordinate(random, reach)};
    Vec3 b{coordinate(random, reach), coordinate(random, reach), coordinate(random, reach)};
    if (i % 17 == 0) {
      b = a; // a point
    }
    if (i % 13 == 0) {
      b.y = a.y; // parallel to a face (a box's) or across the axis (a capsule's)
      b.z = a.z;
      ++parallel;
    }
    double along = -1.0;
    Vec3 q;
    const Vec3 p = nearest_to_core(c, a, b, along, q);
    ASSERT_GE(along, 0.0);
    ASSERT_LE(along, 1.0);
    // p is on the segment where `along` says, q on the core, and nearest to p there.
    ASSERT_LE(norm(p - (a + along * (b - a))), 1e-12);
    ASSERT_LE(to_core(c, q), 1e-12);
    const double found = norm(p - q);
    ASSERT_NEAR(found, to_core(c, p), 1e-12);
    double sampled = INFINITY;
    for (int k = 0; k <= 20000; ++k) {
      sampled = std::min(sampled, to_core(c, a + (k / 20000.0) * (b - a)));
    }
    // Never farther than a sampled point, and no nearer than the samples allow: the distance
    // is 1-Lipschitz along the segment, so the best sample is within half their spacing.
    ASSERT_LE(found, sampled + 1e-12) << i;
    ASSERT_GE(found, sampled - norm(b - a) / 40000.0 - 1e-12) << i;
    worst = std::fmax(worst, sampled - found);
    through += sampled == 0.0 ? 1 : 0;
    ++checked;
  }
  std::printf("[ metric ] %d segments (%d through the core, %d parallel to a face or across an "
              "axis): nearest distance within %.2g of the sampled one\n",
              checked, through, parallel, worst);
  EXPECT_GT(through, 100);
}

/// Where a stretch of the segment is nearest (a stick lying flat along a box's face or beside a
/// capsule's axis), the hint chooses the point in it: a contact's lever arm follows the part
/// that touched, not the stretch's end.
TEST(NearestToCore, AStretchOfNearestPointsGivesThePointNearestTheHint) {
  const Core box{dBoxClass, 0.0, {0.1, 0.1, 0.1}};
  const Core capsule{dCapsuleClass, 0.2, {}};
  struct Case {
    Core core;
    Vec3 a, b;
    double first, last; // the nearest stretch, as fractions of the segment
  };
  const Case cases[] = {{box, {-0.3, 0.0, 0.2}, {0.3, 0.0, 0.2}, 1.0 / 3.0, 2.0 / 3.0},
                        {box, {0.02, 0.03, -0.5}, {0.02, 0.03, 0.5}, 0.4, 0.6}, // through it
                        {capsule, {0.1, 0.0, -0.5}, {0.1, 0.0, 0.5}, 0.3, 0.7}};
  for (const Case& c : cases) {
    for (const double hint : {0.0, 0.1, 0.45, 0.5, 0.55, 0.9, 1.0}) {
      double along = hint;
      Vec3 q;
      const Vec3 p = nearest_to_core(c.core, c.a, c.b, along, q);
      EXPECT_NEAR(along, std::clamp(hint, c.first, c.last), 1e-12) << hint;
      EXPECT_NEAR(norm(p - q), to_core(c.core, c.a + 0.5 * (c.b - c.a)), 1e-12) << hint;
    }
  }
}

/// The naive choice, the point of the segment nearest the core's centre, is not the nearest
/// pair once the core is long: a capsule's or a box's.
TEST(NearestToCore, TheSegmentsPointNearestTheCentreIsNotTheNearestToALongCore) {
  const Core capsule{dCapsuleClass, 0.3, {}};
  const Vec3 a{0.1, -0.5, 0.25};
  const Vec3 b{0.1, 0.5, -0.35};
  double along = 0.0;
  Vec3 q;
  const Vec3 p = nearest_to_core(capsule, a, b, along, q);
  double centre_along = 0.0;
  const Vec3 naive = nearest_on_segment(a, b, {}, centre_along);
  EXPECT_LT(norm(p - q), to_core(capsule, naive) - 1e-3);
}

} // namespace
} // namespace odemocap::detail
