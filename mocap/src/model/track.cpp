#include "checks.hpp"
#include "math/rates.hpp"

#include <odemocap/error.hpp>
#include <odemocap/track.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace odemocap {
namespace {

/// Velocity at the k-th valid sample (a knot of the cubic): the weighted central combination
/// of the rates of the valid intervals on both sides, one-sided at the ends.
/// `rate(i, j, dt)` is the constant rate from sample i to sample j over dt seconds.
template <class IntervalRate>
Vec3 knot_velocity(const ValidIndices& valid, const TimeBase& times, std::size_t k,
                   IntervalRate rate) {
  const auto interval = [&](std::size_t a) {
    return rate(valid[a], valid[a + 1], times[valid[a + 1]] - times[valid[a]]);
  };
  const std::size_t last = valid.size() - 1;
  if (k == 0) {
    return interval(0);
  }
  if (k == last) {
    return interval(last - 1);
  }
  return detail::weighted_central(interval(k - 1), times[valid[k]] - times[valid[k - 1]],
                                  interval(k), times[valid[k + 1]] - times[valid[k]]);
}

/// Appends values [first, first + count) to `to`: one value by push_back(), which inlines (a
/// loader appends a sample at a time), more by insert().
template <typename T> void append_values(std::vector<T>& to, const T* first, std::size_t count) {
  if (count == 1) {
    to.push_back(*first);
  } else {
    to.insert(to.end(), first, first + count);
  }
}

} // namespace

[[gnu::always_inline]] inline std::vector<double>& TimeBase::own() {
  if (shared_ != nullptr) {
    own_.assign(begin(), end());
    shared_.reset();
  }
  sync(); // no view of storage let go
  return own_;
}

Track::Track(std::string name) : name_(std::move(name)) {}

double Track::start_time() const {
  if (times_.empty()) {
    throw MocapError("track '" + name_ + "' is empty: it has no start time");
  }
  return times_.front();
}

double Track::end_time() const {
  if (times_.empty()) {
    throw MocapError("track '" + name_ + "' is empty: it has no end time");
  }
  return times_.back();
}

void Track::set_position_only(bool value) {
  if (value) {
    orientations_ = {};
  } else if (position_only_) {
    orientations_.assign(times_.size(), Quat{});
  }
  position_only_ = value;
}

void Track::reserve(std::size_t n) {
  times_.own().reserve(n);
  times_.sync();
  positions_.reserve(n);
  if (!position_only_) {
    orientations_.reserve(n);
  }
  valid_.reserve(n);
  if (!dense_) {
    valid_index_.reserve(n);
  }
}

void Track::check_time(double time) const {
  const bool plausible = std::fabs(time) <= k_max_abs_time;
  if (plausible && (times_.empty() || time - times_.back() >= k_min_interval)) {
    return; // the common case builds no message
  }
  const std::string where = "track '" + name_ + "', sample " + std::to_string(times_.size());
  if (!plausible) {
    throw MocapError(where + ": time " + detail::describe(time) +
                     " s is not finite or beyond +-1e9 s");
  }
  if (!times_.empty() && !(time > times_.back())) {
    throw MocapError(where + ": time " + detail::describe(time) +
                     " s is not after the previous sample's " + detail::describe(times_.back()) +
                     " s (times must increase strictly)");
  }
  if (!times_.empty() && time - times_.back() < k_min_interval) {
    throw MocapError(where + ": time " + detail::describe(time) + " s is less than 1e-9 s after " +
                     "the previous sample's " + detail::describe(times_.back()) + " s");
  }
}

/// What append()'s checks found in a run of samples.
struct Track::Checked {
  std::size_t accepted = 0;         ///< samples before the first refused one
  bool renormalise = false;         ///< one of them is off unit length by more than rounding
  double max_deviation = 0.0;       ///< the largest | |q| - 1 | among them
  std::size_t max_deviation_at = 0; ///< and its place in the run
};

