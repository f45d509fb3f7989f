#pragma once
/// Track: one rigid body's captured samples.

#include <odemocap/interpolation.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace odemocap {

/// The indices of a track's valid samples, ascending: a view into the track (valid while the
/// track is alive and unchanged), indexable and iterable like a vector. A track without gaps
/// stores no index (sample k is valid sample k); one with gaps keeps an array.
class ValidIndices {
public:
  /// A random-access iterator over the indices (by value: there may be no array behind them).
  class iterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::size_t;

    iterator() = default;
    iterator(const std::size_t* index, std::size_t k) : index_(index), k_(k) {}
    std::size_t operator*() const { return index_ != nullptr ? index_[k_] : k_; }
    std::size_t operator[](difference_type n) const { return *(*this + n); }
    iterator& operator++() {
      ++k_;
      return *this;
    }
    iterator& operator--() {
      --k_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++k_;
      return old;
    }
    iterator operator--(int) {
      iterator old = *this;
      --k_;
      return old;
    }
    iterator& operator+=(difference_type n) {
      k_ += static_cast<std::size_t>(n);
      return *this;
    }
    iterator& operator-=(difference_type n) {
      k_ -= static_cast<std::size_t>(n);
      return *this;
    }
    friend iterator operator+(iterator i, difference_type n) { return i += n; }
    friend iterator operator+(difference_type n, iterator i) { return i += n; }
    friend iterator operator-(iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(iterator a, iterator b) {
      return static_cast<difference_type>(a.k_) - static_cast<difference_type>(b.k_);
    }
    friend bool operator==(iterator a, iterator b) { return a.k_ == b.k_; }
    friend bool operator!=(iterator a, iterator b) { return a.k_ != b.k_; }
    friend bool operator<(iterator a, iterator b) { return a.k_ < b.k_; }
    friend bool operator>(iterator a, iterator b) { return a.k_ > b.k_; }
    friend bool operator<=(iterator a, iterator b) { return a.k_ <= b.k_; }
    friend bool operator>=(iterator a, iterator b) { return a.k_ >= b.k_; }

  private:
    const std::size_t* index_ = nullptr;
    std::size_t k_ = 0;
  };
  using const_iterator = iterator;

  /// `count` indices: index[0..count) when `index` is given, else 0..count - 1.
  ValidIndices(const std::size_t* index, std::size_t count) : index_(index), count_(count) {}

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// Sample index of valid sample k (k < size()).
  std::size_t operator[](std::size_t k) const { return index_ != nullptr ? index_[k] : k; }
  std::size_t front() const { return (*this)[0]; }
  std::size_t back() const { return (*this)[count_ - 1]; }
  iterator begin() const { return {index_, 0}; }
  iterator end() const { return {index_, count_}; }

  friend bool operator==(const ValidIndices& a, const ValidIndices& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const ValidIndices& a, const ValidIndices& b) { return !(a == b); }

private:
  const std::size_t* index_;
  std::size_t count_;
};

