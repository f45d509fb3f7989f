#include <odemocap/kinematic_driver.hpp>
#include <odemocap/ode_math.hpp>
#include <odemocap/velocity.hpp>

#include "describe.hpp"
#include "drive/controller.hpp"
#include "drive/rest_index.hpp"
#include "drive/timed_track.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace odemocap {
namespace {

void check_options(const BindOptions& o) {
  detail::check_timing(o.offset, o.time_offset, o.playback_rate, "KinematicDriver::bind");
  if (!(o.max_linear_speed > 0.0) || !(o.max_angular_speed > 0.0)) {
    throw PluginError("KinematicDriver::bind: max_linear_speed and max_angular_speed must be "
                      "positive, got " +
                      detail::describe(o.max_linear_speed) + " and " +
                      detail::describe(o.max_angular_speed));
  }
}

/// Makes a bound body kinematic and awake again: a dBodySetMass after bind() makes it dynamic,
/// ODE's auto-disable may have put it to sleep, and a velocity alone does not wake it.
void keep_kinematic(dBodyID body) {
  if (!dBodyIsKinematic(body)) {
    dBodySetKinematic(body);
  }
  if (!dBodyIsEnabled(body)) {
    dBodyEnable(body);
  }
}

const Pose k_identity_pose{};

void set_velocities(dBodyID body, const Vec3& v, const Vec3& w) {
  dBodySetLinearVel(body, v.x, v.y, v.z);
  dBodySetAngularVel(body, w.x, w.y, w.z);
}

} // namespace

KinematicDriver::KinematicDriver(dWorldID world)
    : world_(world), rest_index_(std::make_unique<detail::RestIndex>()) {
  if (world == nullptr) {
    throw PluginError("KinematicDriver: world is null");
  }
}

KinematicDriver::~KinematicDriver() {
  for (detail::Controller* c : controllers_) {
    c->driver_gone();
  }
}

void KinematicDriver::remove_controller(detail::Controller* c) {
  controllers_.erase(std::remove(controllers_.begin(), controllers_.end(), c), controllers_.end());
}

KinematicDriver::BindingId KinematicDriver::bind(dBodyID body, const Track& track,
                                                 const BindOptions& options) {
  if (track.valid_count() == 0) { // refused before the copy is made
    throw PluginError("KinematicDriver::bind: track '" + track.name() + "' has no valid sample");
  }
  return bind(body, std::make_shared<const Track>(track), options);
}

KinematicDriver::BindingId KinematicDriver::bind(dBodyID body, std::shared_ptr<const Track> track,
                                                 const BindOptions& options) {
  if (track == nullptr) {
    throw PluginError("KinematicDriver::bind: the track is null");
  }
  if (track->valid_count() == 0) {
    throw PluginError("KinematicDriver::bind: track '" + track->name() + "' has no valid sample");
  }
  Binding b;
  b.track = std::move(track);
  return add_binding(body, std::move(b), options);
}

KinematicDriver::BindingId KinematicDriver::bind(dBodyID body,
                                                 std::shared_ptr<const PoseSource> source,
                                                 const BindOptions& options) {
  if (source == nullptr) {
    throw PluginError("KinematicDriver::bind: the pose source is null");
  }
  Binding b;
  b.source = std::move(source);
  return add_binding(body, std::move(b), options);
}

KinematicDriver::BindingId KinematicDriver::add_binding(dBodyID body, Binding b,
                                                        const BindOptions& options) {
  if (body == nullptr) {
    throw PluginError("KinematicDriver::bind: body is null");
  }
  if (dBodyGetWorld(body) != world_) {
    throw PluginError("KinematicDriver::bind: the body belongs to another world");
  }
  for (std::size_t i = 0; i < bindings_.size(); ++i) {
    if (bindings_[i].active && bindings_[i].body == body) {
      throw PluginError("KinematicDriver::bind: the body is already bound (binding " +
                        std::to_string(i) + ")");
    }
  }
  check_options(options);
  dBodySetKinematic(body);
  dBodySetFiniteRotationMode(body, 1);
  dBodySetFiniteRotationAxis(body, 0, 0, 0); // full finite rotation, no preferred axis
  dBodySetAutoDisableFlag(body, 0);
  dBodyEnable(body);
  b.body = body;
  b.position = dBodyGetPosition(body);
  b.orientation = dBodyGetQuaternion(body);
  b.options = options;
  b.identity_offset = detail::is_identity(options.offset);
  b.max_linear_speed2 = options.max_linear_speed * options.max_linear_speed;
  b.max_angular_speed2 = options.max_angular_speed * options.max_angular_speed;
  bindings_.push_back(std::move(b));
  return bindings_.size() - 1;
}

