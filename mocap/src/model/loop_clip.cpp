#include <odemocap/clip_blend.hpp>
#include <odemocap/error.hpp>

#include "model/leg_ik.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
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
  // The two tracks named for the foot, else for the ankle or the heel (skeletons name the
  // ankle joint either way: CMU's BVH conversions LeftFoot, the cgspeed ones LeftAnkle).
  std::vector<std::string> feet;
  for (const char* word : {"foot", "ankle", "heel"}) {
    feet.clear();
    for (const std::string& name : foot_tracks(capture)) {
      const std::string low = lower(name);
      if (low.find(word) != std::string::npos && low.find("toe") == std::string::npos) {
        feet.push_back(name);
      }
    }
    if (feet.size() == 2) {
      return feet;
    }
  }
  throw MocapError("LoopClip: cannot tell the feet of '" + capture.info().source +
                   "' (no two tracks named foot, ankle or heel); name them in "
                   "LoopClipOptions::feet");
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
    for (const Stance& s :
         merge_stances(detect_stances(foot, capture.info().up_axis, fo), options.min_swing)) {
      out.push_back({s.start, f});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Footfall& a, const Footfall& b) { return a.time < b.time; });
  return out;
}

/// Whether a complete cycle starts at footfall i: foot 0, then every other foot once in order,
/// then foot 0 again.
bool cycle_starts(const std::vector<Footfall>& all, std::size_t feet, std::size_t i) {
  if (i + feet >= all.size()) {
    return false;
  }
  for (std::size_t k = 0; k <= feet; ++k) {
    if (all[i + k].foot != k % feet) {
      return false;
    }
  }
  return true;
}

std::size_t count_cycles(const std::vector<Footfall>& all, std::size_t feet) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    found += cycle_starts(all, feet, i) ? 1 : 0;
  }
  return found;
}

