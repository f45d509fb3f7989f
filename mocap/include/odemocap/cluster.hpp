#pragma once
/// Rigid bodies from marker clusters: the least-squares rotation between two point sets
/// (Horn's quaternion method) and per-frame pose fitting of a named group of marker tracks.

#include <odemocap/capture.hpp>
#include <odemocap/error.hpp>
#include <odemocap/load.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

/// The rotation R minimising sum |R a_i - b_i|^2 over pairs of points already centred on
/// their centroids (Horn 1987): the eigenvector of the largest eigenvalue of the symmetric 4x4
/// matrix built from S = sum a_i b_i^T. Needs at least two non-collinear pairs for a unique
/// answer; throws MocapError for mismatched sizes or non-finite points.
Quat best_rotation(const std::vector<Vec3>& a, const std::vector<Vec3>& b);

/// The rotation nearest (Frobenius norm) to a 3x3 matrix that is almost one, e.g. a rotation
/// matrix printed with 5 decimals: Horn's method with S = m^T. Throws MocapError when m is not
/// finite or farther than `tolerance` (largest |m m^T - I| entry) from a rotation, or is a
/// reflection.
Quat nearest_rotation(const Mat3& m, double tolerance = 1e-3);

/// Which markers make one rigid body, and how to fit it.
struct ClusterOptions {
  /// Name of the fitted track.
  std::string name = "cluster";
  /// Marker track names (at least 3).
  std::vector<std::string> markers;
  /// Sample index whose marker layout is the body's reference; empty = the first sample where
  /// every marker is valid.
  std::optional<std::size_t> reference_sample;
  /// Fit residual (RMS marker distance, capture length units) above which a sample is flagged
  /// as a probable marker swap or mislabel. 5 mm for captures in metres.
  double max_rms = 0.005;
};

/// A fitted rigid body. Its frame: origin at the centroid of all markers in the reference
/// sample, axes parallel to the world's there (so its orientation is the identity at the
/// reference sample).
struct ClusterFit {
  Track track;
  /// RMS distance between the markers and the fitted body's marker layout, per sample
  /// (NaN for gaps: fewer than 3 valid markers).
  std::vector<double> rms;
  /// Samples whose rms exceeds ClusterOptions::max_rms.
  std::vector<std::size_t> flagged;
  std::size_t reference_sample = 0;
  /// The markers' positions in the body frame, in ClusterOptions::markers order.
  std::vector<Vec3> layout;
};

/// Fits the body at every sample of the marker tracks (which must share one time base, as the
/// tracks of one C3D file do). Samples with fewer than 3 valid markers are gaps. Throws
/// MocapError naming the problem: fewer than 3 markers, unknown names, different time bases,
/// no sample with every marker valid, a reference sample out of range or with a gap, or a
/// collinear marker layout.
ClusterFit fit_cluster(const Capture& capture, const ClusterOptions& options);

/// Cluster definitions, one per line: `NAME = MARKER, MARKER, MARKER[, ...]` (names may hold
/// spaces; blank lines and lines starting with # are skipped). Throws LoadError with the line
/// and column of a malformed line or a name defined twice.
std::vector<ClusterOptions> parse_cluster_definitions(std::string_view text,
                                                      std::string_view source);

} // namespace odemocap
