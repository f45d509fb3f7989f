#pragma once
/// Capture: named tracks plus what is known about where they came from.

#include <odemocap/track.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

/// A world axis.
enum class Axis { X, Y, Z };

/// Metadata of a capture.
struct CaptureInfo {
  std::string source;        ///< file path or a description of where the data came from
  std::string format;        ///< format name, e.g. "bvh", "motive-csv"; empty when built in code
  double frame_rate = 0.0;   ///< nominal capture rate (Hz); 0 when unknown
  std::string length_unit = "m"; ///< unit of the stored positions
  Axis up_axis = Axis::Z;    ///< world axis pointing up in the stored positions
};

/// Named tracks of one recording, in a stable order.
class Capture {
public:
  Capture() = default;
  explicit Capture(CaptureInfo info) : info_(std::move(info)) {}

  const CaptureInfo& info() const { return info_; }
  CaptureInfo& info() { return info_; }

  /// All tracks, in the order they were added.
  const std::vector<Track>& tracks() const { return tracks_; }

  /// The track called `name`; throws MocapError listing the available names when absent.
  const Track& track(std::string_view name) const;

  /// The track called `name`, or nullptr.
  const Track* find_track(std::string_view name) const;

  /// Adds a track; throws MocapError when its name is empty or already taken.
  void add_track(Track track);

private:
  CaptureInfo info_;
  std::vector<Track> tracks_;
};

} // namespace odemocap
