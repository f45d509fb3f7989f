// Forward kinematics a block of frames at a time (the BVH loader's) against forward kinematics
// frame by frame written here from the BVH definition with rotation matrices.
#include "model/kinematics_block.hpp"
#include "model/kinematics_lanes.hpp" // each width of register, tested on its own
#include "support/data_paths.hpp"
#include "support/reference_math.hpp"

#include <odemocap/load.hpp>
#include <odemocap/skeleton.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace odemocap::detail {
namespace {

constexpr double k_deg = test::k_pi / 180.0;

struct MatrixPose {
  Vec3 p;
  test::Matrix r;
};

/// World poses of every joint at `frame`: offset plus position channels, then the rotation
/// channels as Rodrigues matrices multiplied in channel order, then the parent's transform.
std::vector<MatrixPose> reference_kinematics(const Skeleton& skeleton, std::size_t frame) {
  std::vector<MatrixPose> world(skeleton.joints.size());
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    Vec3 t = joint.offset;
    test::Matrix r = test::rodrigues({1, 0, 0}, 0.0);
    for (std::size_t k = 0; k < joint.channels.size(); ++k) {
      const double v = skeleton.value(frame, joint.first_channel + k);
      const int c = static_cast<int>(joint.channels[k]);
      if (c < 3) {
        double& component = c == 0 ? t.x : c == 1 ? t.y : t.z;
        component = joint.absolute_position ? v : component + v;
      } else {
        const Vec3 axis{c == 3 ? 1.0 : 0.0, c == 4 ? 1.0 : 0.0, c == 5 ? 1.0 : 0.0};
        r = test::multiply(r, test::rodrigues(axis, v * k_deg));
      }
    }
    if (joint.parent < 0) {
      world[j] = {t, r};
    } else {
      const MatrixPose& parent = world[static_cast<std::size_t>(joint.parent)];
      world[j] = {parent.p + test::apply(parent.r, t), test::multiply(parent.r, r)};
    }
  }
  return world;
}

bool same_bits(const Pose& a, const Pose& b) {
  return a.p.x == b.p.x && a.p.y == b.p.y && a.p.z == b.p.z && a.q.w == b.q.w && a.q.x == b.q.x &&
         a.q.y == b.q.y && a.q.z == b.q.z;
}

/// Checks every joint-frame of `skeleton` computed in blocks of random lengths (1 to 40, odd
/// and even) against the reference, and against the same frames computed one at a time.
void check_blocks(const Skeleton& skeleton, unsigned seed, double position_tolerance) {
  test::Random rnd(seed);
  KinematicsBlock block, single;
  std::size_t checked = 0;
  for (std::size_t first = 0; first < skeleton.frame_count;) {
    const auto count = std::min<std::size_t>(static_cast<std::size_t>(rnd.uniform(1, 41)),
                                             skeleton.frame_count - first);
    block.compute(skeleton, first, count);
    for (std::size_t f = 0; f < count; ++f) {
      const std::vector<MatrixPose> truth = reference_kinematics(skeleton, first + f);
      single.compute(skeleton, first + f, 1);
      for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
        const Pose pose = block.pose(j, f);
        ASSERT_TRUE(test::near_vec(pose.p, truth[j].p, position_tolerance))
            << skeleton.joints[j].name << " frame " << first + f;
        ASSERT_LT(test::max_abs_diff(truth[j].r, to_matrix(pose.q).m), 1e-12)
            << skeleton.joints[j].name << " frame " << first + f;
        // Each frame's value must not depend on the block it was computed in.
        ASSERT_TRUE(same_bits(pose, single.pose(j, 0)))
            << skeleton.joints[j].name << " frame " << first + f;
        ++checked;
      }
    }
    first += count;
  }
  EXPECT_EQ(checked, skeleton.frame_count * skeleton.joints.size());
}

TEST(KinematicsBlock, CmuCaptureMatchesMatrixKinematicsInBlocksOfAnyLength) {
  const Skeleton skeleton =
      parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_03.bvh")), "131_03.bvh");
  ASSERT_GT(skeleton.frame_count, 1000u);
  check_blocks(skeleton, 3, 1e-10); // positions up to ~100 units
}

/// A random file of 97 frames: large (beyond +-916 degrees), zero and ordinary angles in
/// every rotation order; with `negative_zeros`, a twentieth of the values -0 instead of large.
Skeleton mixed_skeleton(bool negative_zeros) {
  test::Random rnd(11);
  std::ostringstream text;
  text.precision(17);
  text << "HIERARCHY\nROOT a\n{\nOFFSET 1 2 3\nCHANNELS 6 Xposition Yposition Zposition "
          "Zrotation Xrotation Yrotation\nJOINT b\n{\nOFFSET 0 3 0\nCHANNELS 3 Xrotation "
          "Zrotation Yrotation\nJOINT c\n{\nOFFSET 2 0 -1\nCHANNELS 4 Yrotation Xposition "
          "Xrotation Zrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\n}\nMOTION\nFrames: 97\n"
          "Frame Time: 0.01\n";
  for (int f = 0; f < 97; ++f) {
    for (int k = 0; k < 13; ++k) {
      const double kind = rnd.uniform(0, 1);
      text << (kind < 0.3                      ? 0.0
               : negative_zeros && kind < 0.35 ? -0.0
               : kind < 0.5                    ? rnd.uniform(-5000, 5000)
                                               : rnd.uniform(-180, 180))
           << ' ';
    }
    text << '\n';
  }
  return parse_bvh_skeleton(text.str(), "mixed.bvh");
}

