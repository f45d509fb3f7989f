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
#include <optional>
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
  /// first to its next. Empty: the capture's two tracks named "foot" (LeftFoot, RightFoot),
  /// else "ankle" (LeftAnkle, RightAnkle), else "heel", toes aside, in track order.
  std::vector<std::string> feet;
  /// User override of the detection: capture times (s) of the cycle's footfalls, first to
  /// last, the last being the first foot's next footfall (so at least 2, increasing). Each
  /// lies on a frame (rounded to the nearest).
  std::vector<double> footfalls;
  /// Data before this capture time (s) is ignored.
  double start_time = -std::numeric_limits<double>::infinity();
  /// Ignore a first frame that is a rest pose rather than part of the motion (CMU's BVH
  /// conversions open with one): the first frame counts as one when the median turn of the
  /// tracks from it to the second exceeds 10 degrees and 5 times the median turn from the second
  /// to the third. `rest_pose_skipped()` says whether it was.
  bool skip_rest_pose = true;
  /// Which complete cycle after start_time to take (0: the first). Empty: the cycle that loops
  /// most cleanly, the one whose seam makes the stance feet slide least (stance_drift(), each
  /// leg-frame out of its leg's reach counting as 1 mm more); `cycle()` says which was taken.
  std::optional<std::size_t> cycle;
  /// Stance detection (metres_per_unit is taken from the capture).
  FootfallOptions footfall;
  /// A stance starting less than this (s) after the same foot's previous stance ended is the
  /// same stance, broken by noise: not a footfall.
  double min_swing = 0.15;
  /// The bone whose ground frame carries the clip (and places the blended character); empty:
  /// the skeleton's root.
  std::string target_bone;
};

/// The mismatch of one bone across a loop's seam: between the cycle's last frame (the next
/// footfall) and its first, in the bone's local pose.
struct BoneSeam {
  double rotation = 0.0; ///< rad
  double position = 0.0; ///< capture units
};

/// One gait cycle of a skeleton capture as a seamless loop, in the capture's units and frame.
///
/// Cut at frames a (a footfall of the first foot) and c (its next footfall); frame a + N is
/// frame a of the next cycle moved by the cycle's travel. Made seamless by spreading the
/// mismatch between frames c and a over the cycle, each bone's local rotation (relative to its
/// parent; a root's relative to the target bone's ground frame) and position, and the ground
/// frame's heading, so the loop walks straight. A stance foot must not move for it: each leg
/// (thigh, shin and foot, the foot's parent and grandparent, with the bones below the foot and
/// above the thigh up to the bones the legs share) takes its bones' mismatch during its own
/// swing only (a smooth ramp over each swing, from the foot's and its descendants' stances by
/// detect_stances), and the leg is then solved by two-bone inverse kinematics so that its ankle
/// and foot follow the capture's, offset by the part of their own mismatch taken so far: a
/// planted foot moves exactly as in the capture. The other bones take theirs linearly over the
/// cycle. Within the first cycle, poses differ from the capture's by up to the mismatch, reached
/// at the cycle's end.
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
  /// The seam per bone (in bones() order).
  const std::vector<BoneSeam>& seams() const { return seams_; }
  /// How much the seam's spreading makes a stance foot slide: the most by which a foot bone or a
  /// bone below it gets further (horizontally) from where it stood at the stance's start than in
  /// the capture, over the cycle's stances (capture units). About 0 where each leg was solved;
  /// a leg without the chain the solver needs (the foot's parent and grandparent being bones)
  /// drifts by its share of the mismatch.
  double stance_drift() const { return stance_drift_; }
  /// What a user should know about the cut, one sentence each: a leg that could not be solved,
  /// frames where an ankle was out of its leg's reach, a stance drift above 5 mm. Empty when
  /// the cut is clean.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Whether a rest-pose first frame was skipped (LoopClipOptions::skip_rest_pose).
  bool rest_pose_skipped() const { return rest_pose_skipped_; }
  /// Which complete cycle of the capture was cut (0: the first after start_time), and how many
  /// there were (both 0 for footfalls given by the user).
  std::size_t cycle() const { return cycle_; }
  std::size_t cycles() const { return cycles_; }
  /// Leg-frames of the cycle where a standing ankle fell short of its place by over 1 mm, out
  /// of its leg's reach.
  std::size_t unreached() const { return unreached_; }

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
  std::vector<BoneSeam> seams_;
  double stance_drift_ = 0.0;
  std::vector<std::string> warnings_;
  bool rest_pose_skipped_ = false;
  std::size_t cycle_ = 0;
  std::size_t cycles_ = 0;
  std::size_t unreached_ = 0;
  GroundFrame start_ground_;
  Vec3 travel_local_; ///< per cycle, in the first ground frame
  Vec3 travel_world_;
  /// frames_ + 1 rows (the last is the first again) of bone-count local poses; ground frames
  /// relative to the first.
  std::vector<Pose> local_;
  std::vector<GroundFrame> ground_;

  /// The ground frame within the cycle at cycle time s (relative to the first).
  GroundFrame ground_at(double s) const;
  /// Spreads the mismatch between the cycle's last row and its first over the cycle, the legs
  /// over their swings and then solved (`captured`: the capture's world poses of every row).
  void close_seam(const std::vector<const Track*>& tracks, std::size_t a,
                  const std::vector<Pose>& captured, FootfallOptions footfall, double min_swing);
  /// Sets stance_drift_ (and its warning) from the finished rows against `captured`.
  void measure_stance_drift(const std::vector<const Track*>& tracks, std::size_t a,
                            const std::vector<Pose>& captured, FootfallOptions footfall, double min_swing);
};

