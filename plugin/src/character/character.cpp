#include <odemocap/character.hpp>
#include <odemocap/ode_math.hpp>

#include "drive/controller.hpp"
#include "describe.hpp"
#include "character/puppet.hpp"
#include "character/segment_table.hpp"
#include "drive/timed_track.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace odemocap {
namespace detail {

/// Knows whether a kinematic character's driver still exists (a driver tells its controllers
/// when it goes), so the character unbinds its bones only from a living one.
class DriverWatch final : public Controller {
public:
  explicit DriverWatch(KinematicDriver& driver) : Controller(driver) {}
  void update(double, double) override {}
};

} // namespace detail
namespace {

constexpr double k_pi = 3.14159265358979323846;
constexpr double k_rigid_body_density = 1000.0; // kg/m^3, water: captures without a skeleton

[[noreturn]] void fail(const std::string& what) {
  throw PluginError("Character: " + what);
}

bool positive_finite(double v) {
  return v > 0.0 && std::isfinite(v);
}

void check(const CharacterSettings& s) {
  if (!positive_finite(s.radius)) {
    fail("radius must be finite and positive, got " + detail::describe(s.radius));
  }
  if (!positive_finite(s.total_mass)) {
    fail("total_mass must be finite and positive, got " + detail::describe(s.total_mass));
  }
  if (s.density && !positive_finite(*s.density)) {
    fail("density must be finite and positive, got " + detail::describe(*s.density));
  }
  if (s.build_time && !std::isfinite(*s.build_time)) {
    fail("build_time must be finite, got " + detail::describe(*s.build_time));
  }
  for (const auto& [name, o] : s.bones) {
    if ((o.radius && !positive_finite(*o.radius)) || (o.mass && !positive_finite(*o.mass))) {
      fail("bone '" + name + "': radius and mass must be finite and positive");
    }
  }
}

/// What a bone is before ODE objects exist.
struct BonePlan {
  const Track* track = nullptr;
  int joint = -1; ///< skeleton joint, -1 without a skeleton
  int parent = -1;
  Vec3 vector;
  std::string child; ///< the joint the bone ends at; empty if none
  BoneShape shape = BoneShape::Capsule;
  double radius = 0.0;
  double volume = 0.0;
  double mass = 0.0;
  bool fixed_mass = false;
};

/// The bones: a skeleton's joints with a track (End Sites excluded), parents being the nearest
/// ancestors with a bone; or every track of a rigid-body capture.
std::vector<BonePlan> plan_bones(const Capture& capture) {
  std::vector<BonePlan> plan;
  const Skeleton* skeleton = capture.skeleton();
  if (skeleton == nullptr) {
    for (const Track& track : capture.tracks()) {
      if (track.valid_count() > 0) {
        BonePlan bone;
        bone.track = &track;
        plan.push_back(bone);
      }
    }
    return plan;
  }
  std::vector<int> bone_of(skeleton->joints.size(), -1);
  for (std::size_t j = 0; j < skeleton->joints.size(); ++j) {
    const Joint& joint = skeleton->joints[j];
    const Track* track = capture.find_track(joint.name);
    if (joint.end_site || track == nullptr || track->valid_count() == 0) {
      continue;
    }
    BonePlan bone;
    bone.track = track;
    bone.joint = static_cast<int>(j);
    for (int a = joint.parent; a >= 0; a = skeleton->joints[static_cast<std::size_t>(a)].parent) {
      if (bone_of[static_cast<std::size_t>(a)] >= 0) {
        bone.parent = bone_of[static_cast<std::size_t>(a)];
        break;
      }
    }
    bone_of[j] = static_cast<int>(plan.size());
    plan.push_back(bone);
  }
  return plan;
}

/// From a joint to its first child joint at a distance: measured between the two tracks when
/// the child has one (whatever frame convention the format has), else the skeleton's offset
/// (a BVH End Site, in the joint's frame). Sets the bone's vector and child.
void measure_bone(BonePlan& bone, const Capture& capture, double t) {
  const int joint = bone.joint;
  const Skeleton& skeleton = *capture.skeleton();
  const Pose at =
      capture.find_track(skeleton.joints[static_cast<std::size_t>(joint)].name)->sample(t);
  for (const Joint& child : skeleton.joints) {
    if (child.parent != joint) {
      continue;
    }
    const Track* track = capture.find_track(child.name);
    const Vec3 v = track != nullptr && track->valid_count() > 0
                       ? rotate(conj(at.q), track->sample(t).p - at.p)
                       : child.offset * capture.info().length_scale;
    if (norm(v) > 1e-9) {
      bone.vector = v;
      bone.child = child.name;
      return;
    }
  }
}

double volume(BoneShape shape, double r, double length) {
  switch (shape) {
  case BoneShape::Capsule:
    return k_pi * r * r * (std::fmax(length, 2 * r) - 2 * r) + 4.0 / 3.0 * k_pi * r * r * r;
  case BoneShape::Box: return 4 * r * r * std::fmax(length, 2 * r);
  case BoneShape::Sphere: return 4.0 / 3.0 * k_pi * r * r * r;
  }
  return 0.0;
}

detail::Segment segment_of(const BonePlan& bone) {
  return detail::segment_of(bone.track->name(), bone.child);
}

/// Shares total_mass out by segment fractions (de Leva 1996) and volume within a segment,
/// after the bones whose mass is given.
void share_masses(std::vector<BonePlan>& plan, const Capture& capture, const CharacterSettings& s) {
  if (s.density || capture.skeleton() == nullptr) {
    const double density = s.density.value_or(k_rigid_body_density);
    for (BonePlan& bone : plan) {
      if (!bone.fixed_mass) {
        bone.mass = density * bone.volume;
      }
    }
    return;
  }
  double remaining = s.total_mass;
  double volume_of[detail::k_segment_count] = {};
  for (const BonePlan& bone : plan) {
    if (bone.fixed_mass) {
      remaining -= bone.mass;
    } else {
      volume_of[static_cast<int>(segment_of(bone))] += bone.volume;
    }
  }
  double present = 0.0;
  for (int k = 0; k < detail::k_segment_count; ++k) {
    if (volume_of[k] > 0.0) {
      present += detail::segment_fraction(static_cast<detail::Segment>(k));
    }
  }
  if (present > 0.0 && !(remaining > 0.0)) {
    fail("the bones' mass overrides add up to total_mass (" + detail::describe(s.total_mass) +
         " kg) or more, leaving nothing for the other bones");
  }
  for (BonePlan& bone : plan) {
    if (!bone.fixed_mass) {
      const detail::Segment segment = segment_of(bone);
      const double share = remaining * detail::segment_fraction(segment) / present;
      bone.mass = share * bone.volume / volume_of[static_cast<int>(segment)];
    }
  }
}

dGeomID make_geom(dSpaceID space, BoneShape shape, double r, double length) {
  switch (shape) {
  case BoneShape::Capsule:
    return length > 2 * r ? dCreateCapsule(space, r, length - 2 * r) : dCreateSphere(space, r);
  case BoneShape::Box: return dCreateBox(space, 2 * r, 2 * r, std::fmax(length, 2 * r));
  case BoneShape::Sphere: return dCreateSphere(space, r);
  }
  return nullptr;
}

/// Mass of the geom's shape along z, turned by `along` (the bone's direction).
dMass mass_of(BoneShape shape, double mass, double r, double length, const Quat& along) {
  dMass m;
  if (shape == BoneShape::Sphere || (shape == BoneShape::Capsule && length <= 2 * r)) {
    dMassSetSphereTotal(&m, mass, r);
    return m;
  }
  if (shape == BoneShape::Capsule) {
    dMassSetCapsuleTotal(&m, mass, 3, r, length - 2 * r);
  } else {
    dMassSetBoxTotal(&m, mass, 2 * r, 2 * r, std::fmax(length, 2 * r));
  }
  dMatrix3 rotation;
  dQuaternion q;
  to_ode(along, q);
  dQtoR(q, rotation);
  dMassRotate(&m, rotation);
  return m;
}

double capture_start(const std::vector<BonePlan>& plan) {
  double t = std::numeric_limits<double>::infinity();
  for (const BonePlan& bone : plan) {
    t = std::fmin(t, bone.track->time(bone.track->valid_indices().front()));
  }
  return t;
}

const Capture& shared_capture(const std::shared_ptr<const Capture>& capture) {
  if (capture == nullptr) {
    fail("the capture is null");
  }
  return *capture;
}

} // namespace

