// SweepGuard in real ODE scenes: a captured bat swung through balls, a captured hand through a
// hinged plate, and balls just off the bat's path, each with the guard on and off.
#include "support/error_message.hpp"
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::sampled_track;

constexpr double k_h = 1.0 / 120.0;

/// A world without gravity whose near callback makes contacts only between the captured body
/// and the props (props pass through each other), frictionless, with the given restitution.
class StrikeScene {
public:
  explicit StrikeScene(double bounce) : bounce_(bounce) {
    dInitODE2(0);
    dRandSetSeed(1);
    world = dWorldCreate();
    space = dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
  }
  ~StrikeScene() {
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  StrikeScene(const StrikeScene&) = delete;
  StrikeScene& operator=(const StrikeScene&) = delete;

  dSurfaceParameters surface() const {
    dSurfaceParameters s{};
    s.mode = bounce_ > 0 ? dContactBounce : 0;
    s.mu = 0;
    s.bounce = bounce_;
    s.bounce_vel = 0;
    return s;
  }

  /// Collision, the guard (if any), the step, the guard's after_step(): plugin/README.md's loop.
  void step(SweepGuard* guard) {
    dSpaceCollide(space, this, &near);
    if (guard != nullptr) {
      guard->collide(k_h);
    }
    dWorldStep(world, k_h);
    dJointGroupEmpty(contacts);
    if (guard != nullptr) {
      guard->after_step();
    }
  }

  dBodyID striker = nullptr;
  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;

private:
  static void near(void* data, dGeomID a, dGeomID b) {
    auto* scene = static_cast<StrikeScene*>(data);
    dBodyID ba = dGeomGetBody(a);
    dBodyID bb = dGeomGetBody(b);
    if (ba != scene->striker && bb != scene->striker) {
      return;
    }
    dContact c[4];
    const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface = scene->surface();
      dJointAttach(dJointCreateContact(scene->world, scene->contacts, &c[i]), ba, bb);
    }
  }
  double bounce_;
};

// ---- A bat swung through balls --------------------------------------------------------------

constexpr double k_spin = 30.0;   // rad/s
constexpr double k_bat = 0.8;     // m, end to end
constexpr double k_bat_r = 0.03;  // m
constexpr double k_ball_r = 0.02; // m (4 cm balls)
constexpr double k_bat_z = 1.0;

/// The bat: a capsule along the body's x axis from the wrist (its origin), turning about z at
/// 30 rad/s, captured at 120 Hz.
dBodyID make_bat(StrikeScene& scene, KinematicDriver& driver) {
  dBodyID bat = dBodyCreate(scene.world);
  scene.striker = bat;
  dGeomID capsule = dCreateCapsule(scene.space, k_bat_r, k_bat - 2 * k_bat_r);
  dGeomSetBody(capsule, bat);
  dGeomSetOffsetPosition(capsule, 0.5 * k_bat, 0, 0);
  dQuaternion along_x;
  to_ode(from_to({0, 0, 1}, {1, 0, 0}), along_x);
  dGeomSetOffsetQuaternion(capsule, along_x);
  driver.bind(bat, sampled_track("bat", 1.0 / 120, 1.0, [](double t) {
                return Pose{{0, 0, k_bat_z}, from_axis_angle({0, 0, 1}, k_spin * t)};
              }));
  return bat;
}

struct Ball {
  dBodyID body = nullptr;
  double axial = 0; // where along the bat it is struck (m from the pivot)
  Vec3 start;
  int moving_since = -1; // the step it first moved in
  double speed = 0;      // at the end of the step after that one: the impact's outcome
  double expected = 0;   // what the analytic estimate says it should be then
  Vec3 velocity;         // then
  Vec3 normal;           // the bat's normal when the step after the first began
  double along = 0;      // the ball's distance along the bat then
};

struct StrikeRun {
  int balls = 0;
  int hit = 0;               // moving at the end
  int within_10_percent = 0; // of the analytic speed
  int inner = 0;             // struck more than 6 cm from the bat's tip
  int inner_within_10_percent = 0;
  double worst_speed_error = 0; // relative, among those hit
  /// Restitution 1: the rebound against the instant elastic hit's, |v - v_exact| / |v_exact|,
  /// and the largest angle between the two (rad).
  double worst_rebound_error = 0;
  double worst_rebound_angle = 0;
  std::size_t speculative = 0;
  std::vector<Vec3> final_positions;
};

