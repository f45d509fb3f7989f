#pragma once
/// SweepGuard: continuous collision for fast kinematic bodies. Between two steps a captured bat
/// or hand can move further than a ball or a plate is thick, and ODE's discrete collision never
/// sees the contact its exact velocities were meant to make. The guard sweeps the body's sphere,
/// capsule and box geoms along the motion of the coming step and adds a speculative contact where
/// they would first touch a dynamic geom: the solver may close that pair by the gap, no more.

#include <odemocap/pose.hpp>

#include <ode/ode.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace odemocap {

/// Settings of a SweepGuard; every field has a default, the constructor validates them.
struct SweepSettings {
  /// Largest distance (m, > 0) between the path a point of a swept geom follows and its true
  /// path: a step is cut into sub-steps until every point's chords, in the frame of the target
  /// it is swept against (which may turn), are this close to its path there, and a capsule is
  /// swept as spheres along its axis spaced so that they cover it to this.
  double tolerance = 0.002;
  /// Most sub-steps per step (>= 1); a step that needs more is swept with this many, and
  /// counted (SweepStats::sub_step_limit).
  int max_sub_steps = 64;
  /// The speculative contacts' surface (dContactApprox1, mu 0.5 by default); the guard adds
  /// dContactMotionN to its mode. Give the surface your near callback gives the same pairs.
  dSurfaceParameters surface = default_surface();
  /// Optional: called for every speculative contact before it is made, with contact.geom filled
  /// (g1 the target's geom, g2 the swept one, normal into g1, depth 0) and contact.surface set to
  /// `surface`: set the surface your near callback gives the pair, or return false to make no
  /// contact (counted in SweepStats::refused). The guard adds dContactMotionN afterwards.
  std::function<bool(dContact& contact)> on_contact;

  static dSurfaceParameters default_surface() {
    dSurfaceParameters s{};
    s.mode = dContactApprox1;
    s.mu = 0.5;
    return s;
  }
};

/// What the guard did, over its life.
struct SweepStats {
  std::size_t steps = 0;                ///< collide() calls
  std::size_t pairs_swept = 0;          ///< guarded geom and dynamic geom pairs tested
  std::size_t speculative_contacts = 0; ///< added: the sweep hits, discrete collision does not
  std::size_t touching = 0;             ///< pairs left to discrete collision (touching now)
  std::size_t unsupported = 0;          ///< geoms skipped: not a sphere, capsule or box
  std::size_t slow = 0; ///< body steps not swept: too slow to pass anything (see SweepGuard)
  std::size_t sub_step_limit = 0; ///< steps swept with max_sub_steps, needing more
  int sub_steps_max = 0;          ///< most sub-steps one body's step took
  /// Kinematic guarded bodies found away from where their velocities took them: teleported by
  /// the KinematicDriver (a step over its speed limits), carried across a loop's seam
  /// (BindingStats::seams) or moved by the user. The jump itself is not swept: it is not
  /// motion.
  std::size_t teleported = 0;
  std::size_t refused = 0;   ///< speculative contacts SweepSettings::on_contact refused
  std::size_t corrected = 0; ///< hits whose normal speed after_step() completed (see SweepGuard)
  /// Struck targets after_step() moved out of the way: a box back out of a sphere's path it had
  /// turned across, or a free target that a captured body (one that keeps to its capture)
  /// ended the step through, ahead of it along the hit's normal (see SweepGuard).
  std::size_t pushed_out = 0;
  /// Free bodies after_step() moved back out of a guarded static geom they hit and ended the
  /// step deeper in than the tolerance, or past its middle or through it (see SweepGuard).
  std::size_t moved_out = 0;
  /// collide() calls that found the step before them not completed: after_step() was not called
  /// after that world step, so collide() did it, after the poses had been read and collided.
  std::size_t completed_late = 0;
};

/// A contact the guard added in the last collide(), for drawing, logging or counting.
struct SpeculativeContact {
  dJointID joint = nullptr;
  dGeomID target = nullptr; ///< geom 1: a dynamic body's, or a guarded static geom
  dGeomID swept = nullptr;  ///< geom 2: the moving geom that was swept
  Vec3 point;               ///< world (m), on the target's surface now
  Vec3 normal;              ///< world, unit, from the swept geom into the target
  double gap = 0.0;         ///< distance (m) the pair may still close in the step
};