// Inline: a loader appends a sample at a time, and the checks and stores of one sample are the
// most of its cost.
[[gnu::always_inline]] inline Track::Checked Track::check_samples(const double* times,
                                                                  const Vec3* positions,
                                                                  const Quat* orientations,
                                                                  std::size_t count) const {
  // One test per sample on the common path (a loader appends every sample of a file);
  // messages are built only when one fails (refuse()).
  Checked c;
  double previous = times_.empty() ? -std::numeric_limits<double>::infinity() : back_time_;
  for (; c.accepted < count; ++c.accepted) {
    const double time = times[c.accepted];
    const Vec3& p = positions[c.accepted];
    const double deviation = std::fabs(norm(orientations[c.accepted]) - 1.0);
    const bool plausible =
        std::fabs(time) <= k_max_abs_time && time - previous >= k_min_interval &&
        std::fabs(p.x) <= k_max_abs_position && std::fabs(p.y) <= k_max_abs_position &&
        std::fabs(p.z) <= k_max_abs_position && deviation <= k_unit_tolerance;
    if (!plausible) {
      break;
    }
    c.renormalise = c.renormalise || deviation > 1e-15;
    if (deviation > c.max_deviation) {
      c.max_deviation = deviation;
      c.max_deviation_at = c.accepted;
    }
    previous = time;
  }
  return c;
}

[[gnu::always_inline]] inline void
Track::commit_samples(std::size_t start, std::size_t valid_before, const double* times,
                      const Vec3* positions, const Quat* orientations, const Checked& c) {
  const std::size_t accepted = c.accepted;
  if (c.max_deviation > max_unit_deviation_) {
    max_unit_deviation_ = c.max_deviation;
    max_unit_deviation_sample_ = start + c.max_deviation_at;
  }
  append_values(positions_, positions, accepted);
  // Unit to within a few ulps is left alone: rescaling cannot improve it, only perturb it,
  // and data written and read back must stay bit for bit the same.
  if (!position_only_) {
    append_values(orientations_, orientations, accepted);
    Quat* const stored = orientations_.data() + start;
    for (std::size_t i = 0; c.renormalise && i < accepted; ++i) {
      const double length = norm(stored[i]);
      stored[i] = std::fabs(length - 1.0) <= 1e-15 ? stored[i] : stored[i] * (1.0 / length);
    }
  }
  if (accepted == 1) {
    valid_.push_back(1);
  } else {
    valid_.insert(valid_.end(), accepted, 1);
  }
  if (!dense_) {
    valid_index_.resize(valid_before + accepted);
    std::size_t* const index = valid_index_.data() + valid_before;
    for (std::size_t i = 0; i < accepted; ++i) {
      index[i] = start + i;
    }
  }
  // The ends of the time base and the valid samples' span, once per call (the O(1) interval
  // guess's scale is a division).
  front_time_ = start == 0 ? times[0] : front_time_;
  back_time_ = times[accepted - 1];
  first_valid_time_ = valid_before == 0 ? times[0] : first_valid_time_;
  last_valid_time_ = times[accepted - 1];
  if (valid_count() > 1) {
    index_scale_ = static_cast<double>(valid_count() - 1) / (last_valid_time_ - first_valid_time_);
  }
}

// Both forms of append() in one body, inline in each (the one-sample form folds its loops).
[[gnu::always_inline]] inline void Track::append_samples(const double* times, const Vec3* positions,
                                                         const Quat* orientations,
                                                         std::size_t count) {
  const Checked c = check_samples(times, positions, orientations, count);
  if (c.accepted > 0) {
    const std::size_t start = times_.size();
    const std::size_t valid_before = valid_count();
    append_values(times_.own(), times, c.accepted);
    times_.sync();
    commit_samples(start, valid_before, times, positions, orientations, c);
  }
  if (c.accepted < count) {
    refuse(times[c.accepted], {positions[c.accepted], orientations[c.accepted]});
  }
}

void Track::append(const double* times, const Vec3* positions, const Quat* orientations,
                   std::size_t count) {
  append_samples(times, positions, orientations, count);
}

void Track::append(double time, const Pose& pose) {
  append_samples(&time, &pose.p, &pose.q, 1);
}