/// A track's sample times (s): a view, indexable and iterable like a vector, of storage that
/// tracks may share. Tracks filled together (Track::append_together(), what the BVH loader does)
/// or given each other's equal times (Track::share_times(), Capture::add_track()), and copies of
/// them, hold their times once; a track whose times change is given its own copy first, so the
/// sharing shows in memory only. Valid while the track is alive and unchanged.
class TimeBase {
public:
  TimeBase() noexcept = default;
  TimeBase(const TimeBase& other) : size_(other.size_), own_(other.own_), shared_(other.shared_) {
    point();
  }
  TimeBase& operator=(const TimeBase& other) {
    if (this != &other) {
      *this = TimeBase(other); // our storage let go, not kept for the copy's
    }
    return *this;
  }
  /// The view moved from is left empty.
  TimeBase(TimeBase&& other) noexcept
      : size_(other.size_), own_(std::move(other.own_)), shared_(std::move(other.shared_)) {
    point();
    other.clear();
  }
  TimeBase& operator=(TimeBase&& other) noexcept {
    if (this != &other) {
      size_ = other.size_;
      own_ = std::move(other.own_);
      shared_ = std::move(other.shared_);
      point();
      other.clear();
    }
    return *this;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const double* data() const noexcept { return data_; }
  const double* begin() const noexcept { return data_; }
  const double* end() const noexcept { return data_ + size_; }
  double operator[](std::size_t i) const { return data_[i]; }
  double front() const { return data_[0]; }
  double back() const { return data_[size_ - 1]; }
  /// The times as a vector of their own.
  std::vector<double> to_vector() const { return {begin(), end()}; }
  /// Whether the two views read the same shared storage (tracks that keep their times once).
  bool shares_storage_with(const TimeBase& other) const noexcept {
    return shared_ != nullptr && shared_ == other.shared_;
  }

  friend bool operator==(const TimeBase& a, const TimeBase& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const TimeBase& a, const TimeBase& b) { return !(a == b); }

private:
  friend class Track;
  /// The times as storage of this view's own, for a change (a shared view copies its times
  /// first); sync() after the change.
  std::vector<double>& own();
  /// Views the storage of its own again, after a change.
  void sync() noexcept {
    data_ = own_.data();
    size_ = own_.size();
  }
  void point() noexcept { data_ = shared_ != nullptr ? shared_->data() : own_.data(); }
  /// Moves storage of its own into shared storage (the values stay where they are).
  void make_shared() {
    if (shared_ == nullptr) {
      shared_ = std::make_shared<std::vector<double>>(std::move(own_));
      own_ = {};
      point();
    }
  }
  void clear() noexcept {
    own_ = {};
    shared_.reset();
    data_ = nullptr;
    size_ = 0;
  }
  std::size_t capacity() const noexcept {
    return shared_ != nullptr ? shared_->capacity() : own_.capacity();
  }

  // data_ and size_ first: with the track's hot fields.
  const double* data_ = nullptr;
  std::size_t size_ = 0;
  /// The times, unless shared_ holds them (then empty).
  std::vector<double> own_;
  /// Storage shared with other tracks (Track::append_together()); this view reads its first
  /// size_ times. Changed only where no other view can see it.
  std::shared_ptr<std::vector<double>> shared_;
};

/// One rigid body's samples over time, stored as contiguous arrays (structure of arrays).
///
/// Times are seconds, strictly increasing, not necessarily uniform. Positions are metres in
/// the capture's world frame; orientations are unit quaternions (body to world). A sample may
/// be invalid (an occlusion or gap): it keeps its time but carries no pose.
class Track {
public:
  /// Tolerance on | |q| - 1 | for orientations given to append(); within it q is renormalised,
  /// beyond it append() throws.
  static constexpr double k_unit_tolerance = 1e-3;
  /// Plausibility limits: data beyond them is corrupt, and within them every velocity derived
  /// from the track is finite (|v| <= 2e18 m/s, |omega| <= 2 pi 1e9 rad/s).
  static constexpr double k_max_abs_time = 1e9;     ///< s, about 31 years
  static constexpr double k_min_interval = 1e-9;    ///< s between consecutive samples
  static constexpr double k_max_abs_position = 1e9; ///< m (or file units), per component

  /// An empty track called `name`.
  explicit Track(std::string name = {});

  /// Track name (joint or rigid-body name).
  const std::string& name() const { return name_; }
  /// Marker tracks (C3D points) carry positions only: their orientations are the identity and
  /// mean nothing, and are not stored (32 bytes a sample: a third of a marker capture's memory).
  /// Loaders set this before appending; angular checks and estimates skip such tracks.
  bool position_only() const { return position_only_; }
  /// Setting it drops the stored orientations (append() then stores none: the orientation it
  /// is given is not kept); clearing it gives every sample so far the identity.
  void set_position_only(bool value);
  /// Number of samples, valid or not.
  std::size_t size() const { return times_.size(); }
  /// Number of valid samples.
  std::size_t valid_count() const { return dense_ ? times_.size() : valid_index_.size(); }
  bool empty() const { return times_.empty(); }

  /// Time of sample i (s).
  double time(std::size_t i) const { return times_[i]; }
  /// Position of sample i (m, world); zero for an invalid sample.
  const Vec3& position(std::size_t i) const { return positions_[i]; }
  /// Orientation of sample i (body to world); identity for an invalid sample and for every
  /// sample of a position-only track.
  const Quat& orientation(std::size_t i) const {
    return position_only_ ? k_identity_ : orientations_[i];
  }
  /// Whether sample i holds a measured pose.
  bool valid(std::size_t i) const { return valid_[i] != 0; }
  /// Pose of sample i.
  Pose pose(std::size_t i) const { return {positions_[i], orientation(i)}; }

