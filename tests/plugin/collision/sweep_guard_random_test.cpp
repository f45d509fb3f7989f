// SweepGuard on random scenes against a reference we did not tune: the same scene stepped 64
// times per step without the guard (discrete collision at h/64 sees every touch), and analytic
// paths. Random incidence angles, speeds, sizes and orientations; fixed seeds.
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"
#include "support/sweep_scene.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
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
  const Vec3 t = random.perpendicular_unit(n);
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

/// True when the hand's centre ends a step behind the plate: on the other side of its
/// mid-plane from where the step began and within its outline (or anywhere, when asked: a
/// hand through the plate and past its edge), having crossed the mid-plane within the outline
/// on its path through the step. Within a step the plate is taken to move
/// on a line and turn at one constant rate from its pose before to its pose after (the shorter
/// arc: ODE's first-order update turns a free body by 2 atan(|w| h / 2), less than a half turn,
/// per step), the hand on a line. The chord between the two poses in the plate's frame, which
/// turns, is no path: a plate spinning three radians in a step carries its rim round a hand
/// that passes it by, and that chord then crosses the plate's middle (PassWatch counts those;
/// in each such case the hand stays clear of the plate all step).
class BehindWatch {
public:
  /// `anywhere`: the step may end outside the outline (through the plate and past its edge).
  explicit BehindWatch(const Vec3& half, bool anywhere = false)
      : half_(half), anywhere_(anywhere) {}
  void observe(dBodyID hand, dBodyID plate) {
    const Pose now{position_of(plate), orientation_of(plate)};
    const Vec3 centre = position_of(hand);
    if (seen_ && !behind_) {
      behind_ = ends_behind(centre, now);
    }
    plate_ = now;
    centre_ = centre;
    seen_ = true;
  }
  bool behind() const { return behind_; }

private:
  bool within(const Vec3& local) const {
    return std::fabs(local.x) <= half_.x && std::fabs(local.y) <= half_.y;
  }
  bool ends_behind(const Vec3& centre, const Pose& plate) const {
    const Vec3 end = rotate(conj(plate.q), centre - plate.p);
    const double start = rotate(conj(plate_.q), centre_ - plate_.p).z;
    if ((start > 0.0) == (end.z > 0.0) || !(anywhere_ || within(end))) {
      return false;
    }
    Quat turn = plate.q * conj(plate_.q);
    turn = turn.w < 0.0 ? -1.0 * turn : turn;
    const Vec3 rotation = to_rotation_vector(turn);
    constexpr int k_samples = 1024;
    Vec3 previous;
    bool crossed_within = false; // the last crossing's
    for (int k = 0; k <= k_samples; ++k) {
      const double s = static_cast<double>(k) / k_samples;
      const Quat q = from_rotation_vector(s * rotation) * plate_.q;
      const Vec3 local =
          rotate(conj(q), centre_ + s * (centre - centre_) - (plate_.p + s * (plate.p - plate_.p)));
      if (k > 0 && (local.z > 0.0) != (previous.z > 0.0)) {
        crossed_within =
            within(previous + (previous.z / (previous.z - local.z)) * (local - previous));
      }
      previous = local;
    }
    return crossed_within;
  }

  Vec3 half_;
  bool anywhere_ = false;
  Pose plate_;
  Vec3 centre_;
  bool seen_ = false;
  bool behind_ = false;
};

enum class Hand { Ball, Box, Capsule };

const char* name_of(Hand hand) {
  return hand == Hand::Ball ? "ball" : hand == Hand::Box ? "box" : "capsule";
}

/// A free box plate at the origin and a kinematic hand of one geom thrown at it, with a guard
/// of the hand that each step uses or not.
class PlateRig {
public:
  PlateRig(double mu, double bounce, bool simple_space, const Vec3& half, const Quat& turn,
           double mass)
      : scene(mu, bounce, simple_space) {
    plate = scene.dynamic(dCreateBox(scene.space, 2 * half.x, 2 * half.y, 2 * half.z), mass);
    set_pose(plate, {0, 0, 0}, turn);
  }
  /// The hand: `geom` (of scene.space) on a kinematic body at `start`, turned `turn`, moving at v.
  void throw_hand(dGeomID geom, const Vec3& start, const Quat& turn, const Vec3& v) {
    hand = scene.kinematic(geom);
    set_pose(hand, start, turn);
    set_velocity(hand, v);
    SweepSettings settings;
    settings.surface = scene.surface;
    guard = std::make_unique<SweepGuard>(scene.world, scene.space, scene.contacts, settings);
    guard->guard(hand);
  }
  void step(double h, bool guarded, bool after_step = true) {
    scene.step(h, guarded ? guard.get() : nullptr, after_step);
  }

  SweepScene scene;
  dBodyID plate = nullptr;
  dBodyID hand = nullptr;
  std::unique_ptr<SweepGuard> guard;
};

/// Runs a plate case for 12 steps: guarded, or without a guard at `substeps` per step. The hand
/// is a sphere of the case's radius r, a box of half extents r, 0.6 r, 1.5 r, or a capsule of
/// radius r and length 4 r between its ends' centres, the last two turned by `turn`.
struct PlateOutcome {
  bool chord_passed = false; ///< PassWatch: the chord between poses crossed the plate
  bool behind = false;       ///< BehindWatch: the path crossed it and ended behind
};

PlateOutcome hand_passes_plate(const PlateCase& c, double mu, bool guarded, int substeps,
                               Hand shape, const Quat& turn) {
  PlateRig rig(mu, 0.0, false, {k_plate_half, k_plate_half, 0.5 * k_plate_thickness}, c.plate,
               c.mass);
  const dSpaceID space = rig.scene.space;
  rig.throw_hand(shape == Hand::Box ? dCreateBox(space, 2 * c.radius, 1.2 * c.radius, 3 * c.radius)
                 : shape == Hand::Capsule ? dCreateCapsule(space, c.radius, 4 * c.radius)
                                          : dCreateSphere(space, c.radius),
                 c.start, shape == Hand::Ball ? Quat{} : turn, c.velocity);
  PassWatch watch;
  BehindWatch path({k_plate_half, k_plate_half, 0.5 * k_plate_thickness}, true);
  watch.observe(rig.hand, rig.plate);
  path.observe(rig.hand, rig.plate);
  for (int i = 0; i < 12 * substeps; ++i) {
    rig.step(k_h / substeps, guarded);
    watch.observe(rig.hand, rig.plate);
    path.observe(rig.hand, rig.plate);
  }
  return {watch.passed(), path.behind()};
}

TEST(SweepGuardRandomScenes, AHandPassesThroughNoFreePlateAtAnyIncidence) {
  for (const Hand shape : {Hand::Ball, Hand::Box, Hand::Capsule}) {
    for (double mu : {0.0, 0.5}) {
      for (double degrees : {0.0, 30.0, 60.0}) {
        Random random(static_cast<unsigned>(900 + degrees));
        Random turns(static_cast<unsigned>(77 + degrees)); // the box and capsule hands'
        int guarded = 0, unguarded = 0, reference = 0, chord = 0;
        const int cases = 72;
        for (int i = 0; i < cases; ++i) {
          const PlateCase c = plate_case(random, degrees * k_pi / 180.0);
          const Quat turn = turns.rotation();
          const PlateOutcome g = hand_passes_plate(c, mu, true, 1, shape, turn);
          guarded += g.behind ? 1 : 0;
          chord += g.chord_passed ? 1 : 0;
          unguarded += hand_passes_plate(c, mu, false, 1, shape, turn).behind ? 1 : 0;
          reference += hand_passes_plate(c, mu, false, k_substeps, shape, turn).behind ? 1 : 0;
        }
        std::printf("[ metric ] %s hand at 20-80 m/s, %g deg incidence, mu %g, free 1 cm plate: "
                    "ends behind it %d of %d guarded (by the chord: %d), %d unguarded, %d in the "
                    "64x reference\n",
                    name_of(shape), degrees, mu, guarded, cases, chord, unguarded, reference);
        EXPECT_EQ(reference, 0) << degrees;
        // Judged on the path (BehindWatch): the chord between the poses after each step (the
        // PassWatch count printed beside it) says nothing of a plate struck near its edge,
        // spinning 300-400 rad/s, 1.7-2.4 rad a step: its rim turns round a hand that has
        // left it, and the chord then crosses the plate's middle. On ODEMOCAP_SEED_SHIFT 0-40
        // and 300-310 (58320 guarded cases) the chord counted 110 such passes, up to 2 in a
        // row, two steps after the hit in the cases traced, with the hand at least 16 cm from
        // the plate and clear of it at every 1/64 of the step; the path counted 5, all capsule
        // hands, never 2 in a row: one case in 72 is tolerated. Before the twenty-first
        // session a box hand passed in up to 2 of 72 and a capsule in up to 25: the plate,
        // turned by the first touch, swung its face into the hand's other corners or its
        // other end, which only a free hand's were swept for. Until the twenty-third a capsule
        // still passed in up to 5 of 72 (ODEMOCAP_SEED_SHIFT 0-11: 37 of 5184), ending the hit
        // step through a plate that had swung into it; a struck target found so is now moved
        // ahead of the hand (12 seeds: 15 of 5184, at most 1 in a row; balls 12, boxes 0).
        EXPECT_LE(guarded, 1) << degrees;
        EXPECT_GT(unguarded, cases / 2) << degrees;
      }
    }
  }
}

/// One case the random rows above drew on another seed (ODEMOCAP_SEED_SHIFT=11, 60 degrees,
/// mu 0, case 2), kept as it was: a capsule hand at 71 m/s strikes a 0.27 kg plate 7 cm off its
/// middle, the plate spins up to 421 rad/s (3.5 rad in the step) and swings its face into the
/// hand's other end, and the hand ended that step with its centre 2 cm past the plate's middle
/// and one end 9 cm behind it. after_step() now moves a free target found so, struck by a body
/// that keeps to its capture, ahead of it along the hit's normal (SweepStats::pushed_out).
TEST(SweepGuardRandomScenes, APlateSwungIntoACapsuleHandsOtherEndIsMovedAheadOfIt) {
  PlateCase c;
  c.plate = {-0.11721101390677954, 0.60471656589418454, -0.10274773002223639, -0.78103928014368562};
  c.mass = 0.26731639602727381;
  c.radius = 0.04247962265544182;
  c.velocity = {13.314716245766272, -22.655369836031426, -65.636856426870793};
  c.start = {-0.38810643635720421, 0.66661833519243285, 1.957816843064176};
  const Quat turn{0.21312114023575124, -0.30345470299960753, -0.21793710828581847,
                  0.90277241852199308};
  const PlateOutcome guarded = hand_passes_plate(c, 0.0, true, 1, Hand::Capsule, turn);
  EXPECT_FALSE(guarded.behind);
  EXPECT_FALSE(guarded.chord_passed);
  EXPECT_TRUE(hand_passes_plate(c, 0.0, false, 1, Hand::Capsule, turn).behind);
  EXPECT_FALSE(hand_passes_plate(c, 0.0, false, k_substeps, Hand::Capsule, turn).behind);
}

