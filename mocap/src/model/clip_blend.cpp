#include <odemocap/clip_blend.hpp>
#include <odemocap/error.hpp>

#include "checks.hpp"

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
  compute_frame(frames_[latest_]);
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
  compute_frame(frames_[latest_]);
  frames_[latest_].time = 0.0;
}

void ClipBlend::set_weight(double b) {
  const double last = static_cast<double>(clips_.size() - 1);
  if (!(b >= 0.0 && b <= last)) {
    throw MocapError("ClipBlend::set_weight: b must be in [0, " +
                     std::to_string(clips_.size() - 1) + "], got " + std::to_string(b));
  }
  b_ = b;
  if (!started_) {
    compute_frame(frames_[latest_]);
  }
}

double ClipBlend::weight_for_speed(double speed) const {
  const double lowest = clips_.front().speed();
  const double highest = clips_.back().speed();
  if (!(speed >= lowest && speed <= highest)) {
    throw MocapError("ClipBlend::weight_for_speed: " + std::to_string(speed) +
                     " m/s is outside the clips' speeds, " + std::to_string(lowest) + " to " +
                     std::to_string(highest) + " m/s");
  }
  for (std::size_t x = 0; x + 1 < clips_.size(); ++x) {
    const double v0 = clips_[x].speed();
    const double v1 = clips_[x + 1].speed();
    if (speed <= v1) {
      return static_cast<double>(x) + (speed - v0) / (v1 - v0);
    }
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

void ClipBlend::compute_frame(Frame& frame) {
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
}

const std::vector<Pose>& ClipBlend::advance_to(double t) {
  const double now = time();
  if (!(t > now) || !std::isfinite(t)) {
    throw MocapError("ClipBlend::advance_to: time " + detail::describe(t) +
                     " s is not after the latest frame's, " + detail::describe(now) + " s");
  }
  step(t - now);
  const std::size_t next = (latest_ + 1) % frames_.size();
  compute_frame(frames_[next]);
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
