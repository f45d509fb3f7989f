#include <odemocap/clip_blend.hpp>
#include <odemocap/error.hpp>

#include "checks.hpp"
#include "model/leg_ik.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace odemocap {
namespace {

constexpr double k_pi = 3.14159265358979323846;
constexpr std::size_t k_remembered = 4; // frames kept for pose() at earlier times

double wrap_angle(double a) {
  const double d = std::remainder(a, 2.0 * k_pi);
  return d == -k_pi ? k_pi : d;
}

/// Clip i and the weight of clip i + 1 for blend parameter b.
struct Pair {
  std::size_t i;
  double w;
};

Pair pair_of(double b, std::size_t clips) {
  if (clips == 1) {
    return {0, 0.0};
  }
  std::size_t i = static_cast<std::size_t>(std::floor(b));
  if (i >= clips - 1) {
    return {clips - 1, 0.0}; // b at the last clip
  }
  return {i, b - static_cast<double>(i)};
}

/// The part of v along the ground (`up` unit).
Vec3 flat(const Vec3& v, const Vec3& up) {
  return v - dot(v, up) * up;
}

/// 0 to 1 with zero slope at both ends (x clamped to [0, 1]).
double ease(double x) {
  const double u = std::clamp(x, 0.0, 1.0);
  return u * u * (3.0 - 2.0 * u);
}

/// The unified cycle phase of clip time t (s, any number of cycles on): whole cycles times the
/// segments per cycle, plus the segment and the fraction of it.
double phase_of(const LoopClip& clip, double t) {
  const auto& events = clip.events();
  const double cycles = std::floor(t / clip.duration());
  const double s = t - cycles * clip.duration();
  std::size_t k = 0;
  while (k + 1 < events.size() && events[k + 1] <= s) {
    ++k;
  }
  const double end = k + 1 < events.size() ? events[k + 1] : clip.duration();
  return cycles * static_cast<double>(events.size()) + static_cast<double>(k) +
         (s - events[k]) / (end - events[k]);
}

/// Tracks of some bones of a loop played for three cycles at its frame rate, one per bone.
std::vector<Track> played(const LoopClip& clip, const std::vector<std::size_t>& bones) {
  std::vector<Track> out;
  for (std::size_t b : bones) {
    out.emplace_back(clip.bones()[b]);
  }
  std::vector<Pose> poses;
  for (std::size_t i = 0; i <= 3 * clip.frame_count(); ++i) {
    const double t = static_cast<double>(i) * clip.frame_time();
    clip.poses(t, poses);
    for (std::size_t k = 0; k < bones.size(); ++k) {
      out[k].append(t, poses[bones[k]]);
    }
  }
  return out;
}

/// The time in [start, end] at which a stance's pin should pass from the ankle to the toe: the
/// one that minimises the ground travel of the ankle before it plus the toe's after it.
double pivot_switch(const Track& ankle, const Track& toe, double start, double end,
                    const Vec3& up) {
  std::size_t first = 0;
  while (first < ankle.size() && ankle.time(first) < start) {
    ++first;
  }
  std::size_t last = first;
  while (last + 1 < ankle.size() && ankle.time(last + 1) <= end) {
    ++last;
  }
  // Travel of the toe from each frame to the end, then sweep the split forwards.
  double toe_after = 0.0;
  for (std::size_t i = first; i < last; ++i) {
    toe_after += norm(flat(toe.position(i + 1) - toe.position(i), up));
  }
  double ankle_before = 0.0;
  double best = toe_after;
  std::size_t split = first;
  for (std::size_t i = first; i < last; ++i) {
    ankle_before += norm(flat(ankle.position(i + 1) - ankle.position(i), up));
    toe_after -= norm(flat(toe.position(i + 1) - toe.position(i), up));
    if (ankle_before + toe_after < best) {
      best = ankle_before + toe_after;
      split = i + 1;
    }
  }
  return ankle.time(std::min(split, ankle.size() - 1));
}

class BlendBoneSource final : public PoseSource {
public:
  BlendBoneSource(std::shared_ptr<ClipBlend> blend, std::size_t bone, double scale)
      : blend_(std::move(blend)), bone_(bone), scale_(scale) {}
  bool pose(double t, Pose& out) const override {
    if (!blend_->pose(bone_, t, out)) {
      return false;
    }
    out.p = out.p * scale_;
    return true;
  }
  double start_time() const override { return 0.0; }
  double end_time() const override { return INFINITY; }
  std::string name() const override { return blend_->clips().front().bones()[bone_]; }

private:
  std::shared_ptr<ClipBlend> blend_;
  std::size_t bone_;
  double scale_;
};

} // namespace