// ---- Plates of any size, thickness and mass, hands of any size, at any incidence ----------

/// Drawn more widely than plate_case(), as a program of someone else's would: plates 20-60 cm
/// on a side, 5-25 mm thick, 0.05-5 kg; a ball, box or capsule hand of 1.5-6.5 cm at 15-100
/// m/s and 0-70 degrees from the plate's normal, aimed within half the plate's half extents of
/// its middle; friction 0 (three cases in ten) or up to 1, restitution 0 (half) or up to 0.5.
struct WidePlate {
  Vec3 half; ///< the plate's half extents; its local z is its normal
  Quat plate;
  double mass = 0;
  double radius = 0; ///< the hand's size
  Hand shape = Hand::Ball;
  Quat turn; ///< the box and capsule hands' orientation
  Vec3 velocity;
  Vec3 start;
  double mu = 0;
  double bounce = 0;
};

WidePlate wide_plate(Random& random, int i) {
  WidePlate c;
  c.half = {random.uniform(0.1, 0.3), random.uniform(0.1, 0.3), random.uniform(0.0025, 0.0125)};
  c.plate = random.rotation();
  c.mass = 0.05 * std::exp(random.uniform(0.0, std::log(100.0)));
  c.radius = random.uniform(0.015, 0.065);
  c.shape = i % 3 == 0 ? Hand::Ball : i % 3 == 1 ? Hand::Box : Hand::Capsule;
  c.turn = random.rotation();
  const double incidence = random.uniform(0.0, 70.0) * k_pi / 180.0;
  const Vec3 n = rotate(c.plate, Vec3{0, 0, 1});
  const Vec3 direction =
      -std::cos(incidence) * n + std::sin(incidence) * random.perpendicular_unit(n);
  c.velocity = random.uniform(15.0, 100.0) * direction;
  const Vec3 aim = rotate(c.plate, Vec3{random.uniform(-0.5, 0.5) * c.half.x,
                                        random.uniform(-0.5, 0.5) * c.half.y, 0.0});
  c.start = aim - (3.5 * k_h) * c.velocity - (3.0 * c.radius + 2.0 * c.half.z) * direction;
  c.mu = random.uniform(0.0, 1.0) < 0.3 ? 0.0 : random.uniform(0.0, 1.0);
  c.bounce = random.uniform(0.0, 1.0) < 0.5 ? 0.0 : random.uniform(0.0, 0.5);
  return c;
}

enum class PlateRun { Guarded, GuardedWithoutAfterStep, Unguarded, Reference };

/// Runs a wide plate case for 12 steps; true when the hand ends a step behind the plate.
bool hand_ends_behind_plate(const WidePlate& c, PlateRun run) {
  PlateRig rig(c.mu, c.bounce, true, c.half, c.plate, c.mass);
  const dSpaceID space = rig.scene.space;
  const double r = c.radius;
  rig.throw_hand(c.shape == Hand::Box       ? dCreateBox(space, 2 * r, 1.4 * r, 2.6 * r)
                 : c.shape == Hand::Capsule ? dCreateCapsule(space, r, 3 * r)
                                            : dCreateSphere(space, r),
                 c.start, c.shape == Hand::Ball ? Quat{} : c.turn, c.velocity);
  const bool guarded = run == PlateRun::Guarded || run == PlateRun::GuardedWithoutAfterStep;
  const int substeps = run == PlateRun::Reference ? k_substeps : 1;
  BehindWatch watch(c.half);
  watch.observe(rig.hand, rig.plate);
  for (int i = 0; i < 12 * substeps; ++i) {
    rig.step(k_h / substeps, guarded, run == PlateRun::Guarded);
    watch.observe(rig.hand, rig.plate);
  }
  return watch.behind();
}

TEST(SweepGuardRandomScenes, AHandEndsNoStepBehindAFreePlateOfAnySizeMassOrIncidence) {
  Random random(2411);
  const int cases = 300;
  int guarded = 0, late = 0, unguarded = 0, reference = 0;
  for (int i = 0; i < cases; ++i) {
    const WidePlate c = wide_plate(random, i);
    guarded += hand_ends_behind_plate(c, PlateRun::Guarded) ? 1 : 0;
    late += hand_ends_behind_plate(c, PlateRun::GuardedWithoutAfterStep) ? 1 : 0;
    unguarded += hand_ends_behind_plate(c, PlateRun::Unguarded) ? 1 : 0;
    reference += hand_ends_behind_plate(c, PlateRun::Reference) ? 1 : 0;
  }
  std::printf("[ metric ] hands of 1.5-6.5 cm at 15-100 m/s, 0-70 deg, plates 20-60 cm, 5-25 mm, "
              "0.05-5 kg: ends a step behind the plate in %d of %d guarded, %d with after_step() "
              "left to the next collide(), %d unguarded, %d in the 64x reference\n",
              guarded, cases, late, unguarded, reference);
  EXPECT_EQ(reference, 0);
  // ODEMOCAP_SEED_SHIFT 0-80 (24300 cases): none; 30001-30027: one, on 30013, before the
  // thirty-fifth session (the test below); since, none on 0-40 and 30001-30090. Until the
  // twenty-fifth session 10 of 18000 (shifts 1-60) ended a step behind, each a plate struck off its
  // middle that spins at 180-545 rad/s and so turns 1.5-2.3 rad in one step: after_step() looked
  // for the hand's centre going through the plate on the chord between its two ends in the plate's
  // frame, which the turn bends away from the path (see the test below).
  EXPECT_EQ(guarded, 0);
  // The loop plugin/README.md showed until the twenty-fourth session: after_step() left to the
  // next collide(), so a struck plate is completed and moved ahead of the hand only after the
  // poses of the step were read (and after the near callback collided them): 24-39 of 300.
  EXPECT_GT(late, cases / 20);
  EXPECT_GT(unguarded, cases / 2);
}

/// One case the rows above drew on ODEMOCAP_SEED_SHIFT=30013 (case 293), kept as it was: a
/// capsule hand 12 cm thick at 30 m/s into a 45 x 23 cm, 5.8 mm plate of 0.84 kg, which spins at
/// 210 rad/s after the first hit. A step began with the hand's centre 2.8 cm in front of the
/// plate's middle and one end past it; the pair, touching, was watched with the normal that end's
/// sphere found, which pointed out of the plate's far side, and after_step() moved the plate 10 cm
/// back over the hand, whose centre then ended the step behind it. That normal is now turned
/// round when it leads towards the geom's centre.
TEST(SweepGuardRandomScenes, ACapsuleHandWithOneEndThroughAThinPlateIsWatchedFromItsOwnSide) {
  WidePlate c;
  c.shape = Hand::Capsule;
  c.half = {0.22497473078667135, 0.11352121356382777, 0.0029145564011649346};
  c.plate = {0.66743977264826304, -0.19126233585989602, -0.077631713241096523,
             -0.71548318349763007};
  c.mass = 0.8418914617562514;
  c.radius = 0.061920340632326598;
  c.turn = {-0.31970006966525466, 0.92212273340692097, 0.2151908609077724, 0.034269860985297461};
  c.velocity = {16.277288796884463, 13.296283730646644, -21.088550978144124};
  c.start = {-0.58844067524277199, -0.56663458245212905, 0.78980412706587555};
  c.mu = 0.27229760552338744;
  c.bounce = 0.0;
  // The naive runs do not end behind the plate here (unguarded, the hand passes it by at its
  // edge): what failed was the guard's own move, before this change.
  EXPECT_FALSE(hand_ends_behind_plate(c, PlateRun::Guarded));
  EXPECT_FALSE(hand_ends_behind_plate(c, PlateRun::Reference));
}

/// Four cases the random test above drew on other seeds (ODEMOCAP_SEED_SHIFT 43, 10, 18, 31;
/// cases 9, 54, 160, 299), kept as they were: a ball, a ball, a box and a capsule hand strike a
/// plate off its middle, the plate turns 1.5-2.3 rad in that step, and the hand ends the step
/// behind it, its centre having gone through the plate on the way, seen from the plate, while
/// the chord between the centre's two ends in the plate's frame passes beside it. after_step()
/// looked only at that chord, and each of these ended a step behind the plate; it now follows
/// the centre's path too (relative_path_test.cpp tests that path against its definition).
TEST(SweepGuardRandomScenes, AHandThroughAPlateTurningTwoRadiansInTheStepIsFoundOnItsPath) {
  std::vector<WidePlate> cases(4);
  cases[0].half = {0.27093792544256756, 0.10885210671361453, 0.0054556495734213884};
  cases[0].plate = {-0.86892786965246505, 0.17096101101128325, 0.2058793153114977,
                    -0.41635369288874757};
  cases[0].mass = 2.2210619751880016;
  cases[0].radius = 0.050795331312554655;
  cases[0].shape = Hand::Ball;
  cases[0].velocity = {5.6129731849959832, 72.152463065307984, -42.073331348473616};
  cases[0].start = {-0.21383053910868005, -2.3064400376352179, 1.2953292727047749};
  cases[0].mu = 0.1906398190107399;
  cases[0].bounce = 0.23636998234587556;
  cases[1].half = {0.26111500257784337, 0.10434586983641206, 0.0027292748956807881};
  cases[1].plate = {0.78460556594927955, 0.61407876162430186, 0.07451060840010211,
                    0.041827618139467074};
  cases[1].mass = 0.9794688227774565;
  cases[1].radius = 0.023997310154523777;
  cases[1].shape = Hand::Ball;
  cases[1].velocity = {-7.405061692030185, 76.32546083383906, -9.9425312736561775};
  cases[1].start = {0.11671109603042938, -2.3260230162304434, 0.28093601417984343};
  cases[1].mu = 0.0;
  cases[1].bounce = 0.022944980761568853;
  cases[2].half = {0.11348956288500747, 0.11535847860604148, 0.0070238026757879594};
  cases[2].plate = {0.10179092850501546, -0.90723823209463461, 0.020252054901194038,
                    0.40761164283195811};
  cases[2].mass = 0.58140346727623771;
  cases[2].radius = 0.062611703605156971;
  cases[2].shape = Hand::Box;
  cases[2].turn = {-0.51853184976909583, -0.17117992419134079, -0.71048064997705873,
                   -0.4438912032661414};
  cases[2].velocity = {70.239177347720783, -11.440025300863397, 39.850575503390175};
  cases[2].start = {-2.2549092578472432, 0.39702116841148083, -1.2132042460997907};
  cases[2].mu = 0.3032373882231762;
  cases[2].bounce = 0.0;
  cases[3].half = {0.18682924132139761, 0.12379059303750546, 0.0025111016453036226};
  cases[3].plate = {-0.11868204121334937, 0.047598999976195377, -0.81338882684693381,
                    -0.56749231241953202};
  cases[3].mass = 0.069935398746022739;
  cases[3].radius = 0.021509267579448377;
  cases[3].shape = Hand::Capsule;
  cases[3].turn = {0.26317657846119891, -0.69703722853118366, 0.47165921769536767,
                   0.47160870746204087};
  cases[3].velocity = {6.9938306362599132, -54.936860170776662, 11.30143848961387};
  cases[3].start = {-0.21074367296814225, 1.6893432696089163, -0.28737923581581692};
  cases[3].mu = 0.0;
  cases[3].bounce = 0.063407900546249285;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_FALSE(hand_ends_behind_plate(cases[i], PlateRun::Guarded)) << i;
    EXPECT_FALSE(hand_ends_behind_plate(cases[i], PlateRun::Reference)) << i;
  }
}