/// Ground frame composition and inverse (heading about `up`).
GroundFrame compose(const GroundFrame& a, const GroundFrame& b, const Vec3& up);
GroundFrame inverse(const GroundFrame& a, const Vec3& up);
/// The ground frame of a pose: its heading about `up` (the twist of its orientation) and its
/// position with the up component removed.
GroundFrame ground_of(const Pose& pose, const Vec3& up);
/// The pose of ground frame `g` followed by the local pose `local`.
Pose place(const GroundFrame& g, const Pose& local, const Vec3& up);

/// How a ClipBlend keeps its stance feet planted.
enum class FootLock {
  /// The blended poses as they are: a stance foot slides where the clips' stances differ (at
  /// b = 0.25 the walk's planted foot is dragged by a quarter of the run's swinging one).
  Off,
  /// Locked between clips, left alone at the clips themselves: the lock's strength is
  /// min(1, d / FootLockOptions::fade) for b at distance d from the nearest whole b, so b = 0
  /// and b = 1 show the captures as they are, slide included, and poses change continuously
  /// with b.
  Blended,
  /// Locked at every b, the clips' own slide removed too.
  Always,
};

/// The foot lock's settings; every field has a default, ClipBlend::set_foot_lock validates them.
///
/// Each foot (the clips' feet(), each the third bone of a leg: foot, shin, thigh) is pinned
/// where it landed for its stance: its ankle from its footfall until the ankle lifts, then the
/// first bone below it (the toe) until that lifts too; the stance ends are the weighted blend of
/// the clips' own (found by detect_stances on each loop), measured in the blend's unified cycle
/// phase. The pin holds the position along the ground; the height is the blend's. The leg is
/// solved by two-bone inverse kinematics (the knee keeps its direction, the foot its blended
/// orientation), and every foot bone is kept above its floor, the lowest the clips take it.
struct FootLockOptions {
  FootLock mode = FootLock::Blended;
  /// s over which a landing foot comes to rest on its pin (the blend's own motion fading out).
  double ease_in = 0.05;
  /// s over which a lifted foot returns from where it was pinned to the blended pose.
  double ease_out = 0.15;
  /// Blended mode: the distance of b from a clip over which the lock reaches full strength.
  double fade = 0.1;
  /// Keep every foot bone from going lower than the lowest the clips take it (m are capture
  /// units here: the floor is taken from the clips, no unit is assumed).
  bool floor = true;
};

/// Where a foot is in its gait cycle, as the foot lock sees it.
enum class FootState {
  Swing, ///< off the ground
  Heel,  ///< the ankle planted
  Toe,   ///< the ankle lifted, the toe still planted
};