void Track::append_together(std::vector<Track>& tracks, const double* times, const Vec3* positions,
                            const Quat* orientations, std::size_t count) {
  if (tracks.empty() || count == 0) {
    return;
  }
  Track& lead = tracks.front();
  for (const Track& t : tracks) {
    if (!t.times_.shares_storage_with(lead.times_) && t.times_ != lead.times_) {
      throw MocapError("Track::append_together: track '" + t.name_ + "' (" +
                       std::to_string(t.size()) + " samples) does not hold the times of '" +
                       lead.name_ + "' (" + std::to_string(lead.size()) + ")");
    }
  }
  // The checks of every track first: the samples before the earliest one refused are appended
  // to all of them, so that they keep the same times.
  const std::size_t n = tracks.size();
  std::vector<Checked> checked(n);
  std::size_t accepted = count;
  std::size_t refusing = n;
  for (std::size_t k = 0; k < n; ++k) {
    checked[k] =
        tracks[k].check_samples(times, positions + k * count, orientations + k * count, count);
    if (checked[k].accepted < accepted) {
      accepted = checked[k].accepted;
      refusing = k;
    }
  }
  if (accepted > 0) {
    if (accepted < count) { // the samples' statistics over what is appended
      for (std::size_t k = 0; k < n; ++k) {
        checked[k] = tracks[k].check_samples(times, positions + k * count, orientations + k * count,
                                             accepted);
      }
    }
    const std::size_t start = lead.size();
    std::vector<std::size_t> valid_before(n);
    for (std::size_t k = 0; k < n; ++k) {
      valid_before[k] = tracks[k].valid_count();
    }
    append_shared_times(tracks, times, accepted);
    for (std::size_t k = 0; k < n; ++k) {
      tracks[k].times_ = lead.times_;
      tracks[k].commit_samples(start, valid_before[k], times, positions + k * count,
                               orientations + k * count, checked[k]);
    }
  }
  if (refusing < n) {
    const Track& t = tracks[refusing];
    const std::size_t i = refusing * count + accepted;
    t.refuse(times[accepted], {positions[i], orientations[i]});
  }
}

bool Track::share_times(Track& other) {
  if (&other == this || times_.shares_storage_with(other.times_)) {
    return true;
  }
  if (times_ != other.times_) {
    return false;
  }
  other.times_.make_shared();
  times_ = other.times_;
  return true;
}

void Track::append_shared_times(std::vector<Track>& tracks, const double* times,
                                std::size_t count) {
  TimeBase& lead = tracks.front().times_;
  if (lead.shared_ == nullptr) { // the first block: the lead's times become the shared ones
    lead.own_.insert(lead.own_.end(), times, times + count);
    lead.make_shared();
  } else {
    // Added to where it is when only these tracks read it and it has room: no other track (a
    // copy elsewhere, perhaps in another thread) sees it change, and no view's pointer moves.
    std::size_t holders = 0;
    for (const Track& t : tracks) {
      holders += t.times_.shares_storage_with(lead) ? 1 : 0;
    }
    std::vector<double>& storage = *lead.shared_;
    if (lead.shared_.use_count() == static_cast<long>(holders) && storage.size() == lead.size_ &&
        storage.capacity() - storage.size() >= count) {
      storage.insert(storage.end(), times, times + count);
    } else { // storage of the lead's own, grown as a vector grows (the others take it next)
      auto grown = std::make_shared<std::vector<double>>();
      grown->reserve(std::max(lead.size_ + count, 2 * lead.size_));
      grown->assign(lead.begin(), lead.end());
      grown->insert(grown->end(), times, times + count);
      lead.shared_ = std::move(grown);
    }
  }
  lead.point();
  lead.size_ = lead.shared_->size();
}

void Track::refuse(double time, const Pose& pose) const {
  check_time(time);
  const Vec3& p = pose.p;
  const bool position_wrong =
      !(std::fabs(p.x) <= k_max_abs_position && std::fabs(p.y) <= k_max_abs_position &&
        std::fabs(p.z) <= k_max_abs_position);
  throw MocapError("track '" + name_ + "', sample " + std::to_string(times_.size()) +
                   " at t=" + detail::describe(time) + " s: " +
                   (position_wrong ? "position " + detail::describe(p) +
                                         " is not finite or beyond +-1e9"
                                   : "orientation " + detail::describe(pose.q) + " has length " +
                                         detail::describe(norm(pose.q)) +
                                         "; expected a unit quaternion (tolerance 1e-3)"));
}