/// The bat turns about z through its pivot at 30 rad/s, captured at 120 Hz; balls wait in its
/// plane at random phases (or `lift` metres above the plane, off its path) and distances.
StrikeRun strike(bool guarded, double bounce, double lift = 0.0, int count = 100) {
  StrikeScene scene(bounce);
  KinematicDriver driver(scene.world);
  dBodyID bat = make_bat(scene, driver);
  SweepSettings settings;
  settings.surface = scene.surface();
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(bat);

  test::Random rnd(7);
  std::vector<Ball> balls;
  const double reach = k_bat_r + k_ball_r;
  for (int i = 0; i < count; ++i) {
    const double share = rnd.uniform(0.0, 1.0);
    const double axial = rnd.uniform(0.1, k_bat - k_bat_r - 0.01);
    // Beside the bat's axis line at that phase, on the side it turns toward, clear of the bat's
    // first pose: its side first touches the ball when the axis is asin(reach / rho) behind the
    // ball's centre (rho from the pivot), which lies atan2(reach + 1 mm, axial) behind the
    // phase. A fixed lower bound (0.8 rad) put balls within 12 cm of the pivot into the bat.
    const double rho = std::hypot(axial, reach + 0.001);
    const double first = std::atan2(reach + 0.001, axial) + std::asin(reach / rho) + 0.05;
    const double phase = first + share * (5.5 - first);
    const Vec3 at = rotate(from_axis_angle({0, 0, 1}, phase), Vec3{axial, -reach - 0.001, 0}) +
                    Vec3{0, 0, k_bat_z + lift};
    dBodyID body = dBodyCreate(scene.world);
    dMass m;
    dMassSetSphereTotal(&m, 0.05, k_ball_r);
    dBodySetMass(body, &m);
    dBodySetPosition(body, at.x, at.y, at.z);
    dGeomSetBody(dCreateSphere(scene.space, k_ball_r), body);
    Ball ball;
    ball.body = body;
    ball.axial = axial;
    ball.start = at;
    balls.push_back(ball);
  }
  for (int i = 0; i < 26; ++i) { // 0.217 s: every ball's phase passed once, none twice
    driver.prestep(k_h);
    scene.step(guarded ? &guard : nullptr);
    // The bat's axis and the normal of its side facing where it turns, now.
    const double angle = k_spin * driver.time();
    const Vec3 axis{std::cos(angle), std::sin(angle), 0};
    const Vec3 normal{-std::sin(angle), std::cos(angle), 0};
    for (Ball& b : balls) {
      const Vec3 v = vec3_from_ode(dBodyGetLinearVel(b.body));
      if (b.moving_since < 0 && norm(v) > 0.1) {
        b.moving_since = i;
        b.normal = normal;
        b.along = dot(vec3_from_ode(dBodyGetPosition(b.body)) - Vec3{0, 0, k_bat_z}, axis);
      } else if (b.moving_since == i - 1) {
        // Frictionless, a kinematic bat: elastic, the ball leaves along the normal with twice
        // the normal speed of the bat's contact point, w * (its distance along the bat). With
        // no restitution it moves on with that point: it cannot leave a bat that keeps turning
        // (a bead on a rotating rod, it slides out along it), so what is compared is its speed
        // along the bat's normal after the step that completed the impact, against the normal
        // speed of the bat where the ball touched it when that step began.
        b.speed = bounce > 0 ? norm(v) : dot(v, b.normal);
        b.velocity = v;
        b.expected = (bounce > 0 ? (1 + bounce) * b.axial : b.along) * k_spin;
      }
    }
  }
  StrikeRun r;
  r.balls = count;
  r.speculative = guard.stats().speculative_contacts;
  for (const Ball& b : balls) {
    r.final_positions.push_back(vec3_from_ode(dBodyGetPosition(b.body)));
    if (b.moving_since < 0) {
      continue;
    }
    ++r.hit;
    const double error = std::fabs(b.speed - b.expected) / b.expected;
    r.worst_speed_error = std::fmax(r.worst_speed_error, error);
    r.within_10_percent += error <= 0.10 ? 1 : 0;
    if (bounce > 0) {
      // The bat's side (its axis `reach` from the ball's centre) first touches the resting
      // ball when the axis is asin(reach / rho) behind the centre's direction, at a = sqrt(rho^2
      // - reach^2) along it; the ball leaves along the side's normal then at (1 + e) w a.
      const Vec3 c = b.start - Vec3{0, 0, k_bat_z};
      const double rho = std::hypot(c.x, c.y);
      const double at = std::atan2(c.y, c.x) - std::asin(reach / rho);
      const Vec3 exact = ((1 + bounce) * k_spin * std::sqrt(rho * rho - reach * reach)) *
                         Vec3{-std::sin(at), std::cos(at), 0};
      r.worst_rebound_error =
          std::fmax(r.worst_rebound_error, norm(b.velocity - exact) / norm(exact));
      r.worst_rebound_angle =
          std::fmax(r.worst_rebound_angle,
                    std::acos(std::clamp(dot(b.velocity, exact) / (norm(b.velocity) * norm(exact)),
                                         -1.0, 1.0)));
    }
    if (b.axial < k_bat - k_bat_r - 0.06) {
      ++r.inner;
      r.inner_within_10_percent += error <= 0.10 ? 1 : 0;
    }
  }
  return r;
}

