#pragma once
/// Whether a loaded capture has the size and the orientation of a person or an object: the
/// check that catches files loaded with silently wrong numbers (a unit 1000 times off, bones
/// doubled, a subject standing on its head).

#include <odemocap/capture.hpp>
#include <odemocap/validate.hpp>

#include <vector>

namespace odemocap {

/// What the check measured, over up to 64 frames spread over the capture (medians over those
/// frames); sizes in metres, 0 when not measured.
struct CaptureExtent {
  std::size_t frames = 0;  ///< frames measured (with at least 3 valid positions)
  double size = 0.0;       ///< largest side of the box around the valid positions (m)
  double height = 0.0;     ///< extent along the up axis (m)
  bool person = false;     ///< the tracks name a head and a foot (skeleton or marker set)
  double head_above = 0.0; ///< share of frames in which the head is above the feet (person)
};

/// Measures `capture` (its unit must be known: CaptureInfo::metres_per_unit() > 0; otherwise
/// nothing is measured).
CaptureExtent measure_extent(const Capture& capture);

/// Warnings, each naming the likely cause, when the capture is not the size of a person (a
/// subject shorter than 0.5 m across or taller than 2.5 m along the up axis) or of a tracked
/// object (all positions within 2 cm, or spread over more than 50 m), or when a person's head is
/// below the feet along the up axis in most frames, or (whether or not the tracks name a head
/// and feet, unless that check fired) when the positions are a person standing along another
/// axis or upside down: spreading furthest along it, above a floor at the origin, the test TRC
/// files are loaded by. Checks "implausible-size", "upside-down" and "up-axis"; none when the
/// unit is not known.
std::vector<Finding> check_plausibility(const Capture& capture);

} // namespace odemocap