void KinematicDriver::unbind(BindingId id) {
  binding(id, "unbind"); // throws for an unknown id
  Binding& b = bindings_[id];
  if (b.active && !b.stats.released) {
    set_velocities(b.body, {}, {});
  }
  b.active = false;
  // Let go of what it followed: a shared capture or source is freed with its last binding.
  b.track.reset();
  b.source.reset();
}

const KinematicDriver::Binding& KinematicDriver::binding(BindingId id, const char* function) const {
  if (id >= bindings_.size()) {
    throw PluginError(std::string("KinematicDriver::") + function + ": no binding " +
                      std::to_string(id) + " (there are " + std::to_string(bindings_.size()) + ")");
  }
  return bindings_[id];
}

const BindingStats& KinematicDriver::stats(BindingId id) const {
  return binding(id, "stats").stats;
}

dBodyID KinematicDriver::body(BindingId id) const {
  return binding(id, "body").body;
}

Pose KinematicDriver::target(BindingId id, double t) const {
  const Binding& b = binding(id, "target");
  if (!b.active) {
    throw PluginError("KinematicDriver::target: binding " + std::to_string(id) +
                      " was unbound; it follows nothing");
  }
  Pose out;
  if (b.source && !source_target(b, t, out, nullptr)) {
    return body_pose(b.body);
  }
  return b.source ? out : target_of(b, t);
}

bool KinematicDriver::past_end(const Binding& b, double driver_time) const {
  const double end = b.source ? b.source->end_time() : b.track->end_time();
  return detail::track_time(b.options, driver_time) > end;
}

bool KinematicDriver::source_target(const Binding& b, double t, Pose& out,
                                    BindingStats* stats) const {
  const PoseSource& source = *b.source;
  double ts = detail::track_time(b.options, t);
  const double start = source.start_time();
  const double end = source.end_time();
  if (std::isfinite(end) && std::isfinite(start) && end > start &&
      b.options.at_end == TrackEnd::Loop) {
    ts = start + (ts - start) - (end - start) * std::floor((ts - start) / (end - start));
  } else {
    ts = std::fmin(std::fmax(ts, start), end); // Hold (Release is decided before)
  }
  if (!source.pose(ts, out)) {
    if (stats != nullptr) {
      ++stats->gaps;
    }
    return false;
  }
  if (!is_finite(out.p) || !is_finite(out.q) || !(std::fabs(norm(out.q) - 1.0) <= 1e-6)) {
    if (stats != nullptr) {
      ++stats->bad_poses;
    }
    return false;
  }
  if (!b.identity_offset) {
    out = detail::compose(out, b.options.offset);
  }
  return true;
}

double KinematicDriver::cycle_at(const Binding& b, double t) const {
  if (b.options.at_end != TrackEnd::Loop) {
    return 0.0;
  }
  if (b.track) {
    return detail::loop_cycle(*b.track, b.options, t);
  }
  const double ts = detail::track_time(b.options, t);
  const double start = b.source->start_time();
  const double end = b.source->end_time();
  const bool loops = std::isfinite(end) && std::isfinite(start) && end > start;
  return loops ? std::floor((ts - start) / (end - start)) : 0.0; // as source_target() wraps
}