TEST(SweepGuard, ABatSwungAt30RadPerSecondHitsEveryBallOnItsPath) {
  for (const double bounce : {0.0, 1.0}) {
    const StrikeRun off = strike(false, bounce);
    const StrikeRun on = strike(true, bounce);
    std::printf("  restitution %.0f: without the guard %d of %d balls hit, %d within 10%% of the "
                "analytic speed; with it %d hit, %d within 10%% (worst %.1f%%), %zu speculative "
                "contacts\n",
                bounce, off.hit, off.balls, off.within_10_percent, on.hit, on.within_10_percent,
                100 * on.worst_speed_error, on.speculative);
    EXPECT_EQ(on.hit, on.balls);
    if (bounce > 0) {
      // Against the instant elastic hit: the bat's side, not the sphere of it that touched
      // first (the capsule is swept as spheres along its axis, 2.2 cm apart): by that sphere's
      // normal a ball 10 cm from the pivot left 10-11% too slowly and up to 12 degrees off.
      std::printf("  restitution 1: rebound off the instant elastic hit's by %.2f%% at worst, "
                  "%.2f degrees (unguarded: %.0f%%)\n",
                  100 * on.worst_rebound_error, on.worst_rebound_angle / k_pi * 180,
                  100 * off.worst_rebound_error);
      EXPECT_EQ(on.within_10_percent, on.balls);
      EXPECT_LT(on.worst_rebound_error, 0.02);
      EXPECT_LT(on.worst_rebound_angle / k_pi * 180, 1.0);
    } else {
      // Without restitution a ball struck near the tip slides off its end during the impact.
      std::printf("  restitution 0: %d of the %d balls struck more than 6 cm from the tip within "
                  "10%%\n",
                  on.inner_within_10_percent, on.inner);
      EXPECT_EQ(on.inner_within_10_percent, on.inner);
    }
    EXPECT_LT(off.hit, off.balls * 8 / 10); // unguarded, 30-47% are missed (over 20% on any seed)
  }
}

TEST(SweepGuard, BallsOffThePathMoveExactlyAsWithoutTheGuard) {
  for (const double gap : {0.01, 0.05}) {
    // Above the bat's plane by the two radii plus the gap: the bat passes under them.
    const double lift = k_bat_r + k_ball_r + gap + 0.001;
    const StrikeRun off = strike(false, 0.0, lift, 20);
    const StrikeRun on = strike(true, 0.0, lift, 20);
    double difference = 0;
    for (std::size_t i = 0; i < on.final_positions.size(); ++i) {
      difference = std::fmax(difference, norm(on.final_positions[i] - off.final_positions[i]));
    }
    std::printf("  balls %.0f cm off the path: %d moved, %zu speculative contacts, position "
                "difference to the unguarded run %.1e m\n",
                100 * gap, on.hit, on.speculative, difference);
    EXPECT_EQ(on.hit, 0);
    EXPECT_EQ(on.speculative, 0u);
    EXPECT_EQ(difference, 0.0);
  }
}

// The bat's tip travels 0.2 m per step on an arc that bulges 6 mm beyond its chord: a ball
// that reaches 3 mm into the arc at mid-step is hit only if the sweep follows the arc.
bool tip_ball_is_hit(int max_sub_steps) {
  StrikeScene scene(1.0);
  KinematicDriver driver(scene.world);
  dBodyID bat = make_bat(scene, driver);
  SweepSettings settings;
  settings.surface = scene.surface();
  settings.max_sub_steps = max_sub_steps;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(bat);
  const double mid = 4.5 * k_spin * k_h; // halfway through the fifth step
  const double radius = k_bat + k_ball_r - 0.003;
  dBodyID ball = dBodyCreate(scene.world);
  dMass m;
  dMassSetSphereTotal(&m, 0.05, k_ball_r);
  dBodySetMass(ball, &m);
  dBodySetPosition(ball, radius * std::cos(mid), radius * std::sin(mid), k_bat_z);
  dGeomSetBody(dCreateSphere(scene.space, k_ball_r), ball);
  for (int i = 0; i < 8; ++i) {
    driver.prestep(k_h);
    scene.step(&guard);
  }
  return norm(vec3_from_ode(dBodyGetLinearVel(ball))) > 0.1;
}