Character::Character(dWorldID world, dSpaceID space, const Capture& capture,
                     const CharacterSettings& settings)
    : Character(world, space, capture, settings, nullptr) {}

Character::Character(dWorldID world, dSpaceID space, std::shared_ptr<const Capture> capture,
                     const CharacterSettings& settings)
    : Character(world, space, shared_capture(capture), settings, capture) {}

Character::Character(dWorldID world, dSpaceID space, const Capture& capture,
                     const CharacterSettings& settings, std::shared_ptr<const Capture> shared)
    : world_(world) {
  if (world == nullptr || space == nullptr) {
    fail("world and space must not be null");
  }
  check(settings);
  std::vector<BonePlan> plan = plan_bones(capture);
  if (plan.empty()) {
    fail("the capture has no track with a valid sample to build a bone from");
  }
  for (const auto& entry : settings.bones) {
    const bool known = std::any_of(plan.begin(), plan.end(), [&](const BonePlan& b) {
      return b.track->name() == entry.first;
    });
    if (!known) {
      fail("settings.bones names '" + entry.first + "', which is not a bone of the capture");
    }
  }
  const double t = settings.build_time.value_or(capture_start(plan));
  for (BonePlan& bone : plan) {
    if (bone.joint >= 0) {
      measure_bone(bone, capture, t);
    }
    const auto o = settings.bones.find(bone.track->name());
    const BoneOverride none;
    const BoneOverride& over = o != settings.bones.end() ? o->second : none;
    bone.shape = over.shape.value_or(settings.shape);
    bone.radius = over.radius.value_or(settings.radius);
    bone.volume = volume(bone.shape, bone.radius, norm(bone.vector));
    bone.fixed_mass = over.mass.has_value();
    bone.mass = over.mass.value_or(0.0);
  }
  share_masses(plan, capture, settings);

  for (const BonePlan& p : plan) {
    Bone bone;
    bone.name = p.track->name();
    bone.parent = p.parent;
    bone.mass = p.mass;
    bone.vector = p.vector;
    bone.offset = {0.5 * p.vector, Quat{}};
    const double length = norm(p.vector);
    const Quat along = length > 0.0 ? from_to({0, 0, 1}, p.vector) : Quat{};
    bone.body = dBodyCreate(world);
    const dMass m = mass_of(p.shape, p.mass, p.radius, length, along);
    dBodySetMass(bone.body, &m);
    set_body_pose(bone.body, detail::compose(p.track->sample(t), bone.offset));
    bone.geom = make_geom(space, p.shape, p.radius, length);
    dGeomSetBody(bone.geom, bone.body);
    dQuaternion q;
    to_ode(along, q);
    dGeomSetOffsetQuaternion(bone.geom, q);
    dGeomSetCategoryBits(bone.geom, settings.category_bits);
    dGeomSetCollideBits(bone.geom, settings.collide_bits);
    bones_.push_back(bone);
    tracks_.push_back(shared ? std::shared_ptr<const Track>(shared, p.track)
                             : std::make_shared<const Track>(*p.track));
  }
  bindings_.resize(bones_.size());
}

