// Large errors about random axes: the quaternion lock and the hinge's swing, started 90 to 179.9
// degrees from their target about random axes (random body orientations, random hinge axes,
// both body orders), against ODE's own fixed joint holding the same body in the same scene;
// then random bodies on both sides against ODE's fixed and hinge joints.
// The old rows (2 r.vec(q) along the quaternion Jacobian's rows) decoupled only when the error
// axis was a frame axis; these cases fail them (see the naive-row test at the end).
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include "joints/quat_constraint.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>

namespace odemocap {
namespace {

using test::k_pi;
using test::OdeScene;
using test::Random;

constexpr double k_deg = 180.0 / k_pi;
constexpr double k_h = 1.0 / 120.0;
constexpr int k_seeds = 100;
constexpr double k_angles_deg[] = {90.0, 170.0, 178.0, 179.9};

enum class Holder { Lock, Hinge, OdeFixed };

const char* name_of(Holder h) {
  switch (h) {
  case Holder::Lock:
    return "QuatLockJoint";
  case Holder::Hinge:
    return "QuatHingeJoint";
  case Holder::OdeFixed:
    return "dJointTypeFixed";
  }
  return "?";
}

Quat orientation_of(dBodyID body) {
  return quat_from_ode(dBodyGetQuaternion(body));
}

void set_orientation(dBodyID body, const Quat& q) {
  dQuaternion o;
  to_ode(q, o);
  dBodySetQuaternion(body, o);
}

/// One random case: the orientation the joint holds, the error rotation applied (world
/// frame), the hinge axis (world), and which side of the joint the box is on.
struct Case {
  Quat held;
  Vec3 error_axis;
  double angle = 0.0;
  Vec3 hinge_axis;
  bool box_is_body1 = false;
};

/// A hinge's error is a pure swing (axis perpendicular to the hinge axis) so that it can be
/// compared with the fixed joint, which removes the same rotation.
Case random_case(Random& random, double angle, Holder holder) {
  Case c;
  c.held = random.rotation();
  c.hinge_axis = random.unit_vector();
  c.error_axis =
      holder == Holder::Hinge ? random.perpendicular_unit(c.hinge_axis) : random.unit_vector();
  c.angle = angle;
  c.box_is_body1 = random.uniform(0.0, 1.0) < 0.5;
  return c;
}

/// Holds `box` where it is now (its pose at creation) with `holder`, to the static world.
class Hold {
public:
  Hold(Holder holder, OdeScene& scene, KinematicDriver& driver, dBodyID box, const Case& c,
       bool ball) {
    const Vec3 centre = vec3_from_ode(dBodyGetPosition(box));
    dBodyID b1 = c.box_is_body1 ? box : nullptr;
    dBodyID b2 = c.box_is_body1 ? nullptr : box;
    switch (holder) {
    case Holder::Lock: {
      QuatLockSettings s;
      s.body1 = b1;
      s.body2 = b2;
      s.anchor = centre;
      s.angular_only = !ball;
      lock_.emplace(driver, s);
      break;
    }
    case Holder::Hinge: {
      QuatHingeSettings s;
      s.body1 = b1;
      s.body2 = b2;
      s.anchor = centre;
      s.axis = c.hinge_axis;
      hinge_.emplace(driver, s);
      break;
    }
    case Holder::OdeFixed: {
      dJointID fixed = dJointCreateFixed(scene.world, nullptr);
      dJointAttach(fixed, b1, b2);
      dJointSetFixed(fixed);
      break;
    }
    }
  }

private:
  std::optional<QuatLockJoint> lock_;
  std::optional<QuatHingeJoint> hinge_;
};

/// The box's error now, signed along the case's error axis (rad): positive on the side it
/// started, negative once it has crossed the target. For the hinge, the swing of the box's
/// hinge axis; for the lock, the whole rotation.
double signed_error(const Case& c, Holder holder, const Quat& now) {
  const Quat e = now * conj(c.held); // world-frame rotation from where it is held
  if (holder == Holder::Hinge) {
    const Vec3 a2 = rotate(e, c.hinge_axis); // the box's hinge axis now (world)
    return std::atan2(dot(cross(c.hinge_axis, a2), c.error_axis), dot(c.hinge_axis, a2));
  }
  const Quat h = e.w < 0.0 ? -e : e;
  return 2.0 * std::atan2(dot(h.vec(), c.error_axis), h.w);
}

struct SwingBack {
  double first_rate = 0.0;       ///< rad/s after the first step
  double worst_crossing = 0.0;   ///< most negative signed error (rad), 0 if never crossed
  double worst_growth = 0.0;     ///< largest step-to-step growth of the error (rad)
  double final_error = 0.0;      ///< rad, after `steps`
};

/// A 1 kg box at rest, no gravity, finite rotation mode (what the driver sets on the bodies it
/// moves), held at c.held and turned c.angle about c.error_axis away from it.
SwingBack swing_back(Holder holder, const Case& c, int steps) {
  OdeScene scene(0.0);
  dBodyID box = scene.box({0.3, 0.2, 0.1}, 1.0, {0.1, -0.2, 0.3});
  dBodySetFiniteRotationMode(box, 1);
  set_orientation(box, c.held);
  KinematicDriver driver(scene.world);
  Hold hold(holder, scene, driver, box, c, true);
  set_orientation(box, from_axis_angle(c.error_axis, c.angle) * c.held);
  SwingBack r;
  double previous = c.angle;
  for (int i = 0; i < steps; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    if (i == 0) {
      r.first_rate = norm(vec3_from_ode(dBodyGetAngularVel(box)));
    }
    const double e = signed_error(c, holder == Holder::Hinge ? holder : Holder::Lock,
                                  orientation_of(box));
    r.worst_crossing = std::fmin(r.worst_crossing, e);
    r.worst_growth = std::fmax(r.worst_growth, std::fabs(e) - previous);
    previous = std::fabs(e);
  }
  r.final_error = previous;
  return r;
}

TEST(QuatJointRandomAxes, FirstStepRateIsOdeFixedJointsWhateverTheErrorAxis) {
  for (Holder holder : {Holder::Lock, Holder::Hinge}) {
    for (double degrees : k_angles_deg) {
      Random random(static_cast<unsigned>(1000 * degrees) + static_cast<unsigned>(holder));
      double worst = 0.0;
      double lowest = 1e9;
      for (int seed = 0; seed < k_seeds; ++seed) {
        const Case c = random_case(random, degrees / k_deg, holder);
        const double ours = swing_back(holder, c, 1).first_rate;
        const double fixed = swing_back(Holder::OdeFixed, c, 1).first_rate;
        worst = std::fmax(worst, ours / fixed);
        lowest = std::fmin(lowest, ours / fixed);
        ASSERT_LE(ours, 1.5 * fixed) << name_of(holder) << " " << degrees << " seed " << seed;
      }
      std::printf("[ metric ] %s from %g deg, %d random axes: first-step rate / "
                  "dJointTypeFixed's %.3f to %.3f\n",
                  name_of(holder), degrees, k_seeds, lowest, worst);
    }
  }
}

TEST(QuatJointRandomAxes, FiniteRotationModeNeverCrossesTheTarget) {
  for (Holder holder : {Holder::Lock, Holder::Hinge}) {
    for (double degrees : k_angles_deg) {
      Random random(static_cast<unsigned>(7000 + 1000 * degrees) + static_cast<unsigned>(holder));
      double crossing = 0.0;
      double growth = 0.0;
      double final_error = 0.0;
      for (int seed = 0; seed < k_seeds; ++seed) {
        const Case c = random_case(random, degrees / k_deg, holder);
        const SwingBack r = swing_back(holder, c, 240);
        crossing = std::fmin(crossing, r.worst_crossing);
        growth = std::fmax(growth, r.worst_growth);
        final_error = std::fmax(final_error, r.final_error);
      }
      std::printf("[ metric ] %s from %g deg, %d random axes, 2 s: worst crossing %.3g deg, "
                  "worst growth %.3g deg, final error %.3g deg\n",
                  name_of(holder), degrees, k_seeds, -crossing * k_deg, growth * k_deg,
                  final_error * k_deg);
      EXPECT_GE(crossing * k_deg, -1e-3) << name_of(holder) << " " << degrees;
      EXPECT_LE(growth * k_deg, 1e-3) << name_of(holder) << " " << degrees;
      EXPECT_LE(final_error * k_deg, 0.01) << name_of(holder) << " " << degrees;
    }
  }
}

/// Largest speed (m/s) of a 1 kg bob on a ball joint 0.4 m below a 1 kg box (gravity on)
/// that `holder` holds at c.held while it starts turned c.angle away from it.
double flung_bob(Holder holder, const Case& c) {
  OdeScene scene(-9.81);
  dBodyID box = scene.box({0.2, 0.2, 0.2}, 1.0, {0, 0, 1});
  dBodySetFiniteRotationMode(box, 1);
  dBodyID bob = scene.box({0.1, 0.1, 0.1}, 1.0, {0, 0, 0.5});
  set_orientation(box, c.held);
  KinematicDriver driver(scene.world);
  Hold hold(holder, scene, driver, box, c, true);
  set_orientation(box, from_axis_angle(c.error_axis, c.angle) * c.held);
  dJointID ball = dJointCreateBall(scene.world, nullptr);
  dJointAttach(ball, box, bob);
  dJointSetBallAnchor(ball, 0, 0, 0.9);
  double speed = 0.0;
  for (int i = 0; i < 240; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    speed = std::fmax(speed, norm(vec3_from_ode(dBodyGetLinearVel(bob))));
  }
  return speed;
}

TEST(QuatJointRandomAxes, ABobBelowIsFlungNoHarderThanByOdesFixedJoint) {
  for (Holder holder : {Holder::Lock, Holder::Hinge}) {
    for (double degrees : k_angles_deg) {
      Random random(static_cast<unsigned>(3000 + 1000 * degrees) + static_cast<unsigned>(holder));
      double worst_ratio = 0.0;
      double worst_speed = 0.0;
      for (int seed = 0; seed < k_seeds; ++seed) {
        const Case c = random_case(random, degrees / k_deg, holder);
        const double ours = flung_bob(holder, c);
        const double fixed = flung_bob(Holder::OdeFixed, c);
        worst_ratio = std::fmax(worst_ratio, ours / fixed);
        worst_speed = std::fmax(worst_speed, ours);
        EXPECT_LE(ours, 1.05 * fixed + 0.05)
            << name_of(holder) << " " << degrees << " seed " << seed;
      }
      std::printf("[ metric ] bob below %s from %g deg, %d random axes: fastest %.2f m/s, "
                  "worst ratio to dJointTypeFixed %.3f\n",
                  name_of(holder), degrees, k_seeds, worst_speed, worst_ratio);
    }
  }
}

// ---- Against ODE's own joints on general bodies ------------------------------------------------
// The cases above hold one 1 kg box to the static world. Here both sides vary: random box
// shapes and masses (inertia far from isotropic), a second dynamic body or the world, both body
// orders, random orientations, hinge axes, swings and error axes; the oracle is ODE's joint of
// the same kind in the same scene.
// - The lock against dJointTypeFixed, whose position rows hold body 2's centre (body 1's when
//   body 2 is the world) where it was: the lock's ball joint is put at that point, so that both
//   hold the same constraint with the same errors.
// - The hinge against dJointTypeHinge. Both solve rows across body 1's hinge axis; ODE's ask
//   for the swing rate k sin(angle) (the cross product of the two axes), which vanishes near
//   a half turn, the hinge's 2 k sin(angle / 2), bounded like the fixed joint's: the same
//   solve with the right-hand side scaled by 2 sin(angle / 2) / sin(angle). On a body whose
//   inertia is not isotropic, the swing's impulse also turns it about the free hinge axis, in
//   both (the rate's metric below against dJointTypeFixed, which has no free axis, shows it).

enum class Kind { Lock, Hinge };

struct Pair {
  Vec3 sides1, sides2;
  double mass1 = 1.0, mass2 = 1.0;
  bool world_holds = false; ///< the holding side is the static world
  bool swap = false;        ///< the turned box is body 1 of the joint
  Vec3 hinge_axis;          ///< world, at creation
  Vec3 error_axis;          ///< world; perpendicular to the hinge axis for the hinge
  double angle = 0.0;
};

Pair random_pair(Random& random, Kind kind, double degrees) {
  const auto sides = [&] {
    return Vec3{random.uniform(0.03, 0.6), random.uniform(0.03, 0.6), random.uniform(0.02, 0.3)};
  };
  Pair p;
  p.sides1 = sides();
  p.sides2 = sides();
  p.mass1 = random.uniform(0.1, 5.0);
  p.mass2 = random.uniform(0.1, 5.0);
  p.world_holds = random.uniform(0.0, 1.0) < 0.5;
  p.swap = random.uniform(0.0, 1.0) < 0.5;
  p.hinge_axis = random.unit_vector();
  p.error_axis =
      kind == Kind::Hinge ? random.perpendicular_unit(p.hinge_axis) : random.unit_vector();
  p.angle = degrees / k_deg;
  return p;
}

struct PairRun {
  Vec3 first_w;       ///< the turned box's angular velocity after the first step
  Quat final_q;       ///< its orientation after 2 s
  Quat final_q_other; ///< the holding box's (identity for the world)
};

/// Box B held to box A (or to the world) by `ours` or ODE's joint of that kind, both at the
/// random orientations `poses` gives; B is then turned by the pair's error and 2 s pass without
/// gravity (finite rotation mode, as the driver sets on what it moves).
PairRun run_pair(const Pair& p, Kind kind, bool ours, bool quick, Random poses) {
  OdeScene scene(0.0);
  scene.quick = quick;
  const Vec3 centre_a{0.1, -0.2, 0.9};
  const Vec3 centre_b{0.1, -0.2, 0.5};
  dBodyID a = p.world_holds ? nullptr : scene.box(p.sides1, p.mass1, centre_a);
  dBodyID b = scene.box(p.sides2, p.mass2, centre_b);
  const Quat qa = poses.rotation();
  const Quat qb = poses.rotation();
  if (a != nullptr) {
    dBodySetFiniteRotationMode(a, 1);
    set_orientation(a, qa);
  }
  dBodySetFiniteRotationMode(b, 1);
  set_orientation(b, qb);
  dBodyID body1 = p.swap ? b : a;
  dBodyID body2 = p.swap ? a : b;
  KinematicDriver driver(scene.world);
  std::optional<QuatLockJoint> lock;
  std::optional<QuatHingeJoint> hinge;
  if (ours && kind == Kind::Lock) {
    QuatLockSettings s;
    s.body1 = body1;
    s.body2 = body2;
    s.anchor = body2 == a && a != nullptr ? centre_a : centre_b;
    lock.emplace(driver, s);
  } else if (ours) {
    QuatHingeSettings s;
    s.body1 = body1;
    s.body2 = body2;
    s.anchor = centre_b;
    s.axis = p.hinge_axis;
    hinge.emplace(driver, s);
  } else if (kind == Kind::Lock) {
    dJointID fixed = dJointCreateFixed(scene.world, nullptr);
    dJointAttach(fixed, body1, body2);
    dJointSetFixed(fixed);
  } else {
    dJointID ode_hinge = dJointCreateHinge(scene.world, nullptr);
    dJointAttach(ode_hinge, body1, body2);
    dJointSetHingeAnchor(ode_hinge, centre_b.x, centre_b.y, centre_b.z);
    dJointSetHingeAxis(ode_hinge, p.hinge_axis.x, p.hinge_axis.y, p.hinge_axis.z);
  }
  set_orientation(b, from_axis_angle(p.error_axis, p.angle) * qb);
  PairRun r;
  for (int i = 0; i < static_cast<int>(2.0 / k_h); ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    if (i == 0) {
      r.first_w = vec3_from_ode(dBodyGetAngularVel(b));
    }
  }
  r.final_q = orientation_of(b);
  r.final_q_other = a != nullptr ? orientation_of(a) : Quat{};
  return r;
}

TEST(QuatJointRandomBodies, TheLockPullsBackAsOdesFixedJoint) {
  // dWorldQuickStep's first step against dWorldStep's, pooled over the angles: the cases where
  // either joint is off by more than 1e-6, those where the lock is off by more, and the sums.
  int differing = 0, lock_worse = 0;
  double sum_ours = 0.0, sum_ode = 0.0;
  for (double degrees : k_angles_deg) {
    Random random(static_cast<unsigned>(500 + degrees));
    double rate_gap = 0.0, path_gap = 0.0, quick_ours = 0.0, quick_ode = 0.0;
    for (int seed = 0; seed < k_seeds; ++seed) {
      const Pair p = random_pair(random, Kind::Lock, degrees);
      const Random poses(static_cast<unsigned>(random.uniform(0.0, 1e9)));
      const PairRun ours = run_pair(p, Kind::Lock, true, false, poses);
      const PairRun ode = run_pair(p, Kind::Lock, false, false, poses);
      rate_gap = std::fmax(rate_gap, norm(ours.first_w - ode.first_w) / norm(ode.first_w));
      path_gap =
          std::fmax(path_gap, std::fmax(angle_between(ours.final_q, ode.final_q),
                                        angle_between(ours.final_q_other, ode.final_q_other)));
      // dWorldQuickStep iterates towards that solve from rows in its own order: each joint's
      // first step against dWorldStep's.
      const Vec3 exact = ode.first_w;
      const double off_ours =
          norm(run_pair(p, Kind::Lock, true, true, poses).first_w - exact) / norm(exact);
      const double off_ode =
          norm(run_pair(p, Kind::Lock, false, true, poses).first_w - exact) / norm(exact);
      quick_ours = std::fmax(quick_ours, off_ours);
      quick_ode = std::fmax(quick_ode, off_ode);
      sum_ours += off_ours;
      sum_ode += off_ode;
      if (std::fmax(off_ours, off_ode) > 1e-6) {
        ++differing;
        lock_worse += off_ours > off_ode ? 1 : 0;
      }
    }
    std::printf("[ metric ] QuatLockJoint against dJointTypeFixed, dWorldStep, from %g deg, %d "
                "random bodies, orders and axes: first-step rate within %.2g (relative), both "
                "bodies' orientations after 2 s within %.2g deg; dWorldQuickStep's first step "
                "off dWorldStep's by up to %.2g (dJointTypeFixed %.2g)\n",
                degrees, k_seeds, rate_gap, path_gap * k_deg, quick_ours, quick_ode);
    EXPECT_LE(rate_gap, 1e-9) << degrees;
    EXPECT_LE(path_gap * k_deg, 1e-6) << degrees;
  }
  // The same constraint in other rows (a ball joint and a motor against one joint of six): the
  // iterations differ case by case, either joint ahead in about half of them, and the worst of
  // 100 is one badly conditioned pair (a seed-to-seed ratio of 0.6 to 1.8 between the two
  // joints' worst). So what is asked is that the lock is not behind as a rule: behind in at
  // most 65% of the cases that differ (40-58% on ten seeds, 40-56% on fifty others; 3 standard
  // deviations above a coin toss) and off by at most twice as much in sum. The sums are decided
  // by their few worst cases: their ratio was 0.47-1.15 on the first ten seeds, and 0.46-1.58
  // (mean 0.90) on fifty others (ODEMOCAP_SEED_SHIFT 500-549), where 1.58 is a set whose fixed
  // joint met none of its badly conditioned pairs (its worst case 0.39, against 0.4-11.6).
  std::printf("[ metric ] dWorldQuickStep's first step, all angles: %d cases off dWorldStep's by "
              "more than 1e-6, the lock further off in %d; sum of the lock's errors %.3g, "
              "dJointTypeFixed's %.3g\n",
              differing, lock_worse, sum_ours, sum_ode);
  EXPECT_GT(differing, 50);
  EXPECT_LE(lock_worse, 0.65 * differing);
  EXPECT_LE(sum_ours, 2.0 * sum_ode);
}

TEST(QuatJointRandomBodies, TheHingeSolvesOdesHingeRowsWithTheFixedJointsBound) {
  for (double degrees : k_angles_deg) {
    Random random(static_cast<unsigned>(800 + degrees));
    const double scale = 2.0 * std::sin(0.5 * degrees / k_deg) / std::sin(degrees / k_deg);
    double gap = 0.0, to_fixed = 0.0;
    for (int seed = 0; seed < k_seeds; ++seed) {
      const Pair p = random_pair(random, Kind::Hinge, degrees);
      const Random poses(static_cast<unsigned>(random.uniform(0.0, 1e9)));
      const Vec3 ours = run_pair(p, Kind::Hinge, true, false, poses).first_w;
      const Vec3 ode = scale * run_pair(p, Kind::Hinge, false, false, poses).first_w;
      const Vec3 fixed = run_pair(p, Kind::Lock, false, false, poses).first_w;
      gap = std::fmax(gap, norm(ours - ode) / norm(ode));
      if (!p.swap) {
        to_fixed = std::fmax(to_fixed, norm(ours) / norm(fixed));
      }
    }
    std::printf("[ metric ] QuatHingeJoint from %g deg, %d random bodies, orders and axes: "
                "first-step rate = dJointTypeHinge's x %.4g (2 sin(a/2) / sin(a)) within %.2g "
                "(relative); up to %.2fx dJointTypeFixed's (the free axis)\n",
                degrees, k_seeds, scale, gap, to_fixed);
    // Near a half turn ODE's rate is k sin(angle), small, and its solve's rounding is scaled up.
    EXPECT_LE(gap, degrees > 179.0 ? 1e-4 : 1e-8) << degrees;
  }
}

// The naive measure: the quaternion Jacobian's rows G_i with the bounded error 2 g_i each
// (what the lock did before). Solving G u = -k 2 vec(q) for the relative rate u gives
// u = -2 k G^-1 vec(q), and G^-1 grows like 1 / cos(angle / 2) for an axis off the frame axes.
TEST(QuatJointRandomAxes, TheJacobianRowsWithPerRowBoundsStillFlingOffTheFrameAxes) {
  Random random(42);
  double worst = 0.0;
  for (int seed = 0; seed < k_seeds; ++seed) {
    const Vec3 axis = random.unit_vector();
    const Quat q = from_axis_angle(axis, 178.0 / k_deg);
    const Quat f;
    // Rows G_i, right-hand sides 2 g_i: solve the 3x3 system by Cramer's rule.
    Vec3 rows[3];
    double rhs[3];
    const Vec3 frame_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i) {
      const detail::RowJacobian row = detail::orientation_row(f, q, frame_axes[i]);
      rows[i] = row.gradient / norm(row.gradient);
      rhs[i] = 2.0 * row.g;
    }
    const double det = dot(rows[0], cross(rows[1], rows[2]));
    const Vec3 b{rhs[0], rhs[1], rhs[2]};
    const Vec3 c0{rows[0].x, rows[1].x, rows[2].x};
    const Vec3 c1{rows[0].y, rows[1].y, rows[2].y};
    const Vec3 c2{rows[0].z, rows[1].z, rows[2].z};
    const Vec3 u{dot(b, cross(c1, c2)) / det, dot(c0, cross(b, c2)) / det,
                 dot(c0, cross(c1, b)) / det};
    // What ODE's fixed joint asks for: |u| = 2 sin(angle / 2) per unit of ERP/h.
    worst = std::fmax(worst, norm(u) / (2.0 * std::sin(89.0 / k_deg)));
  }
  std::printf("[ metric ] per-row bounded Jacobian rows at 178 deg: up to %.1fx dJointTypeFixed's "
              "rate\n",
              worst);
  EXPECT_GT(worst, 5.0);
}

} // namespace
} // namespace odemocap
