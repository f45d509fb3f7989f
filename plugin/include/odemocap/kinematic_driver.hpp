#pragma once
/// KinematicDriver: moves ODE bodies along captured tracks with the velocities that take them
/// exactly to the next captured pose, so that the solver sees real moving bodies.

#include <odemocap/plugin_error.hpp>
#include <odemocap/pose_source.hpp>
#include <odemocap/track.hpp>
#include <odemocap/velocity.hpp>

#include <ode/ode.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace odemocap {

namespace detail {
class Controller;
class RestIndex;
} // namespace detail

/// How the driver moves bound bodies each step.
enum class DriveMode {
  Geodesic,     ///< linear velocity from the position difference, angular from the Slerp
                ///< derivative: the body lands exactly on the next pose (default)
  LinearApprox, ///< the same, but the naive quaternion-difference angular velocity
  Teleport,     ///< set the next pose directly, zero velocity (what the solver cannot see)
};

/// What happens when the track's time runs past its last sample.
enum class TrackEnd {
  Hold,    ///< stay on the last sample, at rest
  Loop,    ///< start again from the first sample; the seam's jump (last pose to first) moves
           ///< the body, and the velocity is the motion's on either side (BindingStats::seams)
  Release, ///< hand the body back to ODE as a dynamic body with its last velocity
};

/// How one body follows one track. Every field has a default; bind() rejects invalid values.
struct BindOptions {
  /// The body frame in the track's frame: body pose = track pose * offset (m; unit quaternion).
  Pose offset;
  /// Track time (s) at driver time 0: track time = time_offset + playback_rate * driver time.
  double time_offset = 0.0;
  /// Track seconds per simulated second; > 0.
  double playback_rate = 1.0;
  TrackEnd at_end = TrackEnd::Hold;
  Interp interp = Interp::Linear;
  /// A step that needs a faster linear (m/s) or angular (rad/s) velocity than this is a
  /// discontinuity in the data: the body is teleported with zero velocity and it is counted.
  /// So is a body the user moved to a non-finite position: it is put back on its track.
  double max_linear_speed = 50.0;
  double max_angular_speed = 150.0;
};

/// Per-binding counters.
struct BindingStats {
  std::size_t steps = 0;          ///< presteps that drove the body
  std::size_t teleports = 0;      ///< steps over the speed limits (the first placement is not one)
  /// Loop seams crossed (TrackEnd::Loop): at each, the body was moved by the jump from the
  /// loop's last pose to its first (none for a loop that closes) and kept its velocity.
  std::size_t seams = 0;
  std::size_t gaps = 0;           ///< steps a pose source had no pose for: the body was held still
  std::size_t bad_poses = 0;      ///< steps a pose source gave a non-finite pose or a non-unit
                                  ///< quaternion (|q| off 1 by over 1e-6): held still, not used
  bool released = false;          ///< TrackEnd::Release has happened
  double max_linear_speed = 0.0;  ///< largest commanded (m/s)
  double max_angular_speed = 0.0; ///< largest commanded (rad/s)
};

/// What the driver does to the dynamic bodies that other joints (not contacts) join to the
/// bodies it drives: a payload welded to a captured hand, a pendulum hanging from it.
struct NeighbourSettings {
  /// Finite rotation mode for them (dBodySetFiniteRotationMode): ODE's default first-order
  /// rotation update turns a payload on a captured wrist away from the wrist by degrees (3.3
  /// degrees on the CMU hop's wrist); the exact one keeps it to 1e-5.
  bool exact_rotation = true;
  /// ERP given to those joints (ball, hinge, slider, universal and fixed joints; [0, 1], 0
  /// leaves the joints' ERP alone) where the joint alone holds the dynamic body (not a
  /// chain's first link). Each step the driven body's anchor follows an arc where
  /// the joint's velocity rows follow its tangent, leaving a drift of r (w h)^2 / 2 that the
  /// world's usual ERP of 0.2 lets grow to five times that: 0.8 removes most of it in the
  /// step (the driven side cannot move, so there is nothing to overshoot against). Set your
  /// own, or 0, if you tuned those joints yourself.
  double joint_erp = 0.8;
  /// At a loop's seam, carry with the looping body the dynamic bodies resting on it (a cup on
  /// a looped tray, a ball in a looped hand), as the bodies joined to it are always carried:
  /// the seam's jump is data, not motion, and left behind they would hang in the air where the
  /// loop ended. A body rests on it when dCollide finds a contact between their geoms (in the
  /// top space of the looping body's geoms, before the jump) that holds the body up: the way
  /// it leaves the contact is within 60 degrees of up (against the world's gravity). The
  /// looping body is looked at where it is and raised k_rest_gap, since what rests on it may
  /// hover by a hair at that instant. What only touches it (a box it pushes sideways, a ball
  /// it kicks) stays, and without gravity nothing rests. What rests on a carried body, or is
  /// joined to it, goes too (a stack of plates on the tray, a cup on a payload welded to a
  /// looping hand); each body once.
  bool carry_resting = true;
  /// How far above a looping body's geoms what rests on them may hover and still be carried
  /// (m).
  static constexpr double k_rest_gap = 0.002;
};