  /// Contiguous views for hot loops. The times may be shared with other tracks (TimeBase).
  const TimeBase& times() const { return times_; }
  const std::vector<Vec3>& positions() const { return positions_; }
  /// Orientations, one per sample; empty for a position-only track.
  const std::vector<Quat>& orientations() const { return orientations_; }
  /// Validity per sample (1 valid, 0 gap).
  const std::vector<std::uint8_t>& valid_flags() const { return valid_; }
  /// Indices of the valid samples, ascending (a view: see ValidIndices).
  ValidIndices valid_indices() const {
    return {dense_ ? nullptr : valid_index_.data(), valid_count()};
  }

  /// Time of the first and last sample (s); throws MocapError on an empty track.
  double start_time() const;
  double end_time() const;

  /// Median time between consecutive samples (s), the nominal frame interval that dropped
  /// frames and excerpts leave alone; 0 for fewer than two samples.
  double median_interval() const;

  void reserve(std::size_t n);

  /// Appends a valid sample. Throws MocapError naming the track, sample and value when the
  /// time is not finite, beyond k_max_abs_time or less than k_min_interval after the previous
  /// one, the position is not finite or beyond k_max_abs_position, or the orientation is not
  /// finite or off unit length by more than k_unit_tolerance.
  void append(double time, const Pose& pose);

  /// Appends `count` valid samples, given as arrays like the track's own (times in s, then
  /// positions and orientations as for append()): what append() does for each in turn, with
  /// the same checks and errors (the samples before a refused one stay appended). The
  /// loaders' bulk form: the arrays are copied whole, the time span is updated once.
  void append(const double* times, const Vec3* positions, const Quat* orientations,
              std::size_t count);

  /// Appends `count` valid samples at the same `times` to every track of `tracks`, storing the
  /// times once: the tracks then share one time base (TimeBase), as a loader filling a
  /// skeleton's tracks a block of frames at a time wants. Track k's poses are positions[k *
  /// count + i] and orientations[k * count + i]. The tracks must hold the same times already
  /// (none at first); throws MocapError naming the track that does not. Each sample is checked
  /// as append() checks it: the samples before the earliest refused one are appended to every
  /// track, then the MocapError of that sample (the first track's to refuse it) is thrown.
  static void append_together(std::vector<Track>& tracks, const double* times,
                              const Vec3* positions, const Quat* orientations, std::size_t count);

  /// Keeps this track's times in `other`'s storage when the two hold the same times (returns
  /// true), for memory: nothing either track shows changes. False, and nothing done, when they
  /// differ.
  bool share_times(Track& other);

  /// Appends an invalid sample (a gap) at `time`, with the same checks on time.
  void append_gap(double time);

  /// Replaces every sample's time by `times` (one per sample, each checked as append() checks
  /// a time), e.g. a loader's file times rounded in print by the rate's grid they were. Throws
  /// MocapError naming the sample when a time is refused; the track is then unchanged.
  void retime(const std::vector<double>& times);

  /// Multiplies every position by `factor` (finite, > 0), e.g. to convert units. Throws
  /// MocapError when a position would pass k_max_abs_position.
  void scale_positions(double factor);

  /// Turns every sample by `rotation` (unit): p' = R p, and q' = R q where orientations are
  /// stored, e.g. to change a loaded capture's up axis. Throws MocapError for a rotation that is
  /// not finite and unit, or when a position would pass k_max_abs_position; the track is then
  /// unchanged.
  void turn(const Quat& rotation);

  /// Makes consecutive valid orientations lie in one hemisphere (dot >= 0) by negating samples
  /// where needed; the rotations are unchanged. Returns the number of samples negated.
  std::size_t make_continuous();

  /// What the data looked like before it was tidied, for validation: the sign changes between
  /// consecutive valid samples that make_continuous() found (a single stored -q is two) and
  /// the samples of the first and the last; the largest | |q| - 1 | append() accepted and renormalised, and
  /// its sample.
  std::size_t hemisphere_flips() const { return flips_; }
  std::size_t first_flip() const { return first_flip_; }
  std::size_t last_flip() const { return last_flip_; }
  double max_unit_deviation() const { return max_unit_deviation_; }
  std::size_t max_unit_deviation_sample() const { return max_unit_deviation_sample_; }