void KinematicDriver::cross_seam(Binding& b) {
  ++b.stats.seams;
  if (b.seam != 1) {
    return; // a step over a whole period or more: no motion across it to keep
  }
  // The loop goes on from its last pose (the track's or source's pose at its end time) to its
  // first. Worked out here, once a period, rather than kept per binding: prestep reads every
  // binding every step.
  Pose jump;
  if (b.track) {
    jump = detail::seam_jump(*b.track, b.options.interp);
  } else {
    Pose first;
    Pose last;
    if (!b.source->pose(b.source->start_time(), first) ||
        !b.source->pose(b.source->end_time(), last) || !is_finite(first.p) || !is_finite(first.q) ||
        !is_finite(last.p) || !is_finite(last.q)) {
      return; // no seam to measure: the step's speed limits judge the jump as before
    }
    jump = detail::seam_jump(first, last);
  }
  if (!detail::is_identity(jump)) {
    carry_attached(b.body, jump); // before the body moves: what rests on it where the loop ended
    detail::carry(b.body, jump);
    jumps_.emplace_back(b.body, jump);
  }
}

void KinematicDriver::carry_attached(dBodyID body, const Pose& jump) {
  // Breadth first from `body`: `from` is the body whose neighbours are looked for, then each
  // body found in turn. All are found where the loop ended, before any of them moves.
  const std::size_t first = carried_.size();
  std::size_t next = first;
  // Up is against the world's gravity; without gravity nothing rests.
  dVector3 gravity;
  dWorldGetGravity(world_, gravity);
  const double g =
      std::sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  const bool resting = neighbours_.carry_resting && g > 0.0 && std::isfinite(g);
  const Vec3 up = resting ? Vec3{-gravity[0] / g, -gravity[1] / g, -gravity[2] / g} : Vec3{};
  for (dBodyID from = body;; from = carried_[next++].first) {
    if (resting) {
      find_resting(from, up, body);
    }
    find_joined(from, body);
    if (next == carried_.size()) {
      break;
    }
  }
  for (std::size_t i = first; i < carried_.size(); ++i) {
    detail::carry(carried_[i].first, jump);
  }
}

void KinematicDriver::find_resting(dBodyID from, const Vec3& up, dBodyID carrier) {
  resting_.clear();
  rest_index_->find_resting(from, up, NeighbourSettings::k_rest_gap, resting_);
  for (const dBodyID other : resting_) {
    if (carried_by(other) == nullptr) {
      note_carried(other, carrier);
    }
  }
}

void KinematicDriver::find_joined(dBodyID from, dBodyID carrier) {
  const int n = dBodyGetNumJoints(from);
  for (int i = 0; i < n; ++i) {
    const dJointID j = dBodyGetJoint(from, i);
    if (dJointGetType(j) == dJointTypeContact) {
      continue;
    }
    const dBodyID other = dJointGetBody(j, 0) == from ? dJointGetBody(j, 1) : dJointGetBody(j, 0);
    if (other == nullptr || dBodyIsKinematic(other) || carried_by(other) != nullptr) {
      continue;
    }
    note_carried(other, carrier);
  }
}

dBodyID KinematicDriver::carried_by(dBodyID body) const {
  const auto it = carrier_of_.find(body);
  return it == carrier_of_.end() ? nullptr : it->second;
}

void KinematicDriver::note_carried(dBodyID body, dBodyID by) {
  carried_.emplace_back(body, by);
  carrier_of_.emplace(body, by);
}

Pose KinematicDriver::target_of(const Binding& b, double t) const {
  const Pose pose = detail::sample_timed(*b.track, b.options, t);
  return b.identity_offset ? pose : detail::compose(pose, b.options.offset);
}

void KinematicDriver::restart() {
  time_ = 0.0;
  for (Binding& b : bindings_) {
    b.placed = false;
    b.stats.released = false;
  }
}

inline bool KinematicDriver::batched(const Binding& b) const {
  return b.track && b.placed && !b.stats.released && b.options.at_end != TrackEnd::Release &&
         b.options.interp == Interp::Linear && mode_ == DriveMode::Geodesic;
}

inline void KinematicDriver::look_up(Binding& b, double t, OutOfRange out_of_range,
                                     SharedLookup& shared) {
  const Track& track = *b.track;
  const Binding* owner = shared.owner;
  b.lookup_taken = owner != nullptr && track.same_intervals_as(*owner->track) &&
                   owner->lookup.asked == t && owner->lookup.out_of_range == out_of_range;
  if (b.lookup_taken) {
    b.lookup = owner->lookup;
    track.prefetch_samples(b.lookup);
    return;
  }
  b.lookup = track.prefetch(t, out_of_range);
  shared.owner = &b;
}

