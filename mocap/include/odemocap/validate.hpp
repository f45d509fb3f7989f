#pragma once
/// Capture validation: what is wrong or suspicious in a loaded capture, where, and how much.

#include <odemocap/capture.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace odemocap {

enum class Severity { Info, Warning, Error };

/// One finding: which check, which track (empty for the whole file), which samples
/// (first..last, inclusive, sample indices of the track), the measured value and a sentence.
struct Finding {
  std::string check;
  Severity severity = Severity::Warning;
  std::string track;
  std::size_t first = 0;
  std::size_t last = 0;
  double value = 0.0;
  std::string message;
};

/// Thresholds, in the capture's stored units: metres when it was loaded with
/// LoadOptions::to_metres (the defaults fit human motion in metres). validate_capture refuses
/// values that are not finite and positive.
struct ValidateOptions {
  /// Angular speed (rad/s) between consecutive samples above which a spike is reported; 40
  /// rad/s is beyond human motion.
  double max_angular_speed = 40.0;
  /// Linear speed (m/s) above which a spike is reported (teleports, marker swaps); a thrown
  /// ball or a swung bat moves faster than any body segment's 10 m/s.
  double max_linear_speed = 10.0;
  /// Linear acceleration (m/s^2) above which a spike is reported.
  double max_linear_acceleration = 400.0;
  /// An interval this many times the median interval or longer means dropped frames (> 1).
  double dropped_frame_factor = 1.5;
  /// Intervals off the median by more than this fraction (and shorter than a dropped frame)
  /// are irregular sampling (in (0, 1)).
  double irregular_tolerance = 0.1;
  /// Runs of more than this many identical consecutive samples are frozen stretches (>= 1).
  std::size_t max_frozen_samples = 10;
  /// Bone offsets (BVH joints below a root) longer than this (m) are absurd: a person's
  /// longest bone, the femur, is about half a metre. Roots are placed, not bones.
  double max_bone_length = 1.5;
  /// Quaternions in the file off unit length by more than this are reported (loaders refuse
  /// more than Track::k_unit_tolerance outright).
  double unit_tolerance = 1e-4;
};

/// Runs every check on `capture`; findings are ordered by track, and one check's findings on a
/// track by sample.
/// Consecutive or overlapping samples of one check on one track are one finding with the
/// peak value, whatever other checks find in between. Throws MocapError for invalid options.
std::vector<Finding> validate_capture(const Capture& capture, const ValidateOptions& options = {});

/// Throws MocapError naming the first option that is not finite and in its range.
void check_options(const ValidateOptions& options);

const char* to_string(Severity severity);

} // namespace odemocap
