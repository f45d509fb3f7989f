#include <odemocap/capture.hpp>
#include <odemocap/error.hpp>

namespace odemocap {

Vec3 axis_vector(Axis axis) {
  return axis == Axis::X ? Vec3{1, 0, 0} : axis == Axis::Y ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
}

const Track* Capture::find_track(std::string_view name) const& {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tracks_[it->second];
}

const Track& Capture::track(std::string_view name) const& {
  if (const Track* t = find_track(name)) {
    return *t;
  }
  std::string names;
  for (const Track& t : tracks_) {
    names += (names.empty() ? "'" : ", '") + t.name() + "'";
  }
  throw MocapError("capture '" + info_.source + "' has no track '" + std::string(name) +
                   "'; its tracks are: " + (names.empty() ? "(none)" : names));
}

bool CaptureInfo::in_metres() const {
  return unit_in_metres > 0.0 && length_scale == unit_in_metres;
}

double CaptureInfo::metres_per_unit() const {
  if (in_metres()) {
    return 1.0;
  }
  return unit_in_metres > 0.0 ? unit_in_metres / length_scale : 0.0;
}

void Capture::scale_positions(double factor) {
  for (Track& t : tracks_) {
    t.scale_positions(factor);
  }
}

void Capture::turn(const Quat& rotation) {
  for (Track& t : tracks_) {
    t.turn(rotation);
  }
}

void Capture::add_track(Track track) {
  if (track.name().empty()) {
    throw MocapError("capture '" + info_.source + "': a track needs a non-empty name");
  }
  if (find_track(track.name()) != nullptr) {
    throw MocapError("capture '" + info_.source + "' already has a track '" + track.name() + "'");
  }
  if (!tracks_.empty()) {
    track.share_times(tracks_.back()); // a recording's tracks mostly have its frames' times
  }
  index_.emplace(track.name(), tracks_.size());
  tracks_.push_back(std::move(track));
}

} // namespace odemocap
