#pragma once
/// Walk/run blending: looping clips of one skeleton (a walk, a run, ...) played in step and
/// blended by speed, with the feet planted. A LoopClip is one gait cycle cut from a capture
/// between two footfalls of the same foot; a ClipBlend plays several of them with unified cycle
/// timing (each segment between footfalls stretched so the clips' footfalls coincide), blends
/// every bone's local rotation and position, and places the character by blending the target
/// bone's ground frame after moving each clip's origin onto it. Its bones are pose sources.

#include <odemocap/capture.hpp>
#include <odemocap/footfall.hpp>
#include <odemocap/pose_source.hpp>

#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace odemocap {

/// A frame on the ground: a heading (yaw, rad, about the up axis) and a position along the
/// ground (the up component is zero). The ground frame of a pose keeps its heading and its
/// position projected on the ground.
struct GroundFrame {
  double yaw = 0.0;
  Vec3 p;
};

/// How a LoopClip is cut; every field has a default, the constructor validates them.
struct LoopClipOptions {
  /// Foot tracks whose footfalls split the cycle, the cycle running from a footfall of the
  /// first to its next. Empty: the capture's two foot tracks named "foot" (LeftFoot,
  /// RightFoot), in track order.
  std::vector<std::string> feet;
  /// User override of the detection: capture times (s) of the cycle's footfalls, first to
  /// last, the last being the first foot's next footfall (so at least 2, increasing). Each
  /// lies on a frame (rounded to the nearest).
  std::vector<double> footfalls;
  /// Data before this capture time (s) is ignored (CMU's BVH conversions start with a
  /// rest-pose frame that is not part of the motion).
  double start_time = -std::numeric_limits<double>::infinity();
  /// Which complete cycle after start_time to take (0: the first).
  std::size_t cycle = 0;
  /// Stance detection (metres_per_unit is taken from the capture).
  FootfallOptions footfall;
  /// A stance starting less than this (s) after the same foot's previous stance ended is the
  /// same stance, broken by noise: not a footfall.
  double min_swing = 0.15;
  /// The bone whose ground frame carries the clip (and places the blended character); empty:
  /// the skeleton's root.
  std::string target_bone;
};

/// One gait cycle of a skeleton capture as a seamless loop, in the capture's units and frame.
///
/// Cut at frames a (a footfall of the first foot) and c (its next footfall); frame a + N is
/// frame a of the next cycle moved by the cycle's travel. Made seamless by spreading the
/// mismatch between frames c and a linearly over the cycle: each bone's local rotation
/// (relative to its parent; a root's relative to the target bone's ground frame) and position,
/// and
/// the ground frame's heading, so the loop walks straight. Within the first cycle, poses
/// therefore differ from the capture's by up to that mismatch, reached at the cycle's end.
class LoopClip {
public:
  /// Cuts the clip. Throws MocapError for a capture without a skeleton or with gaps in the
  /// cycle, unknown feet or target bone, invalid options, override footfalls outside the data
  /// or not alternating, or too few footfalls for the requested cycle.
  LoopClip(const Capture& capture, const LoopClipOptions& options = {});

  const std::string& name() const { return name_; }
  /// Bones: the skeleton's joints that have a track, parents first; parent -1 for a root.
  const std::vector<std::string>& bones() const { return bones_; }
  const std::vector<int>& parents() const { return parents_; }
  /// Index of a bone by name, or -1.
  int find(const std::string& bone) const;
  int target_bone() const { return target_; }

  std::size_t frame_count() const { return frames_; } ///< frames in one cycle (N)
  double frame_time() const { return dt_; }           ///< s
  double duration() const { return dt_ * static_cast<double>(frames_); } ///< s, one cycle
  /// Footfall times within the cycle (s), the first 0; and which foot (index into feet()).
  const std::vector<double>& events() const { return events_; }
  const std::vector<std::size_t>& event_feet() const { return event_feet_; }
  const std::vector<std::string>& feet() const { return feet_; }
  /// Capture times (s) of the cycle's first frame and of its end (the next footfall).
  double capture_start() const { return capture_start_; }
  double capture_end() const { return capture_end_; }
  /// Ground travel per cycle (capture units, capture frame) and speed (m/s).
  const Vec3& travel() const { return travel_world_; }
  double speed() const { return speed_; }
  Axis up_axis() const { return up_; }
  double metres_per_unit() const { return metres_per_unit_; }
  /// The seam's mismatch that was spread over the cycle: largest local rotation (rad, over
  /// bones) and target-bone position (capture units) difference between frames c and a.
  double seam_rotation() const { return seam_rotation_; }
  double seam_position() const { return seam_position_; }

  /// The clip at cycle time s (s, in [0, duration()]): every bone's local pose (`local`,
  /// resized to the bone count; roots relative to the target bone's ground frame, others to
  /// their parent)
  /// and the ground frame within the cycle, relative to the cycle's first ground frame.
  void sample(double s, std::vector<Pose>& local, GroundFrame& ground) const;
  /// The ground frame of the cycle's first frame (capture frame).
  const GroundFrame& start_ground() const { return start_ground_; }
  /// World poses of every bone (forward kinematics, `out` resized) from the target bone's
  /// ground frame `g` and every bone's local pose as sample() gives them.
  void forward(const GroundFrame& g, const std::vector<Pose>& local, std::vector<Pose>& out) const;
  /// World poses (capture units and frame) of every bone at clip time t (s, t >= 0): the
  /// loop played from its first frame, each cycle moved on by travel().
  void poses(double t, std::vector<Pose>& out) const;

private:
  friend class ClipBlend;
  std::string name_;
  std::vector<std::string> bones_;
  std::vector<int> parents_;
  std::vector<std::string> feet_;
  int target_ = 0;
  std::size_t frames_ = 0;
  double dt_ = 0.0;
  std::vector<double> events_;
  std::vector<std::size_t> event_feet_;
  double capture_start_ = 0.0;
  double capture_end_ = 0.0;
  Axis up_ = Axis::Z;
  Vec3 up_vector_;
  double metres_per_unit_ = 1.0;
  double speed_ = 0.0;
  double seam_rotation_ = 0.0;
  double seam_position_ = 0.0;
  GroundFrame start_ground_;
  Vec3 travel_local_; ///< per cycle, in the first ground frame
  Vec3 travel_world_;
  /// frames_ + 1 rows (the last is the first again) of bone-count local poses; ground frames
  /// relative to the first.
  std::vector<Pose> local_;
  std::vector<GroundFrame> ground_;

