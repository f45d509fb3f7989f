#pragma once
/// Character: one ODE body and geom per bone of a capture, in one call, with masses from body
/// segment tables; driven kinematically by a KinematicDriver, or as a soft "puppet" whose bones
/// follow the capture through their joints with bounded torques.

#include <odemocap/capture.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/soft_follower.hpp>

#include <ode/ode.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

/// The shape of a bone's geom: it spans the bone from its joint to its child joint.
enum class BoneShape {
  Capsule, ///< radius `radius`, caps included in the bone's length (default)
  Box,     ///< 2 radius x 2 radius across, the bone's length along it
  Sphere,  ///< radius `radius` at the bone's middle
};

/// Per-bone changes to CharacterSettings (unset fields keep the character's value).
struct BoneOverride {
  std::optional<BoneShape> shape;
  std::optional<double> radius; ///< m, > 0
  std::optional<double> mass;   ///< kg, > 0: taken out of total_mass before the table shares it
};

/// How a Character is built; every field has a default, the constructor validates them.
struct CharacterSettings {
  BoneShape shape = BoneShape::Capsule;
  double radius = 0.04; ///< m, > 0
  /// Whole-body mass (kg, > 0), shared out by de Leva (1996) segment fractions (head 6.94%,
  /// trunk 43.46%, upper arm 2.71%, forearm 1.62%, hand 0.61%, thigh 14.16%, shank 4.33%,
  /// foot 1.37% per side), each segment's share split among its bones by geom volume; a
  /// capture without some segments shares their fractions among the others.
  double total_mass = 75.0;
  /// When set (kg/m^3, > 0), every bone's mass is density x its geom's volume instead. Captures
  /// of rigid bodies (no skeleton) always use it: 1000 when unset.
  std::optional<double> density;
  /// Overrides by bone (track) name; a name that is not a bone is an error.
  std::map<std::string, BoneOverride, std::less<>> bones;
  /// ODE collision bits of every bone geom. By default a bone never collides with another bone
  /// of any character (neighbouring geoms overlap at every joint, and captured limbs pass
  /// closer than their radii): give each character its own category bit, and collide bits
  /// without it, to let characters touch each other.
  unsigned long category_bits = 1ul << 30;
  unsigned long collide_bits = ~(1ul << 30);
  /// Capture time (s) of the pose the bodies are built in; empty = the first valid sample.
  std::optional<double> build_time;
};

/// One bone of a character.
struct Bone {
  std::string name; ///< the capture track it follows
  int parent = -1;  ///< index in Character::bones() of the bone it hangs from; -1 for a root
  dBodyID body = nullptr;
  dGeomID geom = nullptr;
  double mass = 0.0; ///< kg
  /// The bone from its joint to its child joint (m, in the joint's frame, i.e. the track's);
  /// zero for a bone without a child.
  Vec3 vector;
  /// The body frame in the track's frame: the geom's centre, the track's orientation.
  Pose offset;
};

/// How the bones of a soft character (a puppet) follow the capture.
struct PuppetSettings {
  /// Largest torque (N m, magnitude) of the servo at each joint between a bone and its parent;
  /// > 0, may be infinite.
  double max_torque = 400.0;
  /// Per-bone max_torque by bone name (the joint above that bone).
  std::map<std::string, double, std::less<>> bone_max_torque;
  /// Fastest a servo turns a bone relative to its parent (rad/s, > 0): where the capture asks
  /// for more (a flip in the data, or a large deviation to recover) the bone turns at this rate
  /// and the step is counted (Character::rate_limited_steps). 40 rad/s is where `odemocap
  /// validate` calls a human joint's rotation a spike; CMU's thumbs flip 175 degrees in a
  /// frame, which at 750 rad/s whipped the thumb 29 mm off its joint.
  double max_joint_speed = 40.0;
  /// The roots (bones without a parent) are driven kinematically by default; with a value
  /// they are soft followers with these limits (its timing fields are ignored: `timing` rules).
  std::optional<FollowSettings> soft_root;
  /// Time offset, playback rate, end and interpolation of every bone (offset must be identity:
  /// each bone has its own).
  BindOptions timing;
};

namespace detail {
class PuppetCore;
class DriverWatch;
} // namespace detail

