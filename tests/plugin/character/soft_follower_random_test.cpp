// SoftFollower on random cases: holds under dWorldStep (random bodies, orientations, spins and
// limits) that must never drop, and a hand pressed into a table while it slides (random
// directions, speeds, depths and headings) that must not tilt into it.
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::OdeScene;
using test::Random;
using test::sampled_track;

constexpr double k_h = 1.0 / 120.0;

// ---- Holding still under dWorldStep ---------------------------------------------------------

struct Hold {
  int zero_force_steps = 0; ///< steps the motors applied nothing (ODE's LCP gave up)
  double drop = 0.0;        ///< largest distance (m) below the held position
  std::size_t failures = 0; ///< what the follower reports
};

/// A random box (0.05-5 kg, 2-32 cm sides) held in the air at a random orientation, starting
/// with a random spin, for 3 s under dWorldStep; the limits at least twice its weight.
Hold hold_still(Random& random) {
  OdeScene scene;
  scene.quick = false;
  const Vec3 sides{random.uniform(0.02, 0.32), random.uniform(0.02, 0.32),
                   random.uniform(0.01, 0.11)};
  const double mass = random.uniform(0.05, 5.0);
  const Pose at{{0, 0, 1}, random.rotation()};
  dBodyID body = scene.box(sides, mass, at.p);
  set_body_pose(body, at);
  const Vec3 spin = 3.0 * random.unit_vector();
  dBodySetAngularVel(body, spin.x, spin.y, spin.z);
  KinematicDriver driver(scene.world);
  FollowSettings settings;
  const double weight = mass * 9.81;
  const double forces[] = {2 * weight, 60 + 2 * weight, INFINITY};
  const double torques[] = {0.5, 5.0, 20.0, INFINITY};
  settings.max_force = forces[static_cast<int>(random.uniform(0, 2.999))];
  settings.max_torque = torques[static_cast<int>(random.uniform(0, 3.999))];
  SoftFollower follower(driver, body, sampled_track("hold", k_h, 3.0, [&](double) { return at; }),
                        settings);
  Hold r;
  for (int i = 0; i < 360; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    const Vec3 f = follower.feedback().force1;
    r.zero_force_steps += f.x == 0.0 && f.y == 0.0 && f.z == 0.0 ? 1 : 0;
    r.drop = std::fmax(r.drop, at.p.z - dBodyGetPosition(body)[2]);
  }
  r.failures = follower.solver_failures();
  return r;
}

TEST(SoftFollowerRandomCases, HoldingStillUnderDWorldStepNeverDrops) {
  Random random(240);
  int zero_force = 0, dropped = 0;
  std::size_t failures = 0;
  double worst_drop = 0.0;
  const int holds = 240;
  for (int i = 0; i < holds; ++i) {
    const Hold h = hold_still(random);
    zero_force += h.zero_force_steps;
    dropped += h.drop > 0.05 ? 1 : 0;
    failures += h.failures;
    worst_drop = std::fmax(worst_drop, h.drop);
  }
  std::printf("[ metric ] %d holds under dWorldStep: %d steps without motor force, %zu solver "
              "failures, %d dropped over 5 cm (worst %.1f mm below)\n",
              holds, zero_force, failures, dropped, 1000 * worst_drop);
  EXPECT_EQ(zero_force, 0);
  EXPECT_EQ(dropped, 0);
}

