#include "model/kinematics_block.hpp"
#include "model/kinematics_lanes.hpp"

#include <odemocap/error.hpp>
#include <odemocap/skeleton.hpp>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>
#include <type_traits>

namespace odemocap {

const char* to_string(Channel channel) {
  switch (channel) {
  case Channel::Xposition: return "Xposition";
  case Channel::Yposition: return "Yposition";
  case Channel::Zposition: return "Zposition";
  case Channel::Xrotation: return "Xrotation";
  case Channel::Yrotation: return "Yrotation";
  case Channel::Zrotation: return "Zrotation";
  }
  return "?";
}

namespace detail {

std::vector<bool> with_ancestors(const Skeleton& skeleton, const std::vector<std::size_t>& joints) {
  std::vector<bool> flags(skeleton.joints.size(), false);
  for (const std::size_t joint : joints) {
    for (int a = static_cast<int>(joint); a >= 0 && !flags[static_cast<std::size_t>(a)];
         a = skeleton.joints[static_cast<std::size_t>(a)].parent) {
      flags[static_cast<std::size_t>(a)] = true;
    }
  }
  return flags;
}

void plain_joints(const Skeleton& skeleton, const std::vector<bool>& needed,
                  std::vector<KinematicsJoint>& out) {
  out.resize(skeleton.joints.size());
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    KinematicsJoint& plain = out[j];
    plain.parent = joint.parent;
    plain.offset[0] = joint.offset.x;
    plain.offset[1] = joint.offset.y;
    plain.offset[2] = joint.offset.z;
    plain.channels = joint.channels.data();
    plain.channel_count = joint.channels.size();
    plain.first_channel = joint.first_channel;
    plain.absolute_position = joint.absolute_position;
    plain.needed = needed.empty() || needed[j];
  }
}

void KinematicsBlock::compute(const Skeleton& skeleton, std::size_t first, std::size_t count,
                              const std::vector<bool>& needed) {
  assert(count >= 1 && first + count <= skeleton.frame_count);
  assert(needed.empty() || needed.size() == skeleton.joints.size());
  count_ = count;
  // Four frames to a register where the processor has AVX, unless the block has one or two
  // (forward_kinematics(), frame by frame): both give the same bits.
  const bool four = has_avx() && count > 2;
  stride_ = four ? (count + 3) / 4 * 4 : (count + 1) / 2 * 2;
  data_.resize(skeleton.joints.size() * 7 * stride_);
  plain_joints(skeleton, needed, joints_);
  const double* const rows = skeleton.motion.data() + first * skeleton.channel_count;
#ifdef ODEMOCAP_AVX
  if (four) {
    compute_kinematics_avx(joints_.data(), joints_.size(), rows, skeleton.channel_count, count,
                           data_.data(), stride_);
    return;
  }
#endif
  compute_kinematics<Double2>(joints_.data(), joints_.size(), rows, skeleton.channel_count,
                              count, data_.data(), stride_);
}

void KinematicsBlock::copy(std::size_t joint, Vec3* positions, Quat* orientations) const {
  const double* const q[4] = {component(joint, 0), component(joint, 1), component(joint, 2),
                              component(joint, 3)};
  const double* const p[3] = {component(joint, 4), component(joint, 5), component(joint, 6)};
  for (std::size_t f = 0; f < count_; ++f) {
    positions[f].x = p[0][f];
    positions[f].y = p[1][f];
    positions[f].z = p[2][f];
    orientations[f].w = q[0][f];
    orientations[f].x = q[1][f];
    orientations[f].y = q[2][f];
    orientations[f].z = q[3][f];
  }
}

} // namespace detail

void forward_kinematics(const Skeleton& skeleton, std::size_t frame, std::vector<Pose>& out) {
  const std::size_t rows =
      skeleton.channel_count == 0
          ? skeleton.frame_count
          : std::min(skeleton.frame_count, skeleton.motion.size() / skeleton.channel_count);
  if (frame >= rows) {
    throw MocapError("forward_kinematics: frame " + std::to_string(frame) + " of a skeleton with " +
                     std::to_string(rows) + " rows of channels" +
                     (skeleton.motion.empty() && skeleton.frame_count > 0
                          ? " (a loaded capture's skeleton keeps no rows: its tracks hold the "
                            "poses; parse_bvh_skeleton() gives a BVH's rows)"
                          : ""));
  }
  detail::KinematicsBlock block;
  block.compute(skeleton, frame, 1);
  out.resize(skeleton.joints.size());
  for (std::size_t j = 0; j < out.size(); ++j) {
    out[j] = block.pose(j, 0);
  }
}

} // namespace odemocap