// ---- A thrown stick: moving and spinning at once ------------------------------------------

constexpr double k_stick_half = 0.3; // m
constexpr double k_stick_r = 0.02;
constexpr int k_stick_steps = 10;

struct Stick {
  Vec3 p0, v, w;
  Quat q0;
  /// The stick's axis ends at time t (s): it turns at w and moves at v exactly (a kinematic
  /// body in finite rotation mode).
  void ends(double t, Vec3& a, Vec3& b) const {
    const Quat q = integrate(q0, w, t);
    const Vec3 c = p0 + t * v;
    a = c + rotate(q, Vec3{0, 0, -k_stick_half});
    b = c + rotate(q, Vec3{0, 0, k_stick_half});
  }
};

double distance_to_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 u = b - a;
  const double s = std::fmin(1.0, std::fmax(0.0, dot(p - a, u) / dot(u, u)));
  return norm(p - (a + s * u));
}

/// The closest the stick's axis comes to p over the run, sampled every 0.25 mm of travel.
double closest_approach(const Stick& stick, const Vec3& p) {
  double best = INFINITY;
  const int samples = 10000;
  for (int i = 0; i <= samples; ++i) {
    Vec3 a, b;
    stick.ends(k_stick_steps * k_h * i / samples, a, b);
    best = std::fmin(best, distance_to_segment(p, a, b));
  }
  return best;
}

struct StickRun {
  int true_hits = 0, hit_of_true = 0;     // balls the stick's path overlaps by 2 mm or more
  int true_misses = 0, ghosts = 0;        // balls it passes 2 mm or more away from
  int unguarded_hit_of_true = 0;
};

StickRun throw_stick(unsigned seed) {
  Random random(seed);
  Stick stick;
  stick.p0 = {0, 0, 0};
  stick.q0 = random.rotation();
  stick.v = 30.0 * random.unit_vector();
  stick.w = 40.0 * random.unit_vector();
  struct Placed {
    Vec3 at;
    double radius;
    double closest;
  };
  std::vector<Placed> balls;
  while (balls.size() < 93) {
    Vec3 a, b;
    stick.ends(random.uniform(0.5, k_stick_steps - 0.5) * k_h, a, b);
    const double radius = random.uniform(0.015, 0.04);
    const Vec3 axis = (b - a) / norm(b - a);
    const Vec3 at = a + random.uniform(0.0, 1.0) * (b - a) +
                    random.uniform(0.0, k_stick_r + radius + 0.03) *
                        random.perpendicular_unit(axis);
    Vec3 a0, b0;
    stick.ends(0.0, a0, b0);
    bool clear = distance_to_segment(at, a0, b0) > k_stick_r + radius + 0.01;
    for (const Placed& o : balls) {
      clear = clear && norm(o.at - at) > o.radius + radius + 0.01;
    }
    if (clear) {
      balls.push_back({at, radius, closest_approach(stick, at)});
    }
  }
  StickRun r;
  for (bool guarded : {true, false}) {
    SweepScene scene;
    dGeomID capsule = dCreateCapsule(scene.space, k_stick_r, 2 * k_stick_half);
    dBodyID body = scene.kinematic(capsule);
    dGeomSetCategoryBits(capsule, 1);
    dGeomSetCollideBits(capsule, 2);
    set_pose(body, stick.p0, stick.q0);
    set_velocity(body, stick.v, stick.w);
    std::vector<dBodyID> bodies;
    for (const Placed& b : balls) {
      dGeomID sphere = dCreateSphere(scene.space, b.radius);
      dGeomSetCategoryBits(sphere, 2); // balls meet the stick, not each other
      dGeomSetCollideBits(sphere, 1);
      dBodyID ball = scene.dynamic(sphere, 0.05);
      set_pose(ball, b.at, Quat{});
      bodies.push_back(ball);
    }
    SweepSettings settings;
    settings.surface = scene.surface;
    SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
    guard.guard(body);
    for (int i = 0; i < k_stick_steps; ++i) {
      scene.step(k_h, guarded ? &guard : nullptr);
    }
    for (std::size_t i = 0; i < balls.size(); ++i) {
      const bool moved = norm(vec3_from_ode(dBodyGetLinearVel(bodies[i]))) > 1e-3;
      const double reach = k_stick_r + balls[i].radius;
      if (balls[i].closest < reach - 0.002) {
        r.true_hits += guarded ? 1 : 0;
        (guarded ? r.hit_of_true : r.unguarded_hit_of_true) += moved ? 1 : 0;
      } else if (balls[i].closest > reach + 0.002 && guarded) {
        ++r.true_misses;
        r.ghosts += moved ? 1 : 0;
      }
    }
  }
  return r;
}

TEST(SweepGuardRandomScenes, AStickMovingAndSpinningHitsEveryBallItsPathOverlapsAndNoOther) {
  StickRun total;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const StickRun r = throw_stick(seed);
    total.true_hits += r.true_hits;
    total.hit_of_true += r.hit_of_true;
    total.unguarded_hit_of_true += r.unguarded_hit_of_true;
    total.true_misses += r.true_misses;
    total.ghosts += r.ghosts;
  }
  std::printf("[ metric ] stick at 30 m/s and 40 rad/s: %d of %d balls its path overlaps hit "
              "(%d without the guard), %d of %d balls it passes moved\n",
              total.hit_of_true, total.true_hits, total.unguarded_hit_of_true, total.ghosts,
              total.true_misses);
  EXPECT_GT(total.true_hits, 100);
  EXPECT_EQ(total.hit_of_true, total.true_hits);
  EXPECT_EQ(total.ghosts, 0);
  EXPECT_LT(total.unguarded_hit_of_true, total.true_hits * 9 / 10);
}

// ---- A ball past a spinning plate: what the guard sees against the true path -----------------

/// The distance from a point to a target shape in the target's own frame.
struct Shape {
  int kind = dSphereClass;
  double radius = 0.0;      // sphere, capsule
  double half_length = 0.0; // capsule: along local z
  Vec3 half;                // box
};

double shape_distance(const Shape& shape, const Vec3& p) {
  switch (shape.kind) {
  case dSphereClass: return std::max(0.0, norm(p) - shape.radius);
  case dCapsuleClass: {
    const double z = std::clamp(p.z, -shape.half_length, shape.half_length);
    return std::max(0.0, norm(p - Vec3{0, 0, z}) - shape.radius);
  }
  default: {
    const Vec3 out{std::fmax(std::fabs(p.x) - shape.half.x, 0.0),
                   std::fmax(std::fabs(p.y) - shape.half.y, 0.0),
                   std::fmax(std::fabs(p.z) - shape.half.z, 0.0)};
    return norm(out);
  }
  }
}

const double k_tolerance = SweepSettings{}.tolerance;

struct SpinCase {
  Quat plate;    // orientation at the start
  Vec3 spin;     // rad/s, about the plate's centre (the origin)
  Vec3 start;    // the ball's centre at the start
  Vec3 velocity; // the ball's
  double radius = 0.0;
};

const Vec3 k_spin_plate_half{0.1, 0.1, 0.005};

/// The ball's centre in the plate's frame a fraction s through the step, on the true motions:
/// the ball on its line, the plate turning at its constant spin (finite rotation mode).
Vec3 in_plate(const SpinCase& c, double s) {
  const Quat q = from_rotation_vector(c.spin * (s * k_h)) * c.plate;
  return rotate(conj(q), c.start + (s * k_h) * c.velocity);
}

double plate_distance(const Vec3& local) {
  return shape_distance({dBoxClass, 0.0, 0.0, k_spin_plate_half}, local);
}

/// The least distance from the ball's surface to the plate over the step along a path given as
/// a function of s in [0, 1], sampled `samples` times over the step (by default every 1/8000 of
/// it: the ball moves under 0.1 mm).
template <typename Path> double least_gap(const Path& path, double radius, int samples = 8000) {
  double least = INFINITY;
  for (int i = 0; i <= samples; ++i) {
    least = std::min(least, plate_distance(path(static_cast<double>(i) / samples)) - radius);
  }
  return least;
}

SpinCase spin_case(Random& random) {
  SpinCase c;
  c.plate = random.rotation();
  c.spin = random.uniform(30.0, 150.0) * random.unit_vector();
  c.radius = random.uniform(0.01, 0.03);
  c.velocity = random.uniform(20.0, 60.0) * random.unit_vector();
  // Aimed at a point near the plate (where its rim passes), reached mid-step.
  const Vec3 aim{random.uniform(-0.15, 0.15), random.uniform(-0.15, 0.15),
                 random.uniform(-0.15, 0.15)};
  c.start = aim - (random.uniform(0.3, 0.7) * k_h) * c.velocity;
  return c;
}

/// True when the guard makes a contact for the ball against the plate in the coming step: a
/// free 1 kg box of half extents `half` (the plate's by default) in finite rotation mode, with
/// or without ODE's gyroscopic term. By default without: the truth turns the plate at its
/// constant spin, as ODE does only then (with it, see AFreeRodIsSweptAsODETurnsIt).
bool guard_sees_a_hit(const SpinCase& c, const Vec3& half = k_spin_plate_half,
                      bool gyroscopic = false) {
  SweepScene scene;
  dBodyID plate = scene.dynamic(dCreateBox(scene.space, 2 * half.x, 2 * half.y, 2 * half.z), 1.0);
  dBodySetFiniteRotationMode(plate, 1);
  dBodySetGyroscopicMode(plate, gyroscopic ? 1 : 0);
  set_pose(plate, {0, 0, 0}, c.plate);
  set_velocity(plate, {}, c.spin);
  dBodyID ball = scene.kinematic(dCreateSphere(scene.space, c.radius));
  set_pose(ball, c.start, Quat{});
  set_velocity(ball, c.velocity);
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  guard.guard(ball);
  return guard.collide(k_h) > 0;
}

