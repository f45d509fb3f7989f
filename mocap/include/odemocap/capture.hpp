#pragma once
/// Capture: named tracks plus what is known about where they came from.

#include <odemocap/skeleton.hpp>
#include <odemocap/track.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

/// A world axis.
enum class Axis { X, Y, Z };

/// The unit vector along `axis`.
Vec3 axis_vector(Axis axis);

/// Metadata of a capture.
struct CaptureInfo {
  std::string source;      ///< file path or a description of where the data came from
  std::string format;      ///< format name, e.g. "bvh", "motive-csv"; empty when built in code
  double frame_rate = 0.0; ///< nominal capture rate (Hz); 0 when unknown
  /// The file's length unit as named by the file (declared), by the caller (given) or by the
  /// loader's inference, e.g. "mm", "Meters", "CMU unit (1/0.45 in)"; "" when unknown.
  std::string length_unit;
  /// Metres per length unit of the file; 0 when unknown (the stored positions are then the
  /// file's numbers times LoadOptions::length_scale, in no known unit).
  double unit_in_metres = 0.0;
  /// Where unit_in_metres came from: "declared" (the file says), "given"
  /// (LoadOptions::unit_in_metres), "inferred" (see the notes for the evidence) or "" (unknown).
  std::string unit_source;
  double length_scale = 1.0; ///< factor applied to the file's numbers to get stored positions
  Axis up_axis = Axis::Z;    ///< world axis pointing up in the stored positions
  /// The file's up axis (before LoadOptions::up_axis turned it) and where it came from:
  /// "declared" (the file says, e.g. C3D POINT:Y_SCREEN), "format" (the format's fixed
  /// convention: Motive, TRC and ASF Y; Qualisys, Vicon, MVNX and generic CSV Z; C3D without
  /// POINT:Y_SCREEN, where the markers do not tell, Z), or
  /// "inferred" (BVH from the skeleton's head and feet, TRC and C3D without POINT:Y_SCREEN from
  /// where the markers stand; see the notes).
  Axis file_up_axis = Axis::Z;
  std::string up_axis_source;
  /// What the loader noticed and did not trust, e.g. a header frame count that disagrees
  /// with the data rows; one sentence each.
  std::vector<std::string> notes;
  /// What was wrong with the file but loaded anyway (also among the notes): a header count
  /// that disagrees with the data, a data block cut short. LoadOptions::strict refuses these
  /// instead; `odemocap validate` reports each as a "tolerated" finding.
  std::vector<std::string> tolerated;

  /// Whether stored positions are metres: the file's unit is known and no further scale was
  /// asked for (LoadOptions::length_scale 1).
  bool in_metres() const;
  /// Metres per stored length unit: 1 when in_metres(), unit_in_metres / length_scale when the
  /// file's unit is known, 0 when it is not.
  double metres_per_unit() const;
  /// Label of the stored length unit: "m" when in_metres(), otherwise "length units".
  const char* length_label() const { return in_metres() ? "m" : "length units"; }
};

/// Named tracks of one recording, in a stable order.
class Capture {
public:
  Capture() = default;
  explicit Capture(CaptureInfo info) : info_(std::move(info)) {}

  const CaptureInfo& info() const { return info_; }
  CaptureInfo& info() { return info_; }

  /// All tracks, in the order they were added.
  const std::vector<Track>& tracks() const& { return tracks_; }

  /// The track called `name`; throws MocapError listing the available names when absent.
  const Track& track(std::string_view name) const&;

  /// The track called `name`, or nullptr.
  const Track* find_track(std::string_view name) const&;

  // A track of a temporary capture would dangle: keep the Capture in a variable.
  void tracks() && = delete;
  void track(std::string_view) && = delete;
  void find_track(std::string_view) && = delete;

  /// Adds a track; throws MocapError when its name is empty or already taken. Times equal to
  /// the track before's are kept once (Track::share_times()).
  void add_track(Track track);

  /// Multiplies every track's positions by `factor` (Track::scale_positions); the skeleton
  /// keeps its file units.
  void scale_positions(double factor);

  /// Turns every track by `rotation` (Track::turn), e.g. to change the capture's up axis; the
  /// skeleton keeps its file frame. Throws MocapError as Track::turn does; the tracks turned
  /// before the one that threw stay turned.
  void turn(const Quat& rotation);

  /// The hierarchy the capture was computed from (BVH, ASF/AMC, MVNX, a Motive skeleton), or
  /// nullptr. It keeps no rows of channels (Skeleton::motion is empty: the tracks hold the
  /// poses); parse_bvh_skeleton() gives a BVH's.
  const Skeleton* skeleton() const& { return skeleton_ ? &*skeleton_ : nullptr; }
  void skeleton() && = delete;
  void set_skeleton(Skeleton skeleton) { skeleton_ = std::move(skeleton); }

private:
  CaptureInfo info_;
  std::vector<Track> tracks_;
  /// Track index by name: captures with thousands of markers stay O(1) per lookup.
  std::map<std::string, std::size_t, std::less<>> index_;
  std::optional<Skeleton> skeleton_;
};

} // namespace odemocap