  /// The ground frame within the cycle at cycle time s (relative to the first).
  GroundFrame ground_at(double s) const;
};

/// Ground frame composition and inverse (heading about `up`).
GroundFrame compose(const GroundFrame& a, const GroundFrame& b, const Vec3& up);
GroundFrame inverse(const GroundFrame& a, const Vec3& up);
/// The ground frame of a pose: its heading about `up` (the twist of its orientation) and its
/// position with the up component removed.
GroundFrame ground_of(const Pose& pose, const Vec3& up);
/// The pose of ground frame `g` followed by the local pose `local`.
Pose place(const GroundFrame& g, const Pose& local, const Vec3& up);

/// Plays LoopClips of one skeleton in step and blends them. Clips are given slowest first; the
/// blend parameter b runs from 0 (the first clip) to clips - 1 (the last): between clips i and
/// i + 1 the weight of clip i + 1 is b - i.
///
/// Unified cycle timing: the clips' footfalls split each cycle into the same segments (same
/// count, same feet in the same order). Segment k lasts L_k = sum of w_x L_x,k blended seconds;
/// its fraction advances by dt / L_k, and each clip plays that fraction of its own segment k,
/// at rate L_x,k / L_k: the clips' footfalls coincide whatever their place in the cycle. b may
/// change between any two steps.
///
/// Placement: each clip has an origin (a ground frame) putting its cycle in the world; after
/// each step the target bone's ground frames W_x of the clips are blended into W_b (headings
/// and positions weighted), and every origin is moved by Delta = W_x^-1 W_b so the clips agree
/// in the world. The character's target bone is W_b followed by the blended local pose.
///
/// Pose sources: bone_source(blend, i) gives bone i's world pose at a time; the blend runs
/// forward as the driver asks for later times (each new time is one step at the current b) and
/// remembers the last four frames. Not thread-safe: use from the thread that steps the world.
class ClipBlend {
public:
  /// Throws MocapError for no clips, clips of different bones, target bones, units or up
  /// axes, or footfalls that do not match (count and feet). The blend starts at time 0 in the
  /// first footfall with every clip's first ground frame on `start` (default: the first
  /// clip's own, so with b = 0 it replays the first clip in its capture's place).
  explicit ClipBlend(std::vector<LoopClip> clips);
  ClipBlend(std::vector<LoopClip> clips, const GroundFrame& start);

  const std::vector<LoopClip>& clips() const { return clips_; }
  /// Sets b in [0, clips - 1] for the time still to be played (before the first advance, the
  /// frame at time 0 too); throws MocapError outside.
  void set_weight(double b);
  double weight() const { return b_; }
  /// b for a speed (m/s) between the slowest and fastest clip's, linear between neighbours;
  /// throws MocapError outside that range.
  double weight_for_speed(double speed) const;
  void set_speed(double speed) { set_weight(weight_for_speed(speed)); }

  /// Plays on to time t (s, after the last frame) and returns the frame's world poses (capture
  /// units and frame), one per bone. Throws MocapError for a time not after the last frame.
  const std::vector<Pose>& advance_to(double t);
  /// The latest frame's time (s) and world poses.
  double time() const { return frames_[latest_].time; }
  const std::vector<Pose>& poses() const { return frames_[latest_].poses; }
  /// Each clip's place in its cycle at the latest frame (s of its own time).
  double clip_time(std::size_t clip) const { return clip_times_[clip]; }

  /// Bone i's world pose at time t: played forward to t when later than the latest frame,
  /// otherwise interpolated between remembered frames; false before the oldest remembered.
  bool pose(std::size_t bone, double t, Pose& out);
  /// A PoseSource for bone i (positions scaled to metres by the clips' metres_per_unit when
  /// `metres` is true); it keeps the blend alive.
  static std::shared_ptr<const PoseSource> bone_source(const std::shared_ptr<ClipBlend>& blend,
                                                       std::size_t bone, bool metres = true);

private:
  struct Frame {
    double time = -std::numeric_limits<double>::infinity();
    std::vector<Pose> poses;
  };
  void step(double dt);
  void compute_frame(Frame& frame);

  std::vector<LoopClip> clips_;
  Vec3 up_;
  std::size_t bones_ = 0;
  std::size_t segments_ = 0;
  double b_ = 0.0;
  std::size_t segment_ = 0;
  double fraction_ = 0.0;
  std::vector<GroundFrame> origins_; ///< per clip: clip ground -> world
  std::vector<std::size_t> cycles_;  ///< per clip: completed cycles
  std::vector<double> clip_times_;   ///< per clip: time within its cycle
  GroundFrame ground_;               ///< blended target ground frame (world)
  std::vector<Frame> frames_;        ///< ring of remembered frames
  std::size_t latest_ = 0;
  bool started_ = false; ///< a frame after time 0 has been played
  std::vector<std::vector<Pose>> scratch_local_;
  std::vector<GroundFrame> scratch_ground_;
};

} // namespace odemocap