/// A fast ball past a plate spinning at 30-150 rad/s. In the plate's turning frame the ball's
/// path curves, and the guard sweeps it along chords. The truth is the path itself: a ball
/// whose path comes more than the tolerance into the plate must get a contact, one that stays
/// more than the tolerance clear must not. The naive choice of chords (enough sub-steps that a
/// point at the ball's farthest distance from the plate's centre strays from them by the
/// tolerance as it turns, the sagitta of its arc: what the guard did before) misses some hits
/// and makes ghosts: a point moving through a turning frame bends away from its chords at first
/// order in the turn.
TEST(SweepGuardRandomScenes, ABallPastASpinningPlateIsSeenAsItsTruePathSays) {
  dInitODE2(0); // for the truth's colliders, outside the scenes
  Random random(4242);
  int hits = 0, misses = 0, clear = 0, ghosts = 0;
  int naive_misses = 0, naive_ghosts = 0;
  // The guard on the first 600 cases; the naive chords, which err in about one case in 1000
  // (600 left them without an error on some seeds, and 5000 on ODEMOCAP_SEED_SHIFT 30002), on
  // as many more as it takes them to err once, up to 20000, sampled every 0.4 mm there.
  for (int i = 0; i < 600 || (i < 20000 && naive_misses + naive_ghosts == 0); ++i) {
    const SpinCase c = spin_case(random);
    const bool guarded = i < 600;
    const int samples = guarded ? 8000 : 2000;
    if (plate_distance(in_plate(c, 0.0)) - c.radius < 2.0 * k_tolerance) {
      continue; // starts touching: discrete collision's case
    }
    const double gap = least_gap([&](double s) { return in_plate(c, s); }, c.radius, samples);
    if (std::fabs(gap) <= k_tolerance) {
      continue; // within the tolerance: either answer is right
    }
    const bool seen = guarded && guard_sees_a_hit(c);
    // The naive chords: sub-steps from the sagitta of the farthest point's arc only.
    const double rho = norm(c.start) + norm(c.velocity) * k_h;
    const double turn = norm(c.spin) * k_h;
    const int k =
        std::max(1, static_cast<int>(std::ceil(turn / (2.0 * std::acos(1.0 - k_tolerance / rho)))));
    const double naive_gap = least_gap(
        [&](double s) {
          const int j = std::min(k - 1, static_cast<int>(s * k));
          const double u = s * k - j;
          return (1.0 - u) * in_plate(c, static_cast<double>(j) / k) +
                 u * in_plate(c, static_cast<double>(j + 1) / k);
        },
        c.radius, samples);
    if (gap < 0.0) {
      hits += guarded ? 1 : 0;
      misses += guarded && !seen ? 1 : 0;
      naive_misses += naive_gap <= 0.0 ? 0 : 1;
    } else {
      clear += guarded ? 1 : 0;
      ghosts += seen ? 1 : 0;
      naive_ghosts += naive_gap <= 0.0 ? 1 : 0;
    }
  }
  std::printf("[ metric ] ball at 20-60 m/s past a plate spinning at 30-150 rad/s: %d true hits, "
              "%d missed; %d clear by the tolerance, %d ghosts (naive chords: %d missed, %d "
              "ghosts)\n",
              hits, misses, clear, ghosts, naive_misses, naive_ghosts);
  EXPECT_GT(hits, 50);
  EXPECT_GT(clear, 50);
  EXPECT_EQ(misses, 0);
  EXPECT_EQ(ghosts, 0);
  EXPECT_GT(naive_misses + naive_ghosts, 0); // the cases do tell the chords apart
}

// ---- Any swept capsule against any spinning target: the guard's call against the true paths -----

struct AnyCase {
  // The swept body: kinematic, a capsule (or, with box_half set, a box) at an offset from its
  // origin.
  Vec3 start;
  Quat turn0;
  Vec3 velocity;
  Vec3 spin;
  Pose offset; // the capsule in the body's frame (its axis along local z)
  double radius = 0.0;
  double length = 0.0;
  Vec3 box_half; // m: a box instead of the capsule where not zero
  // The target: a dynamic body with one geom at its origin, in finite rotation mode.
  Shape shape;
  Vec3 target_start;
  Quat target_turn0;
  Vec3 target_velocity;
  Vec3 target_spin;
};

AnyCase any_case(Random& random) {
  AnyCase c;
  c.radius = random.uniform(0.02, 0.05);
  c.length = random.uniform(0.2, 0.6);
  c.offset = {{random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2)},
              random.rotation()};
  c.turn0 = random.rotation();
  c.velocity = random.uniform(10.0, 50.0) * random.unit_vector();
  c.spin = random.uniform(0.0, 40.0) * random.unit_vector();
  switch (static_cast<int>(random.uniform(0.0, 3.0))) {
  case 0: c.shape = {dSphereClass, random.uniform(0.03, 0.1), 0.0, {}}; break;
  case 1:
    c.shape = {dCapsuleClass, random.uniform(0.02, 0.05), random.uniform(0.05, 0.2), {}};
    break;
  default:
    c.shape = {dBoxClass, 0.0, 0.0,
               Vec3{random.uniform(0.005, 0.15), random.uniform(0.005, 0.15),
                    random.uniform(0.005, 0.15)}};
  }
  c.target_turn0 = random.rotation();
  c.target_velocity = random.uniform(0.0, 5.0) * random.unit_vector();
  c.target_spin = random.uniform(0.0, 150.0) * random.unit_vector();
  // The capsule's middle aimed near the target's centre, reached mid-step.
  const Vec3 middle_offset = c.offset.p;
  const Vec3 aim{random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2)};
  c.target_start = {0, 0, 0};
  c.start = aim - rotate(c.turn0, middle_offset) - (random.uniform(0.3, 0.7) * k_h) * c.velocity;
  return c;
}

/// The least distance between the capsule's surface and the target over the step on the true
/// motions (both bodies at their constant velocities and spins), by 401 points along the
/// capsule's axis (0.75 mm apart at most) at 1001 instants (the capsule moves under 0.5 mm);
/// with `instants` 0, at the start only.
double any_least_gap(const AnyCase& c, int instants = 1000) {
  double least = INFINITY;
  for (int i = 0; i <= instants; ++i) {
    const double t = instants > 0 ? (static_cast<double>(i) / instants) * k_h : 0.0;
    const Pose body{c.start + t * c.velocity, from_rotation_vector(c.spin * t) * c.turn0};
    const Pose target{c.target_start + t * c.target_velocity,
                      from_rotation_vector(c.target_spin * t) * c.target_turn0};
    const Pose capsule{body.p + rotate(body.q, c.offset.p), body.q * c.offset.q};
    for (int j = 0; j <= 400; ++j) {
      const Vec3 point = capsule.p + rotate(capsule.q, Vec3{0, 0, (j / 400.0 - 0.5) * c.length});
      const Vec3 local = rotate(conj(target.q), point - target.p);
      least = std::min(least, shape_distance(c.shape, local) - c.radius);
    }
  }
  return least;
}

bool guard_sees_any_hit(const AnyCase& c, int max_sub_steps) {
  SweepScene scene;
  dGeomID target_geom = nullptr;
  switch (c.shape.kind) {
  case dSphereClass: target_geom = dCreateSphere(scene.space, c.shape.radius); break;
  case dCapsuleClass:
    target_geom = dCreateCapsule(scene.space, c.shape.radius, 2 * c.shape.half_length);
    break;
  default:
    target_geom =
        dCreateBox(scene.space, 2 * c.shape.half.x, 2 * c.shape.half.y, 2 * c.shape.half.z);
  }
  dBodyID target = scene.dynamic(target_geom, 1.0);
  dBodySetFiniteRotationMode(target, 1);
  dBodySetGyroscopicMode(target, 0); // turning at its constant spin, as the truth has it
  set_pose(target, c.target_start, c.target_turn0);
  set_velocity(target, c.target_velocity, c.target_spin);
  dGeomID capsule = norm(c.box_half) > 0.0 ? dCreateBox(scene.space, 2 * c.box_half.x,
                                                        2 * c.box_half.y, 2 * c.box_half.z)
                                           : dCreateCapsule(scene.space, c.radius, c.length);
  dBodyID body = scene.kinematic(capsule);
  dGeomSetOffsetPosition(capsule, c.offset.p.x, c.offset.p.y, c.offset.p.z);
  dQuaternion q;
  to_ode(c.offset.q, q);
  dGeomSetOffsetQuaternion(capsule, q);
  set_pose(body, c.start, c.turn0);
  set_velocity(body, c.velocity, c.spin);
  SweepSettings settings;
  settings.max_sub_steps = max_sub_steps;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(body);
  return guard.collide(k_h) > 0;
}

// ---- A free rod turned as ODE turns it --------------------------------------------------------

const Vec3 k_rod_half{0.25, 0.02, 0.02};

/// The constant spin a free 1 kg rod turns with over the coming step from orientation q and
/// spin w, read from ODE's own step of the rod alone: the angular velocity the step leaves it
/// with, which finite rotation mode turns it by over the whole step. With gyroscopic mode
/// (ODE's default) that is not w: ODE takes the gyroscopic term implicitly and turns the body
/// with the spin it gives. The rotation the step made says the same where it is under a half
/// turn; beyond, its rotation vector is ambiguous (at 250 rad/s a step of 1/60 s turns 4.2 rad),
/// so the velocity is the reading.
Vec3 spin_ode_turns_with(const Quat& q, const Vec3& w, bool gyroscopic) {
  SweepScene scene;
  dBodyID rod = scene.dynamic(
      dCreateBox(scene.space, 2 * k_rod_half.x, 2 * k_rod_half.y, 2 * k_rod_half.z), 1.0);
  dBodySetFiniteRotationMode(rod, 1);
  dBodySetGyroscopicMode(rod, gyroscopic ? 1 : 0);
  set_pose(rod, {0, 0, 0}, q);
  set_velocity(rod, {}, w);
  scene.step(k_h);
  const Vec3 spin = vec3_from_ode(dBodyGetAngularVel(rod));
  if (norm(spin) * k_h < 0.9 * k_pi) {
    const Vec3 turned = to_rotation_vector(orientation_of(rod) * conj(q)) / k_h;
    EXPECT_LT(norm(turned - spin), 1e-9 * norm(spin));
  }
  return spin;
}

