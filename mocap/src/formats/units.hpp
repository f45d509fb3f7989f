#pragma once
// Length units: the ones files use, and inferring a file's unit when it declares none.

#include <odemocap/capture.hpp>
#include <odemocap/skeleton.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap::detail {

/// Metres per unit of a unit a file declares by name, case-insensitive, padding (spaces, NUL
/// bytes) ignored: mm, cm, m, in and their spelt-out forms (millimeters/millimetres, ...,
/// inch/inches); nullopt for others.
std::optional<double> declared_unit(std::string_view name);

/// A length unit chosen for a file that declares none, with the evidence in one sentence.
struct UnitGuess {
  double metres = 1.0; ///< metres per file unit
  std::string name;    ///< e.g. "cm", "CMU unit (1/0.45 in)"
  std::string note;    ///< what was measured and why this unit, for CaptureInfo::notes
};

/// The unit that makes the skeleton's rest pose (OFFSETs alone) the size of a person: the
/// largest extent along any axis (standing height, or arm span in a T pose) is compared with
/// 1.7 m for metres, centimetres, millimetres, inches and CMU units (1/0.45 inch).
UnitGuess infer_skeleton_unit(const Skeleton& skeleton);

/// The file's up axis of a skeleton: the dominant axis (and its sign) from the root to the
/// head (the joint whose name contains "head", ignoring case) in the rest pose; false when the
/// skeleton has no head joint or it sits on the root.
bool infer_skeleton_up(const Skeleton& skeleton, Axis& axis, bool& negative, std::string& note);

class KinematicsBlock;

/// The file's up axis from the motion: the dominant axis (and sign) from the feet (joints named
/// foot, toe or ankle; the root when there are none) to the head, summed over up to 32 frames
/// spread over the capture. The frames are given as they are computed, a block at a time (a
/// loader that reads the motion a piece at a time), and the 32 chosen once all are known.
class MotionUp {
public:
  /// Finds the head and the feet among `skeleton`'s joints.
  explicit MotionUp(const Skeleton& skeleton);
  /// The joints add() reads, with their ancestors (one flag per joint; none set without a head):
  /// to be computed in every block given to add().
  const std::vector<bool>& needed() const { return needed_; }
  /// Takes the first `count` frames of `block` as the capture's next frames.
  void add(const KinematicsBlock& block, std::size_t count);
  /// The up axis over the frames added. False when there is no head, no frame, or no axis
  /// holds in at least 80% of the frames; `note` gives the axis and that share.
  bool infer(Axis& axis, bool& negative, std::string& note) const;

private:
  std::string head_name_;
  std::size_t head_ = 0;
  std::vector<std::size_t> feet_;
  std::vector<bool> needed_;
  std::vector<Vec3> ups_; ///< feet to head, file units, one per frame added
};

/// "X", "Y" or "Z".
const char* axis_letter(Axis axis);

/// The file's up axis from markers on a person standing or moving upright (no names needed):
/// in each of up to 64 frames spread over the capture, the axis along which the markers spread
/// furthest (between their 10th and 90th percentiles; markers at exactly 0 0 0 left out, as
/// lost) when that spread is at least 1.5 times the next axis's (a person is taller than wide);
/// the sign that puts at least 95% of the markers' coordinates along it at heights of -0.2 to
/// 2.5 m (a lab's floor is its origin). Where no axis holds in 80% of the frames (the stride of
/// a walk seen by few markers, a lower body's, spreads them along the walk nearly as far as up),
/// an axis that spreads furthest in at least 80% of the frames and at least 1.5 times as far as
/// the next in the median frame is taken. `metres_per_unit` converts the tracks' numbers to
/// metres. False, and nothing is inferred, when the unit is unknown (0), fewer than 8 frames
/// have 6 or more markers, neither test finds an axis, or neither sign gives heights; `note`
/// gives the axis, the share and the frames (and the median frame's margin, where it decided).
bool infer_marker_up(const std::vector<const Track*>& tracks, double metres_per_unit, Axis& axis,
                     bool& negative, std::string& note);
/// The same over every track of `tracks`.
bool infer_marker_up(const std::vector<Track>& tracks, double metres_per_unit, Axis& axis,
                     bool& negative, std::string& note);

/// The name's alphanumeric tokens in lower case ("Daphnee:L_HDF" -> daphnee, l, hdf).
std::vector<std::string> name_tokens(const std::string& name);

/// Model outputs that C3D files store as points (Plug-in Gait's LAnkleAngles, LHipForce,
/// LKneeMoment, LHipPower, CentreOfMass), by name: not places on a body.
bool is_model_output(const std::string& name);

/// The unit that puts the largest coordinate of the valid positions closest to 2 m (a lab's
/// capture volume reaches a few metres from its origin), among metres, centimetres and
/// millimetres. Positions are the file's numbers.
UnitGuess infer_coordinate_unit(const Capture& capture);

} // namespace odemocap::detail