TEST(KinematicsBlock, LargeZeroAndMixedAnglesInOneRegister) {
  // Channels beyond +-916 degrees (half angles past the fast range: the library's sin and cos
  // for that lane only), exact zeros (skipped only when both frames of a pair are zero), and
  // every rotation order, random over 97 frames.
  check_blocks(mixed_skeleton(false), 5, 1e-11); // angles near 87 rad: rounding shows at 1e-12
}

TEST(KinematicsBlock, TwoAndFourFramesPerRegisterGiveTheSameBits) {
  // The loader computes four frames per AVX register where the processor has AVX, else two per
  // SSE2 register: a capture must load to the same bits on either, zeros' signs included. (A
  // frame without a turn is turned by zero when another frame of its register turns, which
  // leaves its rotation as it was but for the sign of a zero component times a zero sine; with
  // registers of two and of four the frames it shares a register with differ.)
  if (!has_avx()) {
    GTEST_SKIP() << "this processor has no AVX: only two frames per register are computed";
  }
  for (const Skeleton& skeleton :
       {parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_03.bvh")), "131_03.bvh"),
        mixed_skeleton(true)}) {
    std::vector<KinematicsJoint> joints;
    plain_joints(skeleton, {}, joints);
    test::Random rnd(17);
    std::size_t compared = 0;
    for (std::size_t first = 0; first < skeleton.frame_count;) {
      const auto count = std::min<std::size_t>(static_cast<std::size_t>(rnd.uniform(1, 41)),
                                               skeleton.frame_count - first);
      const std::size_t stride = (count + 3) / 4 * 4;
      std::vector<double> two(joints.size() * 7 * stride), four(two.size());
      const double* rows = skeleton.motion.data() + first * skeleton.channel_count;
      compute_kinematics<Double2>(joints.data(), joints.size(), rows, skeleton.channel_count, count,
                                  two.data(), stride);
      compute_kinematics_avx(joints.data(), joints.size(), rows, skeleton.channel_count, count,
                             four.data(), stride);
      for (std::size_t j = 0; j < joints.size() * 7; ++j) {
        ASSERT_EQ(std::memcmp(&two[j * stride], &four[j * stride], count * sizeof(double)), 0)
            << "joint " << j / 7 << " component " << j % 7 << ", frames " << first << "+" << count;
        compared += count;
      }
      first += count;
    }
    EXPECT_EQ(compared, skeleton.frame_count * joints.size() * 7);
  }
}

TEST(KinematicsBlock, OnlyTheNeededJointsAreComputed) {
  const Skeleton skeleton =
      parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_03.bvh")), "131_03.bvh");
  // One hand and its ancestors.
  std::size_t hand = 0;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    hand = skeleton.joints[j].name == "lhand" ? j : hand;
  }
  ASSERT_GT(hand, 0u);
  const std::vector<bool> needed = with_ancestors(skeleton, {hand});
  std::size_t flagged = 0;
  for (int a = static_cast<int>(hand); a >= 0;
       a = skeleton.joints[static_cast<std::size_t>(a)].parent) {
    EXPECT_TRUE(needed[static_cast<std::size_t>(a)]);
    ++flagged;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(needed.begin(), needed.end(), true)), flagged);
  KinematicsBlock all, some;
  all.compute(skeleton, 100, 9);
  some.compute(skeleton, 100, 9, needed);
  for (std::size_t f = 0; f < 9; ++f) {
    for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
      if (needed[j]) {
        EXPECT_TRUE(same_bits(all.pose(j, f), some.pose(j, f))) << skeleton.joints[j].name;
      }
    }
  }
}

TEST(KinematicsBlock, ForwardKinematicsOfOneFrameIsTheBlocks) {
  const Skeleton skeleton =
      parse_bvh_skeleton(test::read_text(test::repo_data("cmu/131_03.bvh")), "131_03.bvh");
  KinematicsBlock block;
  block.compute(skeleton, 500, 32);
  std::vector<Pose> world;
  for (std::size_t f = 0; f < 32; ++f) {
    forward_kinematics(skeleton, 500 + f, world);
    ASSERT_EQ(world.size(), skeleton.joints.size());
    for (std::size_t j = 0; j < world.size(); ++j) {
      ASSERT_TRUE(same_bits(world[j], block.pose(j, f))) << j << " " << f;
    }
  }
}

} // namespace
} // namespace odemocap::detail