Character::~Character() {
  // The driver must not drive bodies destroyed below.
  KinematicDriver* driver = puppet_ ? puppet_->driver() : watch_ ? watch_->driver() : nullptr;
  for (const auto& id : bindings_) {
    if (driver != nullptr && id) {
      driver->unbind(*id);
    }
  }
  root_followers_.clear();
  puppet_.reset();
  watch_.reset();
  for (Bone& bone : bones_) {
    dGeomDestroy(bone.geom);
    dBodyDestroy(bone.body);
  }
}

const Bone* Character::find(std::string_view name) const {
  const auto it =
      std::find_if(bones_.begin(), bones_.end(), [&](const Bone& b) { return b.name == name; });
  return it != bones_.end() ? &*it : nullptr;
}

const Bone& Character::named(std::string_view name, const char* function) const {
  const Bone* bone = find(name);
  if (bone == nullptr) {
    throw PluginError(std::string("Character::") + function + ": no bone '" + std::string(name) +
                      "'");
  }
  return *bone;
}

dBodyID Character::body(std::string_view name) const {
  return named(name, "body").body;
}

dGeomID Character::geom(std::string_view name) const {
  return named(name, "geom").geom;
}

bool Character::owns(dGeomID geom) const {
  return std::any_of(bones_.begin(), bones_.end(), [&](const Bone& b) { return b.geom == geom; });
}

double Character::mass() const {
  double sum = 0.0;
  for (const Bone& b : bones_) {
    sum += b.mass;
  }
  return sum;
}

std::optional<KinematicDriver::BindingId> Character::binding(std::size_t bone) const {
  return bone < bindings_.size() ? bindings_[bone] : std::nullopt;
}

dJointID Character::ball(std::size_t bone) const {
  return puppet_ ? puppet_->ball(bone) : nullptr;
}

std::size_t Character::rate_limited_steps(std::size_t bone) const {
  return puppet_ ? puppet_->rate_limited_steps(bone) : 0;
}

double Character::servo_torque(std::size_t bone) const {
  return puppet_ ? puppet_->servo_torque(bone) : 0.0;
}