double Track::median_interval() const {
  if (times_.size() < 2) {
    return 0.0;
  }
  std::vector<double> intervals(times_.size() - 1);
  for (std::size_t i = 1; i < times_.size(); ++i) {
    intervals[i - 1] = times_[i] - times_[i - 1];
  }
  const auto middle = intervals.begin() + static_cast<long>(intervals.size() / 2);
  std::nth_element(intervals.begin(), middle, intervals.end());
  return *middle;
}

void Track::retime(const std::vector<double>& times) {
  if (times.size() != times_.size()) {
    throw MocapError("track '" + name_ + "': " + std::to_string(times.size()) + " new times for " +
                     std::to_string(times_.size()) + " samples");
  }
  Track check(name_); // append()'s checks (and messages), on a track of the new times alone
  std::vector<double>& checked = check.times_.own();
  checked.reserve(times.size());
  for (const double t : times) {
    check.check_time(t);
    checked.push_back(t);
    check.times_.sync();
  }
  times_ = std::move(check.times_);
  if (!times_.empty()) {
    front_time_ = times_.front();
    back_time_ = times_.back();
  }
  const ValidIndices valid = valid_indices();
  if (!valid.empty()) {
    first_valid_time_ = times_[valid.front()];
    last_valid_time_ = times_[valid.back()];
  }
  if (valid.size() > 1) {
    index_scale_ = static_cast<double>(valid.size() - 1) / (last_valid_time_ - first_valid_time_);
  }
}

void Track::scale_positions(double factor) {
  detail::require_positive_finite(factor, "Track::scale_positions", "factor");
  for (const Vec3& p : positions_) {
    const double largest = std::fmax(std::fabs(p.x), std::fmax(std::fabs(p.y), std::fabs(p.z)));
    if (!(largest * factor <= k_max_abs_position)) {
      throw MocapError("track '" + name_ + "': position " + detail::describe(p) + " times " +
                       detail::describe(factor) + " is beyond +-1e9");
    }
  }
  for (Vec3& p : positions_) {
    p = p * factor;
  }
}

void Track::turn(const Quat& rotation) {
  const double n = norm(rotation);
  if (!std::isfinite(n) || !(std::fabs(n - 1.0) <= 1e-9)) {
    throw MocapError("track '" + name_ + "': Track::turn needs a unit rotation, got " +
                     detail::describe(rotation));
  }
  for (const Vec3& p : positions_) {
    const Vec3 turned = rotate(rotation, p);
    if (!(std::fmax(std::fabs(turned.x), std::fmax(std::fabs(turned.y), std::fabs(turned.z))) <=
          k_max_abs_position)) {
      throw MocapError("track '" + name_ + "': position " + detail::describe(p) +
                       " turned is beyond +-1e9");
    }
  }
  for (Vec3& p : positions_) {
    p = rotate(rotation, p);
  }
  for (std::size_t i = 0; i < orientations_.size(); ++i) {
    if (valid_[i] != 0) { // a gap keeps its placeholder
      orientations_[i] = rotation * orientations_[i];
    }
  }
}

void Track::append_gap(double time) {
  check_time(time);
  if (dense_) { // every sample so far is valid: the index they did without
    valid_index_.reserve(times_.capacity()); // what reserve() asked for, as for the samples
    valid_index_.resize(times_.size());
    for (std::size_t i = 0; i < times_.size(); ++i) {
      valid_index_[i] = i;
    }
    dense_ = false;
  }
  keep_ends(time);
  times_.own().push_back(time);
  times_.sync();
  positions_.push_back({});
  if (!position_only_) {
    orientations_.push_back({});
  }
  valid_.push_back(0);
}

