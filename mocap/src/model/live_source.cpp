#include <odemocap/error.hpp>
#include <odemocap/live_source.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

namespace odemocap {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool finite(const LiveSample& s) {
  return std::isfinite(s.capture_time) && std::isfinite(s.receive_time) && is_finite(s.pose.p) &&
         is_finite(s.pose.q) && norm(s.pose.q) > 0.5;
}

Pose interpolate(const LiveSample& a, const LiveSample& b, double c) {
  const double u = (c - a.capture_time) / (b.capture_time - a.capture_time);
  return {a.pose.p + u * (b.pose.p - a.pose.p), slerp(a.pose.q, b.pose.q, u)};
}

/// The newest pose carried on for e seconds with the linear velocity and (along the geodesic)
/// the angular velocity between the two newest samples: exact for constant velocities.
Pose extrapolate(const LiveSample& a, const LiveSample& b, double e) {
  const double dt = b.capture_time - a.capture_time;
  const Vec3 v = (b.pose.p - a.pose.p) / dt;
  const Vec3 w = to_rotation_vector(b.pose.q * conj(same_hemisphere(a.pose.q, b.pose.q))) / dt;
  return {b.pose.p + e * v, normalized(from_rotation_vector(e * w) * b.pose.q)};
}

} // namespace

LiveSource::LiveSource(std::string name, LiveSourceSettings settings)
    : name_(std::move(name)), settings_(std::move(settings)) {
  const LiveSourceSettings& s = settings_;
  const auto non_negative = [](double v) { return v >= 0.0 && std::isfinite(v); };
  if (!non_negative(s.max_extrapolation) || !non_negative(s.min_delay) ||
      !non_negative(s.max_delay) || !(s.min_delay <= s.max_delay)) {
    throw MocapError("LiveSource '" + name_ +
                     "': max_extrapolation, min_delay and max_delay must be finite and not "
                     "negative, min_delay at most max_delay");
  }
  if (s.capacity < 2 || s.jitter_window < 1) {
    throw MocapError("LiveSource '" + name_ +
                     "': capacity must be at least 2 and "
                     "jitter_window at least 1");
  }
  clock_ = s.clock ? s.clock : std::function<double()>(steady_seconds);
}

void LiveSource::push(const LiveSample& sample) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.received;
  // An untracked frame was still received: it counts for loss and order, not for the buffer.
  if (!count_frame_locked(sample.frame, sample.capture_time)) {
    return;
  }
  // Flagged valid but not a pose (a zero or non-unit quaternion, NaN): untracked, counted.
  const double length = norm(sample.pose.q);
  if (!sample.valid || !finite(sample) || !(std::fabs(length - 1.0) <= 1e-3)) {
    ++stats_.invalid;
    return;
  }
  LiveSample unit = sample; // quaternions from the wire are single precision
  unit.pose.q = normalized(sample.pose.q);
  // Clock offset and lateness.
  const double d = sample.receive_time - sample.capture_time;
  offset_ = have_offset_ ? std::fmin(offset_, d) : d;
  have_offset_ = true;
  lateness_.push_back(d);
  if (lateness_.size() > settings_.jitter_window) {
    lateness_.pop_front();
  }
  if (sample.capture_time <= played_) {
    ++stats_.late; // its time was played (extrapolated); it still steadies what comes next
  }
  const auto at =
      std::upper_bound(buffer_.begin(), buffer_.end(), sample.capture_time,
                       [](double t, const LiveSample& s) { return t < s.capture_time; });
  if (at != buffer_.begin() && std::prev(at)->capture_time == sample.capture_time) {
    ++stats_.duplicates;
    return;
  }
  buffer_.insert(at, unit);
  if (buffer_.size() > settings_.capacity) {
    buffer_.pop_front();
  }
  // The frame interval: the smallest capture-time step among the newest samples (a lost
  // frame makes a step of two).
  interval_ = INFINITY;
  for (std::size_t i = buffer_.size() > 8 ? buffer_.size() - 8 : 1; i < buffer_.size(); ++i) {
    interval_ = std::fmin(interval_, buffer_[i].capture_time - buffer_[i - 1].capture_time);
  }
  if (!std::isfinite(interval_)) {
    interval_ = 0.0;
  }
}

