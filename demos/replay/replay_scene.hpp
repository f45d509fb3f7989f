#pragma once
// The replay scene: a capture's bodies as an odemocap Character, kinematic (driven by a
// KinematicDriver in one of its modes) or soft (a puppet whose bones follow the capture with
// bounded torques, or soft followers for rigid bodies), with dynamic props around them (boxes and
// balls on the floor, a stack, a chain hanging from a hand, a light box riding on a kinematic
// tray), and the figures the demo reports.

#include "scene.hpp"

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace odemocap::replay {

/// Time (s) of the first and last valid sample over all tracks.
double capture_start(const Capture& capture);
double capture_end(const Capture& capture);

/// Poses from a live source instead of the capture's tracks (the walk/run blend): one pose
/// source per bone, and what to do before each step at driver time t (s).
struct LiveSources {
  std::vector<std::shared_ptr<const PoseSource>> bones;
  std::function<void(double)> before_step;
};

/// What the demo was asked to run.
struct SceneOptions {
  Drive drive = Drive::Geodesic;
  double rate = 240.0; ///< simulation steps per second (independent of the capture rate)
  bool loop = false;   ///< loop the capture instead of holding its last pose
  /// When set, made afresh for each scene from the character's bone names (in its order): a
  /// kinematic drive follows these sources; the capture is still what the scene (character,
  /// floor, props) is built from, and the soft drive follows its tracks.
  std::function<LiveSources(const std::vector<std::string>&)> live;
};

/// Figures of one run; units in the names. A figure the scene cannot measure on a capture is
/// omitted with the reason (`chain` false and `no_chain_reason`), never reported as a number
/// that does not mean what its name says.
struct Metrics {
  std::string mode;       ///< the drive's name
  std::string root_track; ///< the track the tray follows
  std::string hand_track; ///< the track the chain hangs from; empty when there is no chain
  bool chain = false;     ///< the hand lock and chain figures were measured
  std::string no_chain_reason;
  long steps = 0;
  double simulated_s = 0.0;
  int kinematic_bodies = 0;
  int dynamic_bodies = 0;
  int joints = 0;
  long contacts_total = 0;
  int contacts_max_per_step = 0;
  long nan_values = 0;            ///< non-finite body positions or orientations seen
  long teleports = 0;             ///< driver steps over its speed limits (data glitches)
  long rate_limited = 0;          ///< soft: servo steps at the joint speed limit (glitches)
  double track_error_max_m = 0.0; ///< captured bodies vs their targets after each step
  double track_error_max_rad = 0.0;
  double track_error_rms_deg = 0.0;    ///< over bodies and steps
  double track_error_median_deg = 0.0; ///< over bodies and steps: what glitches do not sway
  double hand_lock_gap_max_m = 0.0;    ///< the quaternion lock between hand and first link:
  double hand_lock_gap_rms_m = 0.0;    ///< anchor gap and angle error
  double hand_lock_angle_max_deg = 0.0;
  double hand_lock_angle_rms_deg = 0.0;
  double chain_gap_max_m = 0.0; ///< ball-joint anchor gaps between the links below it
  double chain_gap_rms_m = 0.0;
  int props = 0;
  int props_moved = 0; ///< displaced by more than 5 cm
  int props_left = 0;  ///< left the scene (3 m beyond the capture's extent) and were stopped
  double prop_displacement_max_m = 0.0; ///< of the props (stack included) still in the scene
  int stack_boxes_moved = 0;
  double rider_slip_max_m = 0.0;  ///< the box on the tray, relative to the tray
  bool rider_carried = false;     ///< still on the tray at the end
  double step_time_mean_us = 0.0; ///< prestep + collision + dWorldQuickStep
  double step_time_max_us = 0.0;
};

/// The per-step figures the summary aggregates, for plotting them over time.
struct StepFigures {
  double time = 0.0;            ///< s, after the step
  double lock_gap_m = 0.0;      ///< hand lock anchor gap (0 without a chain)
  double chain_gap_m = 0.0;     ///< largest ball-joint gap of the chain this step
  double track_error_deg = 0.0; ///< largest captured body's angle off its target this step
};

class ReplayScene final : public Scene {
public:
  /// Builds the scene; throws PluginError or MocapError when the capture cannot be used.
  ReplayScene(const Capture& capture, const SceneOptions& options);
  ~ReplayScene() override;
  ReplayScene(const ReplayScene&) = delete;
  ReplayScene& operator=(const ReplayScene&) = delete;

  /// One simulation step of 1/rate seconds, measuring as it goes.
  void step() override;
  /// Switches between the kinematic drives mid-run; false for Soft (or from it), which needs
  /// a new scene.
  bool switch_drive(Drive drive) override;
  Drive drive() const { return options_.drive; }
  double time() const override { return driver_->time(); }
  double step_size() const override { return h_; }
  std::string label() const override { return drive_name(options_.drive); }
  /// The figures so far (averages and end-of-run values computed on the call).
  Metrics metrics() const;
  /// The figures of every step so far.
  const std::vector<StepFigures>& series() const { return series_; }

  const std::vector<Shape>& shapes() const override { return shapes_; }
  /// Named bodies for the trace: every body of the scene.
  const std::vector<std::pair<std::string, dBodyID>>& bodies() const { return named_; }
  /// A point the camera can follow (m, world): the first captured body.
  Vec3 focus() const override;
  double floor_height() const override { return floor_; }

private:
  struct Prop {
    dBodyID body;
    Vec3 start;
    bool stack;
    bool left = false; ///< left the scene and was stopped
  };

  /// Picks the root (the skeleton's root, else the track with the most valid samples) and the
  /// hand the chain hangs from (a wrist by name, else the rigid body that travels furthest),
  /// among tracks that stay high enough above the floor for the chain to hang free.
  void choose_roles(const Capture& capture);
  void build_character(const Capture& capture);
  void build_props(const Capture& capture);
  void build_chain();
  void build_tray();
  dBodyID dynamic_box(const Vec3& sides, double mass, const Vec3& at, Role role,
                      const std::string& name);
  dBodyID dynamic_ball(double radius, double mass, const Vec3& at, Role role,
                       const std::string& name);
  void measure_step();
  static void near_callback(void* data, dGeomID a, dGeomID b);

  SceneOptions options_;
  double h_;
  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  std::unique_ptr<KinematicDriver> driver_;
  std::unique_ptr<Character> character_;
  std::function<void(double)> before_step_; ///< of the live sources, if any
  std::vector<Prop> props_;
  std::vector<dJointID> chain_balls_;
  const Track* root_ = nullptr;
  const Track* hand_ = nullptr;
  Vec3 scene_low_; ///< props beyond these bounds have left the scene (m, world)
  Vec3 scene_high_;
  std::unique_ptr<QuatLockJoint> hand_lock_;
  dBodyID tray_ = nullptr;
  dBodyID rider_ = nullptr;
  Pose rider_in_tray_;
  std::vector<Shape> shapes_;
  std::vector<std::pair<std::string, dBodyID>> named_;
  double floor_ = 0.0;
  int contacts_this_step_ = 0;
  Metrics m_;
  double chain_gap_sum2_ = 0.0;
  long chain_gap_count_ = 0;
  double lock_sum2_ = 0.0;
  double lock_gap_sum2_ = 0.0;
  std::vector<float> track_errors_deg_; ///< every body's angle off its target, every step
  std::vector<StepFigures> series_;    ///< one entry per step
  double step_time_sum_us_ = 0.0;
};

} // namespace odemocap::replay
