#pragma once
// Forward kinematics over a run of frames at once: the BVH loader's bulk form of
// forward_kinematics().

#include <odemocap/skeleton.hpp>

#include <cstddef>
#include <vector>

namespace odemocap::detail {

/// One flag per joint of `skeleton`: set for `joints` and every ancestor of theirs (the
/// `needed` argument of KinematicsBlock::compute() for poses of `joints` only).
std::vector<bool> with_ancestors(const Skeleton& skeleton, const std::vector<std::size_t>& joints);

/// A joint as the block's computation reads it: plain values, no container.
struct KinematicsJoint {
  int parent = -1;       ///< index of the parent joint, -1 for a root
  double offset[3] = {}; ///< Joint::offset
  const Channel* channels = nullptr;
  std::size_t channel_count = 0;
  std::size_t first_channel = 0; ///< column of the first channel in a motion row
  bool absolute_position = false;
  bool needed = true; ///< false: left out
};

/// World poses of every joint at a run of consecutive frames, computed joint by joint: each
/// channel of a joint is applied to all the frames in one loop, four frames per AVX register
/// where the processor has AVX, else two per SSE2 register, so that neither the channel's kind
/// nor the quadrant of an angle is a branch per frame.
/// The values are those forward_kinematics() gives (it is this with one frame).
class KinematicsBlock {
public:
  /// Computes frames [first, first + count) of `skeleton` (count >= 1, first + count at most
  /// its frame_count). Reuses the storage of earlier calls. With `needed` (one flag per joint,
  /// set for every ancestor of a flagged joint too), only the flagged joints are computed.
  void compute(const Skeleton& skeleton, std::size_t first, std::size_t count,
               const std::vector<bool>& needed = {});
  /// World pose of `joint` at frame first + `frame`, in file units (computed joints only).
  Pose pose(std::size_t joint, std::size_t frame) const {
    return {{component(joint, 4)[frame], component(joint, 5)[frame], component(joint, 6)[frame]},
            {component(joint, 0)[frame], component(joint, 1)[frame], component(joint, 2)[frame],
             component(joint, 3)[frame]}};
  }

  /// The world poses of `joint` at the block's frames, into `positions` and `orientations`
  /// (count values each), component by component.
  void copy(std::size_t joint, Vec3* positions, Quat* orientations) const;

private:
  /// Start of component `c` (0-3 the orientation's w, x, y, z; 4-6 the position's x, y, z) of
  /// `joint`: stride_ values, one per frame.
  double* component(std::size_t joint, int c) { return &data_[(joint * 7 + c) * stride_]; }
  const double* component(std::size_t joint, int c) const {
    return &data_[(joint * 7 + c) * stride_];
  }

  std::vector<KinematicsJoint> joints_; ///< the skeleton's joints, for the computation
  std::size_t count_ = 0;               ///< frames computed
  std::size_t stride_ = 0;              ///< the frame count rounded up to whole registers
  std::vector<double> data_;
};

/// The joints of `skeleton` as the computation reads them, with `needed` (empty: all) applied.
void plain_joints(const Skeleton& skeleton, const std::vector<bool>& needed,
                  std::vector<KinematicsJoint>& out);

/// KinematicsBlock's computation four frames to an AVX register (kinematics_avx.cpp, compiled
/// with AVX; only where has_avx()): compute_kinematics<Double4> of model/kinematics_lanes.hpp.
void compute_kinematics_avx(const KinematicsJoint* joints, std::size_t joint_count,
                            const double* rows, std::size_t row_size, std::size_t count,
                            double* data, std::size_t stride);

} // namespace odemocap::detail