/// The least distance from a ball's surface to the rod over the step, the ball on its line
/// from `start` at `velocity`, the rod about the origin turning from q at the constant `spin`,
/// sampled every 1/8000 of the step.
double rod_least_gap(const SpinCase& c, const Vec3& spin) {
  const Shape rod{dBoxClass, 0.0, 0.0, k_rod_half};
  double least = INFINITY;
  for (int i = 0; i <= 8000; ++i) {
    const double t = (i / 8000.0) * k_h;
    const Quat q = from_rotation_vector(spin * t) * c.plate;
    least =
        std::min(least, shape_distance(rod, rotate(conj(q), c.start + t * c.velocity)) - c.radius);
  }
  return least;
}

/// A ball (kinematic, guarded) past a free rod spinning at 100-250 rad/s about a random axis,
/// in ODE's default gyroscopic mode. The truth is the rod's path as ODE's own step turns it:
/// at a constant spin read from that step, which differs from the rod's spin now (a rod
/// turning off its principal axes precesses, and ODE's implicit gyroscopic update changes the
/// spin by tens of percent at this speed). The guard must see every hit and no ghost of that
/// path; the path at the spin now (what the guard swept before the twenty-first session) calls
/// some cases wrongly.
TEST(SweepGuardRandomScenes, AFreeRodIsSweptAsODETurnsIt) {
  dInitODE2(0); // for the truth's steps, outside the guarded scenes
  Random random(9090);
  int hits = 0, misses = 0, clear = 0, ghosts = 0, constant_spin_wrong = 0;
  double spin_change = 0.0;
  for (int i = 0; i < 600; ++i) {
    SpinCase c;
    c.plate = random.rotation();
    c.spin = random.uniform(100.0, 250.0) * random.unit_vector();
    c.radius = random.uniform(0.01, 0.03);
    c.velocity = random.uniform(20.0, 60.0) * random.unit_vector();
    const Vec3 aim{random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2)};
    c.start = aim - (random.uniform(0.3, 0.7) * k_h) * c.velocity;
    const Vec3 turned = spin_ode_turns_with(c.plate, c.spin, true);
    // ODE's step without the gyroscopic term turns the rod at its spin: the reading is exact.
    EXPECT_LT(norm(spin_ode_turns_with(c.plate, c.spin, false) - c.spin), 1e-9 * norm(c.spin));
    spin_change = std::fmax(spin_change, norm(turned - c.spin) / norm(c.spin));
    const Shape rod{dBoxClass, 0.0, 0.0, k_rod_half};
    if (shape_distance(rod, rotate(conj(c.plate), c.start)) - c.radius < 2.0 * k_tolerance) {
      continue; // starts touching: discrete collision's case
    }
    const double gap = rod_least_gap(c, turned);
    if (std::fabs(gap) <= 2.0 * k_tolerance) {
      continue; // within the tolerance (and the sampled truth's own): either answer is right
    }
    const bool seen = guard_sees_a_hit(c, k_rod_half, true);
    const bool hit = gap < 0.0;
    (hit ? hits : clear) += 1;
    (hit ? misses : ghosts) += seen == hit ? 0 : 1;
    const double constant_gap = rod_least_gap(c, c.spin);
    constant_spin_wrong += (constant_gap < 0.0) != hit ? 1 : 0;
  }
  std::printf("[ metric ] ball at 20-60 m/s past a free rod spinning at 100-250 rad/s (ODE's "
              "gyroscopic mode): %d true hits, %d missed; %d clear, %d ghosts; the path at the "
              "spin now calls %d of them wrongly (ODE's step changes the spin by up to %.0f%%)\n",
              hits, misses, clear, ghosts, constant_spin_wrong, 100 * spin_change);
  EXPECT_GT(hits, 50);
  EXPECT_GT(clear, 50);
  EXPECT_EQ(misses, 0);
  EXPECT_EQ(ghosts, 0);
  EXPECT_GT(constant_spin_wrong, 0); // the cases tell the two paths apart
}

/// Random capsules (10-50 m/s, up to 40 rad/s, off their body's origin) past random spheres,
/// capsules and boxes spinning at up to 150 rad/s and drifting. The guard sweeps spheres
/// covering the capsule to the tolerance along chords within the tolerance of the true path:
/// a pair whose true paths come more than twice the tolerance into each other must get a
/// contact, and one that stays more than the tolerance apart must not (each with 1 mm more for
/// the sampled truth's own resolution). The same guard sweeping each step along one chord
/// (max_sub_steps 1) gets some of them wrong.
TEST(SweepGuardRandomScenes, AnySpinningCapsulePastAnySpinningTargetIsSeenAsTheTruePathsSay) {
  Random random(777);
  int hits = 0, misses = 0, clear = 0, ghosts = 0, one_chord_wrong = 0;
  // The guard on the first 240 cases; one chord per step, which errs in 2-4% of them (none of
  // the 240 on ODEMOCAP_SEED_SHIFT 30006), on as many more as it takes it to err once, up to
  // 2400.
  for (int i = 0; i < 240 || (i < 2400 && one_chord_wrong == 0); ++i) {
    const AnyCase c = any_case(random);
    if (any_least_gap(c, 0) < 4.0 * k_tolerance) {
      continue; // starts touching or nearly: discrete collision's case
    }
    const double gap = any_least_gap(c);
    const bool must_hit = gap < -2.0 * k_tolerance - 0.001;
    const bool must_miss = gap > k_tolerance + 0.001;
    if (!must_hit && !must_miss) {
      continue;
    }
    one_chord_wrong += guard_sees_any_hit(c, 1) != must_hit ? 1 : 0;
    if (i >= 240) {
      continue;
    }
    const bool seen = guard_sees_any_hit(c, SweepSettings{}.max_sub_steps);
    if (must_hit) {
      ++hits;
      misses += seen ? 0 : 1;
    } else {
      ++clear;
      ghosts += seen ? 1 : 0;
    }
    if (must_hit != seen) {
      ADD_FAILURE() << "case " << i << ": shape " << c.shape.kind << ", true gap " << gap
                    << " m, guard " << (seen ? "hit" : "no hit");
    }
  }
  std::printf("[ metric ] capsule at 10-50 m/s, 0-40 rad/s past spheres, capsules and boxes "
              "spinning at 0-150 rad/s: %d true hits, %d missed; %d clear, %d ghosts (one chord "
              "per step: %d wrong)\n",
              hits, misses, clear, ghosts, one_chord_wrong);
  EXPECT_GT(hits, 40);
  EXPECT_GT(clear, 40);
  EXPECT_GT(one_chord_wrong, 0);
}

/// Whether a box of half extents `half` at pose `box` overlaps the target (ODE's own colliders
/// for box-sphere, box-capsule and box-box, which we did not write, outside any space).
bool ode_overlap(const Vec3& half, const Pose& box, const Shape& shape, const Pose& at) {
  dGeomID a = dCreateBox(nullptr, 2 * half.x, 2 * half.y, 2 * half.z);
  dGeomID b = shape.kind == dSphereClass ? dCreateSphere(nullptr, shape.radius)
              : shape.kind == dCapsuleClass
                  ? dCreateCapsule(nullptr, shape.radius, 2 * shape.half_length)
                  : dCreateBox(nullptr, 2 * shape.half.x, 2 * shape.half.y, 2 * shape.half.z);
  for (const auto& [geom, pose] : {std::pair{a, box}, std::pair{b, at}}) {
    dGeomSetPosition(geom, pose.p.x, pose.p.y, pose.p.z);
    dQuaternion q;
    to_ode(pose.q, q);
    dGeomSetQuaternion(geom, q);
  }
  dContactGeom contact[4];
  const bool overlap = dCollide(a, b, 4, contact, sizeof(dContactGeom)) > 0;
  dGeomDestroy(a);
  dGeomDestroy(b);
  return overlap;
}

/// Whether the case's box, grown by `grow` on every side (shrunk where negative), overlaps
/// the target at any of 1001 instants of the step on the true motions (between two instants
/// the box moves under 0.5 mm and the target's points under 0.2 mm), or at the start only.
bool box_meets_target(const AnyCase& c, double grow, int instants = 1000) {
  const Vec3 half = c.box_half + Vec3{grow, grow, grow};
  for (int i = 0; i <= instants; ++i) {
    const double t = instants > 0 ? (static_cast<double>(i) / instants) * k_h : 0.0;
    const Pose body{c.start + t * c.velocity, from_rotation_vector(c.spin * t) * c.turn0};
    const Pose target{c.target_start + t * c.target_velocity,
                      from_rotation_vector(c.target_spin * t) * c.target_turn0};
    if (ode_overlap(half, {body.p + rotate(body.q, c.offset.p), body.q * c.offset.q}, c.shape,
                    target)) {
      return true;
    }
  }
  return false;
}

/// The same for a guarded box (1-8 cm half extents, off its body's origin, 10-50 m/s, up to
/// 40 rad/s) against spinning spheres, capsules and boxes, with ODE's own colliders as the
/// truth at 1001 instants: where the box shrunk by twice the tolerance and 1 mm still meets the
/// target, the guard must make a contact; where the box grown by the tolerance and 1 mm never
/// does, it must not. Before the eighteenth session's review boxes were not swept at all (every
/// true hit missed); one chord per step gets some wrong.
TEST(SweepGuardRandomScenes, AnySpinningBoxPastAnySpinningTargetIsSeenAsTheTruePathsSay) {
  dInitODE2(0); // for the truth's colliders, outside the scenes
  Random random(4242);
  int hits = 0, misses = 0, clear = 0, ghosts = 0, one_chord_wrong = 0;
  std::array<int, 3> hits_by_shape{};
  for (int i = 0; i < 3000; ++i) {
    AnyCase c = any_case(random);
    c.box_half = {random.uniform(0.01, 0.08), random.uniform(0.01, 0.08),
                  random.uniform(0.01, 0.08)};
    if (i % 3 == 0) {
      // A still target: the box's own turn within a sub-step is then what its sweep, which
      // translates it at its middle orientation, must keep within the tolerance.
      c.target_spin = {};
      c.target_velocity = {};
      c.spin = random.uniform(20.0, 60.0) * random.unit_vector();
    }
    if (box_meets_target(c, 4.0 * k_tolerance, 0)) {
      continue; // starts touching or nearly: discrete collision's case
    }
    const bool must_hit = box_meets_target(c, -2.0 * k_tolerance - 0.001);
    const bool must_miss = !must_hit && !box_meets_target(c, k_tolerance + 0.001);
    if (!must_hit && !must_miss) {
      continue;
    }
    const bool seen = guard_sees_any_hit(c, SweepSettings{}.max_sub_steps);
    one_chord_wrong += guard_sees_any_hit(c, 1) != must_hit ? 1 : 0;
    if (must_hit) {
      ++hits;
      ++hits_by_shape[c.shape.kind == dSphereClass ? 0 : c.shape.kind == dCapsuleClass ? 1 : 2];
      misses += seen ? 0 : 1;
    } else {
      ++clear;
      ghosts += seen ? 1 : 0;
    }
    if (must_hit != seen) {
      ADD_FAILURE() << "case " << i << ": shape " << c.shape.kind << ", guard "
                    << (seen ? "hit" : "no hit") << " where the truth says "
                    << (must_hit ? "hit" : "clear");
    }
  }
  std::printf("[ metric ] box at 10-50 m/s, 0-40 rad/s past spheres, capsules and boxes "
              "spinning at 0-150 rad/s: %d true hits (%d spheres, %d capsules, %d boxes), %d "
              "missed; %d clear, %d ghosts (one chord per step: %d wrong)\n",
              hits, hits_by_shape[0], hits_by_shape[1], hits_by_shape[2], misses, clear, ghosts,
              one_chord_wrong);
  for (int count : hits_by_shape) {
    EXPECT_GT(count, 10);
  }
  EXPECT_GT(clear, 40);
  EXPECT_GT(one_chord_wrong, 0);
  dCloseODE();
}