ClipBlend::ClipBlend(std::vector<LoopClip> clips) : ClipBlend(std::move(clips), GroundFrame{}) {
  // Start on the first clip's own first ground frame: b = 0 replays it in place.
  const GroundFrame start = clips_.front().start_ground();
  for (std::size_t x = 0; x < clips_.size(); ++x) {
    origins_[x] = compose(start, inverse(clips_[x].start_ground(), up_), up_);
  }
  ground_ = start;
  compute_frame(frames_[latest_], 0.0);
}

ClipBlend::ClipBlend(std::vector<LoopClip> clips, const GroundFrame& start)
    : clips_(std::move(clips)) {
  if (clips_.empty()) {
    throw MocapError("ClipBlend: no clips");
  }
  const LoopClip& first = clips_.front();
  up_ = axis_vector(first.up_axis());
  bones_ = first.bones().size();
  segments_ = first.events().size();
  for (std::size_t x = 1; x < clips_.size(); ++x) {
    const LoopClip& c = clips_[x];
    const std::string which = "ClipBlend: clip " + std::to_string(x) + " ('" + c.name() + "') ";
    if (c.bones() != first.bones() || c.parents() != first.parents()) {
      throw MocapError(which + "has other bones than clip 0: clips must share a skeleton");
    }
    if (c.target_bone() != first.target_bone() || c.up_axis() != first.up_axis() ||
        std::fabs(c.metres_per_unit() / first.metres_per_unit() - 1.0) > 1e-9) {
      throw MocapError(which + "differs from clip 0 in target bone, up axis or length unit");
    }
    if (c.event_feet() != first.event_feet()) {
      throw MocapError(which + "has " + std::to_string(c.events().size()) +
                       " footfalls per cycle in another order of feet than clip 0's " +
                       std::to_string(segments_) + ": their footfalls cannot be aligned");
    }
    if (!(c.speed() > clips_[x - 1].speed())) {
      throw MocapError(which + "is not faster than the clip before it: give clips slowest first");
    }
  }
  origins_.resize(clips_.size());
  for (std::size_t x = 0; x < clips_.size(); ++x) {
    origins_[x] = compose(start, inverse(clips_[x].start_ground(), up_), up_);
  }
  cycles_.assign(clips_.size(), 0);
  clip_times_.assign(clips_.size(), 0.0);
  ground_ = start;
  frames_.resize(k_remembered);
  for (Frame& f : frames_) {
    f.poses.resize(bones_);
  }
  scratch_local_.resize(clips_.size());
  scratch_ground_.resize(clips_.size());
  init_feet();
  compute_frame(frames_[latest_], 0.0);
  frames_[latest_].time = 0.0;
}

