#include "kinematics_block.hpp"
#include "math/sin_cos.hpp"

#include <odemocap/error.hpp>
#include <odemocap/skeleton.hpp>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>
#include <type_traits>

namespace odemocap {
namespace {

constexpr double k_radians_per_degree = 3.14159265358979323846 / 180.0;

} // namespace

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
namespace {

/// A 3-vector and a quaternion whose components hold two frames each; the operations below
/// are Vec3's and Quat's, term for term in the same order, so that each lane's value is the
/// one the scalar operation gives.
struct Vec3x2 {
  Double2 x, y, z;
};
struct Quatx2 {
  Double2 w, x, y, z;
};

Double2 load2(const double* p) {
  Double2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store2(double* p, Double2 v) { std::memcpy(p, &v, sizeof v); }

/// Frames f and f + 1 of a quaternion or a position stored component by component.
Quatx2 load_quat(const double* const q[4], std::size_t f) {
  return {load2(q[0] + f), load2(q[1] + f), load2(q[2] + f), load2(q[3] + f)};
}

void store_quat(double* const q[4], std::size_t f, const Quatx2& v) {
  store2(q[0] + f, v.w);
  store2(q[1] + f, v.x);
  store2(q[2] + f, v.y);
  store2(q[3] + f, v.z);
}

Vec3x2 load_vec(const double* const p[3], std::size_t f) {
  return {load2(p[0] + f), load2(p[1] + f), load2(p[2] + f)};
}

Vec3x2 cross(const Vec3x2& a, const Vec3x2& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/// rotate(q, v) of quat.hpp: v + 2 w (u x v) + u x (2 u x v), u the vector part of q.
Vec3x2 rotate(const Quatx2& q, const Vec3x2& v) {
  const Vec3x2 u{q.x, q.y, q.z};
  const Vec3x2 c = cross(u, v);
  const Vec3x2 t{c.x * 2.0, c.y * 2.0, c.z * 2.0};
  const Vec3x2 d = cross(u, t);
  return {(v.x + t.x * q.w) + d.x, (v.y + t.y * q.w) + d.y, (v.z + t.z * q.w) + d.z};
}

/// The Hamilton product a * b of quat.hpp.
Quatx2 operator*(const Quatx2& a, const Quatx2& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/// r times the turn (c, s along `axis`), the Hamilton product written out without the turn's
/// zero components.
template <int Axis> Quatx2 turned(const Quatx2& r, Double2 s, Double2 c) {
  if constexpr (Axis == 0) {
    return {r.w * c - r.x * s, r.w * s + r.x * c, r.y * c + r.z * s, r.z * c - r.y * s};
  } else if constexpr (Axis == 1) {
    return {r.w * c - r.y * s, r.x * c - r.z * s, r.w * s + r.y * c, r.x * s + r.z * c};
  } else {
    return {r.w * c - r.z * s, r.x * c + r.y * s, r.y * c - r.x * s, r.w * s + r.z * c};
  }
}

} // namespace

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

void KinematicsBlock::compute(const Skeleton& skeleton, std::size_t first, std::size_t count,
                              const std::vector<bool>& needed) {
  assert(count >= 1 && first + count <= skeleton.frame_count);
  assert(needed.empty() || needed.size() == skeleton.joints.size());
  count_ = count;
  stride_ = count + (count & 1);
  data_.resize(skeleton.joints.size() * 7 * stride_);
  const std::size_t row_size = skeleton.channel_count;
  const double* const rows = skeleton.motion.data() + first * row_size;
  // The value in `column` at frames f and f + 1; an odd count's last pair repeats its frame.
  const auto values = [&](std::size_t f, std::size_t column) {
    const double* a = rows + f * row_size + column;
    return Double2{a[0], f + 1 < count ? a[row_size] : a[0]};
  };
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    if (!needed.empty() && !needed[j]) {
      continue;
    }
    const Joint& joint = skeleton.joints[j];
    double* const q[4] = {component(j, 0), component(j, 1), component(j, 2), component(j, 3)};
    double* const p[3] = {component(j, 4), component(j, 5), component(j, 6)};
    // The local transform: the offset and position channels, and the rotation channels
    // composed in channel order (intrinsic), each channel over all the frames.
    const double offset[3] = {joint.offset.x, joint.offset.y, joint.offset.z};
    for (int axis = 0; axis < 3; ++axis) {
      std::fill(p[axis], p[axis] + stride_, offset[axis]);
    }
    std::fill(q[0], q[0] + stride_, 1.0);
    for (int axis = 1; axis < 4; ++axis) {
      std::fill(q[axis], q[axis] + stride_, 0.0);
    }
    for (std::size_t k = 0; k < joint.channels.size(); ++k) {
      const std::size_t column = joint.first_channel + k;
      const int kind = static_cast<int>(joint.channels[k]);
      if (kind < 3) { // a position channel
        for (std::size_t f = 0; f < stride_; f += 2) {
          const Double2 v = values(f, column);
          store2(p[kind] + f, joint.absolute_position ? v : load2(p[kind] + f) + v);
        }
        continue;
      }
      const auto turn_all = [&](auto axis) {
        for (std::size_t f = 0; f < stride_; f += 2) {
          const Double2 v = values(f, column);
          if (v[0] == 0.0 && v[1] == 0.0) {
            continue; // no turn (captures hold many: fingers, toes, unused axes)
          }
          Double2 s, c;
          sin_cos(0.5 * v * k_radians_per_degree, s, c);
          store_quat(q, f, turned<decltype(axis)::value>(load_quat(q, f), s, c));
        }
      };
      switch (kind - 3) {
      case 0: turn_all(std::integral_constant<int, 0>()); break;
      case 1: turn_all(std::integral_constant<int, 1>()); break;
      default: turn_all(std::integral_constant<int, 2>()); break;
      }
    }
    if (joint.parent < 0) {
      continue; // a root's local transform is its world pose
    }
    const auto parent = static_cast<std::size_t>(joint.parent);
    const double* const pq[4] = {component(parent, 0), component(parent, 1),
                                 component(parent, 2), component(parent, 3)};
    const double* const pp[3] = {component(parent, 4), component(parent, 5),
                                 component(parent, 6)};
    for (std::size_t f = 0; f < stride_; f += 2) {
      const Quatx2 world_q = load_quat(pq, f);
      const Vec3x2 turned_p = rotate(world_q, load_vec(p, f));
      store2(p[0] + f, load2(pp[0] + f) + turned_p.x);
      store2(p[1] + f, load2(pp[1] + f) + turned_p.y);
      store2(p[2] + f, load2(pp[2] + f) + turned_p.z);
      store_quat(q, f, world_q * load_quat(q, f));
    }
  }
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