TEST(SoftFollower, AStepWhoseSolveFailedIsUndone) {
  // A real failure of dWorldStep's LCP solver: a denormal angular velocity (what the follower
  // now flushes to zero before each step) set after the prestep makes ODE report "LCP internal
  // error" and the motors apply nothing for that step.
  OdeScene scene;
  scene.quick = false;
  dBodyID body = scene.box({0.1, 0.08, 0.03}, 0.4, {0, 0, 1});
  KinematicDriver driver(scene.world);
  SoftFollower follower(driver, body, sampled_track("hold", k_h, 2.0, [](double) {
                          return Pose{{0, 0, 1}, {}};
                        }));
  for (int i = 0; i < 20; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
  }
  driver.prestep(k_h);
  dBodySetAngularVel(body, 4e-323, -5e-323, 9e-323);
  scene.step(k_h); // the solve fails: the body falls g h^2 = 0.7 mm and keeps g h
  const double fallen = 1.0 - dBodyGetPosition(body)[2];
  const Vec3 f = follower.feedback().force1;
  EXPECT_EQ(norm(f), 0.0);
  EXPECT_GT(fallen, 5e-4);
  driver.prestep(k_h);
  EXPECT_EQ(follower.solver_failures(), 1u);
  EXPECT_NEAR(dBodyGetPosition(body)[2], 1.0, 1e-9); // back where it was before that step
  for (int i = 0; i < 10; ++i) {
    scene.step(k_h);
    driver.prestep(k_h);
  }
  EXPECT_EQ(follower.solver_failures(), 1u);
  EXPECT_NEAR(dBodyGetPosition(body)[2], 1.0, 1e-6);
}

// ---- Pressed into a table and sliding ---------------------------------------------------------

constexpr double k_table_top = 0.75;
const Vec3 k_hand_sides{0.1, 0.08, 0.03};

/// A hand captured `depth` below the table top (so the follower presses it down with all it
/// has), sliding at `speed` along `heading` for 1.5 s, turned `yaw` about the vertical.
struct Slide {
  double depth = 0.03;
  double speed = 0.5;
  double heading = 0.0;
  double yaw = 0.0;
  double max_torque = 5.0;
  bool quick = false; ///< dWorldQuickStep with `iterations` (ODE's default 20), or dWorldStep
  double mass = 0.4;
  int iterations = 20;
  double h = k_h;
  double from = 0.0;     ///< when measuring starts (s)
  double layer = 0.0;    ///< the world's contact surface layer (m)
  double soft_cfm = 0.0; ///< soft contacts when > 0 (OdeScene::soft_cfm)
  double press_depth = FollowSettings{}.press_depth;
};

struct Pressed {
  double deepest = 0.0; ///< the deepest any corner went into the table (m) from `from` on
  double press = 0.0;   ///< the follower's mean force down from `from` on (N)
  double depth = 0.0;   ///< the lowest corner's mean depth in the table from `from` on (m)
  double force = 0.0;   ///< the mean size of the follower's force from `from` on (N)
};

Pressed press_and_slide(const Slide& c) {
  OdeScene scene;
  scene.quick = c.quick;
  dWorldSetQuickStepNumIterations(scene.world, c.iterations);
  dWorldSetContactSurfaceLayer(scene.world, c.layer);
  scene.mu = 0.8;
  scene.soft_cfm = c.soft_cfm;
  dGeomID table = dCreateBox(scene.space, 4.0, 4.0, 0.05);
  dGeomSetPosition(table, 0, 0, k_table_top - 0.025);
  const Quat turn = from_axis_angle({0, 0, 1}, c.yaw);
  const Vec3 along{std::cos(c.heading), std::sin(c.heading), 0};
  const double rest = k_table_top + 0.5 * k_hand_sides.z;
  const auto capture = [&](double t) {
    const double down = std::fmin(1.0, t / 0.25); // settle onto the table, then press
    const double slide = std::fmax(0.0, t - 0.25) * c.speed;
    return Pose{Vec3{0, 0, rest + 0.01 - (0.01 + c.depth) * down} + slide * along, turn};
  };
  dBodyID hand = scene.box(k_hand_sides, c.mass, capture(0).p);
  set_body_pose(hand, capture(0));
  KinematicDriver driver(scene.world);
  FollowSettings settings;
  settings.max_force = 60;
  settings.max_torque = c.max_torque;
  settings.press_depth = c.press_depth;
  SoftFollower follower(driver, hand, sampled_track("hand", c.h, 1.75, capture), settings);
  Pressed r;
  int measured = 0;
  const int steps = static_cast<int>(std::lround(1.75 / c.h));
  for (int i = 0; i < steps; ++i) {
    driver.prestep(c.h);
    scene.step(c.h);
    if ((i + 1) * c.h >= c.from) {
      r.deepest = std::fmax(r.deepest, k_table_top - test::lowest_corner(hand, k_hand_sides));
      r.press -= follower.feedback().force1.z;
      r.force += norm(follower.feedback().force1);
      r.depth += k_table_top - test::lowest_corner(hand, k_hand_sides);
      ++measured;
    }
  }
  r.press /= measured;
  r.force /= measured;
  r.depth /= measured;
  return r;
}