/// Drives bodies of one ODE world along tracks, and updates the quaternion joints
/// (QuatLockJoint, QuatHingeJoint), soft followers and characters created with it: call
/// prestep(h) once before every
/// dWorldStep or dWorldQuickStep of h seconds. Bodies stay the user's: the driver never
/// destroys them.
class KinematicDriver {
public:
  using BindingId = std::size_t;

  /// A driver for `world`; throws PluginError for a null world.
  explicit KinematicDriver(dWorldID world);
  /// Does not touch the bodies (their world may already be gone): unbind() first to stop one.
  /// Joints and followers created with the driver stay valid but are no longer updated.
  ~KinematicDriver();
  KinematicDriver(const KinematicDriver&) = delete;
  KinematicDriver& operator=(const KinematicDriver&) = delete;

  /// Binds `body` (created by the user in this world, with the geoms and mass they like) to a
  /// copy of `track`. The body becomes kinematic (dBodySetKinematic), uses finite rotation
  /// mode, and is exempt from auto-disable. Throws PluginError for a null body, a body of
  /// another world or already bound, a track without valid samples, or invalid options.
  BindingId bind(dBodyID body, const Track& track, const BindOptions& options = {});

  /// The same, sharing `track` instead of copying it: many bodies (a crowd of characters from
  /// one capture) bind to one stored track, each binding costing a few hundred bytes. A track
  /// inside a shared capture is shared with the aliasing constructor,
  /// `std::shared_ptr<const Track>(capture, &capture->track(name))`, which keeps the whole
  /// capture alive. The track must not change while bound. Throws as above, or for a null
  /// track.
  BindingId bind(dBodyID body, std::shared_ptr<const Track> track,
                 const BindOptions& options = {});

  /// Binds `body` to poses from `source` (shared: a blend or a live stream the program keeps
  /// updating), with the same exact velocities. BindOptions apply as for a track, on the
  /// source's clock: offset, time_offset, playback_rate, the speed limits; at_end after
  /// end_time() (a source without an end never ends); interp is the source's business. A step
  /// for which the source has no pose, or gives an invalid one, holds the body still and is
  /// counted (BindingStats::gaps, bad_poses). Throws PluginError as bind() does, or for a null
  /// source.
  BindingId bind(dBodyID body, std::shared_ptr<const PoseSource> source,
                 const BindOptions& options = {});

  /// Stops driving a binding; the body stays where it is, kinematic, at rest. The binding lets
  /// go of its track or source (target() then throws).
  void unbind(BindingId id);

  void set_mode(DriveMode mode) { mode_ = mode; }
  DriveMode mode() const { return mode_; }

  /// Changes what the driver does to dynamic bodies joined to driven ones (from the next
  /// prestep on, for every joint it has not handled yet). Throws PluginError for an ERP
  /// outside [0, 1].
  void set_neighbours(const NeighbourSettings& settings);
  const NeighbourSettings& neighbours() const { return neighbours_; }

  /// Prepares the next step of `h` seconds (finite, > 0): for every binding, samples the
  /// target pose at time() + h and sets the velocities that carry the body from where it is
  /// to that pose in one step (the first call places each body on its pose at time 0); then
  /// recomputes the rows of every joint and follower created with this driver, in the order
  /// they were created, from the bodies' poses.
  void prestep(double h);

  /// Simulated time (s) the driver has advanced: the sum of the h given to prestep().
  double time() const { return time_; }