/// A body whose velocities are not finite (set by a program, not by the driver, which
/// teleports instead) next to a spinning box and a ball: the guard adds nothing (and takes one
/// sub-step for such a motion rather than converting a NaN count to an integer).
TEST(SweepGuardRandomScenes, ABodyWithVelocitiesNotFiniteIsSweptToNothing) {
  for (const double bad : {std::nan(""), static_cast<double>(INFINITY)}) {
    SweepScene scene;
    dBodyID box = scene.dynamic(dCreateBox(scene.space, 0.2, 0.2, 0.02), 1.0);
    set_pose(box, {0.1, 0, 0}, Quat{});
    set_velocity(box, {}, {0, 0, 100});
    dBodyID ball = scene.dynamic(dCreateSphere(scene.space, 0.05), 1.0);
    set_pose(ball, {-0.1, 0, 0}, Quat{});
    dBodyID hand = scene.kinematic(dCreateCapsule(scene.space, 0.03, 0.3));
    set_pose(hand, {0, 0.2, 0}, Quat{});
    set_velocity(hand, {bad, -30, 0}, {0, bad, 0});
    SweepGuard guard(scene.world, scene.space, scene.contacts);
    guard.guard(hand);
    EXPECT_EQ(guard.collide(k_h), 0) << bad;
  }
}

// ---- Glancing hits without restitution ------------------------------------------------------

/// A guarded 4 cm hand at 20-60 m/s passes a free 3 cm ball at rest, off its centre line by a
/// random fraction of their reach; frictionless, no restitution. The ball's velocity after
/// ten steps.
Vec3 glanced_ball(double speed, double offset, double phase, bool guarded, int substeps) {
  SweepScene scene(0.0, 0.0);
  const double hand_r = 0.04, ball_r = 0.03;
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, ball_r), 0.2);
  dBodyID hand = scene.kinematic(dCreateSphere(scene.space, hand_r));
  set_pose(hand, {-(2.0 + phase) * speed * k_h, offset * (hand_r + ball_r), 0}, Quat{});
  set_velocity(hand, {speed, 0, 0});
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(hand);
  for (int i = 0; i < 10 * substeps; ++i) {
    scene.step(k_h / substeps, guarded ? &guard : nullptr);
  }
  return vec3_from_ode(dBodyGetLinearVel(ball));
}

TEST(SweepGuardRandomScenes, AGlancingHitWithoutRestitutionGivesTheBallTheHandsNormalSpeed) {
  Random random(77);
  double worst = 0.0, reference_worst = 0.0, reference_sum = 0.0, unguarded_worst = 0.0;
  const int cases = 100;
  for (int i = 0; i < cases; ++i) {
    const double speed = random.uniform(20.0, 60.0);
    const double offset = random.uniform(0.2, 0.9);
    const double phase = random.uniform(0.0, 1.0);
    // The instant inelastic, frictionless hit: the hand's centre, on the line y = offset R (R
    // the sum of the radii), first touches the ball where their centres are R apart; the ball
    // takes the hand's speed along the normal there (the hand does not give way) and keeps none
    // across.
    const Vec3 normal{std::sqrt(1.0 - offset * offset), -offset, 0.0};
    const Vec3 exact = (speed * normal.x) * normal;
    const Vec3 ours = glanced_ball(speed, offset, phase, true, 1);
    const Vec3 reference = glanced_ball(speed, offset, phase, false, k_substeps);
    const Vec3 unguarded = glanced_ball(speed, offset, phase, false, 1);
    worst = std::fmax(worst, norm(ours - exact) / norm(exact));
    reference_worst = std::fmax(reference_worst, norm(reference - exact) / norm(exact));
    reference_sum += norm(reference - exact) / norm(exact);
    unguarded_worst = std::fmax(unguarded_worst, norm(unguarded - exact) / norm(exact));
  }
  std::printf("[ metric ] %d glancing hits, e = 0: ball velocity off the instant inelastic hit's "
              "by %.2g at worst (unguarded %.0f%%; the 64x reference %.1f%% on average, %.1f%% "
              "at worst)\n",
              cases, worst, 100 * unguarded_worst, 100 * reference_sum / cases,
              100 * reference_worst);
  // The guard's contact makes the instant hit: the ball leaves with the hand's normal speed at
  // the first touch, nothing more. The reference is off it by 16-20% at worst: at h / 64 the
  // hand still sinks up to 8 mm into the ball per sub-step, and error reduction pushes it out
  // along a normal that turns as the hand slides past. It was the oracle here until other
  // seeds put the guard 16% off it while the guard sat on the instant hit to 1e-14. Before
  // hits were completed, the ball kept v.n - gap/h of its normal speed: up to 93% off.
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(reference_worst, 0.3); // the scenes are what the reference says
  EXPECT_GT(unguarded_worst, 0.5); // the hand passes or sinks into the ball unguarded
}

// ---- Static geometry guarded ----------------------------------------------------------------

/// A free ball (3 cm, 0.1 kg) thrown at 25-60 m/s at a static 1 cm wall (a box geom without a
/// body, or a closed trimesh of 12 triangles, 2 x 2 m) at random incidence up to 60 degrees;
/// true when its centre went through the wall: crossed the wall's middle plane within its face
/// in some step. A body that slides along the face and off its edge may cross that plane beyond
/// the edge, having gone round the wall, not through it (a plank struck at 60 degrees did, in 1
/// of 400 cases, when the test asked only where the body ended). With `box`, a free box or plank
/// (1-4 x 1-4 x 6-15 cm, turned at random) instead.
bool ball_passes_wall(Random& random, bool guarded, bool mesh = false, bool box = false) {
  SweepScene scene;
  const std::unique_ptr<test::MeshGeom> wall_mesh =
      mesh ? test::box_mesh(scene.space, {0.005, 1.0, 1.0}) : nullptr;
  dGeomID wall = mesh ? wall_mesh->geom : dCreateBox(scene.space, 0.01, 2.0, 2.0); // x = 0
  const Vec3 sides{random.uniform(0.01, 0.04), random.uniform(0.01, 0.04),
                   random.uniform(0.06, 0.15)};
  dBodyID ball = scene.dynamic(box ? dCreateBox(scene.space, sides.x, sides.y, sides.z)
                                   : dCreateSphere(scene.space, 0.03),
                               0.1);
  if (box) {
    dQuaternion q;
    to_ode(random.rotation(), q);
    dBodySetQuaternion(ball, q);
  }
  const double speed = random.uniform(25.0, 60.0);
  const double incidence = random.uniform(0.0, 60.0) * k_pi / 180.0;
  const double around = random.uniform(0.0, 2 * k_pi);
  const Vec3 v{speed * std::cos(incidence), speed * std::sin(incidence) * std::cos(around),
               speed * std::sin(incidence) * std::sin(around)};
  const Vec3 start = -(random.uniform(1.0, 2.0) * k_h) * v;
  dBodySetPosition(ball, start.x, start.y, start.z);
  set_velocity(ball, v);
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  if (guarded) {
    guard.guard_static(wall);
  }
  bool through = false;
  for (int i = 0; i < 6; ++i) {
    const Vec3 before = position_of(ball);
    scene.step(k_h, &guard);
    const Vec3 after = position_of(ball);
    if (before.x < 0.0 && after.x >= 0.0) {
      const Vec3 crossing = before + (-before.x / (after.x - before.x)) * (after - before);
      through = through || (std::fabs(crossing.y) < 1.0 && std::fabs(crossing.z) < 1.0);
    }
  }
  return through;
}

TEST(SweepGuardRandomScenes, AGuardedStaticWallStopsEveryFastBall) {
  // Balls at a box wall and a trimesh wall; free boxes at the box wall.
  for (const auto& [mesh, box] : {std::pair{false, false}, {true, false}, {false, true}}) {
    const unsigned seed = mesh ? 94 : box ? 17 : 5;
    Random with(seed), without(seed);
    int passed = 0, passed_unguarded = 0;
    // Boxes and planks struck on a corner spin at 200-700 rad/s and can swing part or all of
    // the way through the wall within a step: about one in a hundred did before after_step()
    // moved a box found past the wall's middle, or whose origin went through it, back to the
    // side it came from.
    const int balls = box ? 400 : 60;
    for (int i = 0; i < balls; ++i) {
      passed += ball_passes_wall(with, true, mesh, box) ? 1 : 0;
      passed_unguarded += ball_passes_wall(without, false, mesh, box) ? 1 : 0;
    }
    std::printf("[ metric ] %s at 25-60 m/s at a static 1 cm %s wall: %d of %d through it "
                "guarded, %d unguarded\n",
                box ? "boxes and planks" : "balls", mesh ? "trimesh" : "box", passed, balls,
                passed_unguarded);
    EXPECT_EQ(passed, 0) << mesh << box;
    EXPECT_GT(passed_unguarded, balls / 2) << mesh << box;
  }
}

/// What a free ball thrown at a static plane did over 8 steps: its deepest reach into the
/// plane after any step (m), and its velocity's components along the plane's normal and across
/// it at the end.
struct PlaneBounce {
  double deepest = -INFINITY;
  double normal_speed = 0.0;
  Vec3 across;
};

/// A ball (2-5 cm, 0.05-0.5 kg) at 25-60 m/s, up to 70 degrees from the normal, at a plane of
/// random orientation and offset (a dCreatePlane geom), reached within the first three steps;
/// frictionless, restitution `bounce`. Truth: it leaves with bounce times its normal speed
/// and its speed across the plane unchanged, never deeper in than it touches.
struct PlaneCase {
  Vec3 normal;
  double offset = 0.0;
  double radius = 0.0;
  double mass = 0.0;
  Vec3 start;
  Vec3 velocity;
};