void KinematicDriver::prestep(double h) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw PluginError("KinematicDriver::prestep: h must be finite and positive, got " +
                      detail::describe(h));
  }
  // After a world step the bindings' tracks, samples and bodies have left the caches, and one
  // binding's misses would wait for the previous one's: a pipeline loads them ahead. Binding
  // i + 2A's track object is fetched, then (its addresses known) binding i + A's samples and
  // body, while binding i's samples are read into the batch. The batch's arithmetic runs
  // eight bindings at a time, four (AVX) or two per SIMD register (step_velocities), where one
  // binding's long chains of dependent operations (Slerp, offset, Slerp derivative) overlap
  // another's instead of waiting on each other and on the calls into ODE. The batch keeps the
  // registers' layout (BodyStepBatch), so four bindings' x is one load.
  const double next = time_ + h;
  const double inv_h = 1.0 / h;
  constexpr std::size_t k_ahead = 8;
  const std::size_t n = bindings_.size();
  const auto wanted = [](const Binding& b) { return b.active && !b.stats.released && !b.source; };
  batch_size_ = 0;
  if (!carried_.empty()) {
    carried_.clear();
    carrier_of_.clear(); // only then: clearing a map that held many writes all its buckets
  }
  jumps_.clear();
  rest_index_->clear();
  SharedLookup shared;
  for (std::size_t i = 0; i < n + 2 * k_ahead; ++i) {
    if (i < n && wanted(bindings_[i])) {
      bindings_[i].track->prefetch_fields();
    }
    if (i >= k_ahead && i - k_ahead < n && wanted(bindings_[i - k_ahead])) {
      Binding& b = bindings_[i - k_ahead];
      const double was = b.lookup.cycle; // the period of the pose the body is on
      look_up(b, detail::track_time(b.options, next), detail::out_of_range(b.options), shared);
      b.seam = seam_of(was, b.lookup.cycle);
      __builtin_prefetch(b.body); // its flags and joints: the handle is the body's address
      __builtin_prefetch(b.position);
      __builtin_prefetch(b.orientation);
    }
    if (i >= 2 * k_ahead && bindings_[i - 2 * k_ahead].active) {
      Binding& b = bindings_[i - 2 * k_ahead];
      if (batched(b)) {
        gather(b, shared);
        if (batch_size_ == BodyStepBatch::k_size) {
          drive_batch(inv_h);
        }
      } else {
        if (wanted(b) && !b.lookup_taken) {
          // The bindings after it may take its lookup, but its interval is not found here.
          shared.interval_owner = nullptr;
        }
        drive(b, h, next, inv_h);
        handle_neighbours(b);
      }
    }
  }
  drive_batch(inv_h);
  // After the bindings: a joint's rows start from the poses and velocities the bodies have
  // this step.
  for (detail::Controller* c : controllers_) {
    c->update(time_, h);
  }
  time_ += h;
}

void KinematicDriver::gather(Binding& b, SharedLookup& shared) {
  const Track& track = *b.track;
  // Prefetched this step with the same time (the wrap and the guess are not done again), and
  // found once for the tracks that share their intervals.
  const bool same = b.lookup_taken && b.lookup.ready && shared.interval_owner != nullptr;
  const Track::Interval at = same ? shared.interval : track.interval(b.lookup);
  if (!b.lookup_taken) {
    shared.interval_owner = b.lookup.ready ? &b : nullptr;
    shared.interval = at;
  }
  if (b.seam != 0) {
    cross_seam(b); // before the body's pose is read
  }
  const std::size_t k = batch_size_++;
  batch_bindings_[k] = &b;
  BodyStepBatch& s = batch_;
  const Vec3& p0 = track.position(at.i);
  const Vec3& p1 = track.position(at.j);
  const Quat& q0 = track.orientation(at.i);
  const Quat& q1 = track.orientation(at.j);
  const Pose& offset = b.identity_offset ? k_identity_pose : b.options.offset;
  BodyStepBatch::put(s.p0, k, p0);
  BodyStepBatch::put(s.p1, k, p1);
  BodyStepBatch::put(s.q0, k, q0);
  BodyStepBatch::put(s.q1, k, q1);
  s.u[k] = at.u;
  BodyStepBatch::put(s.offset_p, k, offset.p);
  BodyStepBatch::put(s.offset_q, k, offset.q);
  // A body's quaternion is unit (ODE normalises what it is given) or, set non-finite by the
  // program, gives a non-finite rate, which drive_batch() turns into a teleport.
  for (int c = 0; c < 3; ++c) {
    s.now_p[c][k] = b.position[c];
  }
  for (int c = 0; c < 4; ++c) {
    s.now_q[c][k] = b.orientation[c];
  }
}