bool LiveSource::count_frame_locked(std::uint64_t frame, double capture_time) {
  // A jump ahead of more frames than the capture time allows (twice the frames that fit in
  // the time step, and some) is a corrupted frame number: one such datagram must not count a
  // million losses or become the newest frame.
  if (have_frame_ && frame > newest_frame_ + 1 && interval_ > 0.0) {
    const double fit = (capture_time - newest_frame_time_) / interval_;
    if (!std::isfinite(capture_time) ||
        static_cast<double>(frame - newest_frame_) > 2.0 * std::fmax(fit, 1.0) + 16.0) {
      ++stats_.suspicious;
      return false;
    }
  }
  // Frame numbers: gaps are losses until the frame turns up late.
  if (have_frame_ && frame <= newest_frame_) {
    const bool duplicate = frame == newest_frame_ ||
                           std::any_of(buffer_.begin(), buffer_.end(),
                                       [&](const LiveSample& s) { return s.frame == frame; });
    if (duplicate) {
      ++stats_.duplicates;
      return false;
    }
    ++stats_.reordered;
    if (stats_.lost > 0) {
      --stats_.lost;
    }
    return true;
  }
  if (have_frame_) {
    stats_.lost += static_cast<std::size_t>(frame - newest_frame_ - 1);
  }
  newest_frame_ = frame;
  newest_frame_time_ = capture_time;
  have_frame_ = true;
  return true;
}

double LiveSource::depth_locked() const {
  // The latest sample's lateness plus one frame interval: the sample after the played time
  // has then arrived, and the pose is interpolated, not extrapolated. Driver queries ask ahead
  // of the clock (the end of the coming step): the buffer is deeper by as much.
  double worst = 0.0;
  for (double d : lateness_) {
    worst = std::fmax(worst, d - offset_);
  }
  double ahead = 0.0;
  for (double a : ahead_) {
    ahead = std::fmax(ahead, a);
  }
  return std::clamp(worst + interval_ + ahead, settings_.min_delay, settings_.max_delay);
}

bool LiveSource::pose_at_local(double local, Pose& out) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pose_locked(local, out);
}

bool LiveSource::pose_locked(double local, Pose& out) const {
  if (buffer_.empty() || !std::isfinite(local)) {
    return false;
  }
  const double c = std::fmax(local - offset_ - depth_locked(), played_); // never backwards
  played_ = c;
  stale_ = false;
  if (c <= buffer_.front().capture_time) {
    out = buffer_.front().pose;
    return true;
  }
  const LiveSample& newest = buffer_.back();
  if (c <= newest.capture_time) {
    const auto after =
        std::lower_bound(buffer_.begin(), buffer_.end(), c,
                         [](const LiveSample& s, double t) { return s.capture_time < t; });
    out = interpolate(*std::prev(after), *after, c);
    return true;
  }
  // Past the data: played no further than the pose given, so samples arriving late still
  // find their place ahead of the played time.
  double e = c - newest.capture_time;
  if (buffer_.size() < 2) { // one sample: no velocity to carry it on with
    stale_ = true;
    ++stats_.stale;
    played_ = newest.capture_time;
    out = newest.pose;
    return true;
  }
  if (e > settings_.max_extrapolation) {
    e = settings_.max_extrapolation;
    stale_ = true;
    ++stats_.stale;
    played_ = newest.capture_time + e;
  } else {
    ++stats_.extrapolated;
  }
  out = extrapolate(buffer_[buffer_.size() - 2], newest, e);
  return true;
}

bool LiveSource::pose(double t, Pose& out) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!have_epoch_) {
    epoch_ = clock_() - t;
    have_epoch_ = true;
  }
  const double local = t + epoch_;
  if (std::isfinite(local)) {
    ahead_.push_back(std::fmax(0.0, local - clock_()));
    if (ahead_.size() > settings_.jitter_window) {
      ahead_.pop_front();
    }
  }
  return pose_locked(local, out);
}

double LiveSource::end_time() const {
  return std::numeric_limits<double>::infinity();
}

LiveState LiveSource::state() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return {stats_, offset_, depth_locked(), played_, stale_};
}

} // namespace odemocap