/// Bodies, geoms (and for a puppet, joints) for every bone of a capture: the tracks of a
/// skeleton's joints (BVH, ASF/AMC, MVNX, Motive CSV bones), or every track with a valid sample of
/// a rigid-body capture (no parents). Bodies are created dynamic, with their masses, placed on the
/// pose at build_time. Owns what it creates: destroy the Character before the world and space (it
/// destroys its joints, geoms and bodies, and unbinds its bones from a driver that still
/// exists). Not copyable or movable (hold it by unique_ptr).
class Character {
public:
  /// Builds the bones in `world`, geoms in `space`. Throws PluginError for a null world or
  /// space, a capture without a track to build a bone from, or invalid settings.
  Character(dWorldID world, dSpaceID space, const Capture& capture,
            const CharacterSettings& settings = {});
  /// The same, sharing the capture instead of copying its bones' tracks: a crowd of characters
  /// built from one loaded capture stores it once (each character keeps it alive). The capture
  /// must not change while a character lives. Throws as above, or for a null capture.
  Character(dWorldID world, dSpaceID space, std::shared_ptr<const Capture> capture,
            const CharacterSettings& settings = {});
  ~Character();
  Character(const Character&) = delete;
  Character& operator=(const Character&) = delete;

  /// Binds every bone to `driver` (same world) as a kinematic body following its track (each
  /// bone with its own offset; `options.offset` must be the identity). Once per character.
  void drive_kinematic(KinematicDriver& driver, const BindOptions& options = {});
  /// Binds every bone to a pose source instead of its track (sources[i] for bones()[i], e.g.
  /// ClipBlend::bone_source for a walk/run blend of the capture's skeleton): kinematic, each
  /// with its own offset, as drive_kinematic; target() asks the sources. Throws PluginError
  /// for a count other than the bones', a null source, or what drive_kinematic refuses. Once
  /// per character.
  void drive_sources(KinematicDriver& driver,
                     std::vector<std::shared_ptr<const PoseSource>> sources,
                     const BindOptions& options = {});
  /// Makes the character a puppet: each bone is joined to its parent by a ball joint at the
  /// child joint and turned toward the captured relative orientation by an angular servo of
  /// bounded torque; roots are kinematic or soft followers. Once per character.
  void drive_soft(KinematicDriver& driver, const PuppetSettings& settings = {});

  const std::vector<Bone>& bones() const { return bones_; }
  /// The bone of this name, or nullptr.
  const Bone* find(std::string_view name) const;
  /// Body and geom of a bone; throw PluginError naming an unknown bone.
  dBodyID body(std::string_view name) const;
  dGeomID geom(std::string_view name) const;
  /// Whether the geom is one of this character's bones.
  bool owns(dGeomID geom) const;
  /// Sum of the bones' masses (kg).
  double mass() const;
  /// Binding id of bone i in the driver (roots of a puppet and every bone of a kinematic
  /// character); empty otherwise.
  std::optional<KinematicDriver::BindingId> binding(std::size_t bone) const;
  /// The joints between each bone and its parent (puppets only; null for roots): ball joint.
  dJointID ball(std::size_t bone) const;
  /// Magnitude (N m) of the torque the servo above bone i applied in the last step (puppets
  /// only; 0 for roots).
  double servo_torque(std::size_t bone) const;
  /// Steps in which the servo above bone i turned the bone relative to its parent at
  /// PuppetSettings::max_joint_speed because reaching the capture needed more: a flip in the
  /// data or a large deviation (puppets only).
  std::size_t rate_limited_steps(std::size_t bone) const;
  /// The pose bone i's body is asked to have at driver time t (s): its track (or source) with
  /// the timing given to drive_kinematic, drive_sources or drive_soft, and its offset; for a
  /// source without a pose then, where the body is.
  Pose target(std::size_t bone, double t) const;

private:
  const Bone& named(std::string_view name, const char* function) const;
  /// Refuses another world's driver, a second drive, or a timing offset other than identity.
  void check_driver(KinematicDriver& driver, const BindOptions& timing, const char* function);

  /// Builds the bones from `capture`; `shared` is the same capture when it is shared, else
  /// null (the bones' tracks are then copied).
  Character(dWorldID world, dSpaceID space, const Capture& capture,
            const CharacterSettings& settings, std::shared_ptr<const Capture> shared);

  /// Puts every body on its pose at driver time 0, at rest, before the driver takes over.
  void place_at_start();
  /// Binds every bone kinematically to its source (when drive_sources gave them) or track.
  void bind_kinematic(KinematicDriver& driver, const BindOptions& options);

  dWorldID world_;
  std::vector<Bone> bones_;
  /// Each bone's track, for target(): a copy, or shared with the capture the character was
  /// built from.
  std::vector<std::shared_ptr<const Track>> tracks_;
  std::vector<std::shared_ptr<const PoseSource>> sources_; ///< drive_sources's, for target()
  std::vector<std::optional<KinematicDriver::BindingId>> bindings_;
  BindOptions timing_;
  bool driven_ = false;
  std::unique_ptr<detail::PuppetCore> puppet_;
  std::unique_ptr<detail::DriverWatch> watch_; ///< a kinematic character's driver, while it lives
  std::vector<SoftFollower> root_followers_;
};

} // namespace odemocap