inline bool KinematicDriver::apply_velocities(Binding& b, const Vec3& v, const Vec3& w) {
  const double speed2 = dot(v, v);
  const double spin2 = dot(w, w);
  if (!(speed2 <= b.max_linear_speed2 && spin2 <= b.max_angular_speed2)) {
    return false;
  }
  set_velocities(b.body, v, w);
  // Square roots only when a maximum grows, which is rare after the first steps.
  if (speed2 > b.stats.max_linear_speed * b.stats.max_linear_speed) {
    b.stats.max_linear_speed = std::sqrt(speed2);
  }
  if (spin2 > b.stats.max_angular_speed * b.stats.max_angular_speed) {
    b.stats.max_angular_speed = std::sqrt(spin2);
  }
  return true;
}

void KinematicDriver::drive_batch(double inv_h) {
  step_velocities(batch_, batch_size_, inv_h);
  const BodyStepBatch& s = batch_;
  for (std::size_t k = 0; k < batch_size_; ++k) {
    Binding& b = *batch_bindings_[k];
    keep_kinematic(b.body);
    ++b.stats.steps;
    if (!apply_velocities(b, {s.linear[0][k], s.linear[1][k], s.linear[2][k]},
                          {s.angular[0][k], s.angular[1][k], s.angular[2][k]})) {
      teleport(b, {{s.goal_p[0][k], s.goal_p[1][k], s.goal_p[2][k]},
                   {s.goal_q[0][k], s.goal_q[1][k], s.goal_q[2][k], s.goal_q[3][k]}});
    }
    handle_neighbours(b);
  }
  batch_size_ = 0;
}

void KinematicDriver::set_neighbours(const NeighbourSettings& settings) {
  if (!(settings.joint_erp >= 0.0 && settings.joint_erp <= 1.0)) {
    throw PluginError("KinematicDriver::set_neighbours: joint_erp must be in [0, 1], got " +
                      detail::describe(settings.joint_erp));
  }
  neighbours_ = settings;
  for (Binding& b : bindings_) {
    b.joints_seen = -1;
  }
}

namespace {

/// Whether `j` is the only joint (contacts aside) that holds `body`.
bool only_joint_of(dBodyID body, dJointID j) {
  const int n = dBodyGetNumJoints(body);
  for (int i = 0; i < n; ++i) {
    const dJointID other = dBodyGetJoint(body, i);
    if (other != j && dJointGetType(other) != dJointTypeContact) {
      return false;
    }
  }
  return true;
}

/// Sets a joint's ERP where ODE has the parameter; other joint types are left alone.
void set_joint_erp(dJointID j, double erp) {
  switch (dJointGetType(j)) {
  case dJointTypeBall: dJointSetBallParam(j, dParamERP, erp); break;
  case dJointTypeHinge: dJointSetHingeParam(j, dParamERP, erp); break;
  case dJointTypeSlider: dJointSetSliderParam(j, dParamERP, erp); break;
  case dJointTypeUniversal: dJointSetUniversalParam(j, dParamERP, erp); break;
  case dJointTypeFixed: dJointSetFixedParam(j, dParamERP, erp); break;
  default: break;
  }
}

} // namespace