void ClipBlend::init_feet() {
  const LoopClip& first = clips_.front();
  const Vec3& up = up_;
  floor_.assign(bones_, -INFINITY);
  feet_.assign(first.feet().size(), Foot{});
  for (std::size_t f = 0; f < feet_.size(); ++f) {
    Foot& foot = feet_[f];
    const int bone = first.find(first.feet()[f]);
    detail::Leg leg;
    foot.event = static_cast<std::size_t>(
        std::find(first.event_feet().begin(), first.event_feet().end(), f) -
        first.event_feet().begin());
    if (bone < 0 || foot.event >= segments_ ||
        !detail::find_leg(first.parents(), static_cast<std::size_t>(bone), leg)) {
      continue;
    }
    foot.lockable = true;
    foot.hip = leg.hip;
    foot.knee = leg.knee;
    foot.ankle = leg.foot;
    foot.below = leg.below;
    foot.toe = leg.below.empty() ? leg.foot : leg.below.front();
    // The foot and the bones below it, the toe (when there is one) second.
    std::vector<std::size_t> watched{foot.ankle};
    watched.insert(watched.end(), foot.below.begin(), foot.below.end());
    for (const LoopClip& clip : clips_) {
      FootfallOptions options;
      options.metres_per_unit = clip.metres_per_unit();
      const LoopClipOptions defaults;
      const std::vector<Track> tracks = played(clip, watched);
      for (std::size_t k = 0; k < watched.size(); ++k) {
        double low = INFINITY;
        for (std::size_t i = 0; i < tracks[k].size(); ++i) {
          low = std::min(low, dot(tracks[k].position(i), up));
        }
        const std::size_t b = watched[k];
        floor_[b] = floor_[b] == -INFINITY ? low : std::min(floor_[b], low);
      }
      const Track& ankle = tracks.front();
      const Track& toe = tracks[watched.size() > 1 ? 1 : 0];
      // The stance that starts at the footfall in the middle cycle, and the toe's after it.
      const double footfall = clip.duration() + clip.events()[foot.event];
      const double landing = phase_of(clip, footfall);
      const auto stances = [&](const Track& track) {
        return merge_stances(detect_stances(track, clip.up_axis(), options), defaults.min_swing);
      };
      double heel_end = footfall;
      double nearest = 0.1 * clip.duration();
      for (const Stance& st : stances(ankle)) {
        if (std::fabs(st.start - footfall) <= nearest) {
          nearest = std::fabs(st.start - footfall);
          heel_end = st.end;
        }
      }
      double toe_end = heel_end;
      for (const Stance& st : stances(toe)) {
        if (st.start <= heel_end && st.end > footfall) {
          toe_end = std::max(toe_end, st.end);
        }
      }
      // The ankle is the pin until the foot turns about its toe: the switch that makes the
      // pinned point travel least along the ground over the stance.
      heel_end = pivot_switch(ankle, toe, footfall, toe_end, up);
      const double longest = 0.95 * static_cast<double>(segments_);
      const double heel = std::min(longest, phase_of(clip, heel_end) - landing);
      foot.heel.push_back(std::max(0.0, heel));
      foot.lift.push_back(std::max(foot.heel.back(),
                                   std::min(longest, phase_of(clip, toe_end) - landing)));
    }
  }
}

void ClipBlend::set_weight(double b) {
  const double last = static_cast<double>(clips_.size() - 1);
  if (!(b >= 0.0 && b <= last)) {
    throw MocapError("ClipBlend::set_weight: b must be in [0, " +
                     std::to_string(clips_.size() - 1) + "], got " + std::to_string(b));
  }
  b_ = b;
  if (!started_) {
    compute_frame(frames_[latest_], 0.0);
  }
}

double ClipBlend::speed_for_weight(double b) const {
  const double last = static_cast<double>(clips_.size() - 1);
  if (!(b >= 0.0 && b <= last)) {
    throw MocapError("ClipBlend::speed_for_weight: b must be in [0, " +
                     std::to_string(clips_.size() - 1) + "], got " + detail::describe(b));
  }
  const Pair pair = pair_of(b, clips_.size());
  const LoopClip& ci = clips_[pair.i];
  if (pair.w == 0.0) {
    return ci.speed();
  }
  const LoopClip& cj = clips_[pair.i + 1];
  const Vec3 travel = (1.0 - pair.w) * ci.travel_local_ + pair.w * cj.travel_local_;
  const double duration = (1.0 - pair.w) * ci.duration() + pair.w * cj.duration();
  return norm(travel) * ci.metres_per_unit() / duration;
}

bool ClipBlend::set_speed_clamped(double speed) {
  if (std::isnan(speed)) {
    throw MocapError("ClipBlend::set_speed_clamped: the speed is NaN");
  }
  const double lowest = clips_.front().speed();
  const double highest = clips_.back().speed();
  const double played = std::clamp(speed, lowest, highest);
  set_speed(played);
  return played != speed;
}

void ClipBlend::set_foot_lock(const FootLockOptions& options) {
  const auto usable = [](double v) { return std::isfinite(v) && v >= 0.0; };
  if (!usable(options.ease_in) || !usable(options.ease_out) || !usable(options.fade) ||
      !(options.fade > 0.0)) {
    throw MocapError("ClipBlend::set_foot_lock: ease_in and ease_out must be finite and not "
                     "negative, fade finite and above 0");
  }
  lock_ = options;
  relock_ = true;
  if (!started_) {
    compute_frame(frames_[latest_], 0.0);
  }
}