/// The footfalls of the requested cycle.
std::vector<Footfall> pick_cycle(const std::vector<Footfall>& all, std::size_t feet,
                                 std::size_t cycle, const std::string& source) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (cycle_starts(all, feet, i) && found++ == cycle) {
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


/// Whether the capture's first frame is a rest pose: the tracks' median turn from it to the
/// second frame is over 10 degrees and 5 times their median turn from the second to the third.
bool first_frame_is_rest_pose(const Capture& capture) {
  std::vector<double> first, second;
  for (const Track& t : capture.tracks()) {
    if (t.size() >= 3 && t.valid(0) && t.valid(1) && t.valid(2)) {
      first.push_back(angle_between(t.orientation(0), t.orientation(1)));
      second.push_back(angle_between(t.orientation(1), t.orientation(2)));
    }
  }
  if (first.empty()) {
    return false;
  }
  const auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  const double jump = median(first);
  return jump > 10.0 * k_pi / 180.0 && jump > 5.0 * median(second);
}

/// Per frame of the cycle (frames a .. a + n of the tracks), whether any of `tracks` (a foot
/// and the bones below it) stands, by detect_stances over the cycle and a cycle's margin;
/// stances broken by less than `min_swing` (s) are one, as for the footfalls.
std::vector<bool> planted_frames(const std::vector<const Track*>& tracks, std::size_t a,
                                 std::size_t n, Axis up, const FootfallOptions& options,
                                 double min_swing) {
  std::vector<bool> planted(n + 1, false);
  for (const Track* track : tracks) {
    const std::size_t first = a >= n ? a - n : 0;
    const std::size_t last = std::min(track->size(), a + 2 * n + 1);
    Track part(track->name());
    for (std::size_t i = first; i < last; ++i) {
      if (track->valid(i)) {
        part.append(track->time(i), track->pose(i));
      } else {
        part.append_gap(track->time(i));
      }
    }
    const std::vector<Stance> stances =
        merge_stances(detect_stances(part, up, options), min_swing);
    for (const Stance& s : stances) {
      for (std::size_t f = 0; f <= n; ++f) {
        const double t = track->time(a + f);
        planted[f] = planted[f] || (t >= s.start && t <= s.end);
      }
    }
  }
  return planted;
}

/// A ramp from 0 (frame 0) to 1 (frame n) that rises only over the cycle's last run of frames
/// where `planted` is false, smoothly (a sin^2 bump of rate, so it starts and ends at rest); linear
/// over the cycle when nothing swings. The last swing is the one that crosses the seam, or the
/// one before a stance that does: a stance within the cycle is then not offset at all (so its
/// height is the capture's), and a stance across the seam is offset by the mismatch between two
/// moments of one stance.
std::vector<double> swing_ramp(const std::vector<bool>& planted) {
  const std::size_t n = planted.size() - 1;
  std::vector<double> ramp(n + 1, 0.0);
  std::size_t end = n;
  while (end > 0 && planted[end] && planted[end - 1]) {
    --end;
  }
  std::size_t begin = end;
  while (begin > 0 && !(planted[begin] && planted[begin - 1])) {
    --begin;
  }
  if (end == 0) { // planted throughout
    begin = 0;
    end = n;
  }
  const double length = static_cast<double>(end - begin);
  double total = 0.0;
  for (std::size_t f = begin; f < end; ++f) {
    const double x = (static_cast<double>(f - begin) + 0.5) / length;
    total += std::sin(k_pi * x) * std::sin(k_pi * x);
  }
  for (std::size_t f = 0; f < n; ++f) {
    double rise = 0.0;
    if (f >= begin && f < end) {
      const double x = (static_cast<double>(f - begin) + 0.5) / length;
      rise = std::sin(k_pi * x) * std::sin(k_pi * x) / total;
    }
    ramp[f + 1] = ramp[f] + rise;
  }
  ramp[n] = 1.0;
  return ramp;
}

/// The pose of `child` relative to `parent` (both world).
Pose relative(const Pose& parent, const Pose& child) {
  return {rotate(conj(parent.q), child.p - parent.p), conj(parent.q) * child.q};
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

namespace {

/// The cycle whose loop makes the stance feet slide least (stance_drift in metres, plus 1 mm per
/// leg-frame out of reach); 0 when there are fewer than two.
std::size_t cleanest_cycle(const Capture& capture, const LoopClipOptions& options,
                           std::size_t cycles) {
  std::size_t best = 0;
  double best_score = INFINITY;
  for (std::size_t k = 0; cycles > 1 && k < cycles; ++k) {
    LoopClipOptions one = options;
    one.cycle = k;
    try {
      const LoopClip clip(capture, one);
      const double score = clip.stance_drift() * clip.metres_per_unit() +
                           1e-3 * static_cast<double>(clip.unreached());
      if (score < best_score) {
        best_score = score;
        best = k;
      }
    } catch (const MocapError&) {
      // A cycle that cannot be cut (a gap in it) is not a candidate.
    }
  }
  return best;
}

} // namespace

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
    LoopClipOptions from = options;
    if (options.skip_rest_pose && first_frame_is_rest_pose(capture)) {
      rest_pose_skipped_ = true;
      from.start_time = std::max(from.start_time, base.time(1));
    }
    const std::vector<Footfall> all = detect_footfalls(capture, feet_, from, metres_per_unit_);
    cycles_ = count_cycles(all, feet_.size());
    cycle_ = options.cycle ? *options.cycle : cleanest_cycle(capture, options, cycles_);
    cycle = pick_cycle(all, feet_.size(), cycle_, name_);
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

  // Local poses and ground frames of frames a..c, from the tracks' world poses; the capture's
  // world poses kept for the legs.
  const std::size_t n = bones_.size();
  local_.resize((frames_ + 1) * n);
  ground_.resize(frames_ + 1);
  std::vector<Pose> world(n);
  std::vector<Pose> captured((frames_ + 1) * n);
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
      captured[f * n + b] = world[b];
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
        l = relative(world[static_cast<std::size_t>(p)], world[b]);
      }
      if (f > 0) {
        l.q = same_hemisphere(l.q, local_[(f - 1) * n + b].q);
      }
    }
  }
  close_seam(tracks, a, captured, options.footfall, options.min_swing);
  for (std::size_t b = 0; b < n; ++b) {
    local_[frames_ * n + b] = local_[b];
  }
  travel_local_ = ground_[frames_].p;
  ground_[frames_].yaw = 0.0;
  travel_world_ = rotate(yaw_quat(start_ground_.yaw, up_vector_), travel_local_);
  speed_ = norm(travel_local_) * metres_per_unit_ / duration();
  measure_stance_drift(tracks, a, captured, options.footfall, options.min_swing);
}