PlaneCase plane_case(Random& random) {
  PlaneCase c;
  c.normal = random.unit_vector();
  c.offset = random.uniform(-1.0, 1.0);
  c.radius = random.uniform(0.02, 0.05);
  c.mass = random.uniform(0.05, 0.5);
  const double incidence = random.uniform(0.0, 70.0) * k_pi / 180.0;
  const Vec3 t = random.perpendicular_unit(c.normal);
  c.velocity =
      random.uniform(25.0, 60.0) * (-std::cos(incidence) * c.normal + std::sin(incidence) * t);
  // Touching after 0.3 to 2.9 steps of flight.
  const Vec3 touch = c.offset * c.normal + c.radius * c.normal +
                     random.uniform(-0.5, 0.5) * random.perpendicular_unit(c.normal);
  c.start = touch - random.uniform(0.3, 2.9) * k_h * c.velocity;
  return c;
}

PlaneBounce throw_at_plane(const PlaneCase& c, double bounce, bool guarded) {
  SweepScene scene(0.0, bounce);
  dGeomID plane = dCreatePlane(scene.space, c.normal.x, c.normal.y, c.normal.z, c.offset);
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, c.radius), c.mass);
  set_pose(ball, c.start, Quat{});
  set_velocity(ball, c.velocity);
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  if (guarded) {
    guard.guard_static(plane);
  }
  PlaneBounce out;
  for (int i = 0; i < 8; ++i) {
    scene.step(k_h, &guard);
    const double height = dot(position_of(ball), c.normal) - c.offset;
    out.deepest = std::fmax(out.deepest, c.radius - height);
  }
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(ball));
  out.normal_speed = dot(v, c.normal);
  out.across = v - out.normal_speed * c.normal;
  return out;
}

TEST(SweepGuardRandomScenes, AGuardedStaticPlaneStopsEveryFastBallAtItsSurface) {
  for (const double bounce : {0.0, 0.6}) {
    Random random(bounce > 0.0 ? 61 : 60);
    const int cases = 60;
    double deepest = 0.0, worst_normal = 0.0, worst_across = 0.0;
    int unguarded_deep = 0, unguarded_wrong = 0;
    for (int i = 0; i < cases; ++i) {
      const PlaneCase c = plane_case(random);
      const double approach = -dot(c.velocity, c.normal);
      const Vec3 across = c.velocity + approach * c.normal;
      const auto normal_error = [&](const PlaneBounce& b) {
        return std::fabs(b.normal_speed - bounce * approach) / approach;
      };
      const PlaneBounce ours = throw_at_plane(c, bounce, true);
      deepest = std::fmax(deepest, ours.deepest);
      worst_normal = std::fmax(worst_normal, normal_error(ours));
      worst_across = std::fmax(worst_across, norm(ours.across - across) / norm(c.velocity));
      const PlaneBounce plain = throw_at_plane(c, bounce, false);
      unguarded_deep += plain.deepest > 0.01 ? 1 : 0;
      unguarded_wrong += normal_error(plain) > 0.1 ? 1 : 0;
    }
    std::printf("[ metric ] balls at 25-60 m/s at a guarded static plane, restitution %g: "
                "deepest %.2f mm in, normal speed off by %.2f%% and speed across by %.2f%% at "
                "worst; unguarded: %d of %d more than 1 cm in, %d more than 10%% off\n",
                bounce, 1e3 * deepest, 100 * worst_normal, 100 * worst_across, unguarded_deep,
                cases, unguarded_wrong);
    EXPECT_LT(deepest, 0.003) << bounce;
    EXPECT_LT(worst_normal, 0.05) << bounce;
    EXPECT_LT(worst_across, 0.01) << bounce;
    // Unguarded the ball ends a step deep in the plane, and without restitution ODE's error
    // reduction throws it back out (erp depth / h) where it should slide.
    EXPECT_GT(unguarded_deep, cases / 2) << bounce;
    if (bounce == 0.0) {
      EXPECT_GT(unguarded_wrong, cases / 4);
    }
  }
}

/// What a thrown stick did: the deepest any point of it was in the static geom after any
/// step (m), and its velocities after the last.
struct StickThrow {
  /// Deepest an end of the stick went into the surface after any step (m); for the guarded
  /// run, after any step the guard swept it in.
  double deepest = -INFINITY;
  /// Guarded: deepest after a step the guard left to discrete collision (the stick too slow to
  /// pass anything, typically lying on the surface).
  double deepest_slow = -INFINITY;
  Vec3 v, w;
  std::size_t moved_out = 0;
};

/// How the guard's contacts get their restitution: from SweepSettings::surface, or (the
/// settings' surface without it) from SweepSettings::on_contact, per pair.
enum class BounceFrom { Settings, OnContact };

/// A thrown stick (a capsule 2 cm thick, 0.3-0.6 m long, 0.3 kg) moving at 25-50 m/s and
/// turning at 20-40 rad/s into a static plane of random orientation, or with `slab` into the
/// top face of a static box 6 x 6 x 1 m in its place, frictionless, restitution `bounce`, for
/// 10 steps, each taken in `substeps`.
StickThrow stick_into_plane(Random& random, bool guarded, int substeps, bool slab = false,
                            double bounce = 0.0, BounceFrom from = BounceFrom::Settings) {
  SweepScene scene(0.0, bounce);
  const Vec3 n = random.unit_vector();
  const double offset = random.uniform(-1.0, 1.0);
  dGeomID surface = nullptr;
  if (slab) {
    surface = dCreateBox(scene.space, 6.0, 6.0, 1.0);
    const Vec3 centre = (offset - 0.5) * n;
    dGeomSetPosition(surface, centre.x, centre.y, centre.z);
    dQuaternion q;
    to_ode(from_to(Vec3{0, 0, 1}, n), q);
    dGeomSetQuaternion(surface, q);
  } else {
    surface = dCreatePlane(scene.space, n.x, n.y, n.z, offset);
  }
  const double r = 0.02;
  const double length = random.uniform(0.3, 0.6);
  dBodyID stick = scene.dynamic(dCreateCapsule(scene.space, r, length), 0.3);
  dBodySetFiniteRotationMode(stick, 1);
  const double incidence = random.uniform(0.0, 60.0) * k_pi / 180.0;
  const Vec3 v = random.uniform(25.0, 50.0) *
                 (-std::cos(incidence) * n + std::sin(incidence) * random.perpendicular_unit(n));
  const Vec3 aim = offset * n + (0.5 * length + r) * n;
  set_pose(stick, aim - random.uniform(0.5, 2.5) * k_h * v, random.rotation());
  set_velocity(stick, v, random.uniform(20.0, 40.0) * random.unit_vector());
  SweepSettings settings;
  settings.surface = scene.surface;
  if (from == BounceFrom::OnContact) {
    settings.surface.mode &= ~dContactBounce;
    settings.surface.bounce = 0.0;
    settings.on_contact = [bounce](dContact& contact) {
      contact.surface.mode |= dContactBounce;
      contact.surface.bounce = bounce;
      return true;
    };
  }
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  if (guarded) {
    guard.guard_static(surface);
  }
  StickThrow out;
  for (int i = 0; i < 10 * substeps; ++i) {
    const std::size_t slow = guard.stats().slow;
    scene.step(k_h / substeps, guarded ? &guard : nullptr);
    if ((i + 1) % substeps != 0) {
      continue;
    }
    double& deepest = guard.stats().slow > slow ? out.deepest_slow : out.deepest;
    const Quat q = orientation_of(stick);
    for (const double end : {-0.5 * length, 0.5 * length}) {
      const Vec3 p = position_of(stick) + rotate(q, Vec3{0, 0, end});
      deepest = std::fmax(deepest, r - (dot(p, n) - offset));
    }
  }
  out.v = vec3_from_ode(dBodyGetLinearVel(stick));
  out.w = vec3_from_ode(dBodyGetAngularVel(stick));
  out.moved_out = guard.stats().moved_out;
  return out;
}

TEST(SweepGuardRandomScenes, AGuardedStaticPlaneOrBoxHoldsBackSpinningSticks) {
  // A stick whose end strikes spins up (100-250 rad/s, a radian or more per step) and swings
  // its other end along an arc that the contacts' rows, linear in the step, cannot hold; the
  // 64x reference hits it again during the turn. Each end of a free capsule gets a contact of
  // its own, a pair touching at one end is still swept for its other spheres, and after the
  // step a stick found deeper in the geom than the tolerance is moved out and its speed into
  // the geom at that point taken away (SweepStats::moved_out). Before the twenty-first session
  // (no moving out) 25 of the 60 sticks into the plane stayed within 5 mm, 20.5 mm deep on
  // average.
  // The motion after 10 steps of bouncing and spinning is half chaos: the same scenes stepped
  // 2 times per step without the guard end 1.9-2.4 m/s off the 64x reference's velocity on
  // average, stepped once 2.3-3.7 m/s. Over 240 sticks (where the mean of 60 moved by 0.9 m/s
  // from one seed shift to another, 1.75-2.64 m/s) the guarded single step must land closer to
  // the reference than either (measured 1.7-1.8 m/s into the plane, 1.9-2.1 into the box, on
  // six seed shifts). The means of so chaotic an outcome are noisy: over 40 further shifts (80
  // sets of 240, plane and box) the guarded step's was 0.79 times the 2 sub-steps' on average,
  // 0.95 at worst, and on one shift (606060) into the plane 1.02; so each surface's mean may be
  // up to 1.1 times the 2 sub-steps'. Both surfaces together were closer on every shift tried
  // but 16 (1.005 times: 1.92 against 1.97 m/s into the plane, 2.16 against 2.10 into the box),
  // so together they may be up to 1.05 times.
  double guarded_total = 0.0, twice_total = 0.0;
  for (const bool slab : {false, true}) {
    Random with(70), without(70), twice(70), fine(70);
    const int cases = 240;
    double sum = 0.0, sum_unguarded = 0.0, worst_reference = 0.0;
    double speed_off = 0.0, speed_off_unguarded = 0.0, speed_off_twice = 0.0;
    double worst_slow = -INFINITY;
    int held = 0;
    std::size_t moved_out = 0;
    for (int i = 0; i < cases; ++i) {
      const StickThrow ours = stick_into_plane(with, true, 1, slab);
      worst_slow = std::fmax(worst_slow, ours.deepest_slow);
      const StickThrow reference = stick_into_plane(fine, false, k_substeps, slab);
      const StickThrow plain = stick_into_plane(without, false, 1, slab);
      const StickThrow halved = stick_into_plane(twice, false, 2, slab);
      sum += ours.deepest;
      held += ours.deepest < 0.005 ? 1 : 0;
      moved_out += ours.moved_out;
      speed_off += norm(ours.v - reference.v);
      speed_off_unguarded += norm(plain.v - reference.v);
      speed_off_twice += norm(halved.v - reference.v);
      sum_unguarded += plain.deepest;
      worst_reference = std::fmax(worst_reference, reference.deepest);
    }
    std::printf("[ metric ] spinning sticks at 25-50 m/s into a guarded static %s: %d of %d "
                "within 5 mm, %.1f mm deep on average (unguarded %.1f mm; the 64x reference "
                "%.1f mm at worst), %zu moved out; velocity after 10 steps off the reference's by "
                "%.2f m/s on average (unguarded %.2f, unguarded in 2 sub-steps %.2f); once too "
                "slow to be swept, up to %.1f mm in\n",
                slab ? "box" : "plane", held, cases, 1e3 * sum / cases, 1e3 * sum_unguarded / cases,
                1e3 * worst_reference, moved_out, speed_off / cases, speed_off_unguarded / cases,
                speed_off_twice / cases, std::isfinite(worst_slow) ? 1e3 * worst_slow : 0.0);
    // The reference itself sinks in by up to an end's travel in one of its sub-steps (1.3-7.5
    // mm over ten seeds): it is a truth for the motion, not for the depth.
    EXPECT_LT(worst_reference, 0.015) << slab;
    // Held within 5 mm in every step the guard swept the stick in. A stick that has come to rest
    // on the surface moves too slowly to pass anything (SweepStats::slow) and is left to
    // discrete collision, as ODE alone would be: lying 0.02 mm clear, no contact exists, and
    // one end sank 11 mm in a step at 1 m/s on one seed in ten (ODE's error reduction then
    // lifts it). That is not the guard's to hold.
    EXPECT_EQ(held, cases) << slab;
    EXPECT_LT(sum / cases, 0.002) << slab;
    EXPECT_GT(moved_out, 0u) << slab;
    EXPECT_LT(speed_off, 1.1 * speed_off_twice) << slab;
    EXPECT_LT(speed_off, speed_off_unguarded) << slab;
    guarded_total += speed_off;
    twice_total += speed_off_twice;
  }
  EXPECT_LT(guarded_total, 1.05 * twice_total);
}

