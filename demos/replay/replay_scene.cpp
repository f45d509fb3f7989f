#include "replay_scene.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace odemocap::replay {
namespace {

constexpr double k_radius = 0.04;     // capsule radius of a captured bone (m)
constexpr double k_rigid_side = 0.08; // box side of a captured rigid body (m)
constexpr double k_pi = 3.14159265358979323846;

// Collision categories: the chain touches the floor and the props, not the captured bodies
// (its hand moves through the arm it hangs from).
constexpr unsigned long k_ground = 1;
constexpr unsigned long k_captured = 2;
constexpr unsigned long k_props = 4;
constexpr unsigned long k_chain = 8;

} // namespace

const char* drive_name(Drive drive) {
  switch (drive) {
  case Drive::Geodesic: return "geodesic";
  case Drive::Linear: return "linear";
  case Drive::Teleport: return "teleport";
  case Drive::Soft: return "soft";
  }
  return "?";
}

std::optional<Drive> parse_drive(const std::string& name) {
  for (Drive d : {Drive::Geodesic, Drive::Linear, Drive::Teleport, Drive::Soft}) {
    if (name == drive_name(d)) {
      return d;
    }
  }
  return std::nullopt;
}

namespace {

/// The driver's mode for a drive (Soft moves its kinematic roots geodesically).
DriveMode driver_mode(Drive drive) {
  switch (drive) {
  case Drive::Linear: return DriveMode::LinearApprox;
  case Drive::Teleport: return DriveMode::Teleport;
  default: return DriveMode::Geodesic;
  }
}

void set_bits(dGeomID geom, unsigned long category, unsigned long collide) {
  dGeomSetCategoryBits(geom, category);
  dGeomSetCollideBits(geom, collide);
}

bool finite_pose(dBodyID body) {
  const dReal* p = dBodyGetPosition(body);
  const dReal* q = dBodyGetQuaternion(body);
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(p[i])) {
      return false;
    }
  }
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(q[i])) {
      return false;
    }
  }
  return true;
}

double horizontal_distance(const Vec3& a, const Vec3& b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

constexpr double k_chain_drop = 0.47; // the chain's length below the hand (m)

double lowest(const Track& track) {
  double low = std::numeric_limits<double>::infinity();
  for (std::size_t i : track.valid_indices()) {
    low = std::fmin(low, track.position(i).z);
  }
  return low;
}

double path_length(const Track& track) {
  double length = 0.0;
  const auto& v = track.valid_indices();
  for (std::size_t k = 1; k < v.size(); ++k) {
    length += norm(track.position(v[k]) - track.position(v[k - 1]));
  }
  return length;
}

/// Rotation about z only, from the heading of the body's x axis.
Quat heading(const Quat& q) {
  const Vec3 forward = rotate(q, {1, 0, 0});
  const double yaw = std::atan2(forward.y, forward.x);
  return from_axis_angle({0, 0, 1}, yaw);
}

} // namespace

double capture_start(const Capture& capture) {
  double t = std::numeric_limits<double>::infinity();
  for (const Track& track : capture.tracks()) {
    if (track.valid_count() > 0) {
      t = std::fmin(t, track.time(track.valid_indices().front()));
    }
  }
  return t;
}

double capture_end(const Capture& capture) {
  double t = -std::numeric_limits<double>::infinity();
  for (const Track& track : capture.tracks()) {
    if (track.valid_count() > 0) {
      t = std::fmax(t, track.time(track.valid_indices().back()));
    }
  }
  return t;
}

