#pragma once
// Body segment masses as fractions of the whole body: de Leva (1996), "Adjustments to
// Zatsiorsky-Seluyanov's segment inertia parameters", J. Biomechanics 29(9), Table 4 (male).
// Bones are assigned to segments by their names, as BVH (CMU, Mixamo), ASF (CMU) and MVNX
// (Xsens) spell them.

#include <string_view>

namespace odemocap::detail {

enum class Segment { Head, Trunk, UpperArm, Forearm, Hand, Thigh, Shank, Foot };
constexpr int k_segment_count = 8;

/// The segment a bone of this name belongs to, given the name of the child joint it ends at
/// (empty if none); Trunk when the names say nothing else (hips, pelvis, spine, back, chest,
/// collars). Bones are named after a segment (CMU BVH's LeftUpLeg, Mixamo's LeftForeArm, ASF's
/// lfemur) or after the joint they start at (the CMU conversion's LeftHip, LeftKnee,
/// LeftShoulder, LeftElbow): "shoulder" is the upper arm when it ends at an elbow (else a
/// clavicle, as Mixamo's LeftShoulder above LeftArm), "hip" the thigh when it ends at a knee.
Segment segment_of(std::string_view bone_name, std::string_view child_name);

/// The fraction of total body mass of all segments of this kind together (both sides).
double segment_fraction(Segment segment);

/// "head", "trunk", "upper arm", ...
const char* segment_name(Segment segment);

} // namespace odemocap::detail