/// The deepest corner (m) of press_and_slide.
double press_and_slide(double depth, double speed, double heading, double yaw, double max_torque,
                       bool quick, double mass = 0.4, int iterations = 20, double h = k_h,
                       double from = 0.0) {
  Slide c;
  c.depth = depth;
  c.speed = speed;
  c.heading = heading;
  c.yaw = yaw;
  c.max_torque = max_torque;
  c.quick = quick;
  c.mass = mass;
  c.iterations = iterations;
  c.h = h;
  c.from = from;
  return press_and_slide(c).deepest;
}

TEST(SoftFollowerRandomCases, AHandPressedIntoATableAndSlidingStaysOnIt) {
  // dWorldQuickStep with the iterations plugin/README.md gives a hand pressed with 10 or more
  // times its weight (40: this 0.4 kg hand at 60 N is pressed with 15 times its weight), and
  // with the default 20 for the record (3.57 mm at worst on ODEMOCAP_SEED_SHIFT 300-339).
  for (const int iterations : {40, 20, 0}) { // 0: dWorldStep
    const bool quick = iterations > 0;
    for (const double max_torque : {5.0, 20.0}) { // plugin/README.md's example and the default
      Random random(quick ? 31 : 32);
      double worst = 0.0;
      for (int i = 0; i < 12; ++i) {
        worst = std::fmax(worst,
                          press_and_slide(random.uniform(0.01, 0.05), random.uniform(0.2, 1.0),
                                          random.uniform(0, 2 * k_pi), random.uniform(0, 2 * k_pi),
                                          max_torque, quick, 0.4, quick ? iterations : 20));
      }
      std::printf("[ metric ] %s, 60 N, %g N m: pressed and sliding, deepest corner %.2f mm into "
                  "the table (12 random slides)\n",
                  quick ? (iterations == 40 ? "dWorldQuickStep, 40 iterations"
                                            : "dWorldQuickStep, 20 iterations")
                        : "dWorldStep",
                  max_torque, 1000 * worst);
      if (iterations == 20) {
        continue; // not asserted: the README's recipe is 40
      }
      // dWorldQuickStep: 1.9 and 1.2 mm at the two torque limits. Before the twelfth session 11.2
      // and 7.0 mm: the rows' fixed 99.5% lead left the hand 7% of its torque limit against the
      // table's tilt (6.6 mm with the lead sized to the need), and the contacts' error
      // reduction lifted the hand to a depth of zero, where ODE's box-box collider finds two
      // contacts or none for a step and 60 N threw it 6-10 mm into the table; the follower now
      // moves at most 1 mm further into what held it back. dWorldStep: 1.1 mm.
      // On ODEMOCAP_SEED_SHIFT 300-339 (480 slides), 40 iterations: 2.02 mm at worst (5 N m),
      // 1.96 mm (20 N m); dWorldStep: 1.99 mm (2.12 and 1.99 mm before the thirty-second
      // session).
      EXPECT_LE(worst, 0.003) << max_torque;
    }
  }
}