TEST(SweepGuard, TheSweepFollowsTheArcOfATurningBatNotItsChord) {
  EXPECT_TRUE(tip_ball_is_hit(SweepSettings{}.max_sub_steps));
  EXPECT_FALSE(tip_ball_is_hit(1)); // one chord per step: the naive sweep misses it
}

// ---- A hand through a hinged plate ----------------------------------------------------------

/// A captured hand (a 4 cm sphere) moving 0.5 m per step along x through the middle of a 2 cm
/// plate hung on a hinge at its top edge; true when the plate swings.
bool hand_hits_plate(bool guarded, double phase) {
  StrikeScene scene(0.0);
  dBodyID plate = dBodyCreate(scene.world);
  dMass m;
  dMassSetBoxTotal(&m, 1.0, 0.02, 0.3, 0.3);
  dBodySetMass(plate, &m);
  dBodySetPosition(plate, 0, 0, 1);
  dGeomSetBody(dCreateBox(scene.space, 0.02, 0.3, 0.3), plate);
  dJointID hinge = dJointCreateHinge(scene.world, nullptr);
  dJointAttach(hinge, plate, nullptr);
  dJointSetHingeAnchor(hinge, 0, 0, 1.15);
  dJointSetHingeAxis(hinge, 0, 1, 0);
  dBodyID hand = dBodyCreate(scene.world);
  scene.striker = hand;
  dGeomSetBody(dCreateSphere(scene.space, 0.04), hand);
  const double speed = 0.5 / k_h; // 60 m/s
  KinematicDriver driver(scene.world);
  BindOptions fast;
  fast.max_linear_speed = 100; // the driver's default limit, 50 m/s, would call it a glitch
  driver.bind(hand,
              sampled_track("hand", k_h, 0.1,
                            [&](double t) {
                              return Pose{{-2.0 + phase + speed * t, 0, 1.0}, Quat{}};
                            }),
              fast);
  SweepGuard guard(scene.world, scene.space, scene.contacts, {});
  guard.guard(hand);
  double swing = 0; // fastest the plate turned on its hinge (rad/s)
  for (int i = 0; i < 10; ++i) {
    driver.prestep(k_h);
    scene.step(guarded ? &guard : nullptr);
    swing = std::fmax(swing, std::fabs(dJointGetHingeAngleRate(hinge)));
  }
  return swing > 1.0;
}

TEST(SweepGuard, AHandMovingHalfAMetrePerStepHitsAThinPlateEveryTime) {
  test::Random rnd(11);
  int hits_on = 0, hits_off = 0;
  const int trials = 50;
  for (int i = 0; i < trials; ++i) {
    const double phase = rnd.uniform(0.0, 0.5);
    hits_on += hand_hits_plate(true, phase) ? 1 : 0;
    hits_off += hand_hits_plate(false, phase) ? 1 : 0;
  }
  std::printf("  hand at 60 m/s through a 2 cm plate: hit %d of %d with the guard, %d without\n",
              hits_on, trials, hits_off);
  EXPECT_EQ(hits_on, trials);
  EXPECT_LT(hits_off, trials / 2);
}

TEST(SweepGuard, BadSettingsAreRefused) {
  test::OdeScene scene;
  SweepSettings zero;
  zero.tolerance = 0;
  EXPECT_NE(test::error_message<PluginError>([&] {
              SweepGuard(scene.world, scene.space, scene.contacts, zero);
            }).find("tolerance"),
            std::string::npos);
  EXPECT_NE(test::error_message<PluginError>([&] {
              SweepGuard(scene.world, nullptr, scene.contacts);
            }).find("null"),
            std::string::npos);
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  EXPECT_NE(test::error_message<PluginError>([&] { guard.collide(0); }).find("h must"),
            std::string::npos);
  EXPECT_NE(test::error_message<PluginError>([&] { guard.guard(nullptr); }).find("null"),
            std::string::npos);
}

} // namespace
} // namespace odemocap