ReplayScene::ReplayScene(const Capture& capture, const SceneOptions& options) : options_(options) {
  if (!(options.rate >= 1.0 && options.rate <= 100000.0)) {
    throw PluginError("replay: --rate must be between 1 and 100000 Hz");
  }
  if (capture.tracks().empty() || !std::isfinite(capture_start(capture))) {
    throw PluginError("replay: the capture has no track with a valid sample");
  }
  h_ = 1.0 / options.rate;
  dInitODE2(0);
  world_ = dWorldCreate();
  dWorldSetGravity(world_, 0, 0, -9.81);
  dWorldSetQuickStepNumIterations(world_, 60);
  dWorldSetContactSurfaceLayer(world_, 0.001);
  // Sweep and prune, not a hash space: Debian's ODE 0.16 hash space never reports some
  // touching pairs (about one in a hundred random touching pairs; plugin/README.md).
  space_ = dSweepAndPruneSpaceCreate(nullptr, dSAP_AXES_XYZ);
  contacts_ = dJointGroupCreate(0);
  driver_ = std::make_unique<KinematicDriver>(world_);
  driver_->set_mode(driver_mode(options.drive));
  m_.mode = drive_name(options.drive);

  floor_ = std::numeric_limits<double>::infinity();
  for (const Track& track : capture.tracks()) {
    floor_ = std::fmin(floor_, lowest(track));
  }
  floor_ -= capture.skeleton() != nullptr ? k_radius : 0.5 * k_rigid_side;
  set_bits(dCreatePlane(space_, 0, 0, 1, floor_), k_ground, ~0ul);

  scene_low_ = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                floor_ - 1.0};
  scene_high_ = {-scene_low_.x, -scene_low_.y, -std::numeric_limits<double>::infinity()};
  for (const Track& track : capture.tracks()) {
    for (std::size_t i : track.valid_indices()) {
      const Vec3& p = track.position(i);
      scene_low_ = {std::fmin(scene_low_.x, p.x - 3), std::fmin(scene_low_.y, p.y - 3),
                    scene_low_.z};
      scene_high_ = {std::fmax(scene_high_.x, p.x + 3), std::fmax(scene_high_.y, p.y + 3),
                     std::fmax(scene_high_.z, p.z + 3)};
    }
  }

  choose_roles(capture);
  build_character(capture);
  build_props(capture);
  build_chain();
  build_tray();
  m_.kinematic_bodies = 1; // the tray
  for (const Bone& bone : character_->bones()) {
    m_.kinematic_bodies += dBodyIsKinematic(bone.body) ? 1 : 0;
  }
  m_.dynamic_bodies = static_cast<int>(named_.size()) - m_.kinematic_bodies;
  m_.joints = static_cast<int>(chain_balls_.size()) + (hand_lock_ ? 1 : 0);
  m_.props = static_cast<int>(
      std::count_if(props_.begin(), props_.end(), [](const Prop& p) { return !p.stack; }));
}

ReplayScene::~ReplayScene() {
  hand_lock_.reset(); // joints before the world
  character_.reset();
  driver_.reset();
  dJointGroupDestroy(contacts_);
  dSpaceDestroy(space_);
  dWorldDestroy(world_);
  dCloseODE();
}

void ReplayScene::choose_roles(const Capture& capture) {
  const Skeleton* skeleton = capture.skeleton();
  if (skeleton != nullptr) {
    for (const Joint& joint : skeleton->joints) {
      if (joint.parent < 0 && (root_ = capture.find_track(joint.name)) != nullptr) {
        break;
      }
    }
  }
  for (const Track& track : capture.tracks()) {
    if (root_ == nullptr || (skeleton == nullptr && track.valid_count() > root_->valid_count())) {
      root_ = &track;
    }
  }
  m_.root_track = root_->name();

  // The chain needs a track that never comes within its length of the floor. CMU's right
  // wrist twists at up to 89 rad/s (an artefact `odemocap validate` reports) and whips any
  // chain hung from it, so left comes first.
  const auto free_to_hang = [&](const Track& t) {
    return t.valid_count() > 1 && lowest(t) >= floor_ + k_chain_drop + 0.05;
  };
  std::vector<const Track*> candidates;
  for (const char* name : {"LeftWrist", "LeftHand", "lhand", "RightWrist", "RightHand", "rhand"}) {
    if (const Track* t = capture.find_track(name)) {
      candidates.push_back(t);
    }
  }
  if (candidates.empty()) {
    for (const Track& t : capture.tracks()) {
      if (!t.position_only()) { // a marker has no orientation for the lock to hold
        candidates.push_back(&t);
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const Track* a, const Track* b) {
      return path_length(*a) > path_length(*b);
    });
  }
  for (const Track* t : candidates) {
    if (free_to_hang(*t)) {
      hand_ = t;
      break;
    }
  }
  if (hand_ != nullptr) {
    m_.hand_track = hand_->name();
    m_.chain = true;
  } else {
    m_.no_chain_reason = candidates.empty()
                             ? "no track with an orientation to hang a chain from (markers only)"
                             : "no hand track stays " +
                                   std::to_string(static_cast<int>(100 * (k_chain_drop + 0.05))) +
                                   " cm above the floor, where a chain hangs free";
  }
}