TEST(SoftFollowerRandomCases, ALightHandPressedHardStaysOnTheTableUnderQuickStep) {
  // A 0.2 kg hand pressed with 60 N, 30 times its weight. dWorldQuickStep's iterations leave
  // the contacts unconverged, and before the thirty-second session the hand sank into the table
  // whatever the torque limit: with the default 20 iterations 29 of 40 slides deeper than 3 mm
  // (4.67 mm at worst), and up to 6 mm in the first version of that session. Against static
  // geometry (a geom with no body), the follower now goes no more than 1 mm deeper
  // than dCollide finds it: on ODEMOCAP_SEED_SHIFT 300-339, 3 of 800 slides deeper than 3 mm
  // (3.14 mm at worst) with 20 iterations, none with 60 (2.65 mm). dWorldStep holds it to
  // 1.6 mm. plugin/README.md gives the iterations (40 or 60) for a margin.
  double worst[2] = {0.0, 0.0};
  int deep[2] = {0, 0};
  for (const int iterations : {20, 60}) {
    Random random(31);
    const int k = iterations == 20 ? 0 : 1;
    for (int i = 0; i < 20; ++i) {
      const double depth = random.uniform(0.01, 0.05);
      const double speed = random.uniform(0.2, 1.0);
      const double heading = random.uniform(0, 2 * k_pi);
      const double yaw = random.uniform(0, 2 * k_pi);
      const double d = press_and_slide(depth, speed, heading, yaw, 5.0, true, 0.2, iterations);
      worst[k] = std::fmax(worst[k], d);
      deep[k] += d > 0.003 ? 1 : 0;
    }
    std::printf("[ metric ] 0.2 kg hand, 60 N, dWorldQuickStep with %d iterations: deepest corner "
                "%.2f mm, %d of 20 slides deeper than 3 mm\n",
                iterations, 1000 * worst[k], deep[k]);
  }
  // With 20 iterations the 3 mm is not met (plugin/README.md: 3.73 mm at worst over 2000
  // slides, 12 of them over 3 mm). This bounds that tail by how many slides reach it, so that
  // it cannot grow unseen: at most 2 of the 20 over 3 mm (over 6000 slides measured as here,
  // from the start: 0.77% of slides over 3 mm, 4.23 mm at worst; 29 of 40 slides before the
  // thirty-second session), none over 10 mm (a plain 60 N force: 21.5 mm). The deepest slide
  // alone is no bound: 3.58 mm on ODEMOCAP_SEED_SHIFT 3333, 4.79 mm on 30004.
  EXPECT_LE(deep[0], 2);
  EXPECT_LE(worst[0], 0.010);
  EXPECT_LE(worst[1], 0.003);
}

// The naive press, for comparison: the same 0.2 kg box pushed into the table by a plain 60 N
// force under dWorldQuickStep with the default 20 iterations sinks far into it (plugin/README.md:
// 24-32 mm at 1/120 s): the solver's unconverged contacts cannot hold what a force that
// ignores the table keeps adding.
TEST(SoftFollowerRandomCases, APlainForcePressingALightBoxSinksIntoTheTableUnderQuickStep) {
  OdeScene scene;
  scene.quick = true;
  scene.mu = 0.8;
  dGeomID table = dCreateBox(scene.space, 4.0, 4.0, 0.05);
  dGeomSetPosition(table, 0, 0, k_table_top - 0.025);
  dBodyID box = scene.box(k_hand_sides, 0.2, {0, 0, k_table_top + 0.5 * k_hand_sides.z});
  double deepest = 0.0;
  for (int i = 0; i < 120; ++i) {
    dBodyAddForce(box, 0, 0, -60.0);
    scene.step(k_h);
    deepest = std::fmax(deepest, k_table_top - test::lowest_corner(box, k_hand_sides));
  }
  std::printf("  a plain 60 N press on the 0.2 kg box: %.1f mm into the table\n", 1000 * deepest);
  EXPECT_GT(deepest, 0.01);
}

/// The slides of the layer and soft-table tests: dWorldStep, 0.4 kg, 60 N, measured once down.
std::vector<Slide> random_slides(unsigned seed, int count) {
  Random random(seed);
  std::vector<Slide> slides(static_cast<std::size_t>(count));
  for (Slide& c : slides) {
    c.depth = random.uniform(0.01, 0.05);
    c.speed = random.uniform(0.2, 1.0);
    c.heading = random.uniform(0, 2 * k_pi);
    c.yaw = random.uniform(0, 2 * k_pi);
    c.from = 0.5;
  }
  return slides;
}