double ClipBlend::phase() const {
  return current_phase() / static_cast<double>(segments_);
}

double ClipBlend::lock_strength() const {
  switch (lock_.mode) {
  case FootLock::Off:
    return 0.0;
  case FootLock::Always:
    return 1.0;
  case FootLock::Blended:
    break;
  }
  return std::min(1.0, std::fabs(b_ - std::round(b_)) / lock_.fade);
}

void ClipBlend::lock_feet(Frame& frame, double dt) {
  const bool restart = dt == 0.0 || relock_;
  relock_ = false;
  const Pair pair = pair_of(b_, clips_.size());
  const double strength = lock_strength();
  const double segments = static_cast<double>(segments_);
  const std::vector<Pose>& local = scratch_local_[pair.i];
  const std::vector<int>& parents = clips_.front().parents();
  const Quat identity{1.0, 0.0, 0.0, 0.0};
  std::vector<Pose>& world = frame.poses;
  for (Foot& foot : feet_) {
    if (!foot.lockable || lock_.mode == FootLock::Off) {
      continue;
    }
    const auto blended = [&](const std::vector<double>& per_clip) {
      const double own = per_clip[pair.i];
      return pair.w > 0.0 ? own + pair.w * (per_clip[pair.i + 1] - own) : own;
    };
    const double heel = blended(foot.heel);
    const double lift = blended(foot.lift);
    double since = current_phase() - static_cast<double>(foot.event);
    since -= segments * std::floor(since / segments);
    const Pose ankle_pose = world[foot.ankle];
    const Vec3 ankle = flat(ankle_pose.p, up_);
    const Vec3 toe_from_ankle = flat(world[foot.toe].p, up_) - ankle;
    if (restart) {
      foot.shown = {};
      foot.shown_turn = identity;
    }
    const Vec3 shown = flat(foot.shown, up_); // where the ankle was shown, along the ground
    const auto release = [&] {
      foot.state = FootState::Swing;
      foot.clock = 0.0;
      foot.residual = foot.shown;
      foot.residual_turn = foot.shown_turn;
    };
    foot.clock += dt;
    // The state: a footfall (the phase since it wrapped), the ankle's and the toe's lifts.
    if (restart || since < foot.since) {
      foot.state = since < heel ? FootState::Heel : since < lift ? FootState::Toe
                                                                 : FootState::Swing;
      foot.clock = restart ? INFINITY : 0.0; // a restart finds the foot at rest already
      foot.landed = ankle;
      foot.pin = ankle + shown + (foot.state == FootState::Toe ? toe_from_ankle : Vec3{});
      foot.residual = foot.shown;
      foot.residual_turn = foot.shown_turn;
    } else if (foot.state == FootState::Heel && since >= heel) {
      if (since < lift && foot.toe != foot.ankle) {
        foot.state = FootState::Toe;
        foot.clock = 0.0;
        foot.pin = ankle + toe_from_ankle + shown;
      } else {
        release();
      }
    } else if (foot.state == FootState::Toe && since >= lift) {
      release();
    }
    foot.since = since;
    // Where the ankle goes, relative to the blend's, and how the foot turns.
    Vec3 move;
    Quat turn = identity;
    switch (foot.state) {
    case FootState::Heel: {
      const double settle = lock_.ease_in > 0.0 ? ease(foot.clock / lock_.ease_in) : 1.0;
      move = strength * (foot.pin + (1.0 - settle) * (ankle - foot.landed) - ankle);
      break;
    }
    case FootState::Toe:
      move = strength * (foot.pin - toe_from_ankle - ankle);
      break;
    case FootState::Swing: {
      const double left = 1.0 - (lock_.ease_out > 0.0 ? ease(foot.clock / lock_.ease_out) : 1.0);
      move = left * foot.residual;
      turn = slerp(identity, foot.residual_turn, left);
      break;
    }
    }
    Vec3 target = ankle_pose.p + move;
    Quat foot_q = normalized(turn * ankle_pose.q);
    if (foot.state == FootState::Toe && foot.toe != foot.ankle) {
      // Out of the leg's reach, the foot turns about its pinned toe: the heel lifts.
      const Vec3 hip = world[foot.hip].p;
      const double reach = (norm(world[foot.knee].p - hip) +
                            norm(ankle_pose.p - world[foot.knee].p)) * (1.0 - 1e-9);
      const Vec3 toe_was = world[foot.toe].p - ankle_pose.p;
      const Vec3 toe = target + toe_was;
      if (detail::pivot_on_toe(hip, reach, toe, target)) {
        foot_q = normalized(from_to(toe_was, toe - target) * foot_q);
      }
    }
    if (lock_.floor) {
      // Every foot bone moves with the ankle (the foot's turn aside): lift the lowest clear.
      double below = floor_[foot.ankle] - dot(target, up_);
      for (std::size_t b : foot.below) {
        const Vec3 moved = target + rotate(foot_q * conj(ankle_pose.q), world[b].p - ankle_pose.p);
        below = std::max(below, floor_[b] - dot(moved, up_));
      }
      target = target + std::max(0.0, below) * up_;
    }
    foot.shown = target - ankle_pose.p;
    foot.shown_turn = foot_q * conj(ankle_pose.q);
    if (foot.shown.x == 0.0 && foot.shown.y == 0.0 && foot.shown.z == 0.0 &&
        foot.shown_turn.w == 1.0) {
      continue;
    }
    const detail::Leg leg{foot.hip, foot.knee, foot.ankle, foot.below};
    if (!detail::solve_leg(world, local, leg, target, foot_q, parents) &&
        foot.state != FootState::Swing) {
      ++unreached_;
    }
  }
}