void ReplayScene::build_character(const Capture& capture) {
  // One body per bone (capsules along a skeleton's bones, 8 cm boxes for rigid bodies) that
  // never collide with each other, the chain, or the tray.
  CharacterSettings settings;
  settings.radius = capture.skeleton() != nullptr ? k_radius : 0.5 * k_rigid_side;
  settings.shape = capture.skeleton() != nullptr ? BoneShape::Capsule : BoneShape::Box;
  settings.category_bits = k_captured;
  settings.collide_bits = ~(k_chain | k_captured);
  character_ = std::make_unique<Character>(world_, space_, capture, settings);
  BindOptions timing;
  timing.at_end = options_.loop ? TrackEnd::Loop : TrackEnd::Hold;
  timing.time_offset = capture_start(capture);
  if (options_.drive == Drive::Soft) {
    PuppetSettings puppet;
    puppet.timing = timing;
    if (capture.skeleton() == nullptr) {
      puppet.soft_root = FollowSettings{}; // every rigid body is a root
    }
    character_->drive_soft(*driver_, puppet);
  } else if (options_.live) {
    std::vector<std::string> names;
    for (const Bone& bone : character_->bones()) {
      names.push_back(bone.name);
    }
    LiveSources live = options_.live(names);
    before_step_ = std::move(live.before_step);
    character_->drive_sources(*driver_, std::move(live.bones), timing);
  } else {
    character_->drive_kinematic(*driver_, timing);
  }
  for (const Bone& bone : character_->bones()) {
    shapes_.push_back({bone.geom, Role::Captured});
    named_.emplace_back(bone.name, bone.body);
  }
}

dBodyID ReplayScene::dynamic_box(const Vec3& sides, double mass, const Vec3& at, Role role,
                                 const std::string& name) {
  dBodyID body = dBodyCreate(world_);
  dMass m;
  dMassSetBoxTotal(&m, mass, sides.x, sides.y, sides.z);
  dBodySetMass(body, &m);
  dBodySetPosition(body, at.x, at.y, at.z);
  dGeomID geom = dCreateBox(space_, sides.x, sides.y, sides.z);
  dGeomSetBody(geom, body);
  set_bits(geom, role == Role::Chain ? k_chain : k_props, ~0ul);
  shapes_.push_back({geom, role});
  named_.emplace_back(name, body);
  return body;
}

dBodyID ReplayScene::dynamic_ball(double radius, double mass, const Vec3& at, Role role,
                                  const std::string& name) {
  dBodyID body = dBodyCreate(world_);
  dMass m;
  dMassSetSphereTotal(&m, mass, radius);
  dBodySetMass(body, &m);
  dBodySetPosition(body, at.x, at.y, at.z);
  dGeomID geom = dCreateSphere(space_, radius);
  dGeomSetBody(geom, body);
  set_bits(geom, k_props, ~0ul);
  shapes_.push_back({geom, role});
  named_.emplace_back(name, body);
  return body;
}

