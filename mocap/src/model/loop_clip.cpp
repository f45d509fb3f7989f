#include <odemocap/clip_blend.hpp>
#include <odemocap/error.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace odemocap {
namespace {

constexpr double k_pi = 3.14159265358979323846;

/// a - b wrapped into (-pi, pi].
double angle_difference(double a, double b) {
  double d = std::remainder(a - b, 2.0 * k_pi);
  return d == -k_pi ? k_pi : d;
}

Quat yaw_quat(double yaw, const Vec3& up) {
  return {std::cos(0.5 * yaw), up.x * std::sin(0.5 * yaw), up.y * std::sin(0.5 * yaw),
          up.z * std::sin(0.5 * yaw)};
}

Vec3 flatten(const Vec3& v, const Vec3& up) {
  return v - dot(v, up) * up;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string describe_times(const std::vector<double>& times) {
  std::string out;
  for (double t : times) {
    char text[32];
    std::snprintf(text, sizeof text, "%s%.3f", out.empty() ? "" : " ", t);
    out += text;
  }
  return out.empty() ? "none" : out;
}

/// The feet named in the options, else the capture's two foot tracks called "...foot...".
std::vector<std::string> resolve_feet(const Capture& capture, const LoopClipOptions& options) {
  if (!options.feet.empty()) {
    for (const std::string& foot : options.feet) {
      capture.track(foot); // throws naming the available tracks
    }
    return options.feet;
  }
  std::vector<std::string> feet;
  for (const std::string& name : foot_tracks(capture)) {
    if (lower(name).find("foot") != std::string::npos) {
      feet.push_back(name);
    }
  }
  if (feet.size() != 2) {
    throw MocapError("LoopClip: cannot tell the feet of '" + capture.info().source + "' (found " +
                     std::to_string(feet.size()) +
                     " tracks named foot); name them in LoopClipOptions::feet");
  }
  return feet;
}

/// The track's samples from `start` on, so that stance detection ignores what comes before.
Track from_time(const Track& track, double start) {
  Track out(track.name());
  for (std::size_t i = 0; i < track.size(); ++i) {
    if (track.time(i) < start) {
      continue;
    }
    if (track.valid(i)) {
      out.append(track.time(i), track.pose(i));
    } else {
      out.append_gap(track.time(i));
    }
  }
  return out;
}

struct Footfall {
  double time;
  std::size_t foot;
};

/// Stance starts of every foot in time order, stances broken by less than min_swing merged.
std::vector<Footfall> detect_footfalls(const Capture& capture, const std::vector<std::string>& feet,
                                       const LoopClipOptions& options, double metres_per_unit) {
  FootfallOptions fo = options.footfall;
  fo.metres_per_unit = metres_per_unit;
  std::vector<Footfall> out;
  for (std::size_t f = 0; f < feet.size(); ++f) {
    const Track foot = from_time(capture.track(feet[f]), options.start_time);
    double last_end = -INFINITY;
    for (const Stance& s : detect_stances(foot, capture.info().up_axis, fo)) {
      if (s.start - last_end >= options.min_swing) {
        out.push_back({s.start, f});
      }
      last_end = s.end;
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Footfall& a, const Footfall& b) { return a.time < b.time; });
  return out;
}

/// The footfalls of the requested cycle: foot 0, then every other foot once in order, then
/// foot 0 again.
std::vector<Footfall> pick_cycle(const std::vector<Footfall>& all, std::size_t feet,
                                 std::size_t cycle, const std::string& source) {
  std::size_t found = 0;
  for (std::size_t i = 0; i + feet < all.size(); ++i) {
    bool alternating = true;
    for (std::size_t k = 0; k <= feet; ++k) {
      alternating = alternating && all[i + k].foot == k % feet;
    }
    if (alternating && found++ == cycle) {
      return {all.begin() + static_cast<std::ptrdiff_t>(i),
              all.begin() + static_cast<std::ptrdiff_t>(i + feet + 1)};
    }
  }
  std::vector<double> times;
  for (const Footfall& f : all) {
    times.push_back(f.time);
  }
  throw MocapError("LoopClip: '" + source + "' has " + std::to_string(found) +
                   " complete gait cycle(s) of alternating footfalls, cycle " +
                   std::to_string(cycle) + " was asked for (footfalls at " + describe_times(times) +
                   " s); give LoopClipOptions::footfalls to override");
}

std::size_t nearest_sample(const Track& track, double t) {
  const auto& times = track.times();
  const auto it = std::lower_bound(times.begin(), times.end(), t);
  std::size_t i = static_cast<std::size_t>(it - times.begin());
  if (i == times.size() || (i > 0 && t - times[i - 1] < times[i] - t)) {
    --i;
  }
  return i;
}

} // namespace

GroundFrame compose(const GroundFrame& a, const GroundFrame& b, const Vec3& up) {
  return {a.yaw + b.yaw, a.p + rotate(yaw_quat(a.yaw, up), b.p)};
}

GroundFrame inverse(const GroundFrame& a, const Vec3& up) {
  return {-a.yaw, -rotate(yaw_quat(-a.yaw, up), a.p)};
}

GroundFrame ground_of(const Pose& pose, const Vec3& up) {
  // Twist of the orientation about up (swing-twist decomposition).
  const double along = pose.q.x * up.x + pose.q.y * up.y + pose.q.z * up.z;
  return {2.0 * std::atan2(along, pose.q.w), flatten(pose.p, up)};
}

Pose place(const GroundFrame& g, const Pose& local, const Vec3& up) {
  const Quat r = yaw_quat(g.yaw, up);
  return {g.p + rotate(r, local.p), r * local.q};
}

int LoopClip::find(const std::string& bone) const {
  const auto it = std::find(bones_.begin(), bones_.end(), bone);
  return it == bones_.end() ? -1 : static_cast<int>(it - bones_.begin());
}

LoopClip::LoopClip(const Capture& capture, const LoopClipOptions& options)
    : name_(capture.info().source) {
  const Skeleton* skeleton = capture.skeleton();
  if (skeleton == nullptr) {
    throw MocapError("LoopClip: '" + name_ + "' has no skeleton (BVH, ASF/AMC or MVNX needed)");
  }
  if (!(options.min_swing >= 0.0) || !std::isfinite(options.min_swing) ||
      std::isnan(options.start_time)) {
    throw MocapError("LoopClip: min_swing must be finite and not negative, start_time a number");
  }
  metres_per_unit_ = capture.info().metres_per_unit();
  if (!(metres_per_unit_ > 0.0)) {
    throw MocapError("LoopClip: the length unit of '" + name_ +
                     "' is unknown; clip speeds need metres (give LoadOptions::unit_in_metres)");
  }
  up_ = capture.info().up_axis;
  up_vector_ = axis_vector(up_);

  // Bones: joints with a track, each hanging from its nearest ancestor with one.
  std::vector<int> bone_of(skeleton->joints.size(), -1);
  std::vector<const Track*> tracks;
  for (std::size_t j = 0; j < skeleton->joints.size(); ++j) {
    const Joint& joint = skeleton->joints[j];
    const Track* track = joint.end_site ? nullptr : capture.find_track(joint.name);
    if (track == nullptr) {
      continue;
    }
    int parent = -1;
    for (int a = joint.parent; a >= 0 && parent < 0;
         a = skeleton->joints[static_cast<std::size_t>(a)].parent) {
      parent = bone_of[static_cast<std::size_t>(a)];
    }
    bone_of[j] = static_cast<int>(bones_.size());
    bones_.push_back(joint.name);
    parents_.push_back(parent);
    tracks.push_back(track);
  }
  if (bones_.empty()) {
    throw MocapError("LoopClip: '" + name_ + "' has no track for any skeleton joint");
  }
  target_ = 0;
  if (!options.target_bone.empty()) {
    target_ = find(options.target_bone);
    if (target_ < 0) {
      throw MocapError("LoopClip: target bone '" + options.target_bone + "' is not a bone of '" +
                       name_ + "'");
    }
  }
  const Track& base = *tracks[0];
  dt_ = base.median_interval();

  // The cycle's footfalls: given, or detected.
  std::vector<Footfall> cycle;
  if (!options.footfalls.empty()) {
    feet_ = options.feet.empty() ? std::vector<std::string>{"foot 0", "foot 1"} : options.feet;
    if (options.footfalls.size() < 2) {
      throw MocapError("LoopClip: override footfalls need at least the cycle's start and end");
    }
    for (std::size_t k = 0; k < options.footfalls.size(); ++k) {
      const double t = options.footfalls[k];
      if (!std::isfinite(t) || t < base.start_time() || t > base.end_time() ||
          (k > 0 && !(t > options.footfalls[k - 1]))) {
        throw MocapError("LoopClip: override footfall " + std::to_string(k) +
                         " must be increasing and within the capture's time");
      }
      cycle.push_back({t, k % feet_.size()});
    }
    if (cycle.back().foot != 0) {
      throw MocapError("LoopClip: the override footfalls must end with the first foot's next "
                       "footfall (feet alternate)");
    }
  } else {
    feet_ = resolve_feet(capture, options);
    cycle = pick_cycle(detect_footfalls(capture, feet_, options, metres_per_unit_), feet_.size(),
                       options.cycle, name_);
  }
  const std::size_t a = nearest_sample(base, cycle.front().time);
  const std::size_t c = nearest_sample(base, cycle.back().time);
  if (c <= a + 1) {
    throw MocapError("LoopClip: the cycle of '" + name_ + "' is shorter than two frames");
  }
  frames_ = c - a;
  capture_start_ = base.time(a);
  capture_end_ = base.time(c);
  for (const Footfall& f : cycle) {
    if (&f == &cycle.back()) {
      break;
    }
    const std::size_t i = nearest_sample(base, f.time);
    events_.push_back(static_cast<double>(i - a) * dt_);
    event_feet_.push_back(f.foot);
  }
  for (std::size_t k = 1; k < events_.size(); ++k) {
    if (!(events_[k] > events_[k - 1])) {
      throw MocapError("LoopClip: two footfalls of '" + name_ + "' fall on one frame");
    }
  }

  // Local poses and ground frames of frames a..c, from the tracks' world poses.
  const std::size_t n = bones_.size();
  local_.resize((frames_ + 1) * n);
  ground_.resize(frames_ + 1);
  std::vector<Pose> world(n);
  double yaw_unwrapped = 0.0;
  double previous_yaw = 0.0;
  for (std::size_t f = 0; f <= frames_; ++f) {
    const std::size_t sample = a + f;
    for (std::size_t b = 0; b < n; ++b) {
      if (sample >= tracks[b]->size() || !tracks[b]->valid(sample)) {
        throw MocapError("LoopClip: track '" + bones_[b] + "' of '" + name_ +
                         "' has a gap within the cycle (sample " + std::to_string(sample) + ")");
      }
      world[b] = tracks[b]->pose(sample);
    }
    const GroundFrame g = ground_of(world[static_cast<std::size_t>(target_)], up_vector_);
    if (f == 0) {
      start_ground_ = g;
      previous_yaw = g.yaw;
    }
    yaw_unwrapped += angle_difference(g.yaw, previous_yaw);
    previous_yaw = g.yaw;
    const GroundFrame absolute{start_ground_.yaw + yaw_unwrapped, g.p};
    ground_[f] = compose(inverse(start_ground_, up_vector_), absolute, up_vector_);
    for (std::size_t b = 0; b < n; ++b) {
      Pose& l = local_[f * n + b];
      const int p = parents_[b];
      if (p < 0) {
        const GroundFrame inv = inverse(absolute, up_vector_);
        l = place(inv, world[b], up_vector_);
      } else {
        const Pose& w = world[static_cast<std::size_t>(p)];
        l = {rotate(conj(w.q), world[b].p - w.p), conj(w.q) * world[b].q};
      }
      if (f > 0) {
        l.q = same_hemisphere(l.q, local_[(f - 1) * n + b].q);
      }
    }
  }

  // Seamless loop: spread the mismatch between the last row (frame c) and the first.
  const Pose* first = &local_[0];
  const Pose* last = &local_[frames_ * n];
  std::vector<Quat> rotation_error(n);
  std::vector<Vec3> position_error(n);
  for (std::size_t b = 0; b < n; ++b) {
    rotation_error[b] = last[b].q * conj(same_hemisphere(first[b].q, last[b].q));
    position_error[b] = last[b].p - first[b].p;
    seam_rotation_ = std::max(seam_rotation_, angle_between(last[b].q, first[b].q));
  }
  seam_position_ = norm(position_error[static_cast<std::size_t>(target_)]);
  const double yaw_error = ground_[frames_].yaw;
  const Quat identity{1.0, 0.0, 0.0, 0.0};
  for (std::size_t f = 1; f < frames_; ++f) {
    const double u = static_cast<double>(f) / static_cast<double>(frames_);
    for (std::size_t b = 0; b < n; ++b) {
      Pose& l = local_[f * n + b];
      l.q = normalized(slerp(identity, conj(rotation_error[b]), u) * l.q);
      l.p = l.p - u * position_error[b];
    }
    ground_[f].yaw -= u * yaw_error;
  }
  for (std::size_t b = 0; b < n; ++b) {
    local_[frames_ * n + b] = local_[b];
  }
  travel_local_ = ground_[frames_].p;
  ground_[frames_].yaw = 0.0;
  travel_world_ = rotate(yaw_quat(start_ground_.yaw, up_vector_), travel_local_);
  speed_ = norm(travel_local_) * metres_per_unit_ / duration();
}

GroundFrame LoopClip::ground_at(double s) const {
  const double f = std::clamp(s / dt_, 0.0, static_cast<double>(frames_));
  const std::size_t i = std::min(static_cast<std::size_t>(f), frames_ - 1);
  const double u = f - static_cast<double>(i);
  const GroundFrame& g0 = ground_[i];
  const GroundFrame& g1 = ground_[i + 1];
  return {g0.yaw + u * (g1.yaw - g0.yaw), g0.p + u * (g1.p - g0.p)};
}

void LoopClip::sample(double s, std::vector<Pose>& local, GroundFrame& ground) const {
  const std::size_t n = bones_.size();
  local.resize(n);
  const double f = std::clamp(s / dt_, 0.0, static_cast<double>(frames_));
  const std::size_t i = std::min(static_cast<std::size_t>(f), frames_ - 1);
  const double u = f - static_cast<double>(i);
  const Pose* r0 = &local_[i * n];
  const Pose* r1 = &local_[(i + 1) * n];
  for (std::size_t b = 0; b < n; ++b) {
    local[b] = {r0[b].p + u * (r1[b].p - r0[b].p), nlerp(r0[b].q, r1[b].q, u)};
  }
  const GroundFrame& g0 = ground_[i];
  const GroundFrame& g1 = ground_[i + 1];
  ground = {g0.yaw + u * (g1.yaw - g0.yaw), g0.p + u * (g1.p - g0.p)};
}

void LoopClip::poses(double t, std::vector<Pose>& out) const {
  const double cycles = std::floor(t / duration());
  const double s = t - cycles * duration();
  std::vector<Pose> local;
  GroundFrame within;
  sample(s, local, within);
  within.p += cycles * travel_local_;
  forward(compose(start_ground_, within, up_vector_), local, out);
}

void LoopClip::forward(const GroundFrame& g, const std::vector<Pose>& local,
                       std::vector<Pose>& out) const {
  out.resize(bones_.size());
  for (std::size_t b = 0; b < bones_.size(); ++b) {
    const int p = parents_[b];
    if (p < 0) {
      out[b] = place(g, local[b], up_vector_);
    } else {
      const Pose& w = out[static_cast<std::size_t>(p)];
      out[b] = {w.p + rotate(w.q, local[b].p), w.q * local[b].q};
    }
  }
}

} // namespace odemocap
