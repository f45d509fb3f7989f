#include <odemocap/error.hpp>
#include <odemocap/pose_source.hpp>

#include <cmath>
#include <limits>
#include <utility>

namespace odemocap {

TrackSource::TrackSource(Track track, Interp interp) : track_(std::move(track)), interp_(interp) {
  if (track_.valid_count() == 0) {
    throw MocapError("TrackSource: track '" + track_.name() + "' has no valid sample");
  }
}

bool TrackSource::pose(double t, Pose& out) const {
  out = track_.sample(t, interp_, OutOfRange::Clamp);
  return true;
}

double TrackSource::start_time() const {
  return track_.time(track_.valid_indices().front());
}

double TrackSource::end_time() const {
  return track_.time(track_.valid_indices().back());
}

FunctionSource::FunctionSource(std::string name, Function f, double start, double end)
    : name_(std::move(name)), f_(std::move(f)), start_(start), end_(end) {
  if (!f_) {
    throw MocapError("FunctionSource '" + name_ + "': the function is empty");
  }
  if (std::isnan(start_) || start_ == std::numeric_limits<double>::infinity() ||
      !(end_ >= start_)) {
    throw MocapError("FunctionSource '" + name_ +
                     "': start must be a number below +infinity and not after the end");
  }
}

} // namespace odemocap