  /// Starts over at time 0: the next prestep places the bodies on their first poses again.
  void restart();

  /// The body pose binding `id` asks for at driver time `t` (s), offset included; for a pose
  /// source without a valid pose then, the body's pose now. Throws PluginError for an unknown
  /// or unbound binding.
  Pose target(BindingId id, double t) const;

  const BindingStats& stats(BindingId id) const;
  /// The bound body whose loop seam carried dynamic body `body` in the last prestep (a body
  /// joined to it: a chain hanging from a looping hand, a payload welded to it; or resting on
  /// it, NeighbourSettings::carry_resting), or null.
  dBodyID carried_by(dBodyID body) const;
  dBodyID body(BindingId id) const;
  /// Number of bindings ever made (unbound ones keep their id).
  std::size_t size() const { return bindings_.size(); }
  /// Number of objects the driver updates after its bindings: quaternion joints, followers,
  /// characters.
  std::size_t joint_count() const { return controllers_.size(); }
  dWorldID world() const { return world_; }

private:
  friend class detail::Controller;
  void add_controller(detail::Controller* c) { controllers_.push_back(c); }
  void remove_controller(detail::Controller* c);

  struct Binding {
    dBodyID body = nullptr;
    std::shared_ptr<const Track> track; ///< null for a pose source
    std::shared_ptr<const PoseSource> source;
    BindOptions options;
    BindingStats stats;
    bool active = true;
    bool placed = false; ///< put on its first pose by a prestep
    bool identity_offset = true;
    /// TrackEnd::Loop: whether this step's target is in the loop period after the body's
    /// pose (1), in the same one (0), or elsewhere (2: a step over a whole period or more).
    /// The body's period is the `lookup` of the step before (for a track) or kept in
    /// lookup.cycle (for a pose source, which has no lookup).
    std::int8_t seam = 0;
    /// This step's lookup was the one the binding before it on the same intervals worked out
    /// (SharedLookup), so its interval is that binding's too.
    bool lookup_taken = false;
    double max_linear_speed2 = 0.0; ///< squared limits: no square root per step
    double max_angular_speed2 = 0.0;
    int joints_seen = -1; ///< the body's joint count when its neighbours were last handled
    /// dBodyGetPosition and dBodyGetQuaternion of the body, taken at bind(): ODE returns
    /// pointers into the body, which stay put while it exists (and a bound body must).
    const dReal* position = nullptr;
    const dReal* orientation = nullptr;
    /// What the track's prefetch() worked out for this step's target time, for gather().
    Track::Lookup lookup;
  };

  const Binding& binding(BindingId id, const char* function) const;
  BindingId add_binding(dBodyID body, Binding b, const BindOptions& options);
  Pose target_of(const Binding& b, double t) const;
  /// A pose source's target at driver time t, offset included; false (and counted in `stats`)
  /// when it has none or gives an invalid one.
  bool source_target(const Binding& b, double t, Pose& out, BindingStats* stats) const;
  /// The loop period of `b`'s pose at driver time t (0 unless it loops).
  double cycle_at(const Binding& b, double t) const;
  /// Binding::seam for a step from loop period `from` to period `to`.
  static std::int8_t seam_of(double from, double to) {
    return static_cast<std::int8_t>(to == from ? 0 : to == from + 1.0 ? 1 : 2);
  }
  /// Counts the seam `b.seam` says this step crosses and, when the target is one period on
  /// from the body's pose, moves the body by the seam's jump: the jump is data, not motion,
  /// so the velocity that follows is the motion's on either side of it.
  void cross_seam(Binding& b);
  /// Adds to carried_, with `carrier`, the dynamic bodies not yet carried that are joined to
  /// `from` (by joints other than contacts): a chain hanging from a looping hand, a payload
  /// welded to it.
  void find_joined(dBodyID from, dBodyID carrier);
  /// Adds to carried_, with `carrier`, the dynamic bodies not yet carried that rest on `from`
  /// now (NeighbourSettings::carry_resting), `up` being against the world's gravity (unit).
  void find_resting(dBodyID from, const Vec3& up, dBodyID carrier);
  /// Carries by `jump` what goes with `body` across a seam: the dynamic bodies joined to it or
  /// resting on it, and in turn those joined to them or resting on them (not through kinematic
  /// bodies), each once per prestep (carried_). All are found before any moves; called before
  /// `body` itself moves.
  void carry_attached(dBodyID body, const Pose& jump);
  /// Records in carried_ and carrier_of_ that `body` was carried across a seam by `by`'s jump.
  void note_carried(dBodyID body, dBodyID by);