TEST(SweepGuardRandomScenes, ARestitutionGivenPerPairIsTheOneASwingingStickIsMovedOutWith) {
  // A program that sets restitution per pair in SweepSettings::on_contact (its materials)
  // and one that sets it in SweepSettings::surface describe the same contacts, so the guard
  // must give the same motion, moving out included. Until the twenty-second session the
  // moving out reversed a stick's speed by the settings' restitution (0 here) instead of its
  // contact's: the sticks moved out left the box differently.
  Random by_settings(71), by_pair(71);
  std::size_t moved_out = 0;
  for (int i = 0; i < 40; ++i) {
    const StickThrow a = stick_into_plane(by_settings, true, 1, true, 0.6, BounceFrom::Settings);
    const StickThrow b = stick_into_plane(by_pair, true, 1, true, 0.6, BounceFrom::OnContact);
    moved_out += a.moved_out;
    ASSERT_EQ(a.moved_out, b.moved_out) << i;
    ASSERT_EQ(a.deepest, b.deepest) << i;
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ((&a.v.x)[c], (&b.v.x)[c]) << i;
      ASSERT_EQ((&a.w.x)[c], (&b.w.x)[c]) << i;
    }
  }
  EXPECT_GT(moved_out, 0u); // the moving out happened (3 times or more on each seed shift tried)
}

TEST(SweepGuard, StaticGeomsThatCannotBeGuardedAreRefused) {
  SweepScene scene;
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  dGeomID cylinder = dCreateCylinder(scene.space, 0.1, 0.5);
  dGeomID moving = dCreateSphere(scene.space, 0.1);
  scene.dynamic(moving, 1.0);
  EXPECT_THROW(guard.guard_static(nullptr), PluginError);
  EXPECT_THROW(guard.guard_static(cylinder), PluginError);
  EXPECT_THROW(guard.guard_static(moving), PluginError);
  guard.guard_static(dCreatePlane(scene.space, 0, 0, 1, 0)); // a floor or a wall can be
}

TEST(SweepGuard, UnguardingForgetsTheLastHitsSoTheirBodiesAndGeomsMayBeDestroyed) {
  // A stick thrown into a guarded static box, and a captured hand about to strike a free ball:
  // each leaves a hit for after_step() to complete. Unguarded and destroyed before after_step(),
  // neither is touched again (the sanitizers' build would report a read of freed memory).
  SweepScene scene(0.0, 0.0);
  dGeomID wall = dCreateBox(scene.space, 2.0, 2.0, 0.2);
  dBodyID stick = scene.dynamic(dCreateCapsule(scene.space, 0.02, 0.4), 0.3);
  set_pose(stick, {0, 0, 0.5}, from_axis_angle({1, 0, 0}, 0.7));
  set_velocity(stick, {0, 0, -40}, {30, 0, 0});
  dBodyID hand = scene.kinematic(dCreateSphere(scene.space, 0.04));
  set_pose(hand, {3, 0, 0}, Quat{});
  set_velocity(hand, {60, 0, 0});
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, 0.03), 0.05);
  set_pose(ball, {3.3, 0, 0}, Quat{});
  SweepSettings settings;
  settings.surface = scene.surface;
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard_static(wall);
  guard.guard(hand);
  int made = 0;
  for (int i = 0; i < 10 && made < 2; ++i) {
    dSpaceCollide(scene.space, nullptr, [](void*, dGeomID, dGeomID) {});
    made = guard.collide(k_h);
    dWorldStep(scene.world, k_h);
    dJointGroupEmpty(scene.contacts);
    if (made < 2) {
      guard.after_step();
    }
  }
  ASSERT_EQ(made, 2); // the stick's hit on the wall and the hand's on the ball, both pending
  guard.unguard_static(wall);
  dGeomDestroy(wall);
  guard.unguard(hand);
  dGeomDestroy(dBodyGetFirstGeom(hand));
  dBodyDestroy(hand);
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(ball));
  guard.after_step();
  EXPECT_EQ(guard.stats().moved_out, 0u);
  EXPECT_EQ(vec3_from_ode(dBodyGetLinearVel(ball)).x, v.x); // the hand's hit was not completed
  EXPECT_EQ(guard.collide(k_h), 0);
}

// ---- What the guard shows ---------------------------------------------------------------------

TEST(SweepGuard, ItsContactsCanBeSeenAndTheirSurfaceChosenPerPair) {
  SweepScene scene;
  dBodyID ball = scene.dynamic(dCreateSphere(scene.space, 0.03), 0.1);
  dGeomID hand_geom = dCreateSphere(scene.space, 0.04);
  dBodyID hand = scene.kinematic(hand_geom);
  set_pose(hand, {-0.2, 0, 0}, Quat{});
  set_velocity(hand, {30, 0, 0}); // 0.25 m per step: reaches the ball within this step
  int asked = 0;
  SweepSettings settings;
  settings.on_contact = [&](dContact& c) {
    ++asked;
    EXPECT_EQ(c.geom.g2, hand_geom);
    c.surface.mode |= dContactBounce;
    c.surface.bounce = 1.0;
    return true;
  };
  SweepGuard guard(scene.world, scene.space, scene.contacts, settings);
  guard.guard(hand);
  EXPECT_EQ(guard.collide(k_h), 1);
  ASSERT_EQ(guard.contacts().size(), 1u);
  const SpeculativeContact& c = guard.contacts()[0];
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(c.swept, hand_geom);
  EXPECT_EQ(dGeomGetBody(c.target), ball);
  EXPECT_NEAR(c.normal.x, 1.0, 1e-9);
  EXPECT_NEAR(c.point.x, -0.03, 1e-9);      // on the ball's surface facing the hand
  EXPECT_NEAR(c.gap, 0.2 - 0.07, 1e-9);     // centres 0.2 apart, radii 0.07
  dWorldStep(scene.world, k_h);
  dJointGroupEmpty(scene.contacts);
  guard.after_step();
  // The surface the callback chose: an elastic hit sends the ball off at twice the hand's speed.
  EXPECT_NEAR(vec3_from_ode(dBodyGetLinearVel(ball)).x, 60.0, 0.6);

  // Refused: no contact.
  SweepScene other;
  other.dynamic(dCreateSphere(other.space, 0.03), 0.1);
  dBodyID hand2 = other.kinematic(dCreateSphere(other.space, 0.04));
  set_pose(hand2, {-0.2, 0, 0}, Quat{});
  set_velocity(hand2, {30, 0, 0});
  SweepSettings refuse;
  refuse.on_contact = [](dContact&) { return false; };
  SweepGuard refusing(other.world, other.space, other.contacts, refuse);
  refusing.guard(hand2);
  EXPECT_EQ(refusing.collide(k_h), 0);
  EXPECT_EQ(refusing.stats().refused, 1u);
}

TEST(SweepGuard, ADriverTeleportOfAGuardedBodyIsCounted) {
  SweepScene scene;
  dBodyID hand = dBodyCreate(scene.world);
  dGeomSetBody(dCreateSphere(scene.space, 0.04), hand);
  KinematicDriver driver(scene.world);
  // 0.5 m per 1/120 s sample is 60 m/s: over the driver's default limit of 50 m/s, so every
  // step is a teleport, which moves the body without a velocity to sweep.
  const auto id = driver.bind(hand, test::sampled_track("hand", k_h, 0.2, [](double t) {
                return Pose{{60.0 * t, 0, 0}, Quat{}};
              }));
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  guard.guard(hand);
  for (int i = 0; i < 10; ++i) {
    driver.prestep(k_h);
    scene.step(k_h, &guard);
  }
  EXPECT_GE(driver.stats(id).teleports, 8u);
  // The guard sees a jump from its second step on (it compares with where the step before took
  // the body).
  EXPECT_EQ(guard.stats().teleported + 1, driver.stats(id).teleports);
}

TEST(SweepGuard, AStepNotCompletedAfterTheWorldStepIsCounted) {
  SweepScene scene;
  dBodyID hand = scene.kinematic(dCreateSphere(scene.space, 0.04));
  set_velocity(hand, {30, 0, 0});
  SweepGuard guard(scene.world, scene.space, scene.contacts);
  guard.guard(hand);
  for (int i = 0; i < 4; ++i) {
    scene.step(k_h, &guard);
  }
  EXPECT_EQ(guard.stats().completed_late, 0u);
  for (int i = 0; i < 4; ++i) {
    scene.step(k_h, &guard, false); // after_step() left to the next collide()
  }
  EXPECT_EQ(guard.stats().completed_late, 3u); // the fourth is still open
  scene.step(k_h, &guard);
  EXPECT_EQ(guard.stats().completed_late, 4u);
  scene.step(k_h, &guard);
  EXPECT_EQ(guard.stats().completed_late, 4u);
}

} // namespace
} // namespace odemocap