/// A footfall of the blend: which foot (index into the clips' feet()) landed when (s).
struct BlendFootfall {
  double time = 0.0;
  std::size_t foot = 0;
};

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
/// Speed: a blended cycle covers |(1 - w) D_i + w D_j| (each clip's travel per cycle in its own
/// first ground frame) in (1 - w) T_i + w T_j seconds; set_speed inverts that law.
///
/// Feet: locked while they stand (FootLockOptions, FootLock::Blended by default).
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
  /// Index of a bone by name (the clips' bones()), or -1.
  int find(const std::string& bone) const { return clips_.front().find(bone); }
  /// Sets b in [0, clips - 1] for the time still to be played (before the first advance, the
  /// frame at time 0 too); throws MocapError outside.
  void set_weight(double b);
  double weight() const { return b_; }
  /// The speed (m/s) the blend plays at with weight b (the law above); throws MocapError for b
  /// outside [0, clips - 1].
  double speed_for_weight(double b) const;
  /// The b that plays `speed` (m/s): the law above inverted between the two clips around it.
  /// Throws MocapError for a speed outside the slowest and fastest clip's.
  double weight_for_speed(double speed) const;
  /// Plays `speed` from now on; throws MocapError outside the clips' speeds (refused).
  void set_speed(double speed) { set_weight(weight_for_speed(speed)); }
  /// Plays `speed`, or the nearest speed the clips can play; returns true when it was outside
  /// their range and clamped.
  bool set_speed_clamped(double speed);
  /// The speed (m/s) the blend plays at now.
  double speed() const { return speed_for_weight(b_); }

  /// The foot lock (validated: eases and fade finite and not negative, fade above 0; else
  /// MocapError). Takes effect from the next frame; feet then standing are pinned where they
  /// are.
  void set_foot_lock(const FootLockOptions& options);
  const FootLockOptions& foot_lock() const { return lock_; }
  /// Whether foot f (index into the clips' feet()) can be locked: it is the third bone of a
  /// leg. A foot that cannot is left as blended.
  bool lockable(std::size_t foot) const { return feet_[foot].lockable; }
  /// Where foot f is at the latest frame.
  FootState foot_state(std::size_t foot) const { return feet_[foot].state; }
  /// Frames in which a locked ankle could not reach its pin (the leg too short): the foot is
  /// pulled along there.
  std::size_t unreached() const { return unreached_; }

  /// The blend's place in its cycle at the latest frame, in [0, 1): 0 at the first foot's
  /// footfall, and segment k of the footfalls starting at k / (footfalls per cycle).
  double phase() const;
  /// The footfalls that happened in the latest advance_to (time order).
  const std::vector<BlendFootfall>& footfalls() const { return footfalls_; }

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
  /// A foot as the lock sees it. Stance lengths are in cycle phase units (segments).
  struct Foot {
    bool lockable = false;
    std::size_t hip = 0;     ///< the thigh bone
    std::size_t knee = 0;    ///< the shin bone
    std::size_t ankle = 0;   ///< the foot bone
    std::vector<std::size_t> below; ///< the bones below the foot, parents first
    std::size_t toe = 0;     ///< the first bone below it (== ankle when there is none)
    std::size_t event = 0;   ///< the footfall's segment index
    std::vector<double> heel; ///< per clip: phase from footfall to the ankle's lift
    std::vector<double> lift; ///< per clip: phase from footfall to the toe's lift
    FootState state = FootState::Swing;
    double since = 0.0;      ///< phase since its footfall
    Vec3 pin;                ///< the pinned bone's place (world, along the ground)
    Vec3 landed;             ///< the blended ankle's place when it landed (along the ground)
    Vec3 residual;           ///< the ankle's offset from the blend when it lifted
    Quat residual_turn;      ///< the foot's turn from the blend's when it lifted
    Vec3 offset;             ///< the pinned ankle's offset from the blend along the ground
    Vec3 shown;              ///< the ankle's offset from the blend in the latest frame
    Quat shown_turn;         ///< the foot's turn from the blend's in the latest frame
    double clock = 0.0;      ///< s since the state began
  };
  void step(double dt);
  /// The blended poses at the present place in the cycle, the feet locked; dt (s) since the
  /// last frame, 0 to start the feet over.
  void compute_frame(Frame& frame, double dt);
  void init_feet();
  /// Updates the feet's states for a frame dt after the last (dt 0: start over) and moves the
  /// frame's legs.
  void lock_feet(Frame& frame, double dt);
  double current_phase() const { return static_cast<double>(segment_) + fraction_; }
  double lock_strength() const;

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
  FootLockOptions lock_;
  std::vector<Foot> feet_;
  std::vector<double> floor_; ///< per bone: the lowest height the clips take it (up component)
  std::size_t unreached_ = 0;
  bool relock_ = false; ///< the next frame starts the feet over (the lock was changed)
  std::vector<BlendFootfall> footfalls_;
  double step_start_ = 0.0; ///< time of the frame before the one being played
};

} // namespace odemocap