// ODE's contacts push a body out only as far as the world's contact surface layer (1 mm is a
// common setting): within it they stop a body without pushing it out. Until the thirty-third
// session the follower aimed at 1 mm below the surface itself: with a 1 mm layer it stopped
// pressing where the contacts held it (200 slides: 26.0 N down on average instead of 37.8 N), with
// a 2 mm one it floated 1 mm deep (27.8 N). Truth: the same slide on the same table with no layer,
// where dWorldStep's converged contacts hold the hand at the surface.
TEST(SoftFollowerRandomCases, APressedHandPressesAsHardWhateverTheContactSurfaceLayer) {
  double worst_ratio = 0.0;
  double worst_depth = -INFINITY;
  for (Slide c : random_slides(35, 12)) {
    const Pressed flat = press_and_slide(c);
    for (const double layer : {0.001, 0.002, 0.005}) {
      c.layer = layer;
      const Pressed r = press_and_slide(c);
      worst_ratio = std::fmax(worst_ratio, std::fabs(r.press / flat.press - 1.0));
      worst_depth = std::fmax(worst_depth, r.deepest - layer);
      EXPECT_NEAR(r.press, flat.press, 0.03 * flat.press) << layer;
      EXPECT_LE(r.deepest, layer + 1e-4) << layer; // held anywhere within the layer
    }
  }
  std::printf("[ metric ] dWorldStep, surface layers of 1, 2 and 5 mm: the press differs from "
              "the layer-free table's by %.2f%% at worst, the deepest corner %+.3f mm beyond the "
              "layer at worst (12 random slides)\n",
              100 * worst_ratio, 1000 * worst_depth);
}

// Why the layer matters, for comparison: a box pressed by a plain 60 N force onto a table in a
// world with a 2 mm layer rests 2 mm deep (dWorldStep), so an aim measured from the surface (1 mm)
// lies inside the layer, where no contact pushes back.
TEST(SoftFollowerRandomCases, ODEHoldsAPressedBoxAtTheContactSurfaceLayerNotAtTheSurface) {
  OdeScene scene;
  dWorldSetContactSurfaceLayer(scene.world, 0.002);
  dGeomID table = dCreateBox(scene.space, 4.0, 4.0, 0.05);
  dGeomSetPosition(table, 0, 0, k_table_top - 0.025);
  dBodyID box = scene.box(k_hand_sides, 0.4, {0, 0, k_table_top + 0.5 * k_hand_sides.z});
  for (int i = 0; i < 240; ++i) {
    dBodyAddForce(box, 0, 0, -60.0);
    scene.step(k_h);
  }
  EXPECT_NEAR(k_table_top - test::lowest_corner(box, k_hand_sides), 0.002, 1e-5);
}

// Contacts made soft (soft_cfm 0.01 and soft_erp 0.2 at 120 Hz: by ODE's manual a spring of
// kp = ERP / (h CFM) = 2400 N/m per contact) give way under a press. With press_depth unbounded
// the hand pushes into such a table with its whole force (max_force, as on a hard table), presses
// down as hard as on a hard one (truth: the same slides on the hard table) and sinks as far as the
// springs compress under that press and its weight; with the default 1 mm it stops pushing there,
// which the README tells users of soft contacts.
//
// One slide's press is not the hard table's to 3%: ODE's friction is limited on each of its two
// directions alone, so a slide almost along one of them leaves the hand stuck across it while the
// capture drifts on (1-2 cm a second), until the follower's sideways pull reaches mu N. The pull
// comes out of the same 60 N, and how it builds up depends on how the hand settled: on 4800 random
// slides the soft table's press was 0.9% of them more than 3% below the hard table's, at worst
// 8.0%, all of them within 0.11 rad of a friction direction; the mean over twelve slides at worst
// 1.1% (400 sets).
constexpr double k_soft_cfm = 0.01;
constexpr double k_soft_spring = 0.2 / (k_h * k_soft_cfm);