/// Sweeps guarded bodies (any bodies of the world; typically kinematic ones a KinematicDriver
/// moves) from their pose now along the motion ODE will give them in the next step, from their
/// velocities: the position moves by v h, the orientation turns by w h (finite rotation mode,
/// which the driver sets). Their sphere, capsule and box geoms are swept against the sphere,
/// capsule and box geoms of dynamic bodies in the space whose collision bits allow the pair, that
/// are not touching now and not joined to the guarded body by another joint. Call collide(h) after
/// KinematicDriver::prestep(h) and before the world step, and after_step() right after the world
/// step, before anything reads or collides the poses. Never destroys what it did not create.
/// A body whose swept spheres (radius r) each move less than 2 sqrt(2 r tolerance) in a step is
/// not swept: discrete collision at either end of the step misses nothing deeper than the
/// tolerance (a box: the tolerance). Static geoms can be guarded too (guard_static): the sphere,
/// capsule and box geoms of dynamic bodies are then swept against them along those bodies'
/// velocities.
///
/// A speculative contact lets the pair close by the gap over the step, so the target ends the
/// step touching but still short of the normal speed the hit gives it (by up to gap / h). Where
/// the surface has no restitution, after_step() (or the next collide()) completes the hit: each
/// contact that pushed gets the impulse that brings the pair's normal speed at the contact to
/// zero, as an inelastic hit within the step would have. A free body that hit a guarded static
/// geom and still ended the step deeper in it than the tolerance (a thrown stick whose end
/// struck swings its other end in along an arc no contact's row, linear in the step, holds) is
/// moved out along the deepest contact's normal by after_step(), and that point's speed into
/// the geom taken away (reversed by the surface's restitution): SweepStats::moved_out. One found
/// past the middle of a thin sphere, capsule or box target, or whose origin went through it
/// (a box or plank struck on a corner spins at hundreds of rad/s and can swing through a 1 cm
/// wall within a step), is moved back along the hit's normal until its leading point is at the
/// target's near side. Likewise a free target struck by a body that keeps to its capture (a
/// plate struck off its middle spins at hundreds of rad/s and swings its face into the rest of
/// a captured hand within the step) and found with that body's geom past its middle, or with
/// the body's origin gone through it, is moved ahead of the geom along the hit's normal, its
/// speed there brought up to the geom's. "Gone through" is seen from the target, which may have
/// turned two radians in the step: along the chord between the origin's two ends in its frame,
/// and along the path the origin's line and the target's turn make there. A capsule's touch is the
/// capsule's own (the point of its axis nearest the target at the first instant they meet), not
/// that of the sphere along its axis that found it: normal and lever arm as the capsule's surface
/// gives them. A free body is swept along the spin ODE will turn it with, which in gyroscopic mode
/// (ODE's default) is not its spin now: ODE takes the gyroscopic term implicitly. The contacts of
/// the last collide() are in contacts().
class SweepGuard {
public:
  /// Throws PluginError for a null world, space or contact group, or invalid settings.
  SweepGuard(dWorldID world, dSpaceID space, dJointGroupID contacts,
             const SweepSettings& settings = {});
  ~SweepGuard();
  SweepGuard(const SweepGuard&) = delete;
  SweepGuard& operator=(const SweepGuard&) = delete;

  /// Guards `body` (of the world); guarding twice is harmless. Throws PluginError for a null
  /// body or one of another world.
  void guard(dBodyID body);
  /// Stops guarding `body`, and forgets what the last collide() left for after_step() about it
  /// (so the body may be destroyed now).
  void unguard(dBodyID body);
  /// Guards a static geom (no body) of the space: a sphere, capsule, box, plane or trimesh (a
  /// floor, a wall, a room: a ball driven into it stops at its surface instead of deep in it or
  /// through it, where ODE's error reduction would throw it back out). A trimesh's triangles
  /// are read now, in its own frame (move the geom as you like), and again when the geom is
  /// given other data (dGeomTriMeshSetData). Throws PluginError for a null geom, a geom with a
  /// body, another class, or a trimesh vertex that is not finite.
  void guard_static(dGeomID geom);
  /// Stops guarding `geom`, and forgets what the last collide() left for after_step() about it
  /// (so the geom may be destroyed now).
  void unguard_static(dGeomID geom);

  /// Sweeps every guarded body over the coming step of h seconds (finite, > 0) and adds the
  /// speculative contacts (into the contact group, emptied by the user after the step as usual).
  /// Returns how many it added. Throws PluginError for an h that is not finite and positive,
  /// and for a guarded trimesh given new data with a vertex that is not finite.
  int collide(double h);

  /// Completes the last step's hits (see above): call it right after the world step (the
  /// contact group emptied or not), before the poses are read or collided. Until then a struck
  /// target may be short of the hit's normal speed, or behind the body that struck it: hands
  /// thrown at free plates ended a step behind them in 21-47 of 300 random cases when this was
  /// left to the next collide(), in none of 24300 when called. collide() calls it first if it was
  /// not called (SweepStats::completed_late), by which time your near callback has collided the
  /// poses it then changes.
  void after_step();

  const SweepStats& stats() const { return stats_; }
  /// The contacts the last collide() added.
  const std::vector<SpeculativeContact>& contacts() const { return contacts_made_; }

private:
  struct Scratch;
  struct Pair;
  struct Touch;
  /// The fewest sub-steps (at most max_sub_steps) over which error(fraction of the step)
  /// keeps within the tolerance.
  template <typename Error> int sub_steps(const Error& error);
  /// Gathers this step's dynamic geoms and their boxes over the step, once per step.
  void gather_dynamic(double h);
  bool prepare(dBodyID body, double h);
  void sweep_against(dBodyID body, dGeomID other, double h);
  /// Sub-steps the pair's frames and the swept body's poses are worked out for.
  void set_frames(Pair& pair, int k_steps);
  void sweep_spheres(const Pair& pair, std::size_t geom);
  void sweep_box(Pair& pair, std::size_t geom);
  /// The touching check and the contact of a box's first touch; false when touching now.
  bool box_touch(const Pair& pair, const Touch& touch);
  /// Contacts for the box's corners that reach the target later in the step.
  void box_corners(const Pair& pair, std::size_t geom, const Vec3& first_point);
  void add_contact(const Pair& pair, const Touch& touch);
  /// A pair touching when the step begins: watched by after_step() where the target is a box or
  /// static.
  void watch(const Pair& pair, const Touch& touch);
  void sweep_body(dBodyID body, double h);
  void sweep_into_static(double h);
  void check_teleports();
  /// Drops the hits after_step() would complete that `match` (taking a Pending) selects.
  template <typename Match> void forget_pending(const Match& match);

  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  SweepSettings settings_;
  std::vector<dBodyID> bodies_;
  std::vector<dGeomID> statics_;
  std::vector<SpeculativeContact> contacts_made_;
  std::unique_ptr<Scratch> scratch_; ///< reused each step: no allocation once warm
  SweepStats stats_;
  int added_ = 0;
  bool stepping_ = false; ///< collide() ran and after_step() has not since
};

} // namespace odemocap
