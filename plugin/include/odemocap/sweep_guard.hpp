#pragma once
/// SweepGuard: continuous collision for fast kinematic bodies. Between two steps a captured bat
/// or hand can move further than a ball or a plate is thick, and ODE's discrete collision never
/// sees the contact its exact velocities were meant to make. The guard sweeps the body's sphere
/// and capsule geoms along the motion of the coming step and adds a speculative contact where
/// they would first touch a dynamic geom: the solver may close that pair by the gap, no more.

#include <odemocap/pose.hpp>

#include <ode/ode.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace odemocap {

/// Settings of a SweepGuard; every field has a default, the constructor validates them.
struct SweepSettings {
  /// Largest distance (m, > 0) between the path a point of a swept geom follows and its true
  /// path: a turning body's step is cut into sub-steps until every point's chords are this close
  /// to its arc, and a capsule is swept as spheres along its axis spaced so that they cover it
  /// to this.
  double tolerance = 0.002;
  /// Most sub-steps per step (>= 1); a step that needs more is swept with this many, and
  /// counted (SweepStats::sub_step_limit).
  int max_sub_steps = 64;
  /// The speculative contacts' surface (dContactApprox1, mu 0.5 by default); the guard adds
  /// dContactMotionN to its mode. Give the surface your near callback gives the same pairs.
  dSurfaceParameters surface = default_surface();

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
};

/// Sweeps guarded bodies (any bodies of the world; typically kinematic ones a KinematicDriver
/// moves) from their pose now along the motion ODE will give them in the next step, from their
/// velocities: the position moves by v h, the orientation turns by w h (finite rotation mode,
/// which the driver sets). Their sphere and capsule geoms are swept against the sphere, capsule
/// and box geoms of dynamic bodies in the space whose collision bits allow the pair, that are not
/// touching now and not joined to the guarded body by another joint. Call collide(h) after
/// KinematicDriver::prestep(h) and before the world step. Never destroys what it did not create.
/// A body whose swept spheres (radius r) each move less than 2 sqrt(2 r tolerance) in a step is
/// not swept: discrete collision at either end of the step misses nothing deeper than the
/// tolerance. A fast dynamic body hitting a guarded one is discrete collision's business.
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
  void unguard(dBodyID body);

  /// Sweeps every guarded body over the coming step of h seconds (finite, > 0) and adds the
  /// speculative contacts (into the contact group, emptied by the user after the step as usual).
  /// Returns how many it added.
  int collide(double h);

  const SweepStats& stats() const { return stats_; }

private:
  struct Scratch;
  void sweep_body(dBodyID body, double h);

  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  SweepSettings settings_;
  std::vector<dBodyID> bodies_;
  dGeomID probe_ = nullptr;          ///< an AABB box for the broad phase, in no space
  std::unique_ptr<Scratch> scratch_; ///< reused each step: no allocation once warm
  SweepStats stats_;
  int added_ = 0;
};

} // namespace odemocap
