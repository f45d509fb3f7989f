#pragma once
/// Skeleton: a BVH hierarchy, with its raw motion channels where they are kept, and forward
/// kinematics over it.

#include <odemocap/error.hpp>
#include <odemocap/pose.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace odemocap {

/// One BVH motion channel.
enum class Channel : std::uint8_t { Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation };

/// The channel's BVH name, e.g. "Zrotation".
const char* to_string(Channel channel);

/// A joint of the hierarchy (or an End Site, which has no channels).
struct Joint {
  std::string name;                ///< joint name; End Sites are named "<parent>_End"
  int parent = -1;                 ///< index of the parent joint, -1 for a root
  Vec3 offset;                     ///< from the parent's origin, parent frame, file units
  std::vector<Channel> channels;   ///< in file order
  std::size_t first_channel = 0;   ///< column of the first channel in a motion row
  bool end_site = false;
  /// Position channels replace the OFFSET instead of adding to it (absolute root positions).
  bool absolute_position = false;
};

/// A hierarchy and its motion as found in the file: joints in file order (parents before
/// children), and one row of raw channel values per frame (file units, degrees) where the rows
/// are kept (parse_bvh_skeleton(); a loaded capture's skeleton keeps none).
///
/// Local transform of a joint: translation offset + (position channels), then the rotation
/// channels composed in the order listed, each about the joint's current (intrinsic) axis:
/// channels "Zrotation Xrotation Yrotation" give Rz * Rx * Ry.
struct Skeleton {
  std::vector<Joint> joints;
  std::size_t channel_count = 0; ///< values per motion row
  std::size_t frame_count = 0;
  double frame_time = 0.0;       ///< seconds
  /// Half a unit in the last decimal place the file wrote frame_time with (s; 0.0000005 for
  /// "0.008333"): how far the written value may be from the true one. 0 when not known.
  double frame_time_rounding = 0.0;
  /// frame_count rows of channel_count values, as parse_bvh_skeleton() gives them. Empty in the
  /// skeleton of a loaded capture (Capture::skeleton()), whose tracks hold the poses: a BVH's
  /// rows are let go as they are read (frame_count still counts them).
  std::vector<double> motion;

  /// Raw value of `channel` (column) in `frame`; throws MocapError when `motion` holds no such
  /// value (a loaded capture's skeleton holds none).
  double value(std::size_t frame, std::size_t channel) const {
    if (channel >= channel_count || frame >= motion.size() / channel_count) {
      throw MocapError("Skeleton::value: no channel " + std::to_string(channel) + " in frame " +
                       std::to_string(frame) + " of " +
                       std::to_string(channel_count == 0 ? 0 : motion.size() / channel_count) +
                       " rows of " + std::to_string(channel_count) + " channels");
    }
    return motion[frame * channel_count + channel];
  }
};

/// World poses of every joint (in the skeleton's order) at `frame`, in file units: `out` is
/// resized to the joint count. Orientation is each joint frame's rotation to world. Throws
/// MocapError when `motion` has no row `frame` (a loaded capture's skeleton has none).
void forward_kinematics(const Skeleton& skeleton, std::size_t frame, std::vector<Pose>& out);

} // namespace odemocap