void KinematicDriver::handle_neighbours(Binding& b) {
  const int n = dBodyGetNumJoints(b.body);
  if (n == b.joints_seen) {
    return;
  }
  b.joints_seen = n;
  for (int i = 0; i < n; ++i) {
    const dJointID j = dBodyGetJoint(b.body, i);
    if (dJointGetType(j) == dJointTypeContact) {
      continue;
    }
    // The ERP is raised only for a body this joint alone holds (a payload, a pendulum), where
    // the drift it removes is the driven anchor's arc. A chain's gaps are its own whipping: a
    // stiffer first joint moved their means over 20 random swings by -9% to +11%, no gain.
    bool lone_dynamic = false;
    for (int k = 0; k < 2; ++k) {
      const dBodyID other = dJointGetBody(j, k);
      if (other == nullptr || other == b.body || dBodyIsKinematic(other)) {
        continue;
      }
      lone_dynamic = only_joint_of(other, j);
      if (neighbours_.exact_rotation && dBodyGetFiniteRotationMode(other) == 0) {
        dBodySetFiniteRotationMode(other, 1);
        dBodySetFiniteRotationAxis(other, 0, 0, 0);
      }
    }
    if (lone_dynamic && neighbours_.joint_erp > 0.0) {
      set_joint_erp(j, neighbours_.joint_erp);
    }
  }
}

void KinematicDriver::drive(Binding& b, double h, double next, double inv_h) {
  if (b.stats.released) {
    return;
  }
  if (b.options.at_end == TrackEnd::Release && past_end(b, next)) {
    dBodySetDynamic(b.body); // keeps the velocity the last step gave it
    b.stats.released = true;
    return;
  }
  keep_kinematic(b.body);
  if (b.source) {
    drive_source(b, h, next, inv_h);
    return;
  }
  if (!b.placed) {
    set_body_pose(b.body, target_of(b, time_));
    b.placed = true;
    b.seam = seam_of(cycle_at(b, time_), cycle_at(b, next)); // prestep's knew no pose before
  }
  if (b.seam != 0) {
    cross_seam(b);
  }
  move_to(b, target_of(b, next), h, inv_h);
}

void KinematicDriver::drive_source(Binding& b, double h, double next, double inv_h) {
  // A source may have no pose (yet): the body waits, still, where it is.
  if (!b.placed) {
    Pose now;
    if (!source_target(b, time_, now, &b.stats)) {
      set_velocities(b.body, {}, {});
      return;
    }
    set_body_pose(b.body, now);
    b.placed = true;
    b.lookup.cycle = cycle_at(b, time_); // a source has no lookup: its field keeps the period
  }
  Pose goal;
  if (!source_target(b, next, goal, &b.stats)) {
    set_velocities(b.body, {}, {});
    return;
  }
  const double cycle = cycle_at(b, next);
  b.seam = seam_of(b.lookup.cycle, cycle);
  b.lookup.cycle = cycle;
  if (b.seam != 0) {
    cross_seam(b);
  }
  move_to(b, goal, h, inv_h);
}

void KinematicDriver::move_to(Binding& b, const Pose& goal, double h, double inv_h) {
  ++b.stats.steps;
  if (mode_ == DriveMode::Teleport) {
    set_body_pose(b.body, goal);
    set_velocities(b.body, {}, {});
    return;
  }
  const Pose now = body_pose(b.body);
  // Positions are bounded (the track's plausibility limits), so the checks of
  // linear_velocity() are not needed: a non-finite position (set by the user) makes the speed
  // NaN, which fails the test in apply_velocities().
  const Vec3 v = (goal.p - now.p) * inv_h;
  const Vec3 w = mode_ == DriveMode::Geodesic ? angular_velocity_unchecked(now.q, goal.q, inv_h)
                                              : angular_velocity_linear_approx(now.q, goal.q, h);
  if (!apply_velocities(b, v, w)) {
    teleport(b, goal);
  }
}

void KinematicDriver::teleport(Binding& b, const Pose& goal) {
  set_body_pose(b.body, goal);
  set_velocities(b.body, {}, {});
  ++b.stats.teleports;
}

} // namespace odemocap