  /// Interpolated pose at time t (s). Gaps are bridged between the nearest valid samples on
  /// each side. O(1) for a uniform time base without gaps, O(log n) otherwise. Throws
  /// MocapError when t is not finite or the track has no valid sample.
  Pose sample(double t, Interp interp = Interp::Linear,
              OutOfRange out_of_range = OutOfRange::Clamp) const;

  /// The samples sample(t, Interp::Linear, out_of_range) interpolates, and where between them:
  /// its pose is interpolate_linear() of samples i and j at fraction u (bit for bit). Outside
  /// the valid samples' span (after wrapping for OutOfRange::Loop) i == j is the nearer end
  /// and u is 0. For a caller that samples many tracks in one pass (the kinematic driver): find
  /// every interval first, then interpolate, so the tracks' work overlaps. Throws as sample().
  struct Interval {
    std::size_t i = 0; ///< sample index of the earlier sample
    std::size_t j = 0; ///< sample index of the later sample (i when outside the span)
    double u = 0.0;    ///< fraction from i to j, in [0, 1)
  };
  Interval interval(double t, OutOfRange out_of_range = OutOfRange::Clamp) const;

  /// The linear interpolation of samples i and j at fraction u: lerp of the positions, slerp
  /// of the orientations (the identity for a position-only track). What sample() returns for
  /// Interp::Linear at the interval() of its time.
  Pose interpolate_linear(const Interval& at) const {
    if (position_only_) {
      return {positions_[at.i] + (positions_[at.j] - positions_[at.i]) * at.u, k_identity_};
    }
    return interpolate_linear(positions_[at.i], orientations_[at.i], positions_[at.j],
                              orientations_[at.j], at.u);
  }
  /// The same from samples already read: p0, q0 at u = 0, p1, q1 at u = 1.
  static Pose interpolate_linear(const Vec3& p0, const Quat& q0, const Vec3& p1, const Quat& q1,
                                 double u) {
    return {p0 + (p1 - p0) * u, slerp(q0, q1, u)};
  }

  /// What prefetch() worked out for a time: the time wrapped into the valid span
  /// (OutOfRange::Loop) and the first guess of its interval, for interval() to go on from.
  struct Lookup {
    double asked = 0.0;   ///< the time given to prefetch() (s)
    double wrapped = 0.0; ///< asked, wrapped for OutOfRange::Loop (s)
    /// Whole loop periods (end_time() - start_time()) taken off `asked` to wrap it: 0 inside
    /// the first period and without OutOfRange::Loop. A looping caller whose cycle changed
    /// between two times crossed the loop's seam, where the last pose jumps to the first.
    double cycle = 0.0;
    std::size_t guess = 0; ///< the interval guess (index among the valid samples)
    OutOfRange out_of_range = OutOfRange::Clamp;
    bool ready = false; ///< false: nothing worked out (see prefetch())
  };

  /// Asks the CPU to start loading the samples sample(t, ..., out_of_range) will read, and
  /// returns at once: a caller about to sample many tracks prefetches them all first, so their
  /// cache misses overlap instead of adding up. No effect on results; works nothing out (and
  /// loads nothing) for a non-finite t or a track with fewer than two valid samples.
  Lookup prefetch(double t, OutOfRange out_of_range = OutOfRange::Clamp) const;
  /// interval(t, out_of_range) for the t and out_of_range given to the prefetch() that returned
  /// `at`, going on from its wrapped time and guess: the same result. The track must not have
  /// changed since.
  Interval interval(const Lookup& at) const;

  /// Asks the CPU to load the fields of this object that prefetch() and sample() read (not the
  /// samples): the first stage of a pipeline over many tracks, before prefetch().
  void prefetch_fields() const;