std::size_t Track::make_continuous() {
  std::size_t negated = 0;
  if (valid_count() == 0 || position_only_) {
    return 0;
  }
  const ValidIndices valid = valid_indices();
  Quat previous_raw = orientations_[valid[0]];
  for (std::size_t k = 1; k < valid.size(); ++k) {
    Quat& q = orientations_[valid[k]];
    const Quat raw = q;
    // Sign changes in the data as it was (one stored -q sample is two of them)...
    if (dot(raw, previous_raw) < 0.0) {
      first_flip_ = flips_ == 0 ? valid[k] : first_flip_;
      last_flip_ = valid[k];
      ++flips_;
    }
    previous_raw = raw;
    // ...and the negations that make the stored samples continuous.
    if (dot(q, orientations_[valid[k - 1]]) < 0.0) {
      q = -q;
      ++negated;
    }
  }
  return negated;
}

std::size_t Track::interval_guess(double t) const {
  const std::size_t last = valid_count() - 1;
  const double guess = (t - first_valid_time_) * index_scale_; // = last / span, kept by append()
  return static_cast<std::size_t>(std::clamp(guess, 0.0, static_cast<double>(last - 1)));
}

std::size_t Track::interval_index(double t, std::size_t guess) const {
  // Index k of the valid samples with time(valid k) <= t < time(valid k+1). A guess from the
  // mean spacing lands on the answer for uniform time bases (O(1)); a short walk absorbs jitter
  // and a binary search covers everything else (O(log n)).
  std::size_t k = guess;
  if (dense_) { // valid k is sample k: no index to read
    for (int step = 0; step < 4; ++step) {
      if (times_[k] > t) {
        --k;
      } else if (times_[k + 1] <= t) {
        ++k;
      } else {
        return k;
      }
    }
    const auto it = std::upper_bound(times_.begin(), times_.end(), t);
    return static_cast<std::size_t>(it - times_.begin()) - 1;
  }
  const auto valid_time = [this](std::size_t v) { return times_[valid_index_[v]]; };
  for (int step = 0; step < 4; ++step) {
    if (valid_time(k) > t) {
      --k;
    } else if (valid_time(k + 1) <= t) {
      ++k;
    } else {
      return k;
    }
  }
  const auto it =
      std::upper_bound(valid_index_.begin(), valid_index_.end(), t,
                       [this](double value, std::size_t i) { return value < times_[i]; });
  return static_cast<std::size_t>(it - valid_index_.begin()) - 1;
}

void Track::keep_ends(double time) {
  front_time_ = times_.empty() ? time : front_time_;
  back_time_ = time;
}

double Track::wrap(double t, OutOfRange out_of_range, double& cycle) const {
  // The ends come from the track object itself, not from times_: a looping driver wraps every
  // step, and the time base's first and last lines are cold by then.
  cycle = 0.0;
  if (out_of_range != OutOfRange::Loop || (t >= first_valid_time_ && t < last_valid_time_) ||
      (t >= front_time_ && t < back_time_)) {
    return t;
  }
  const double start = front_time_;
  const double period = back_time_ - start;
  if (!(period > 0.0)) {
    return t;
  }
  // floor, not fmod, for the first 2^32 periods: glibc's fmod takes time in proportion to the
  // number of periods, and a looping driver asks for ever later times. The result is then off
  // by the rounding of t itself (and one correction brings it back into the period when that
  // rounding crossed a boundary); beyond, fmod gives the phase of the t it was given exactly.
  cycle = std::floor((t - start) / period);
  if (std::fabs(cycle) < 0x1p32) {
    const double wrapped = t - period * cycle;
    if (wrapped < start) {
      cycle -= 1.0;
      return wrapped + period;
    }
    if (wrapped >= start + period) {
      cycle += 1.0;
      return wrapped - period;
    }
    return wrapped;
  }
  const double wrapped = start + std::fmod(t - start, period);
  return wrapped < start ? wrapped + period : wrapped;
}

void Track::prefetch_fields() const {
  // From the first hot field to the last byte of the times' view (TimeBase's first two
  // fields): 136 bytes, at most three lines, each of which one of these addresses falls in.
  const char* const first = reinterpret_cast<const char*>(&index_scale_);
  __builtin_prefetch(first);
  __builtin_prefetch(first + 64);
  __builtin_prefetch(reinterpret_cast<const char*>(&times_) + 2 * sizeof(void*) - 1);
}

