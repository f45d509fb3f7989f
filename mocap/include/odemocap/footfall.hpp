#pragma once
/// Footfalls: when a foot is planted on the ground, found from its track (low and slow, with
/// hysteresis so noise near the thresholds does not split a stance). Walk/run blending aligns
/// clips on these events; `odemocap info` reports them.

#include <odemocap/capture.hpp>
#include <odemocap/track.hpp>

#include <string>
#include <vector>

namespace odemocap {

/// A foot on the ground from `start` to `end` (s); the footfall is `start`.
struct Stance {
  double start = 0.0;
  double end = 0.0;
};

/// Thresholds of detect_stances (metres and seconds; scaled for captures stored in other units
/// by `metres_per_unit`). Every field has a default; detect_stances validates them.
struct FootfallOptions {
  /// A foot lands when its speed falls below speed_on (m/s) while it is within height_on (m)
  /// of the ground, the lowest height it holds for min_duration (so one stray low sample, a
  /// rest-pose frame or a glitch, does not set it); it lifts when its speed exceeds speed_off
  /// or its height height_off. on < off for both.
  double speed_on = 0.3;
  double speed_off = 0.6;
  double height_on = 0.06;
  double height_off = 0.10;
  /// Stances shorter than this (s) are noise and dropped; also the time the foot must hold a
  /// height for it to count as the ground.
  double min_duration = 0.05;
  /// Metres per stored length unit (1 for a capture in metres).
  double metres_per_unit = 1.0;
};

/// The stance phases of a foot's track, in time order; `up` is the capture's up axis. A gap in
/// the track (invalid samples) ends a stance. Throws MocapError for invalid options.
std::vector<Stance> detect_stances(const Track& foot, Axis up, const FootfallOptions& options = {});

/// Stances (in time order) with those separated by less than `min_swing` (s) joined into one:
/// a foot that lifts for less than that was not stepping, noise broke its stance.
std::vector<Stance> merge_stances(const std::vector<Stance>& stances, double min_swing);

/// Names of the capture's foot tracks (named foot, ankle, heel or toe, any case), in track order.
std::vector<std::string> foot_tracks(const Capture& capture);

} // namespace odemocap