TEST(SoftFollowerRandomCases, OnASoftTableAHandPressesAsHardWhenItsPressDepthIsUnbounded) {
  double worst_ratio = 0.0;
  double bounded_press = 0.0;
  double bounded_force = 0.0;
  double bounded_depth = 0.0;
  double worst_spring = 0.0;
  double least_force = INFINITY;
  double hard_total = 0.0;
  double soft_total = 0.0;
  const double max_force = 60.0; // press_and_slide's
  for (Slide c : random_slides(36, 12)) {
    const Pressed hard = press_and_slide(c);
    c.soft_cfm = k_soft_cfm;
    const Pressed bounded = press_and_slide(c);
    c.press_depth = INFINITY;
    const Pressed soft = press_and_slide(c);
    worst_ratio = std::fmax(worst_ratio, std::fabs(soft.press / hard.press - 1.0));
    bounded_press = std::fmax(bounded_press, bounded.press / hard.press);
    bounded_force = std::fmax(bounded_force, bounded.force / max_force);
    bounded_depth = std::fmax(bounded_depth, bounded.deepest);
    least_force = std::fmin(least_force, std::fmin(soft.force, hard.force) / max_force);
    hard_total += hard.press;
    soft_total += soft.press;
    EXPECT_NEAR(hard.force, max_force, 0.01 * max_force);
    EXPECT_NEAR(soft.force, max_force, 0.01 * max_force);
    EXPECT_NEAR(soft.press, hard.press, 0.10 * hard.press);
    // The springs' compression under the press and the weight, the box on its four corners.
    const double compressed = (soft.press + 9.81 * c.mass) / (4 * k_soft_spring);
    worst_spring = std::fmax(worst_spring, std::fabs(soft.depth / compressed - 1.0));
    EXPECT_NEAR(soft.depth, compressed, 0.05 * compressed);
    EXPECT_LT(bounded.force, 0.5 * max_force);
    EXPECT_LT(bounded.press, 0.5 * hard.press);
    EXPECT_LE(bounded.deepest, 0.001 + 1e-4);
  }
  EXPECT_NEAR(soft_total, hard_total, 0.03 * hard_total);
  std::printf("[ metric ] dWorldStep, soft contacts (2400 N/m each): press_depth unbounded, the "
              "follower's force %.2f%% of its limit at least (the hard table's likewise), the "
              "press %.2f%% from the hard table's over the 12 slides, %.2f%% at worst in one; the "
              "mean depth from the springs' compression by %.2f%%; the default 1 mm: at most "
              "%.0f%% of the force, %.0f%% of the press, %.2f mm deep\n",
              100 * least_force, 100 * std::fabs(soft_total / hard_total - 1.0), 100 * worst_ratio,
              100 * worst_spring, 100 * bounded_force, 100 * bounded_press, 1000 * bounded_depth);
}

// A 0.4 kg hand captured 1-4 cm into a kinematic platform that moves at a random velocity (up
// to 0.5 m/s up or down and along), pressed onto it with 60 N: it rides on the platform,
// neither sinking into it nor falling behind it. Truth: the platform's own top, where its
// velocity has taken it. Measured in scratch builds under dWorldQuickStep (20 iterations): the
// code before the thirty-second session 3.3 mm into it; with the rows across the normal and the
// limit taken from the hand's own speed, 5.0 mm; with the surface taken to stay where it held
// the hand, 25.8 mm into it and 25.9 mm above it.
TEST(SoftFollowerRandomCases, AHandPressedOntoAMovingKinematicPlatformRidesOnIt) {
  for (const bool quick : {true, false}) {
    Random random(34);
    double deepest = 0.0;
    double highest = 0.0;
    for (int k = 0; k < 40; ++k) {
      const Vec3 velocity{random.uniform(-0.5, 0.5), 0.0, random.uniform(-0.5, 0.5)};
      const double depth = random.uniform(0.01, 0.04);
      OdeScene scene;
      scene.quick = quick;
      scene.mu = 0.8;
      dBodyID platform = dBodyCreate(scene.world);
      dBodySetKinematic(platform);
      dBodySetPosition(platform, 0, 0, k_table_top - 0.025);
      dBodySetLinearVel(platform, velocity.x, velocity.y, velocity.z);
      dGeomID top = dCreateBox(scene.space, 2.0, 2.0, 0.05);
      dGeomSetBody(top, platform);
      const auto surface = [&](double t) { return Vec3{0, 0, k_table_top} + t * velocity; };
      const auto capture = [&](double t) {
        const double down = std::fmin(1.0, t / 0.25);
        return Pose{surface(t) + Vec3{0, 0, 0.5 * k_hand_sides.z + 0.01 - (0.01 + depth) * down},
                    Quat{}};
      };
      dBodyID hand = scene.box(k_hand_sides, 0.4, capture(0).p);
      KinematicDriver driver(scene.world);
      FollowSettings settings;
      settings.max_force = 60;
      settings.max_torque = 5;
      SoftFollower follower(driver, hand, sampled_track("hand", k_h, 1.75, capture), settings);
      for (int i = 0; i < 180; ++i) {
        driver.prestep(k_h);
        scene.step(k_h);
        const double t = (i + 1) * k_h;
        if (t > 0.5) {
          const double into = surface(t).z - test::lowest_corner(hand, k_hand_sides);
          deepest = std::fmax(deepest, into);
          highest = std::fmax(highest, -into);
        }
      }
    }
    std::printf("[ metric ] %s: a hand pressed onto a moving kinematic platform, %.2f mm into it "
                "at worst, %.2f mm above it (40 random velocities)\n",
                quick ? "dWorldQuickStep" : "dWorldStep", 1000 * deepest, 1000 * highest);
    EXPECT_LE(deepest, 0.003) << quick;
    EXPECT_LE(highest, 0.001) << quick;
  }
}