void ReplayScene::build_props(const Capture& capture) {
  // Props go where the lowest tracks (feet, or every track of a rigid-body capture that has
  // none near the floor) pass later in the capture, so they are kicked on the way.
  std::vector<const Track*> feet;
  for (const Track& track : capture.tracks()) {
    if (lowest(track) < floor_ + 0.15) {
      feet.push_back(&track);
    }
  }
  // For captures without a skeleton (rigid bodies, markers: things held in the air) props
  // stand on static pedestals at the height of the path, so the captured bodies sweep them off.
  const bool on_pedestals = feet.empty() || capture.skeleton() == nullptr;
  if (on_pedestals) {
    feet.clear();
    for (const Track& track : capture.tracks()) {
      if (track.valid_count() > 0) { // a marker column never filled has nowhere to be
        feet.push_back(&track);
      }
    }
  }
  std::vector<Vec3> at_start;
  for (const auto& [name, body] : named_) {
    at_start.push_back(vec3_from_ode(dBodyGetPosition(body)));
  }
  const auto clear_of_everything = [&](const Vec3& p, double room) {
    for (const Vec3& q : at_start) {
      const double d = on_pedestals ? norm(p - q) : horizontal_distance(p, q);
      if (d < room) {
        return false;
      }
    }
    for (const Prop& prop : props_) {
      if (horizontal_distance(p, prop.start) < room) {
        return false;
      }
    }
    return true;
  };
  const double t0 = capture_start(capture);
  const double duration = capture_end(capture) - t0;
  const int candidates = 24;
  int placed = 0;
  for (int k = 0; k < candidates && placed < 10; ++k) {
    const Track& foot = *feet[static_cast<std::size_t>(k) % feet.size()];
    const double t = t0 + duration * (k + 1) / (candidates + 1);
    Vec3 p = foot.sample(t).p;
    const bool ball = placed % 2 == 1;
    const double size = ball ? 0.08 : 0.15;
    const double half_height = ball ? size : 0.5 * size;
    if (!on_pedestals) {
      p.z = floor_ + half_height;
    }
    if (!clear_of_everything(p, on_pedestals ? 0.13 : 0.3)) { // 8 cm bodies, 15 cm props
      continue;
    }
    const double pedestal = p.z - half_height - floor_;
    if (on_pedestals && pedestal > 0.01) {
      dGeomID geom = dCreateBox(space_, 0.2, 0.2, pedestal);
      dGeomSetPosition(geom, p.x, p.y, floor_ + 0.5 * pedestal);
      set_bits(geom, k_ground, ~0ul);
      shapes_.push_back({geom, Role::Pedestal});
    }
    const std::string name = (ball ? "ball" : "box") + std::to_string(placed);
    dBodyID body = ball ? dynamic_ball(size, 0.3, p, Role::Prop, name)
                        : dynamic_box({size, size, size}, 0.5, p, Role::Prop, name);
    props_.push_back({body, p, false});
    ++placed;
  }
  // A stack of four where a foot is at mid-capture.
  for (int k = 0; k < 8; ++k) {
    const Track& foot = *feet[static_cast<std::size_t>(k) % feet.size()];
    Vec3 p = foot.sample(t0 + duration * (0.45 + 0.02 * k)).p;
    if (!clear_of_everything(p, 0.3)) {
      continue;
    }
    for (int level = 0; level < 4; ++level) {
      p.z = floor_ + 0.1 + 0.2 * level;
      dBodyID body =
          dynamic_box({0.2, 0.2, 0.2}, 0.4, p, Role::Stack, "stack" + std::to_string(level));
      props_.push_back({body, p, true});
    }
    break;
  }
}

void ReplayScene::build_chain() {
  if (hand_ == nullptr) {
    return;
  }
  dBodyID hand_body = nullptr;
  for (const auto& [name, body] : named_) {
    if (name == hand_->name()) {
      hand_body = body;
      break;
    }
  }
  const Vec3 top = vec3_from_ode(dBodyGetPosition(hand_body));
  const double spacing = 0.11;
  const double length = 0.09; // capsule, end to end
  const double radius = 0.03; // thick enough to be seen beside the character
  dBodyID previous = hand_body;
  for (int i = 0; i < 4; ++i) {
    const double link_top = top.z - 0.02 - spacing * i;
    const Vec3 centre{top.x, top.y, link_top - 0.5 * length};
    dBodyID link = dBodyCreate(world_);
    dMass m;
    dMassSetCapsuleTotal(&m, 0.1, 3, radius, length - 2.0 * radius);
    dBodySetMass(link, &m);
    dBodySetPosition(link, centre.x, centre.y, centre.z);
    dGeomID geom = dCreateCapsule(space_, radius, length - 2.0 * radius);
    dGeomSetBody(geom, link);
    set_bits(geom, k_chain, k_ground | k_props);
    shapes_.push_back({geom, Role::Chain});
    named_.emplace_back("chain" + std::to_string(i), link);
    const Vec3 anchor{top.x, top.y, link_top + 0.01};
    if (i == 0) {
      QuatLockSettings lock;
      lock.body1 = hand_body;
      lock.body2 = link;
      lock.anchor = anchor;
      hand_lock_ = std::make_unique<QuatLockJoint>(*driver_, lock);
    } else {
      dJointID ball = dJointCreateBall(world_, nullptr);
      dJointAttach(ball, previous, link);
      dJointSetBallAnchor(ball, anchor.x, anchor.y, anchor.z);
      chain_balls_.push_back(ball);
    }
    previous = link;
  }
}