double ClipBlend::weight_for_speed(double speed) const {
  const double lowest = clips_.front().speed();
  const double highest = clips_.back().speed();
  if (!(speed >= lowest && speed <= highest)) {
    throw MocapError("ClipBlend::weight_for_speed: " + detail::describe(speed) +
                     " m/s is outside the clips' speeds, " + detail::describe(lowest) + " to " +
                     detail::describe(highest) + " m/s");
  }
  for (std::size_t x = 0; x + 1 < clips_.size(); ++x) {
    if (speed > clips_[x + 1].speed()) {
      continue;
    }
    if (speed <= clips_[x].speed() || speed == clips_[x + 1].speed()) {
      return static_cast<double>(speed <= clips_[x].speed() ? x : x + 1);
    }
    // The law rises from clip x's speed to clip x + 1's (faster clips come later): bisect.
    double low = 0.0;
    double high = 1.0;
    for (int i = 0; i < 60 && high - low > 1e-15; ++i) {
      const double mid = 0.5 * (low + high);
      (speed_for_weight(static_cast<double>(x) + mid) < speed ? low : high) = mid;
    }
    return static_cast<double>(x) + 0.5 * (low + high);
  }
  return static_cast<double>(clips_.size() - 1);
}

void ClipBlend::step(double dt) {
  const Pair pair = pair_of(b_, clips_.size());
  const auto segment_length = [&](const LoopClip& c, std::size_t k) {
    const double end = k + 1 < segments_ ? c.events()[k + 1] : c.duration();
    return end - c.events()[k];
  };
  // Unified timing: segment k lasts the blend of the clips' segment k.
  double remaining = dt;
  while (remaining > 0.0) {
    const LoopClip& ci = clips_[pair.i];
    double length = segment_length(ci, segment_);
    if (pair.w > 0.0) {
      length += pair.w * (segment_length(clips_[pair.i + 1], segment_) - length);
    }
    const double left = (1.0 - fraction_) * length;
    if (remaining < left) {
      fraction_ += remaining / length;
      remaining = 0.0;
      break;
    }
    remaining -= left;
    fraction_ = 0.0;
    if (++segment_ == segments_) {
      segment_ = 0;
      for (std::size_t& n : cycles_) {
        ++n;
      }
    }
    footfalls_.push_back({step_start_ + (dt - remaining), ci.event_feet()[segment_]});
  }
  // Each clip at that fraction of its own segment; its target ground frame in the world.
  std::vector<GroundFrame>& clip_ground = scratch_ground_;
  for (std::size_t x = 0; x < clips_.size(); ++x) {
    const LoopClip& c = clips_[x];
    clip_times_[x] = c.events()[segment_] + fraction_ * segment_length(c, segment_);
    GroundFrame within = c.ground_at(clip_times_[x]);
    within.p += static_cast<double>(cycles_[x]) * c.travel_local_;
    clip_ground[x] = compose(c.start_ground(), within, up_); // clip coordinates
  }
  // Blend the target's world ground frames of the clips in play.
  const GroundFrame wi = compose(origins_[pair.i], clip_ground[pair.i], up_);
  GroundFrame blended = wi;
  if (pair.w > 0.0) {
    const GroundFrame wj = compose(origins_[pair.i + 1], clip_ground[pair.i + 1], up_);
    blended.yaw = wi.yaw + pair.w * wrap_angle(wj.yaw - wi.yaw);
    blended.p = (1.0 - pair.w) * wi.p + pair.w * wj.p;
  }
  // Move every origin by Delta = W_x^-1 W_b: the clips agree on the blended frame.
  for (std::size_t x = 0; x < clips_.size(); ++x) {
    origins_[x] = compose(blended, inverse(clip_ground[x], up_), up_);
  }
  ground_ = blended;
}