Track::Lookup Track::prefetch(double t, OutOfRange out_of_range) const {
  Lookup found;
  found.asked = t;
  found.out_of_range = out_of_range;
  if (valid_count() < 2 || !std::isfinite(t)) {
    return found;
  }
  found.wrapped = wrap(t, out_of_range, found.cycle);
  // The guess of interval_index() without its walk: the lines it names are the ones sample()
  // reads for a uniform time base (and harmless otherwise).
  const std::size_t k = interval_guess(found.wrapped);
  found.guess = k;
  found.ready = true;
  if (!dense_) {
    __builtin_prefetch(&valid_index_[k]);
    return found;
  }
  // First and last byte of each pair of samples: a pair may straddle two cache lines.
  const auto lines = [](const auto* pair) {
    __builtin_prefetch(pair);
    __builtin_prefetch(reinterpret_cast<const char*>(pair + 2) - 1);
  };
  lines(times_.data() + k);
  lines(&positions_[k]);
  if (!position_only_) {
    lines(&orientations_[k]);
  }
  return found;
}

Track::Interval Track::locate(double t, OutOfRange out_of_range, std::size_t& k) const {
  if (!std::isfinite(t)) {
    throw MocapError("track '" + name_ + "': sample time must be finite, got " +
                     detail::describe(t));
  }
  if (valid_count() == 0) {
    throw MocapError("track '" + name_ + "' has no valid sample to interpolate");
  }
  double cycle = 0.0;
  return locate_wrapped(wrap(t, out_of_range, cycle), nullptr, k);
}

Track::Interval Track::locate_wrapped(double t, const std::size_t* guess, std::size_t& k) const {
  if (t <= first_valid_time_) {
    k = 0;
    const std::size_t i = valid_indices().front();
    return {i, i, 0.0};
  }
  if (t >= last_valid_time_) {
    k = valid_count() - 1;
    const std::size_t i = valid_indices().back();
    return {i, i, 0.0};
  }
  k = interval_index(t, guess != nullptr ? *guess : interval_guess(t));
  const std::size_t i = dense_ ? k : valid_index_[k];
  const std::size_t j = dense_ ? k + 1 : valid_index_[k + 1];
  return {i, j, (t - times_[i]) / (times_[j] - times_[i])};
}

Track::Interval Track::interval(double t, OutOfRange out_of_range) const {
  std::size_t k = 0;
  return locate(t, out_of_range, k);
}

Track::Interval Track::interval(const Lookup& at) const {
  if (!at.ready) {
    return interval(at.asked, at.out_of_range); // its checks and errors
  }
  std::size_t k = 0;
  return locate_wrapped(at.wrapped, &at.guess, k);
}

Pose Track::sample(double t, Interp interp, OutOfRange out_of_range) const {
  std::size_t k = 0;
  const Interval at = locate(t, out_of_range, k);
  if (at.i == at.j) {
    return pose(at.i);
  }
  if (interp == Interp::Linear) {
    return interpolate_linear(at);
  }
  const std::size_t i = at.i;
  const std::size_t j = at.j;
  const double duration = times_[j] - times_[i];
  const double u = at.u;
  const auto linear = [this](std::size_t a, std::size_t b, double dt) {
    return (positions_[b] - positions_[a]) / dt;
  };
  const auto angular = [this](std::size_t a, std::size_t b, double dt) {
    return detail::geodesic_rate(orientations_[a], orientations_[b], 1.0 / dt);
  };
  const ValidIndices valid = valid_indices();
  const Vec3 position =
      hermite(positions_[i], knot_velocity(valid, times_, k, linear), positions_[j],
              knot_velocity(valid, times_, k + 1, linear), duration, u);
  if (position_only_) {
    return {position, k_identity_};
  }
  return {position, spherical_cubic(orientations_[i], knot_velocity(valid, times_, k, angular),
                                    orientations_[j], knot_velocity(valid, times_, k + 1, angular),
                                    duration, u)};
}

} // namespace odemocap