void ReplayScene::build_tray() {
  // A kinematic tray beside the root, level, turning with its heading, 0.5 m above the floor;
  // a light box rides on it by friction alone.
  const Track& root = *root_;
  Track path("tray");
  for (std::size_t i : root.valid_indices()) {
    const Pose p = root.pose(i);
    path.append(root.time(i), {{p.p.x + 1.4, p.p.y, floor_ + 0.5}, heading(p.q)});
  }
  path.make_continuous();
  tray_ = dBodyCreate(world_);
  dGeomID geom = dCreateBox(space_, 0.6, 0.6, 0.04);
  dGeomSetBody(geom, tray_);
  set_bits(geom, k_captured, ~k_chain);
  shapes_.push_back({geom, Role::Tray});
  named_.emplace_back("tray", tray_);
  BindOptions bind;
  bind.at_end = options_.loop ? TrackEnd::Loop : TrackEnd::Hold;
  bind.time_offset = path.start_time();
  const auto id = driver_->bind(tray_, path, bind);
  const Pose start = driver_->target(id, 0.0);
  set_body_pose(tray_, start);
  rider_ = dynamic_box({0.2, 0.2, 0.2}, 0.2, start.p + Vec3{0, 0, 0.02 + 0.1 + 0.001}, Role::Rider,
                       "rider");
  dQuaternion q;
  to_ode(start.q, q);
  dBodySetQuaternion(rider_, q);
  rider_in_tray_ = {rotate(conj(start.q), vec3_from_ode(dBodyGetPosition(rider_)) - start.p),
                    Quat{}};
}

void ReplayScene::near_callback(void* data, dGeomID a, dGeomID b) {
  auto* scene = static_cast<ReplayScene*>(data);
  dBodyID ba = dGeomGetBody(a);
  dBodyID bb = dGeomGetBody(b);
  const auto dynamic = [](dBodyID body) { return body != nullptr && !dBodyIsKinematic(body); };
  if (!dynamic(ba) && !dynamic(bb)) {
    return;
  }
  if (ba != nullptr && bb != nullptr && dAreConnectedExcluding(ba, bb, dJointTypeContact)) {
    return;
  }
  dContact contact[6];
  const int n = dCollide(a, b, 6, &contact[0].geom, sizeof(dContact));
  for (int i = 0; i < n; ++i) {
    contact[i].surface.mode = dContactApprox1;
    contact[i].surface.mu = 0.9;
    dJointID joint = dJointCreateContact(scene->world_, scene->contacts_, &contact[i]);
    dJointAttach(joint, ba, bb);
  }
  scene->contacts_this_step_ += n;
}

bool ReplayScene::switch_drive(Drive drive) {
  if (drive == Drive::Soft || options_.drive == Drive::Soft) {
    return false;
  }
  options_.drive = drive;
  driver_->set_mode(driver_mode(drive));
  m_.mode = drive_name(drive);
  return true;
}

void ReplayScene::step() {
  contacts_this_step_ = 0;
  if (before_step_) { // outside the step time: a live scene waits here for the wall clock
    before_step_(driver_->time());
  }
  const auto start = std::chrono::steady_clock::now();
  driver_->prestep(h_);
  dSpaceCollide(space_, this, &near_callback);
  dWorldQuickStep(world_, h_);
  dJointGroupEmpty(contacts_);
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  step_time_sum_us_ += us;
  m_.step_time_max_us = std::fmax(m_.step_time_max_us, us);
  ++m_.steps;
  measure_step();
}