void ClipBlend::compute_frame(Frame& frame, double dt) {
  const Pair pair = pair_of(b_, clips_.size());
  GroundFrame unused;
  std::vector<Pose>& li = scratch_local_[pair.i];
  clips_[pair.i].sample(clip_times_[pair.i], li, unused);
  if (pair.w > 0.0) {
    std::vector<Pose>& lj = scratch_local_[pair.i + 1];
    clips_[pair.i + 1].sample(clip_times_[pair.i + 1], lj, unused);
    for (std::size_t b = 0; b < bones_; ++b) {
      li[b].p = li[b].p + pair.w * (lj[b].p - li[b].p);
      li[b].q = slerp(li[b].q, lj[b].q, pair.w);
    }
  }
  clips_.front().forward(ground_, li, frame.poses);
  lock_feet(frame, dt);
}

const std::vector<Pose>& ClipBlend::advance_to(double t) {
  const double now = time();
  if (!(t > now) || !std::isfinite(t)) {
    throw MocapError("ClipBlend::advance_to: time " + detail::describe(t) +
                     " s is not after the latest frame's, " + detail::describe(now) + " s");
  }
  footfalls_.clear();
  step_start_ = now;
  step(t - now);
  const std::size_t next = (latest_ + 1) % frames_.size();
  compute_frame(frames_[next], t - now);
  frames_[next].time = t;
  latest_ = next;
  started_ = true;
  return frames_[latest_].poses;
}

bool ClipBlend::pose(std::size_t bone, double t, Pose& out) {
  if (bone >= bones_ || !std::isfinite(t)) {
    return false;
  }
  const double tolerance = 1e-9 * std::fmax(1.0, std::fabs(t));
  if (t > time() + tolerance) {
    advance_to(t);
  }
  // The remembered frame at t, or the two around it.
  const Frame* before = nullptr;
  const Frame* after = nullptr;
  for (const Frame& f : frames_) {
    if (std::fabs(f.time - t) <= tolerance) {
      out = f.poses[bone];
      return true;
    }
    if (f.time < t && (before == nullptr || f.time > before->time)) {
      before = &f;
    }
    if (f.time > t && (after == nullptr || f.time < after->time)) {
      after = &f;
    }
  }
  if (before == nullptr || after == nullptr) {
    return false;
  }
  const double u = (t - before->time) / (after->time - before->time);
  const Pose& a = before->poses[bone];
  const Pose& b = after->poses[bone];
  out = {a.p + u * (b.p - a.p), slerp(a.q, b.q, u)};
  return true;
}

std::shared_ptr<const PoseSource> ClipBlend::bone_source(const std::shared_ptr<ClipBlend>& blend,
                                                         std::size_t bone, bool metres) {
  if (!blend || bone >= blend->bones_) {
    throw MocapError("ClipBlend::bone_source: no blend, or bone " + std::to_string(bone) +
                     " out of range");
  }
  const double scale = metres ? blend->clips_.front().metres_per_unit() : 1.0;
  return std::make_shared<BlendBoneSource>(blend, bone, scale);
}

} // namespace odemocap
