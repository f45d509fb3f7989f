// Quaternion lock and hinge joints in real ODE scenes, against ODE's own fixed and hinge joints
// and against analytic truth (finite differences, conserved energy, a spring's lag).
#include "support/data_paths.hpp"
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include "joints/quat_constraint.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace odemocap {
namespace {

using test::k_pi;
using test::OdeScene;
using test::Random;
using test::sampled_track;

constexpr double k_deg = 180.0 / k_pi;
constexpr double k_h = 1.0 / 120.0;

Quat orientation_of(dBodyID body) {
  return quat_from_ode(dBodyGetQuaternion(body));
}

/// Angle (rad) of the rotation taking `from` to `to`, on the shorter arc, written out here
/// (atan2 of the parts of conj(from) to, accurate near zero unlike acos of a dot product).
double angle_between_rotations(const Quat& from, const Quat& to) {
  const Quat d = conj(from) * to;
  return 2.0 * std::atan2(norm(d.vec()), std::fabs(d.w));
}

/// Angle (rad) of the part of the world-frame rotation `r` that is not about unit axis `n`.
double off_axis_angle(const Quat& r, const Vec3& n) {
  const Vec3 v = r.vec();
  const double along = dot(v, n);
  return 2.0 * std::atan2(norm(v - along * n), std::sqrt(r.w * r.w + along * along));
}

// ---- Jacobian rows against finite differences of g ------------------------------------------

using RowFunction = detail::RowJacobian (*)(const Quat&, const Quat&, const Vec3&);

/// g of `row` at time t when the bodies spin at w1, w2 from orientations o1, o2.
double g_at(RowFunction row, const Quat& o1, const Quat& frame1, const Quat& o2, const Quat& frame2,
            const Vec3& w1, const Vec3& w2, const Vec3& r, double t) {
  const Quat f = integrate(o1, w1, t) * frame1;
  const Quat q = detail::error_rotation(f, integrate(o2, w2, t) * frame2);
  return row(f, q, r).g;
}

detail::RowJacobian twist(const Quat& f, const Quat& q, const Vec3& n) {
  return detail::twist_row(f, q, n);
}

TEST(QuatConstraint, JacobianRowsMatchFiniteDifferencesOfG) {
  Random random(7);
  const RowFunction rows[] = {&detail::orientation_row, &twist};
  double worst = 0.0;
  int checked = 0;
  for (int i = 0; i < 2000; ++i) {
    const Quat o1 = random.rotation(), o2 = random.rotation();
    const Quat frame1 = random.rotation(), frame2 = random.rotation();
    const Vec3 w1 = random.unit_vector() * random.uniform(0, 3);
    const Vec3 w2 = random.unit_vector() * random.uniform(0, 3);
    const Vec3 r = random.unit_vector();
    const Quat f = o1 * frame1;
    const Quat q = detail::error_rotation(f, o2 * frame2);
    if (q.w < 0.05) {
      continue; // the hemisphere choice jumps at w = 0: g is not differentiable there
    }
    for (RowFunction row : rows) {
      const double e = 1e-6;
      const double numeric = (g_at(row, o1, frame1, o2, frame2, w1, w2, r, e) -
                              g_at(row, o1, frame1, o2, frame2, w1, w2, r, -e)) /
                             (2 * e);
      const double analytic = dot(row(f, q, r).gradient, w2 - w1);
      worst = std::fmax(worst, std::fabs(numeric - analytic));
      ++checked;
    }
  }
  std::printf("[ metric ] %d rows, largest |dg/dt - G.(w2 - w1)| = %.2e\n", checked, worst);
  EXPECT_GT(checked, 3000);
  // The difference quotient's own error (e^2 / 6 times g's third derivative, which grows as the
  // error rotation nears a half turn) reaches 3e-9 to 1.1e-8 over ten seeds; a wrong row is
  // off by the rate itself (SmallAngleJacobianIsWrongFarFromTheSolution).
  EXPECT_LT(worst, 5e-8);
}

TEST(QuatConstraint, SmallAngleJacobianIsWrongFarFromTheSolution) {
  // The naive row G = 1/2 f r (the Jacobian at q = 1) is what a linearised joint uses; at a
  // 90-degree error it is off by far more than the solver can tolerate.
  const Quat f = from_axis_angle({0, 1, 0}, 0.3);
  const Quat q = from_axis_angle({1, 2, 3}, k_pi / 2);
  const Vec3 r{1, 0, 0};
  const Vec3 exact = detail::orientation_row(f, q, r).gradient;
  const Vec3 naive = 0.5 * rotate(f, r);
  EXPECT_GT(norm(exact - naive) / norm(exact), 0.3);
}

// ---- Lock to the static world under load, against dJointTypeFixed ---------------------------

struct LoadedResult {
  double max_error = 0.0;  // rad, body orientation vs its initial one
  double max_anchor = 0.0; // m
};

enum class LockKind { Quat, OdeFixed, VelocityMotor };

/// A 1 kg box held to the world at a point 0.3 m from its centre, so gravity pulls on it with
/// a torque, plus an applied torque that turns about a moving axis.
LoadedResult loaded_lock(LockKind kind, bool quick) {
  OdeScene scene;
  scene.quick = quick;
  dBodyID box = scene.box({0.4, 0.2, 0.1}, 1.0, {0.3, 0, 1});
  const Quat initial = orientation_of(box);
  KinematicDriver driver(scene.world);
  std::vector<QuatLockJoint> locks;
  dJointID ode_joint = nullptr;
  dJointID ball = nullptr;
  if (kind == LockKind::Quat) {
    QuatLockSettings s;
    s.body1 = box;
    s.anchor = {0, 0, 1};
    locks.emplace_back(driver, s);
  } else if (kind == LockKind::OdeFixed) {
    ode_joint = dJointCreateFixed(scene.world, nullptr);
    dJointAttach(ode_joint, box, nullptr);
    dJointSetFixed(ode_joint);
  } else {
    // What an ODE user writes without quaternion rows: a ball joint plus an angular motor
    // holding zero relative velocity about three fixed axes. Nothing corrects drift.
    ball = dJointCreateBall(scene.world, nullptr);
    dJointAttach(ball, box, nullptr);
    dJointSetBallAnchor(ball, 0, 0, 1);
    ode_joint = dJointCreateAMotor(scene.world, nullptr);
    dJointAttach(ode_joint, box, nullptr);
    dJointSetAMotorNumAxes(ode_joint, 3);
    dJointSetAMotorAxis(ode_joint, 0, 0, 1, 0, 0);
    dJointSetAMotorAxis(ode_joint, 1, 0, 0, 1, 0);
    dJointSetAMotorAxis(ode_joint, 2, 0, 0, 0, 1);
    for (int i = 0; i < 3; ++i) {
      dJointSetAMotorParam(ode_joint, dParamVel + dParamGroup * i, 0);
      dJointSetAMotorParam(ode_joint, dParamFMax + dParamGroup * i, dInfinity);
    }
  }
  LoadedResult r;
  const int steps = static_cast<int>(5.0 / k_h);
  for (int i = 0; i < steps; ++i) {
    const double t = i * k_h;
    dBodyAddTorque(box, 3 * std::cos(2 * t), 3 * std::sin(3 * t), 2);
    driver.prestep(k_h);
    scene.step(k_h);
    r.max_error = std::fmax(r.max_error, angle_between_rotations(initial, orientation_of(box)));
    if (!locks.empty()) {
      r.max_anchor = std::fmax(r.max_anchor, locks[0].anchor_error());
    }
  }
  return r;
}

TEST(QuatLock, HoldsABoxToTheWorldUnderGravityAndTorqueLikeOdeFixed) {
  for (bool quick : {false, true}) {
    const LoadedResult ours = loaded_lock(LockKind::Quat, quick);
    const LoadedResult fixed = loaded_lock(LockKind::OdeFixed, quick);
    std::printf("[ metric ] %s: QuatLock max error %.2e deg (anchor %.2e m); "
                "dJointTypeFixed %.2e deg\n",
                quick ? "dWorldQuickStep" : "dWorldStep", ours.max_error * k_deg, ours.max_anchor,
                fixed.max_error * k_deg);
    EXPECT_LT(ours.max_error * k_deg, 0.1);
    EXPECT_LT(ours.max_anchor, 1e-3);
  }
}

TEST(QuatLock, VelocityOnlyMotorDriftsWhereTheLockHolds) {
  const LoadedResult ours = loaded_lock(LockKind::Quat, true);
  const LoadedResult naive = loaded_lock(LockKind::VelocityMotor, true);
  std::printf("[ metric ] dWorldQuickStep, 5 s: QuatLock %.3g deg, zero-velocity AMotor %.3g deg\n",
              ours.max_error * k_deg, naive.max_error * k_deg);
  EXPECT_GT(naive.max_error, 5 * ours.max_error);
}

// ---- Large initial error --------------------------------------------------------------------

struct Convergence {
  std::vector<double> errors; // rad, per step
  int steps_to_one_degree = -1;
};

/// A free box (no gravity) locked angular-only to the world with a target 170 degrees away
/// about a random axis. `flip_target` hands the joint -target instead, which is the same
/// rotation: a correct lock must not care.
Convergence converge(double angle, const Vec3& axis, bool flip_target, double erp) {
  OdeScene scene(0.0);
  dBodyID box = scene.box({0.3, 0.2, 0.1}, 1.0, {0, 0, 0});
  KinematicDriver driver(scene.world);
  QuatLockSettings s;
  s.body2 = box;
  s.angular_only = true;
  const Quat target = orientation_of(box) * from_axis_angle(axis, angle);
  s.target = flip_target ? -target : target;
  s.softness.erp = erp;
  QuatLockJoint lock(driver, s);
  Convergence c;
  for (int i = 0; i < 600; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    const double e = angle_between_rotations(target, orientation_of(box));
    c.errors.push_back(e);
    if (c.steps_to_one_degree < 0 && e * k_deg < 1.0) {
      c.steps_to_one_degree = i + 1;
    }
  }
  return c;
}

TEST(QuatLock, ConvergesMonotonicallyFrom170DegreesWithoutFlipping) {
  Random random(170);
  for (int trial = 0; trial < 5; ++trial) {
    const Vec3 axis = random.unit_vector();
    for (bool flip : {false, true}) {
      const Convergence c = converge(170.0 / k_deg, axis, flip, 0.2);
      double previous = 170.0 / k_deg + 1e-9;
      for (std::size_t i = 0; i < c.errors.size(); ++i) {
        ASSERT_LE(c.errors[i], previous + 1e-12) << "step " << i << " trial " << trial;
        previous = c.errors[i];
      }
      ASSERT_GT(c.steps_to_one_degree, 0);
      if (trial == 0) {
        std::printf("[ metric ] 170 deg at ERP 0.2: %d steps to 1 deg (target sign %s)\n",
                    c.steps_to_one_degree, flip ? "flipped" : "as is");
      }
    }
  }
}

TEST(QuatLock, ErrorBeyond180DegreesTakesTheShortWay) {
  // 190 degrees one way is 170 the other: the lock turns the body 170 degrees, so the error
  // never passes through 180. A lock that kept the raw sign of conj(f) p2 would turn 190.
  const Convergence c = converge(190.0 / k_deg, {0, 0, 1}, false, 0.2);
  double worst = 0;
  for (double e : c.errors) {
    worst = std::fmax(worst, e);
  }
  EXPECT_LE(worst * k_deg, 170.0 + 1e-9);
  EXPECT_GT(c.steps_to_one_degree, 0);
}

// ---- A large error must not fling ------------------------------------------------------------

/// The angular speed (rad/s) one step gives a box at rest held `angle` away from its target
/// about z, by the quaternion lock or by ODE's fixed joint (default ERP 0.2, no gravity).
double commanded_rate(double angle, bool fixed_joint) {
  OdeScene scene(0.0);
  dBodyID box = scene.box({0.3, 0.2, 0.1}, 1.0, {0, 0, 0});
  KinematicDriver driver(scene.world);
  std::optional<QuatLockJoint> lock;
  if (fixed_joint) {
    dJointID fixed = dJointCreateFixed(scene.world, nullptr);
    dJointAttach(fixed, box, nullptr);
    dJointSetFixed(fixed); // holds the orientation it has now: the identity
  } else {
    QuatLockSettings s;
    s.body2 = box;
    s.angular_only = true;
    lock.emplace(driver, s); // target: the identity
  }
  dQuaternion q;
  to_ode(from_axis_angle({0, 0, 1}, angle), q);
  dBodySetQuaternion(box, q);
  driver.prestep(k_h);
  scene.step(k_h);
  return norm(vec3_from_ode(dBodyGetAngularVel(box)));
}

TEST(QuatLock, ALargeErrorCommandsWhatOdesFixedJointDoes) {
  for (double degrees : {90.0, 170.0, 178.0}) {
    const double ours = commanded_rate(degrees / k_deg, false);
    const double fixed = commanded_rate(degrees / k_deg, true);
    std::printf("[ metric ] %g deg: QuatLock %.1f rad/s, dJointTypeFixed %.1f rad/s\n", degrees,
                ours, fixed);
    EXPECT_LE(ours, 1.5 * fixed) << degrees;
    EXPECT_GE(ours, fixed / 1.5) << degrees;
  }
  // The row's own measure g / |G| (what the lock corrected before) grows like 2 tan(angle/2):
  // at 170 degrees 11 times ODE's 2 sin(angle/2), at 178 degrees 57 times.
  const Quat f;
  for (const auto& [degrees, ratio] : {std::pair<double, double>{170, 11.0}, {178, 57.0}}) {
    const Quat q = from_axis_angle({0, 0, 1}, degrees / k_deg);
    const detail::RowJacobian row = detail::orientation_row(f, q, {0, 0, 1});
    const double naive = detail::motor_row(row, {0, 0, 1}).angle;
    detail::MotorRow rows[3];
    detail::lock_motor_rows(f, q, rows);
    const double bounded = rows[2].angle;
    EXPECT_NEAR(bounded, 2 * std::sin(degrees / k_deg / 2), 1e-12);
    EXPECT_GT(naive / bounded, ratio) << degrees;
  }
}

TEST(QuatLock, FiniteRotationModeNeverOvershootsToTheFarSide) {
  for (double degrees : {170.0, 178.0}) {
    OdeScene scene(0.0);
    dBodyID box = scene.box({0.3, 0.2, 0.1}, 1.0, {0, 0, 0});
    dBodySetFiniteRotationMode(box, 1); // what the driver sets on the bodies it moves
    KinematicDriver driver(scene.world);
    const Quat target = from_axis_angle({0, 0, 1}, degrees / k_deg);
    QuatLockSettings s;
    s.body2 = box;
    s.angular_only = true;
    s.target = target;
    QuatLockJoint lock(driver, s);
    double previous = degrees / k_deg + 1e-9;
    for (int i = 0; i < 240; ++i) {
      driver.prestep(k_h);
      scene.step(k_h);
      // Signed error about z: it must shrink towards 0 from one side, never cross it.
      const Quat e = conj(target) * orientation_of(box);
      const double signed_error = 2.0 * std::atan2(e.z * (e.w < 0 ? -1 : 1), std::fabs(e.w));
      ASSERT_LE(std::fabs(signed_error), previous + 1e-12) << degrees << " step " << i;
      ASSERT_LE(signed_error, 1e-9) << degrees << " crossed at step " << i;
      previous = std::fabs(signed_error);
    }
    EXPECT_LT(previous * k_deg, 0.01) << degrees;
  }
}

/// Largest speed (m/s) of a 1 kg bob on a ball joint 0.4 m below a 1 kg box that is held 170
/// degrees (about x) from its target by the quaternion lock or ODE's fixed joint, and the
/// largest gap of that ball joint (m), over 2 s.
std::pair<double, double> flung_bob(bool fixed_joint) {
  OdeScene scene(-9.81);
  dBodyID box = scene.box({0.2, 0.2, 0.2}, 1.0, {0, 0, 1});
  dBodySetFiniteRotationMode(box, 1);
  dBodyID bob = scene.box({0.1, 0.1, 0.1}, 1.0, {0, 0, 0.5});
  dBodySetPosition(bob, 0, 0, 0.5);
  KinematicDriver driver(scene.world);
  std::optional<QuatLockJoint> lock;
  if (fixed_joint) {
    dJointID fixed = dJointCreateFixed(scene.world, nullptr);
    dJointAttach(fixed, box, nullptr);
    dJointSetFixed(fixed);
  } else {
    QuatLockSettings s;
    s.body2 = box;
    s.anchor = {0, 0, 1};
    lock.emplace(driver, s);
  }
  dQuaternion q; // the box turned 170 degrees away from where the joint holds it
  to_ode(from_axis_angle({1, 0, 0}, 170.0 / k_deg), q);
  dBodySetQuaternion(box, q);
  // The bob hangs from the box's underside as it is now: turning back, the box swings it.
  dJointID ball = dJointCreateBall(scene.world, nullptr);
  dJointAttach(ball, box, bob);
  dJointSetBallAnchor(ball, 0, 0, 0.9);
  double speed = 0.0, gap = 0.0;
  for (int i = 0; i < 240; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    speed = std::fmax(speed, norm(vec3_from_ode(dBodyGetLinearVel(bob))));
    dVector3 a1, a2;
    dJointGetBallAnchor(ball, a1);
    dJointGetBallAnchor2(ball, a2);
    gap = std::fmax(gap, norm(vec3_from_ode(a1) - vec3_from_ode(a2)));
  }
  return {speed, gap};
}

TEST(QuatLock, ABobBelowALargeErrorIsNotFlungHarderThanByOdesFixedJoint) {
  const auto [ours, ours_gap] = flung_bob(false);
  const auto [fixed, fixed_gap] = flung_bob(true);
  std::printf("[ metric ] bob below a 170-degree error: QuatLock %.2f m/s (ball gap %.1f mm), "
              "dJointTypeFixed %.2f m/s (%.1f mm)\n",
              ours, 1000 * ours_gap, fixed, 1000 * fixed_gap);
  EXPECT_LE(ours, 1.05 * fixed);
  EXPECT_LE(ours_gap, 1.05 * fixed_gap + 1e-3);
}

// ---- Hinge ----------------------------------------------------------------------------------

Vec3 normalized_perpendicular(const Vec3& v) {
  const Vec3 c = cross(v, std::fabs(v.x) < 0.9 ? Vec3{1, 0, 0} : Vec3{0, 1, 0});
  return c / norm(c);
}

struct HingeResult {
  double energy_loss = 0.0;  // fraction over the run
  double max_off_axis = 0.0; // rad
  double max_anchor = 0.0;   // m
};

/// A box hinged to the world through its centre about a tilted axis, spun about that axis at
/// 6 rad/s, no gravity; with `load`, a torque about an axis perpendicular to the hinge. The
/// box's z axis is put on the hinge axis: about a non-principal axis ODE's implicit gyroscopic
/// term alone takes 10% of the energy in 5 s, with its own hinge as with ours.
HingeResult spinning_hinge(bool ours, bool quick, bool load) {
  OdeScene scene(0.0);
  scene.quick = quick;
  dBodyID box = scene.box({0.4, 0.3, 0.2}, 2.0, {0, 0, 1});
  const Vec3 axis = Vec3{1, 2, 2} / 3.0;
  set_body_pose(box, {{0, 0, 1}, from_to({0, 0, 1}, axis)});
  const Quat initial = orientation_of(box);
  KinematicDriver driver(scene.world);
  std::vector<QuatHingeJoint> hinges;
  if (ours) {
    QuatHingeSettings s;
    s.body2 = box;
    s.anchor = {0, 0, 1};
    s.axis = axis;
    hinges.emplace_back(driver, s);
  } else {
    dJointID hinge = dJointCreateHinge(scene.world, nullptr);
    dJointAttach(hinge, box, nullptr);
    dJointSetHingeAnchor(hinge, 0, 0, 1);
    dJointSetHingeAxis(hinge, axis.x, axis.y, axis.z);
  }
  const double spin = 6.0;
  dBodySetAngularVel(box, spin * axis.x, spin * axis.y, spin * axis.z);
  const auto energy = [&] {
    // About the hinge axis only the spin is free: E = 1/2 I_axis w^2 with I_axis from the
    // world-frame inertia n^T R I R^T n.
    dMass m;
    dBodyGetMass(box, &m);
    const Vec3 w = vec3_from_ode(dBodyGetAngularVel(box));
    const Vec3 wb = rotate(conj(orientation_of(box)), w);
    const Vec3 iw{m.I[0] * wb.x + m.I[1] * wb.y + m.I[2] * wb.z,
                  m.I[4] * wb.x + m.I[5] * wb.y + m.I[6] * wb.z,
                  m.I[8] * wb.x + m.I[9] * wb.y + m.I[10] * wb.z};
    return 0.5 * dot(wb, iw);
  };
  const double e0 = energy();
  HingeResult r;
  const Vec3 perpendicular = normalized_perpendicular(axis);
  const int steps = static_cast<int>(5.0 / k_h);
  for (int i = 0; i < steps; ++i) {
    if (load) {
      dBodyAddTorque(box, 20 * perpendicular.x, 20 * perpendicular.y, 20 * perpendicular.z);
    }
    driver.prestep(k_h);
    scene.step(k_h);
    const Quat relative = orientation_of(box) * conj(initial);
    r.max_off_axis = std::fmax(r.max_off_axis, off_axis_angle(relative, axis));
    if (!hinges.empty()) {
      r.max_anchor = std::fmax(r.max_anchor, hinges[0].anchor_error());
    }
  }
  r.energy_loss = (e0 - energy()) / e0;
  return r;
}

TEST(QuatHinge, SpinsFreelyAboutItsAxisLikeOdeHinge) {
  for (bool quick : {false, true}) {
    const HingeResult ours = spinning_hinge(true, quick, false);
    const HingeResult ode = spinning_hinge(false, quick, false);
    std::printf("[ metric ] %s, 5 s at 6 rad/s: energy loss QuatHinge %.3f%%, dJointTypeHinge "
                "%.3f%%; off-axis %.2e vs %.2e deg\n",
                quick ? "dWorldQuickStep" : "dWorldStep", 100 * ours.energy_loss,
                100 * ode.energy_loss, ours.max_off_axis * k_deg, ode.max_off_axis * k_deg);
    EXPECT_LT(std::fabs(ours.energy_loss), 0.01);
    EXPECT_LT(ours.max_off_axis * k_deg, 0.1);
  }
}

TEST(QuatHinge, ResistsTorqueAboutTheOtherAxesLikeOdeHinge) {
  for (bool quick : {false, true}) {
    const HingeResult ours = spinning_hinge(true, quick, true);
    const HingeResult ode = spinning_hinge(false, quick, true);
    std::printf("[ metric ] %s, 20 N m off-axis load while spinning: off-axis error QuatHinge "
                "%.2e deg (anchor %.2e m), dJointTypeHinge %.2e deg\n",
                quick ? "dWorldQuickStep" : "dWorldStep", ours.max_off_axis * k_deg,
                ours.max_anchor, ode.max_off_axis * k_deg);
    EXPECT_LT(ours.max_off_axis * k_deg, 0.1);
    EXPECT_LT(ours.max_anchor, 1e-3);
  }
}

TEST(QuatHinge, AngleFollowsTheSpinAndLimitsStopIt) {
  OdeScene scene(0.0);
  dBodyID box = scene.box({0.4, 0.3, 0.2}, 2.0, {0, 0, 0});
  KinematicDriver driver(scene.world);
  QuatHingeSettings s;
  s.body1 = box; // the world as body 2: the angle is the world's turn relative to the box
  s.axis = {0, 0, 1};
  s.lower = -0.5;
  s.upper = 1.0;
  QuatHingeJoint hinge(driver, s);
  dBodySetAngularVel(box, 0, 0, -0.6); // the world turns +0.6 rad/s relative to the box
  for (int i = 0; i < 60; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
  }
  EXPECT_NEAR(hinge.angle(), 0.6 * 60 * k_h, 1e-6);
  double reached = 0;
  for (int i = 0; i < 240; ++i) {
    dBodyAddTorque(box, 0, 0, -2); // keeps pushing past the upper limit
    driver.prestep(k_h);
    scene.step(k_h);
    reached = std::fmax(reached, hinge.angle());
  }
  std::printf("[ metric ] limit 1 rad: largest angle %.4f rad, settled at %.4f rad\n", reached,
              hinge.angle());
  EXPECT_NEAR(hinge.angle(), 1.0, 0.01);
  EXPECT_LT(reached, 1.05);
}

TEST(QuatHinge, AxisAndAnchorInBodyCoordinatesMeanTheSameAsInTheWorld) {
  // A frame turned 90 degrees about x: its body y axis points along world z. A hinge given as
  // body-1 axis y through body-1 point (0.3, 0, 0) is the world hinge z through (0.3, 0, 1),
  // the door's centre, so a spin about it is free and keeps its rate.
  OdeScene scene(0.0);
  dBodyID frame = scene.box({0.1, 0.1, 0.1}, 1, {0, 0, 1});
  set_body_pose(frame, {{0, 0, 1}, from_axis_angle({1, 0, 0}, k_pi / 2)});
  dBodyID door = scene.box({0.4, 0.05, 0.4}, 1, {0.3, 0, 1});
  KinematicDriver driver(scene.world);
  QuatHingeSettings s;
  s.body1 = frame;
  s.body2 = door;
  s.anchor = {0.3, 0, 0};
  s.axis = {0, 1, 0};
  s.in_body1 = true;
  QuatHingeJoint hinge(driver, s);
  dVector3 anchor;
  dJointGetBallAnchor(hinge.ball(), anchor);
  EXPECT_TRUE(test::near_vec(vec3_from_ode(anchor), {0.3, 0, 1}, 1e-12));
  dBodySetAngularVel(door, 0, 0, 2);   // about world z: the hinge axis, free
  dBodySetFiniteRotationMode(door, 1); // exact rotation update (ODE's default: 2 atan(w h / 2))
  driver.prestep(k_h);
  scene.step(k_h);
  EXPECT_NEAR(hinge.angle(), 2 * k_h, 1e-9);
  EXPECT_LT(hinge.axis_error(), 1e-9);
  s.body1 = nullptr;
  s.body2 = door;
  EXPECT_THROW(QuatHingeJoint(driver, s), PluginError); // in_body1 without a body 1
}

// ---- A door hinged on a capture-driven frame -------------------------------------------------

struct DoorResult {
  double max_off_axis = 0.0; // rad
  double max_anchor = 0.0;   // m
};

/// A 10 kg door hinged on its edge to a kinematic frame that travels a figure-eight (0.5 m,
/// period 2 s) while yawing back and forth; gravity on.
DoorResult door_on_moving_frame(DriveMode mode, bool quick, bool ours = true) {
  OdeScene scene;
  scene.quick = quick;
  dBodyID frame = scene.box({0.1, 0.1, 2.0}, 5.0, {0, 0, 1});
  dBodyID door = scene.box({0.8, 0.04, 2.0}, 10.0, {0.45, 0, 1});
  KinematicDriver driver(scene.world);
  driver.set_mode(mode);
  const double w = 2 * k_pi / 2.0;
  driver.bind(frame, sampled_track("frame", 1.0 / 120, 6.0, [&](double t) {
                const Vec3 p{0.5 * std::sin(w * t), 0.25 * std::sin(2 * w * t), 1.0};
                const Quat q = from_axis_angle({0, 0, 1}, 0.6 * std::sin(w * t)) *
                               from_axis_angle({1, 0, 0}, 0.2 * std::sin(2 * w * t));
                return Pose{p, q};
              }));
  QuatHingeSettings s;
  s.body1 = frame;
  s.body2 = door;
  s.anchor = {0.05, 0, 1};
  s.axis = {0, 0, 1};
  std::vector<QuatHingeJoint> hinges;
  dJointID ode_hinge = nullptr;
  if (ours) {
    hinges.emplace_back(driver, s);
  } else {
    ode_hinge = dJointCreateHinge(scene.world, nullptr);
    dJointAttach(ode_hinge, frame, door);
    dJointSetHingeAnchor(ode_hinge, 0.05, 0, 1);
    dJointSetHingeAxis(ode_hinge, 0, 0, 1);
  }
  // Off-axis error measured the same way for both joints: the door's rotation relative to the
  // frame, less its turn about the frame's z axis (the hinge axis in the frame's coordinates).
  const Quat start = conj(orientation_of(frame)) * orientation_of(door);
  DoorResult r;
  const int steps = static_cast<int>(5.0 / k_h);
  for (int i = 0; i < steps; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    const Quat relative = conj(orientation_of(frame)) * orientation_of(door) * conj(start);
    r.max_off_axis = std::fmax(r.max_off_axis, off_axis_angle(relative, {0, 0, 1}));
    if (ours) {
      r.max_anchor = std::fmax(r.max_anchor, hinges[0].anchor_error());
      EXPECT_NEAR(hinges[0].axis_error(), off_axis_angle(relative, {0, 0, 1}), 1e-9);
    } else {
      dVector3 a1;
      dVector3 a2;
      dJointGetHingeAnchor(ode_hinge, a1);
      dJointGetHingeAnchor2(ode_hinge, a2);
      r.max_anchor = std::fmax(r.max_anchor, norm(vec3_from_ode(a1) - vec3_from_ode(a2)));
    }
  }
  return r;
}

TEST(QuatHinge, DoorOnACaptureDrivenFrameStaysOnItsHinge) {
  for (bool quick : {false, true}) {
    const DoorResult r = door_on_moving_frame(DriveMode::Geodesic, quick);
    const DoorResult ode = door_on_moving_frame(DriveMode::Geodesic, quick, false);
    std::printf("[ metric ] %s door: off-axis max %.3f deg, anchor gap max %.2f mm; "
                "dJointTypeHinge %.3f deg, %.2f mm\n",
                quick ? "dWorldQuickStep" : "dWorldStep", r.max_off_axis * k_deg,
                1000 * r.max_anchor, ode.max_off_axis * k_deg, 1000 * ode.max_anchor);
    EXPECT_LT(r.max_off_axis * k_deg, 0.5);
  }
}

TEST(QuatHinge, DoorOnATeleportedFrameWobbles) {
  const DoorResult good = door_on_moving_frame(DriveMode::Geodesic, false);
  const DoorResult bad = door_on_moving_frame(DriveMode::Teleport, false);
  std::printf("[ metric ] door off-axis max: geodesic %.3f deg, teleport %.3f deg\n",
              good.max_off_axis * k_deg, bad.max_off_axis * k_deg);
  EXPECT_GT(bad.max_off_axis, 4 * good.max_off_axis);
  EXPECT_GT(bad.max_off_axis * k_deg, 0.5);
}

// ---- Target motor following a captured orientation -----------------------------------------

/// RMS and largest angle (rad) between a free box and a captured orientation it is locked to
/// with the given softness, over the capture's first 8 s (CMU 131_03, right elbow).
struct Following {
  double rms = 0.0;
  double max = 0.0;
};

Following follow_capture(const JointSoftness& softness) {
  LoadOptions load;
  load.length_scale = 0.0254 / 0.45;
  load.up_axis = Axis::Z;
  const Capture capture = load_capture(test::repo_data("cmu/131_03.bvh"), load);
  const Track& track = capture.track("RightElbow");
  OdeScene scene(0.0);
  dBodyID box = scene.box({0.3, 0.08, 0.08}, 1.5, {0, 0, 1});
  set_body_pose(box, {{0, 0, 1}, track.orientation(0)});
  KinematicDriver driver(scene.world);
  QuatLockSettings s;
  s.body2 = box;
  s.anchor = {0, 0, 1};
  s.softness = softness;
  QuatLockJoint motor(driver, s);
  motor.follow(track);
  double sum = 0;
  Following f;
  const int steps = static_cast<int>(std::fmin(8.0, track.end_time()) / k_h);
  for (int i = 0; i < steps; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
    const Quat want = track.sample(driver.time(), Interp::Linear, OutOfRange::Clamp).q;
    const double e = angle_between_rotations(want, orientation_of(box));
    sum += e * e;
    f.max = std::fmax(f.max, e);
  }
  f.rms = std::sqrt(sum / steps);
  return f;
}

TEST(QuatLockMotor, FollowsACapturedOrientationWithLagThatGrowsAsStiffnessFalls) {
  JointSoftness rigid;
  rigid.erp = 1.0;
  const Following exact = follow_capture(rigid);
  std::printf("[ metric ] target motor, ERP 1: RMS %.2e deg, max %.2e deg\n", exact.rms * k_deg,
              exact.max * k_deg);
  EXPECT_LT(exact.rms * k_deg, 0.01);
  double previous = exact.rms;
  for (double k : {3000.0, 300.0, 30.0}) {
    JointSoftness spring;
    spring.stiffness = k;
    spring.damping = 2 * std::sqrt(k * 0.02); // near critical for the box's ~0.02 kg m^2
    const Following f = follow_capture(spring);
    std::printf("[ metric ] target motor, k = %6.0f N m/rad: RMS %.3f deg, max %.3f deg\n", k,
                f.rms * k_deg, f.max * k_deg);
    EXPECT_GT(f.rms, previous);
    EXPECT_LT(f.max * k_deg, 90.0); // bounded: it follows, it does not run away
    previous = f.rms;
  }
}

// ---- Lifetime and settings -------------------------------------------------------------------

TEST(QuatJointLifetime, DestroyingABodyDetachingAndDestroyingTheDriverAreSafe) {
  OdeScene scene;
  dBodyID a = scene.box({0.2, 0.2, 0.2}, 1, {0, 0, 1});
  dBodyID b = scene.box({0.2, 0.2, 0.2}, 1, {0.3, 0, 1});
  auto driver = std::make_unique<KinematicDriver>(scene.world);
  QuatLockSettings s;
  s.body1 = a;
  s.body2 = b;
  s.anchor = {0.15, 0, 1};
  QuatLockJoint lock(*driver, s);
  QuatHingeSettings hs;
  hs.body1 = a;
  hs.anchor = {0, 0, 1.1};
  QuatHingeJoint hinge(*driver, hs);
  EXPECT_EQ(driver->joint_count(), 2u);
  EXPECT_TRUE(lock.attached());
  EXPECT_TRUE(dAreConnected(a, b));
  driver->prestep(k_h);
  scene.step(k_h);

  dBodyDestroy(b); // ODE detaches the lock's joints; the lock notices
  EXPECT_FALSE(lock.attached());
  driver->prestep(k_h);
  scene.step(k_h);
  EXPECT_TRUE(hinge.attached());

  QuatHingeJoint moved = std::move(hinge); // moving keeps the registration
  EXPECT_EQ(driver->joint_count(), 2u);
  EXPECT_THROW(hinge.angle(), PluginError); // NOLINT(bugprone-use-after-move): on purpose
  moved.detach();
  moved.detach();
  EXPECT_FALSE(moved.attached());
  EXPECT_EQ(moved.ball(), nullptr);

  driver.reset(); // joints outlive the driver: no longer updated, still destructible
  EXPECT_FALSE(lock.attached());
}

TEST(QuatJointLifetime, DestroyingAJointUnregistersIt) {
  OdeScene scene;
  dBodyID a = scene.box({0.2, 0.2, 0.2}, 1, {0, 0, 1});
  KinematicDriver driver(scene.world);
  {
    QuatLockSettings s;
    s.body1 = a;
    QuatLockJoint lock(driver, s);
    EXPECT_EQ(driver.joint_count(), 1u);
    EXPECT_EQ(dBodyGetNumJoints(a), 2);
  }
  EXPECT_EQ(driver.joint_count(), 0u);
  EXPECT_EQ(dBodyGetNumJoints(a), 0);
  driver.prestep(k_h);
}

TEST(QuatJointSettings, InvalidSettingsAreRejectedWithAReason) {
  OdeScene scene;
  OdeScene other;
  dBodyID a = scene.box({0.2, 0.2, 0.2}, 1, {0, 0, 1});
  dBodyID foreign = other.box({0.2, 0.2, 0.2}, 1, {0, 0, 1});
  KinematicDriver driver(scene.world);
  const auto lock_error = [&](QuatLockSettings s) -> std::string {
    try {
      QuatLockJoint j(driver, s);
    } catch (const PluginError& e) {
      return e.what();
    }
    return "";
  };
  QuatLockSettings s;
  EXPECT_NE(lock_error(s).find("both bodies are null"), std::string::npos);
  s.body1 = a;
  s.body2 = a;
  EXPECT_NE(lock_error(s).find("same body"), std::string::npos);
  s.body2 = foreign;
  EXPECT_NE(lock_error(s).find("another world"), std::string::npos);
  s.body2 = nullptr;
  s.frame1 = Quat{2, 0, 0, 0};
  EXPECT_NE(lock_error(s).find("unit quaternions"), std::string::npos);
  s.frame1 = Quat{};
  s.softness.erp = 1.5;
  EXPECT_NE(lock_error(s).find("softness.erp"), std::string::npos);
  s.softness.erp.reset();
  s.softness.stiffness = -1;
  EXPECT_NE(lock_error(s).find("stiffness"), std::string::npos);
  s.softness.stiffness = 0;
  s.anchor = {NAN, 0, 0};
  EXPECT_NE(lock_error(s).find("anchor"), std::string::npos);
  EXPECT_EQ(driver.joint_count(), 0u);

  QuatHingeSettings h;
  h.body1 = a;
  h.axis = {0, 0, 0};
  EXPECT_THROW(QuatHingeJoint(driver, h), PluginError);
  h.axis = {0, 0, 1};
  h.lower = 1;
  h.upper = 0.5;
  EXPECT_THROW(QuatHingeJoint(driver, h), PluginError);
  h.lower = -4;
  h.upper = 0;
  EXPECT_THROW(QuatHingeJoint(driver, h), PluginError);

  QuatLockSettings good;
  good.body1 = a;
  QuatLockJoint lock(driver, good);
  EXPECT_THROW(lock.set_target(Quat{0, 0, 0, 0}), PluginError);
  EXPECT_THROW(lock.follow(Track("empty")), PluginError);
}

TEST(QuatJointFeedback, ReportsTheForceThatHoldsAHangingBox) {
  // A 2 kg box hanging from the world by a lock at its centre: the joint carries its weight.
  OdeScene scene;
  dBodyID box = scene.box({0.2, 0.2, 0.2}, 2, {0, 0, 1});
  KinematicDriver driver(scene.world);
  QuatLockSettings s;
  s.body2 = box; // the world is body 1: feedback must still come back in the user's order
  s.anchor = {0, 0, 1};
  QuatLockJoint lock(driver, s);
  for (int i = 0; i < 10; ++i) {
    driver.prestep(k_h);
    scene.step(k_h);
  }
  const JointFeedback f = lock.feedback();
  EXPECT_NEAR(f.force2.z, 2 * 9.81, 1e-6);
  EXPECT_NEAR(norm(f.force1), 0.0, 1e-12);
  EXPECT_NEAR(norm(f.torque2), 0.0, 1e-6);
}

} // namespace
} // namespace odemocap