  /// Whether this track's prefetch() and interval() give, for any time, what the other's give:
  /// both without gaps and on the same times in memory (the bones of one capture, whose loader
  /// kept their times once). A caller sampling many such tracks at one time may then work the
  /// lookup and the interval out once, for the first, and pass them to the others.
  bool same_intervals_as(const Track& other) const noexcept {
    return dense_ && other.dense_ && times_.data() == other.times_.data() &&
           times_.size() == other.times_.size();
  }
  /// What prefetch() asks the CPU to load, but the times, for a Lookup that prefetch() gave for
  /// a track same_intervals_as() this one: this track's samples at the lookup's guess.
  /// Inlined always: GCC 12 takes a function that only prefetches for one without effects and
  /// deletes the calls to it that it did not inline (the driver's shared lookups then went
  /// without their samples).
  [[gnu::always_inline]] void prefetch_samples(const Lookup& at) const {
    if (!at.ready || !dense_) {
      return;
    }
    prefetch_pair(&positions_[at.guess]);
    if (!position_only_) {
      prefetch_pair(&orientations_[at.guess]);
    }
  }

private:
  /// Asks the CPU to load the two consecutive samples from `pair` on: their first and last
  /// byte, since a pair may straddle two cache lines. Inlined always (see prefetch_samples()).
  template <class T> [[gnu::always_inline]] static void prefetch_pair(const T* pair) {
    __builtin_prefetch(pair);
    __builtin_prefetch(reinterpret_cast<const char*>(pair + 2) - 1);
  }
  struct Checked;
  /// append()'s checks of `count` samples, up to the first refused one; nothing is changed.
  Checked check_samples(const double* times, const Vec3* positions, const Quat* orientations,
                        std::size_t count) const;
  /// Appends the samples check_samples() accepted, but their times (already in times_): `start`
  /// and `valid_before` are size() and valid_count() before.
  void commit_samples(std::size_t start, std::size_t valid_before, const double* times,
                      const Vec3* positions, const Quat* orientations, const Checked& checked);
  /// Both forms of append().
  void append_samples(const double* times, const Vec3* positions, const Quat* orientations,
                      std::size_t count);
  /// Adds `count` times to the first track's time base, for append_together().
  static void append_shared_times(std::vector<Track>& tracks, const double* times,
                                  std::size_t count);
  void check_time(double time) const;
  /// Throws the MocapError append() owes a sample that failed its checks.
  [[noreturn, gnu::cold]] void refuse(double time, const Pose& pose) const;
  /// t mapped into [start, end) for OutOfRange::Loop when outside the valid samples' span;
  /// `cycle` gets the whole periods taken off (Lookup::cycle).
  double wrap(double t, OutOfRange out_of_range, double& cycle) const;
  /// Keeps front_time_ and back_time_ as a sample at `time` is appended.
  void keep_ends(double time);
  /// O(1) first guess of interval_index() from the mean spacing, clamped to the intervals.
  std::size_t interval_guess(double t) const;
  /// Index k of the valid samples whose interval holds t, its walk starting from `guess`
  /// (interval_guess() or what prefetch() kept of it).
  std::size_t interval_index(double t, std::size_t guess) const;
  /// interval() and the position k of sample i among the valid samples (what cubic
  /// interpolation needs for its knot velocities).
  Interval locate(double t, OutOfRange out_of_range, std::size_t& k) const;
  /// locate() for a time already wrapped, with the interval guess when it is known (else
  /// computed).
  Interval locate_wrapped(double t, const std::size_t* guess, std::size_t& k) const;

  static constexpr Quat k_identity_{};

  // The fields prefetch() and sample() read come first, in at most three cache lines
  // (prefetch_fields()), up to the times' view (TimeBase's data and size; its storage after);
  // the rest after.
  /// (valid samples - 1) / (their time span): the O(1) interval guess without a division.
  double index_scale_ = 0.0;
  /// Times of the first and last valid samples, kept by append(): sample() reads them without
  /// touching the arrays' ends (cache misses when a driver samples many tracks per step).
  double first_valid_time_ = 0.0;
  double last_valid_time_ = 0.0;
  double front_time_ = 0.0; ///< times_.front(), kept beside the hot fields
  double back_time_ = 0.0;  ///< times_.back()
  /// Every sample is valid: sample indices are valid indices, no index stored or read.
  bool dense_ = true;
  bool position_only_ = false;
  std::vector<Vec3> positions_;
  std::vector<Quat> orientations_;
  /// Indices of the valid samples, ascending, once the track has a gap (empty while dense_:
  /// sample k is then valid sample k, and 8 bytes a sample are saved); interpolation runs over
  /// these.
  std::vector<std::size_t> valid_index_;
  TimeBase times_;
  std::vector<std::uint8_t> valid_;
  std::string name_;
  std::size_t flips_ = 0;
  std::size_t first_flip_ = 0;
  std::size_t last_flip_ = 0;
  double max_unit_deviation_ = 0.0;
  std::size_t max_unit_deviation_sample_ = 0;
};

} // namespace odemocap