void LoopClip::close_seam(const std::vector<const Track*>& tracks, std::size_t a,
                          const std::vector<Pose>& captured, FootfallOptions footfall,
                          double min_swing) {
  const std::size_t n = bones_.size();
  footfall.metres_per_unit = metres_per_unit_;
  // Each bone's ramp: its leg's swing ramp, or linear over the cycle.
  std::vector<double> linear(frames_ + 1);
  for (std::size_t f = 0; f <= frames_; ++f) {
    linear[f] = static_cast<double>(f) / static_cast<double>(frames_);
  }
  std::vector<const std::vector<double>*> ramp_of(n, &linear);
  struct Solved {
    detail::Leg leg;
    std::vector<bool> planted;
    std::vector<double> ramp;
  };
  std::vector<Solved> legs;
  legs.reserve(feet_.size());
  std::vector<int> leg_of(n, -1); // which leg's region a bone is in, -2 for several
  for (const std::string& foot : feet_) {
    const int bone = find(foot);
    detail::Leg leg;
    if (bone < 0 || !detail::find_leg(parents_, static_cast<std::size_t>(bone), leg)) {
      warnings_.push_back("foot '" + foot + "' is not the third bone of a leg (foot, shin, " +
                          "thigh): its share of the seam is spread over the whole cycle and may " +
                          "move it while it stands");
      continue;
    }
    const int index = static_cast<int>(legs.size());
    const auto mark = [&](std::size_t b) { leg_of[b] = leg_of[b] == -1 ? index : -2; };
    for (int b = bone; b >= 0; b = parents_[static_cast<std::size_t>(b)]) {
      mark(static_cast<std::size_t>(b));
    }
    std::vector<const Track*> standing{tracks[leg.foot]};
    for (std::size_t b : leg.below) {
      mark(b);
      standing.push_back(tracks[b]);
    }
    std::vector<bool> planted = planted_frames(standing, a, frames_, up_, footfall, min_swing);
    std::vector<double> ramp = swing_ramp(planted);
    legs.push_back({leg, std::move(planted), std::move(ramp)});
  }
  for (std::size_t b = 0; b < n; ++b) {
    if (leg_of[b] >= 0) {
      ramp_of[b] = &legs[static_cast<std::size_t>(leg_of[b])].ramp;
    }
  }

  // Spread each bone's mismatch between the last row (frame c) and the first by its ramp.
  const Pose* first = &local_[0];
  const Pose* last = &local_[frames_ * n];
  std::vector<Quat> rotation_error(n);
  std::vector<Vec3> position_error(n);
  seams_.resize(n);
  for (std::size_t b = 0; b < n; ++b) {
    rotation_error[b] = last[b].q * conj(same_hemisphere(first[b].q, last[b].q));
    position_error[b] = last[b].p - first[b].p;
    seams_[b] = {angle_between(last[b].q, first[b].q), norm(position_error[b])};
    seam_rotation_ = std::max(seam_rotation_, seams_[b].rotation);
  }
  seam_position_ = seams_[static_cast<std::size_t>(target_)].position;
  const double yaw_error = ground_[frames_].yaw;
  const Quat identity{1.0, 0.0, 0.0, 0.0};
  for (std::size_t f = 1; f < frames_; ++f) {
    for (std::size_t b = 0; b < n; ++b) {
      const double u = (*ramp_of[b])[f];
      Pose& l = local_[f * n + b];
      l.q = normalized(slerp(identity, conj(rotation_error[b]), u) * l.q);
      l.p = l.p - u * position_error[b];
    }
    ground_[f].yaw -= linear[f] * yaw_error;
  }

  // Each leg solved so that its foot follows the capture's moved rigidly by the part of its own
  // mismatch the leg's ramp has reached: the turn and shift that take the capture's last frame
  // of the foot onto the loop's (its first, moved by the travel), the turn about the ankle's
  // place in the last frame. A stance foot, whose ramp stands still, then moves exactly as in
  // the capture, turned and shifted as one piece.
  const Vec3 travel = rotate(yaw_quat(start_ground_.yaw, up_vector_), ground_[frames_].p);
  std::vector<Pose> row(n);
  std::vector<Pose> world;
  std::size_t unreached = 0;
  for (const Solved& s : legs) {
    const std::size_t foot = s.leg.foot;
    const Pose& start = captured[foot];
    const Pose& end = captured[frames_ * n + foot];
    const Vec3 shift = start.p + travel - end.p;
    const Quat turn = start.q * conj(same_hemisphere(end.q, start.q));
    const double heading = ground_of({Vec3{}, turn}, up_vector_).yaw;
    for (std::size_t f = 1; f < frames_; ++f) {
      const Pose* locals = &local_[f * n];
      std::copy(locals, locals + n, row.begin());
      forward(compose(start_ground_, ground_[f], up_vector_), row, world);
      const double u = s.ramp[f];
      const Quat partial = slerp(identity, turn, u);
      const Pose& capture_foot = captured[f * n + foot];
      const Vec3 target =
          end.p + rotate(yaw_quat(u * heading, up_vector_), capture_foot.p - end.p) + u * shift;
      const Quat foot_q = normalized(partial * capture_foot.q);
      // A standing foot short of its place by over a millimetre: a leg straighter than its
      // bones allow (in the air it does not matter).
      detail::solve_leg(world, row, s.leg, target, foot_q, parents_);
      if (s.planted[f] && norm(world[foot].p - target) * metres_per_unit_ > 1e-3) {
        ++unreached;
      }
      Pose* out = &local_[f * n];
      for (std::size_t b : {s.leg.hip, s.leg.knee, foot}) {
        const Pose solved = relative(world[static_cast<std::size_t>(parents_[b])], world[b]);
        out[b] = {solved.p, same_hemisphere(solved.q, out[b].q)};
      }
    }
  }
  unreached_ = unreached;
  if (unreached > 0) {
    warnings_.push_back(std::to_string(unreached) + " frame(s) of the cycle a standing ankle fell " +
                        "short of the capture's by over a millimetre (a leg straighter than its bones " +
                        "allow): the foot falls short there");
  }
}