void ReplayScene::measure_step() {
  m_.contacts_total += contacts_this_step_;
  m_.contacts_max_per_step = std::max(m_.contacts_max_per_step, contacts_this_step_);
  for (const auto& [name, body] : named_) {
    if (!finite_pose(body)) {
      ++m_.nan_values;
    }
  }
  StepFigures figures;
  figures.time = driver_->time();
  const auto& bones = character_->bones();
  for (std::size_t b = 0; b < bones.size(); ++b) {
    const Pose want = character_->target(b, driver_->time());
    const Pose have = body_pose(bones[b].body);
    const double angle = angle_between(have.q, want.q);
    figures.track_error_deg = std::fmax(figures.track_error_deg, angle * 180 / k_pi);
    m_.track_error_max_m = std::fmax(m_.track_error_max_m, norm(have.p - want.p));
    m_.track_error_max_rad = std::fmax(m_.track_error_max_rad, angle);
    track_errors_deg_.push_back(static_cast<float>(angle * 180 / k_pi));
  }
  const auto gap = [&](double g) {
    figures.chain_gap_m = std::fmax(figures.chain_gap_m, g);
    m_.chain_gap_max_m = std::fmax(m_.chain_gap_max_m, g);
    chain_gap_sum2_ += g * g;
    ++chain_gap_count_;
  };
  for (Prop& prop : props_) {
    const Vec3 p = vec3_from_ode(dBodyGetPosition(prop.body));
    if (!prop.left && (p.x < scene_low_.x || p.y < scene_low_.y || p.z < scene_low_.z ||
                       p.x > scene_high_.x || p.y > scene_high_.y || p.z > scene_high_.z)) {
      prop.left = true; // rolled or flew away: stop it so it neither drifts nor costs time
      dBodySetLinearVel(prop.body, 0, 0, 0);
      dBodySetAngularVel(prop.body, 0, 0, 0);
      dBodyDisable(prop.body);
    }
  }
  const Pose tray = body_pose(tray_);
  const Vec3 rider = rotate(conj(tray.q), vec3_from_ode(dBodyGetPosition(rider_)) - tray.p);
  m_.rider_slip_max_m =
      std::fmax(m_.rider_slip_max_m, horizontal_distance(rider, rider_in_tray_.p));
  if (!hand_lock_) {
    series_.push_back(figures);
    return;
  }
  for (dJointID ball : chain_balls_) {
    dVector3 a1;
    dVector3 a2;
    dJointGetBallAnchor(ball, a1);
    dJointGetBallAnchor2(ball, a2);
    gap(norm(vec3_from_ode(a1) - vec3_from_ode(a2)));
  }
  const double lock_gap = hand_lock_->anchor_error();
  figures.lock_gap_m = lock_gap;
  series_.push_back(figures);
  m_.hand_lock_gap_max_m = std::fmax(m_.hand_lock_gap_max_m, lock_gap);
  lock_gap_sum2_ += lock_gap * lock_gap;
  const double angle = hand_lock_->angle_error() * 180.0 / k_pi;
  m_.hand_lock_angle_max_deg = std::fmax(m_.hand_lock_angle_max_deg, angle);
  lock_sum2_ += angle * angle;
}

Metrics ReplayScene::metrics() const {
  Metrics m = m_;
  m.simulated_s = driver_->time();
  if (m.steps > 0) {
    m.step_time_mean_us = step_time_sum_us_ / static_cast<double>(m.steps);
    m.hand_lock_angle_rms_deg = std::sqrt(lock_sum2_ / static_cast<double>(m.steps));
    m.hand_lock_gap_rms_m = std::sqrt(lock_gap_sum2_ / static_cast<double>(m.steps));
  }
  if (chain_gap_count_ > 0) {
    m.chain_gap_rms_m = std::sqrt(chain_gap_sum2_ / static_cast<double>(chain_gap_count_));
  }
  for (std::size_t b = 0; b < character_->bones().size(); ++b) {
    if (const auto id = character_->binding(b)) {
      m.teleports += static_cast<long>(driver_->stats(*id).teleports);
    }
    m.rate_limited += static_cast<long>(character_->rate_limited_steps(b));
  }
  if (!track_errors_deg_.empty()) {
    double sum2 = 0.0;
    for (float e : track_errors_deg_) {
      sum2 += static_cast<double>(e) * e;
    }
    m.track_error_rms_deg = std::sqrt(sum2 / static_cast<double>(track_errors_deg_.size()));
    std::vector<float> sorted = track_errors_deg_;
    const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), middle, sorted.end());
    m.track_error_median_deg = *middle;
  }
  m.props_moved = 0;
  m.props_left = 0;
  m.stack_boxes_moved = 0;
  m.prop_displacement_max_m = 0;
  for (const Prop& prop : props_) {
    const double d = norm(vec3_from_ode(dBodyGetPosition(prop.body)) - prop.start);
    if (prop.left) {
      ++m.props_left;
    } else {
      m.prop_displacement_max_m = std::fmax(m.prop_displacement_max_m, d);
    }
    if (d > 0.05) {
      ++(prop.stack ? m.stack_boxes_moved : m.props_moved);
    }
  }
  const Pose tray = body_pose(tray_);
  const Vec3 rider = rotate(conj(tray.q), vec3_from_ode(dBodyGetPosition(rider_)) - tray.p);
  m.rider_carried = rider.z > 0 && std::fabs(rider.x) < 0.3 && std::fabs(rider.y) < 0.3;
  return m;
}

Vec3 ReplayScene::focus() const {
  return vec3_from_ode(dBodyGetPosition(character_->bones().front().body));
}

} // namespace odemocap::replay