TEST(SoftFollowerRandomCases, APressedSlidingHandIsNeverThrownOffTheTableAtSixtyOrOneTwentyHertz) {
  // dWorldStep, 0.2, 0.4 and 1 kg hands pressed with 60 N (30, 15 and 6 times their weight),
  // 200 random slides each at 60 Hz and at 120 Hz, measured once the hand is down (from 0.5 s:
  // the press is made in 0.25 s, and at 60 Hz a step of its descent goes 3.3 mm into the table
  // before ODE has a contact to stop it). Before, the rows' lead (the predicted force, tilted by
  // the slide) had its speed cut near the table, and what the other two rows were left to track
  // leaned out of it, or the contact's error reduction threw the hand up and the cut kept it
  // flying: it came back with the whole limit once the obstruction was forgotten. Measured
  // before on these slides: at 60 Hz 11 of 600 deeper than 3 mm (16.9 mm at worst), at 120 Hz
  // none (2.18 mm; on other seeds one 0.2 kg slide in 80 went 11.1 mm). Now the limit holds along
  // the normal of the surface the hand touches (from dCollide, not from the push, which holds
  // friction) and the rows are set across it.
  // What the follower does not catch is a step in which dWorldStep's LCP solver fails part way
  // ("LCP internal error, s <= 0"; plugin/README.md): on 300 other seed shifts at 60 Hz, 15 such
  // steps in 180000 slides, and 10 slides 4.9-15.6 mm deep, one run of these 600 in 30. Slides
  // with a failure are counted apart (at most 3 of 600); every other slide stays within 3 mm.
  for (const double h : {1.0 / 60.0, 1.0 / 120.0}) {
    int deep = 0;
    int failed = 0;
    double worst = 0.0;
    double worst_failed = 0.0;
    test::OdeMessages messages;
    for (const double mass : {0.2, 0.4, 1.0}) {
      Random random(33);
      for (int i = 0; i < 200; ++i) {
        const double depth = random.uniform(0.01, 0.05);
        const double speed = random.uniform(0.2, 1.0);
        const double heading = random.uniform(0, 2 * k_pi);
        const double yaw = random.uniform(0, 2 * k_pi);
        const int failures_before = test::OdeMessages::lcp_failures;
        const double d = press_and_slide(depth, speed, heading, yaw, 5.0, false, mass, 20, h, 0.5);
        if (test::OdeMessages::lcp_failures != failures_before) {
          ++failed;
          worst_failed = std::fmax(worst_failed, d);
          continue;
        }
        worst = std::fmax(worst, d);
        deep += d > 0.003 ? 1 : 0;
      }
    }
    std::printf("[ metric ] dWorldStep at %.0f Hz, 0.2/0.4/1 kg hands, 60 N: pressed and sliding, "
                "deepest corner %.2f mm once down, %d of %d slides deeper than 3 mm; %d slides "
                "with a failed LCP solve (deepest %.2f mm)\n",
                1.0 / h, 1000 * worst, deep, 600 - failed, failed, 1000 * worst_failed);
    EXPECT_LE(worst, 0.003) << h;
    EXPECT_LE(failed, 3) << h;
  }
}

} // namespace
} // namespace odemocap
