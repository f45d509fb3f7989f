#pragma once
// KinematicsBlock's computation, one frame per lane of T (Double2: SSE2, two frames; Double4:
// AVX, four): skeleton.cpp instantiates it with Double2, kinematics_avx.cpp (compiled with AVX)
// with Double4. Internal linkage, as for everything a file compiled with AVX includes
// (math/lanes.hpp): it reads plain arrays (KinematicsJoint), never a container, whose inline
// members a file without AVX also emits. Every lane gives the bits the one-frame computation
// gives.

#include "model/kinematics_block.hpp"

#include "math/lane_geometry.hpp"
#include "math/sin_cos.hpp"

#include <cstring>
#include <type_traits>

namespace odemocap::detail {
namespace {

inline constexpr double k_radians_per_degree = 3.14159265358979323846 / 180.0;

/// Frames [f, f + lanes) of one component stored frame after frame.
template <class T> T load_frames(const double* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> void store_frames(double* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
template <class T> Quatx<T> load_quat_frames(const double* const q[4], std::size_t f) {
  return {load_frames<T>(q[0] + f), load_frames<T>(q[1] + f), load_frames<T>(q[2] + f),
          load_frames<T>(q[3] + f)};
}
template <class T> void store_quat_frames(double* const q[4], std::size_t f, const Quatx<T>& v) {
  store_frames(q[0] + f, v.w);
  store_frames(q[1] + f, v.x);
  store_frames(q[2] + f, v.y);
  store_frames(q[3] + f, v.z);
}
template <class T> Vec3x<T> load_vec_frames(const double* const p[3], std::size_t f) {
  return {load_frames<T>(p[0] + f), load_frames<T>(p[1] + f), load_frames<T>(p[2] + f)};
}

/// r times the turn (c, s along `axis`), the Hamilton product written out without the turn's
/// zero components.
template <int Axis, class T> Quatx<T> turned(const Quatx<T>& r, T s, T c) {
  if constexpr (Axis == 0) {
    return {r.w * c - r.x * s, r.w * s + r.x * c, r.y * c + r.z * s, r.z * c - r.y * s};
  } else if constexpr (Axis == 1) {
    return {r.w * c - r.y * s, r.x * c - r.z * s, r.w * s + r.y * c, r.x * s + r.z * c};
  } else {
    return {r.w * c - r.z * s, r.x * c + r.y * s, r.y * c - r.x * s, r.w * s + r.z * c};
  }
}

/// `value` in data[0, n).
inline void fill(double* data, std::size_t n, double value) {
  for (std::size_t i = 0; i < n; ++i) {
    data[i] = value;
  }
}

/// World poses of `count` frames into `data`: component c (0-3 the orientation's w, x, y, z;
/// 4-6 the position's x, y, z) of joint j at data[(j * 7 + c) * stride], one value per frame;
/// `stride` >= count, a multiple of the lanes. `rows` holds the frames' channel values,
/// `row_size` a row. Joints not `needed` are left out.
template <class T>
void compute_kinematics(const KinematicsJoint* joints, std::size_t joint_count, const double* rows,
                        std::size_t row_size, std::size_t count, double* data, std::size_t stride) {
  constexpr std::size_t lanes = Lanes<T>::count;
  const auto component = [&](std::size_t joint, int c) { return &data[(joint * 7 + c) * stride]; };
  // The value in `column` at frames f to f + lanes - 1; lanes past the block repeat its last
  // frame.
  const auto values = [&](std::size_t f, std::size_t column) {
    T v{};
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      const std::size_t frame = f + lane < count ? f + lane : count - 1;
      v[lane] = rows[frame * row_size + column];
    }
    return v;
  };
  for (std::size_t j = 0; j < joint_count; ++j) {
    const KinematicsJoint& joint = joints[j];
    if (!joint.needed) {
      continue;
    }
    double* const q[4] = {component(j, 0), component(j, 1), component(j, 2), component(j, 3)};
    double* const p[3] = {component(j, 4), component(j, 5), component(j, 6)};
    // The local transform: the offset and position channels, and the rotation channels
    // composed in channel order (intrinsic), each channel over all the frames.
    for (int axis = 0; axis < 3; ++axis) {
      fill(p[axis], stride, joint.offset[axis]);
    }
    fill(q[0], stride, 1.0);
    for (int axis = 1; axis < 4; ++axis) {
      fill(q[axis], stride, 0.0);
    }
    for (std::size_t k = 0; k < joint.channel_count; ++k) {
      const std::size_t column = joint.first_channel + k;
      const int kind = static_cast<int>(joint.channels[k]);
      if (kind < 3) { // a position channel
        for (std::size_t f = 0; f < stride; f += lanes) {
          const T v = values(f, column);
          store_frames(p[kind] + f, joint.absolute_position ? v : load_frames<T>(p[kind] + f) + v);
        }
        continue;
      }
      const auto turn_all = [&](auto axis) {
        for (std::size_t f = 0; f < stride; f += lanes) {
          const T v = values(f, column);
          if (!any(v != splat<T>(0.0))) {
            continue; // no turn (captures hold many: fingers, toes, unused axes)
          }
          T s, c;
          sin_cos(splat<T>(0.5) * v * splat<T>(k_radians_per_degree), s, c);
          store_quat_frames(q, f, turned<decltype(axis)::value>(load_quat_frames<T>(q, f), s, c));
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
    const double* const pq[4] = {component(parent, 0), component(parent, 1), component(parent, 2),
                                 component(parent, 3)};
    const double* const pp[3] = {component(parent, 4), component(parent, 5), component(parent, 6)};
    for (std::size_t f = 0; f < stride; f += lanes) {
      const Quatx<T> world_q = load_quat_frames<T>(pq, f);
      const Vec3x<T> turned_p = rotate(world_q, load_vec_frames<T>(p, f));
      store_frames(p[0] + f, load_frames<T>(pp[0] + f) + turned_p.x);
      store_frames(p[1] + f, load_frames<T>(pp[1] + f) + turned_p.y);
      store_frames(p[2] + f, load_frames<T>(pp[2] + f) + turned_p.z);
      store_quat_frames(q, f, world_q * load_quat_frames<T>(q, f));
    }
  }
}

} // namespace
} // namespace odemocap::detail