void LoopClip::measure_stance_drift(const std::vector<const Track*>& tracks, std::size_t a,
                                    const std::vector<Pose>& captured, FootfallOptions footfall,
                                    double min_swing) {
  footfall.metres_per_unit = metres_per_unit_;
  const std::size_t n = bones_.size();
  std::vector<Pose> row(n);
  std::vector<Pose> loop((frames_ + 1) * n);
  std::vector<Pose> world;
  for (std::size_t f = 0; f <= frames_; ++f) {
    std::copy(&local_[f * n], &local_[f * n] + n, row.begin());
    forward(compose(start_ground_, ground_[f], up_vector_), row, world);
    std::copy(world.begin(), world.end(), &loop[f * n]);
  }
  for (const std::string& foot : feet_) {
    const int bone = find(foot);
    if (bone < 0) {
      continue;
    }
    std::vector<std::size_t> watched{static_cast<std::size_t>(bone)};
    const std::vector<std::size_t> below =
        detail::bones_below(parents_, static_cast<std::size_t>(bone));
    watched.insert(watched.end(), below.begin(), below.end());
    for (std::size_t b : watched) {
      const std::vector<bool> planted = planted_frames({tracks[b]}, a, frames_, up_, footfall, min_swing);
      std::size_t stance_start = 0;
      for (std::size_t f = 0; f <= frames_; ++f) {
        if (!planted[f]) {
          continue;
        }
        if (f == 0 || !planted[f - 1]) {
          stance_start = f;
        }
        const double moved = norm(flatten(loop[f * n + b].p - loop[stance_start * n + b].p, up_vector_));
        const double own =
            norm(flatten(captured[f * n + b].p - captured[stance_start * n + b].p, up_vector_));
        stance_drift_ = std::max(stance_drift_, moved - own);
      }
    }
  }
  const double drift_m = stance_drift_ * metres_per_unit_;
  if (drift_m > 0.005) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the seam's mismatch moves a standing foot by up to %.1f mm against the capture",
                  1e3 * drift_m);
    warnings_.push_back(text);
  }
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
