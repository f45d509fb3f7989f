// SweepGuard on random scenes against a reference we did not tune: the same scene stepped 64
// times per step without the guard (discrete collision at h/64 sees every touch), and analytic
// paths. Random incidence angles, speeds, sizes and orientations; fixed seeds.
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"
#include "support/sweep_scene.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::Random;
using test::SweepScene;

constexpr double k_h = 1.0 / 120.0;
constexpr int k_substeps = 64;

Vec3 position_of(dBodyID b) {
  return vec3_from_ode(dBodyGetPosition(b));
}
Quat orientation_of(dBodyID b) {
  return quat_from_ode(dBodyGetQuaternion(b));
}
void set_velocity(dBodyID b, const Vec3& v, const Vec3& w = {}) {
  dBodySetLinearVel(b, v.x, v.y, v.z);
  dBodySetAngularVel(b, w.x, w.y, w.z);
}
void set_pose(dBodyID b, const Vec3& p, const Quat& q) {
  dBodySetPosition(b, p.x, p.y, p.z);
  dQuaternion o;
  to_ode(q, o);
  dBodySetQuaternion(b, o);
}

Vec3 perpendicular_unit(Random& random, const Vec3& n) {
  for (;;) {
    const Vec3 v = random.unit_vector();
    const Vec3 p = v - dot(v, n) * n;
    if (norm(p) > 0.1) {
      return p / norm(p);
    }
  }
}

// ---- A hand through a free thin plate, at any incidence -------------------------------------

constexpr double k_plate_half = 0.15; // m: a 30 x 30 cm plate
constexpr double k_plate_thickness = 0.01;

struct PlateCase {
  Quat plate;      // orientation: its local z is the plate's normal
  double mass = 0; // kg
  double radius = 0;
  Vec3 velocity;   // the hand's (world)
  Vec3 start;      // the hand's position at t = 0
};

PlateCase plate_case(Random& random, double incidence) {
  PlateCase c;
  c.plate = random.rotation();
  c.mass = random.uniform(0.1, 2.0);
  c.radius = random.uniform(0.02, 0.05);
  const Vec3 n = rotate(c.plate, Vec3{0, 0, 1});
  const Vec3 t = perpendicular_unit(random, n);
  const double speed = random.uniform(20.0, 80.0);
  const Vec3 direction = -std::cos(incidence) * n + std::sin(incidence) * t;
  c.velocity = speed * direction;
  // Aimed at a random point near the plate's middle, reached part way through the fourth step.
  const Vec3 aim = rotate(c.plate, Vec3{random.uniform(-0.03, 0.03), random.uniform(-0.03, 0.03),
                                        0.0});
  c.start = aim - (random.uniform(3.0, 4.0) * k_h) * c.velocity;
  return c;
}

/// True when the hand's centre ends a step behind the plate: it crossed the plate's mid-plane
/// since the end of the step before (on the line between the two positions in the plate's
/// frame, which moves) at a point inside the plate. What a program that sees only the poses
/// after each step can tell.
class PassWatch {
public:
  void observe(dBodyID hand, dBodyID plate) {
    const Vec3 local = rotate(conj(orientation_of(plate)), position_of(hand) - position_of(plate));
    if (seen_ && (local.z > 0.0) != (previous_.z > 0.0)) {
      const Vec3 at = previous_ + (previous_.z / (previous_.z - local.z)) * (local - previous_);
      passed_ = passed_ || (std::fabs(at.x) <= k_plate_half && std::fabs(at.y) <= k_plate_half);
    }
    previous_ = local;
    seen_ = true;
  }
  bool passed() const { return passed_; }

private:
  Vec3 previous_;
  bool seen_ = false;
  bool passed_ = false;
};

/// Runs a plate case for 12 steps: guarded, or without a guard at `substeps` per step.
bool hand_passes_plate(const PlateCase& c, double mu, bool guarded, int substeps) {
  SweepScene scene(mu);
  dBodyID plate = scene.dynamic(
      dCreateBox(scene.space, 2 * k_plate_half, 2 * k_plate_half, k_plate_thickness), c.mass);
  set_pose(plate, {0, 0, 0}, c.plate);
  dBodyID hand = scene.kinematic(dCreateSphere(scene.space, c.radius));
  set_pose(hand, c.start, Quat{});
  set_velocity(hand, c.velocity);
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(hand);
  PassWatch watch;
  watch.observe(hand, plate);
  for (int i = 0; i < 12 * substeps; ++i) {
    scene.step(k_h / substeps, guarded ? &guard : nullptr);
    watch.observe(hand, plate);
  }
  return watch.passed();
}

TEST(SweepGuardRandomScenes, AHandPassesThroughNoFreePlateAtAnyIncidence) {
  for (double mu : {0.0, 0.5}) {
    for (double degrees : {0.0, 30.0, 60.0}) {
      Random random(static_cast<unsigned>(900 + degrees));
      int guarded = 0, unguarded = 0, reference = 0;
      const int cases = 72;
      for (int i = 0; i < cases; ++i) {
        const PlateCase c = plate_case(random, degrees * k_pi / 180.0);
        guarded += hand_passes_plate(c, mu, true, 1) ? 1 : 0;
        unguarded += hand_passes_plate(c, mu, false, 1) ? 1 : 0;
        reference += hand_passes_plate(c, mu, false, k_substeps) ? 1 : 0;
      }
      std::printf("[ metric ] hand at 20-80 m/s, %g deg incidence, mu %g, free 1 cm plate: "
                  "passes %d of %d guarded, %d unguarded, %d in the 64x reference\n",
                  degrees, mu, guarded, cases, unguarded, reference);
      EXPECT_EQ(reference, 0) << degrees;
      // A plate struck near its edge can spin 400 rad/s, over two radians in a step, where
      // no pose after a step says what happened in it: one such case in 72 is tolerated.
      EXPECT_LE(guarded, 1) << degrees;
      EXPECT_GT(unguarded, cases / 2) << degrees;
    }
  }
}

} // namespace
} // namespace odemocap