  /// Track (or source) time has passed the end: TrackEnd::Release applies.
  bool past_end(const Binding& b, double driver_time) const;
  /// One binding's step of h seconds to driver time `next` = time() + h; inv_h = 1 / h.
  void drive(Binding& b, double h, double next, double inv_h);
  void drive_source(Binding& b, double h, double next, double inv_h);
  /// Applies NeighbourSettings to the dynamic bodies joined to `b`'s body, when its joints
  /// changed since the last time.
  void handle_neighbours(Binding& b);
  /// Sets the velocities that take the body to `goal` in the step (or teleports it there).
  void move_to(Binding& b, const Pose& goal, double h, double inv_h);
  /// Sets velocities v (m/s) and w (rad/s) on `b`'s body and keeps its statistics; false,
  /// nothing set, when they pass its limits or are not finite (then teleport() it).
  bool apply_velocities(Binding& b, const Vec3& v, const Vec3& w);
  /// Puts `b`'s body at `goal` at rest, and counts it: a discontinuity in the data, or a body
  /// moved to a non-finite pose, gets no absurd velocity.
  void teleport(Binding& b, const Pose& goal);
  /// Whether prestep() may drive `b` in its batch: a placed track binding, linear
  /// interpolation, no release at the end, DriveMode::Geodesic (the others go one at a time).
  bool batched(const Binding& b) const;
  /// The binding whose track last worked a lookup out in this prestep, and the interval that
  /// lookup gave: the bindings that follow on tracks with the same intervals
  /// (Track::same_intervals_as: the bones of one capture) at the same time take both instead of
  /// working them out again. `interval_owner` is null until the owner's interval is found, and
  /// again once a lookup owner goes on without gather() (not batched).
  struct SharedLookup {
    const Binding* owner = nullptr;
    const Binding* interval_owner = nullptr;
    Track::Interval interval; ///< interval_owner's
  };
  /// The binding's lookup for time t (s, the track's) and `out_of_range`, and its samples
  /// prefetched: from `shared` when it holds it, else from its track (and then kept there).
  static void look_up(Binding& b, double t, OutOfRange out_of_range, SharedLookup& shared);
  /// The batch: gather() reads a binding's samples and body into it; drive_batch() computes
  /// every target in it and its velocities (step_velocities), sets them (or teleports), counts
  /// and empties it.
  void gather(Binding& b, SharedLookup& shared);
  void drive_batch(double inv_h);

  dWorldID world_;
  DriveMode mode_ = DriveMode::Geodesic;
  NeighbourSettings neighbours_;
  double time_ = 0.0;
  std::vector<Binding> bindings_;
  /// A few bindings prestep() drives together, and their steps: enough for the arithmetic of
  /// one to overlap the next one's, few enough to stay in the L1 cache.
  std::array<Binding*, BodyStepBatch::k_size> batch_bindings_{};
  BodyStepBatch batch_{};
  std::size_t batch_size_ = 0;                   ///< steps of batch_ in use
  std::vector<detail::Controller*> controllers_; ///< owned by the joints and followers
  /// Dynamic bodies carried across a seam in this prestep, each with the bound body whose
  /// jump carried it (carried once: a rope between two looping hands goes with the first).
  std::vector<std::pair<dBodyID, dBodyID>> carried_;
  /// The same, by carried body: carried_by() in constant time, for a seam a crowd crosses.
  std::unordered_map<dBodyID, dBodyID> carrier_of_;
  /// Bound bodies carried across their loop's seam in this prestep, with the jump: what a
  /// follower of such a body (a ghost) is carried by.
  std::vector<std::pair<dBodyID, Pose>> jumps_;
  /// The dynamic geoms near which a seam's bodies look for what rests on them, indexed at the
  /// first seam of a prestep (NeighbourSettings::carry_resting).
  std::unique_ptr<detail::RestIndex> rest_index_;
  std::vector<dBodyID> resting_; ///< find_resting's scratch
};

} // namespace odemocap
