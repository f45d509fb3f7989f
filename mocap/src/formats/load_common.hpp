#pragma once
// What every loader shares: checking options, converting file poses into stored poses (scale
// and up axis), choosing tracks, and turning a Track's complaint into a located LoadError.

#include <odemocap/load.hpp>

#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap::detail {

/// Throws LoadError (no line) for options that make no sense.
void check_options(const LoadOptions& options, std::string_view source);

/// File pose -> stored pose: p' = C (s p), q' = C q.
struct PoseConversion {
  double scale = 1.0;
  Quat rotation;

  Pose apply(const Pose& pose) const {
    if (rotation.w == 1.0) { // no change of up axis, the common case: skip two products
      return {pose.p * scale, pose.q};
    }
    return {rotate(rotation, pose.p * scale), rotation * pose.q};
  }

  /// apply() to `count` poses in place, given as arrays.
  void apply(Vec3* positions, Quat* orientations, std::size_t count) const {
    if (rotation.w == 1.0) {
      for (std::size_t i = 0; i < count; ++i) {
        positions[i].x *= scale;
        positions[i].y *= scale;
        positions[i].z *= scale;
      }
      return;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const Pose turned = apply({positions[i], orientations[i]});
      positions[i] = turned.p;
      orientations[i] = turned.q;
    }
  }
};

/// The conversion for a file whose up axis is `file_up` and whose positions are in units of
/// `declared_unit` metres (0 when the file declares none; `inferred_unit` then, when > 0).
/// LoadOptions::unit_in_metres overrides both. Fills the matching CaptureInfo fields
/// (unit_in_metres, unit_source, length_scale, up_axis).
/// `file_up_negative`: the file's up is the negative axis (C3D Y_SCREEN "-Z"); the data is
/// turned half a turn so that the stored axis points up.
PoseConversion make_conversion(const LoadOptions& options, Axis file_up, double declared_unit,
                               CaptureInfo& info, double inferred_unit = 0.0,
                               bool file_up_negative = false);

/// The rotation make_conversion() turns a file's positions and orientations by for its up
/// axis: from `file_up` (negative: the file's up is that axis's negative) to LoadOptions::up_axis,
/// or to `file_up` itself when none is given (identity, or a half turn when negative). Fills
/// CaptureInfo::up_axis and file_up_axis, and up_axis_source ("format") when empty.
Quat up_conversion(const LoadOptions& options, Axis file_up, bool file_up_negative,
                   CaptureInfo& info);

/// For a file read in its own frame (unit converted, not turned) that does not declare its up
/// axis: the axis and sign its markers show a person upright along (infer_marker_up over
/// `places`, in `info`'s unit), else `assumed`. Fills CaptureInfo's up axis fields as
/// up_conversion() does, up_axis_source "inferred" when the markers told, and a note, ending in
/// `aside`, when they told another axis than `assumed` or its negative. Returns the rotation
/// that turns the data to LoadOptions::up_axis (identity: none).
Quat settle_marker_up(const std::vector<const Track*>& places, Axis assumed,
                      const std::string& aside, const LoadOptions& options, CaptureInfo& info);

/// settle_marker_up() for a capture read whole: the capture is turned by the rotation it
/// returns (a LoadError naming the file if a turned sample is refused). `places` are among the
/// capture's tracks.
void settle_capture_up(Capture& capture, const std::vector<const Track*>& places, Axis assumed,
                       const std::string& aside, const LoadOptions& options);

/// Converts a capture loaded without a known unit to metres (LoadOptions::to_metres) by
/// inferring the unit from its coordinates; nothing happens when the unit is known or the
/// option is off.
void coordinates_to_metres(Capture& capture, const LoadOptions& options);

/// Converts a capture whose file names no unit we know (or none where the format wants one) to
/// metres by inferring the unit from its coordinates; the note starts with `why` (e.g.
/// "POINT:UNITS is 'furlong'") and gives the evidence. With a `why` the file should have
/// declared its unit: the note is also a tolerated defect, and LoadOptions::strict refuses it.
void infer_unit_from_coordinates(Capture& capture, const std::string& why,
                                 const LoadOptions& options);

/// The resolution a number was printed to: 10^-d for d digits after the point, 1 for an
/// integer, 0 when an exponent (or no digit) leaves it unknown.
double printed_resolution(std::string_view text);

/// For a file that prints a time per row (to `resolution`) and states its rate, read into
/// `tracks` with one sample per row (the first track's times are the rows'): when every time lies
/// within the resolution of first + k / rate, k rising with the rows, and the resolution is under a
/// quarter of the frame interval, the times are the rate's grid rounded in print. Then the tracks
/// with one sample per row take the grid's times, and a note says so: a 240 Hz capture printed to
/// the millisecond shows intervals of 4 and 5 ms where every one is 4.17 ms, and velocities taken
/// across them 20% apart. Times that are not the grid (a rate the rows do not keep, dropped frames
/// beyond the resolution) are kept, as are times whose grid a track could not hold (steps
/// under Track::k_min_interval, times beyond Track::k_max_abs_time).
void use_rate_grid(std::vector<Track>& tracks, double rate, double resolution, CaptureInfo& info);

/// The .asf skeleton of an .amc motion: <subject>.asf beside <subject>_<trial>.amc, or the
/// only .asf in its directory. Throws LoadError naming what was looked for.
std::string find_asf_for(const std::string& amc_path);

/// Extends `text`, the first text.size() bytes of the file at `path`, to its first `count`.
void read_on(const std::string& path, std::string& text, std::size_t count);

/// load_capture()'s BVH path: `head` is the file's beginning (all of it when it is `size`
/// bytes long); the motion's rows are read on from the file a piece at a time, and each block
/// of them let go once its frames are in the tracks (a line is read again from `path` for an
/// error found in kinematics). A hierarchy longer than `head` is read from the whole file.
Capture load_bvh_file(std::string head, std::size_t size, const std::string& path,
                      const LoadOptions& options);

/// load_capture()'s C3D path: the file read a window at a time (the data section is never in
/// memory whole). `size` is the file's size, already checked against LoadOptions::max_file_bytes.
Capture load_c3d_file(const std::string& path, std::size_t size, const LoadOptions& options);

/// load_capture()'s path for the two table formats whose files grow largest: the file read
/// from `in` 64 KiB at a time (never in memory whole); `head` is its beginning (at least its
/// first line, and its comment lines for the rigid-body CSV), `lines` its line count.
Capture load_motive_csv_file(std::istream& in, std::string_view head, std::size_t lines,
                             std::string_view source, const LoadOptions& options);
Capture load_rigid_body_csv_file(std::istream& in, std::string_view head, std::size_t lines,
                                 std::string_view source, const LoadOptions& options);

/// The number of '\n' in the file, counted a chunk at a time.
std::size_t count_lines(const std::string& path);

/// The tracks a caller asked for.
class TrackSelection {
public:
  explicit TrackSelection(const std::vector<std::string>& names) : names_(names) {}
  bool keep(std::string_view name) const;
  /// Throws LoadError naming the requested tracks that are not among `available`.
  void check_found(const std::vector<std::string>& available, std::string_view source) const;

private:
  const std::vector<std::string>& names_;
};

} // namespace odemocap::detail