Pose Character::target(std::size_t bone, double t) const {
  if (bone >= bones_.size()) {
    throw PluginError("Character::target: no bone " + std::to_string(bone) + " (there are " +
                      std::to_string(bones_.size()) + ")");
  }
  if (!sources_.empty()) {
    Pose pose;
    if (!sources_[bone]->pose(detail::track_time(timing_, t), pose)) {
      return body_pose(bones_[bone].body);
    }
    return detail::compose(pose, bones_[bone].offset);
  }
  return detail::compose(detail::sample_timed(*tracks_[bone], timing_, t), bones_[bone].offset);
}

void Character::check_driver(KinematicDriver& driver, const BindOptions& timing,
                             const char* function) {
  detail::check_pose(timing.offset, (std::string("Character::") + function).c_str());
  if (!detail::is_identity(timing.offset)) {
    throw PluginError(std::string("Character::") + function +
                      ": the timing's offset must be the identity (each bone has its own)");
  }
  if (driver.world() != world_) {
    throw PluginError(std::string("Character::") + function +
                      ": the driver moves another world than the character's");
  }
  if (driven_) {
    throw PluginError(std::string("Character::") + function +
                      ": the character is already driven (once per character)");
  }
}

void Character::place_at_start() {
  for (std::size_t i = 0; i < bones_.size(); ++i) {
    set_body_pose(bones_[i].body, target(i, 0.0));
    dBodySetLinearVel(bones_[i].body, 0, 0, 0);
    dBodySetAngularVel(bones_[i].body, 0, 0, 0);
  }
}

void Character::drive_kinematic(KinematicDriver& driver, const BindOptions& options) {
  check_driver(driver, options, "drive_kinematic");
  bind_kinematic(driver, options);
}

void Character::drive_sources(KinematicDriver& driver,
                              std::vector<std::shared_ptr<const PoseSource>> sources,
                              const BindOptions& options) {
  check_driver(driver, options, "drive_sources");
  if (sources.size() != bones_.size()) {
    throw PluginError("Character::drive_sources: one source per bone is needed (" +
                      std::to_string(bones_.size()) + "), got " + std::to_string(sources.size()));
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i]) {
      throw PluginError("Character::drive_sources: the source of bone '" + bones_[i].name +
                        "' is null");
    }
  }
  sources_ = std::move(sources);
  bind_kinematic(driver, options);
}

void Character::bind_kinematic(KinematicDriver& driver, const BindOptions& options) {
  timing_ = options;
  place_at_start();
  for (std::size_t i = 0; i < bones_.size(); ++i) {
    BindOptions bone = options;
    bone.offset = bones_[i].offset;
    bindings_[i] = sources_.empty() ? driver.bind(bones_[i].body, tracks_[i], bone)
                                    : driver.bind(bones_[i].body, sources_[i], bone);
  }
  watch_ = std::make_unique<detail::DriverWatch>(driver);
  driven_ = true;
}

void Character::drive_soft(KinematicDriver& driver, const PuppetSettings& settings) {
  const BindOptions& timing = settings.timing;
  check_driver(driver, timing, "drive_soft");
  for (const auto& [name, torque] : settings.bone_max_torque) {
    named(name, "drive_soft");
    if (!(torque > 0.0)) {
      throw PluginError("Character::drive_soft: bone_max_torque of '" + name +
                        "' must be positive, got " + detail::describe(torque));
    }
  }
  if (!(settings.max_joint_speed > 0.0) || !std::isfinite(settings.max_joint_speed)) {
    throw PluginError("Character::drive_soft: max_joint_speed must be finite and positive, got " +
                      detail::describe(settings.max_joint_speed));
  }
  if (!(settings.max_torque > 0.0)) {
    throw PluginError("Character::drive_soft: max_torque must be positive (infinity allowed), "
                      "got " +
                      detail::describe(settings.max_torque));
  }
  timing_ = timing;
  place_at_start();
  puppet_ = std::make_unique<detail::PuppetCore>(driver, *this, settings, tracks_);
  for (std::size_t i = 0; i < bones_.size(); ++i) {
    if (bones_[i].parent >= 0) {
      continue;
    }
    BindOptions root = timing;
    root.offset = bones_[i].offset;
    if (!settings.soft_root) {
      bindings_[i] = driver.bind(bones_[i].body, tracks_[i], root);
      continue;
    }
    FollowSettings follow = *settings.soft_root;
    follow.offset = root.offset;
    follow.time_offset = root.time_offset;
    follow.playback_rate = root.playback_rate;
    follow.at_end = root.at_end;
    follow.interp = root.interp;
    root_followers_.emplace_back(driver, bones_[i].body, *tracks_[i], follow);
  }
  driven_ = true;
}

} // namespace odemocap
