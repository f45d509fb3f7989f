#include "math/sin_cos.hpp"

#include <odemocap/skeleton.hpp>

#include <cmath>

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

void forward_kinematics(const Skeleton& skeleton, std::size_t frame, std::vector<Pose>& out) {
  out.resize(skeleton.joints.size());
  const double* row = skeleton.motion.data() + frame * skeleton.channel_count;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    Vec3 t = joint.offset;
    Quat r;
    for (std::size_t k = 0; k < joint.channels.size(); ++k) {
      const double v = row[joint.first_channel + k];
      const Channel channel = joint.channels[k];
      if (channel == Channel::Xposition || channel == Channel::Yposition ||
          channel == Channel::Zposition) {
        double& component = channel == Channel::Xposition   ? t.x
                            : channel == Channel::Yposition ? t.y
                                                            : t.z;
        component = joint.absolute_position ? v : component + v;
        continue;
      }
      if (v == 0.0) {
        continue; // no turn (captures hold many: fingers, toes, unused axes)
      }
      const double half = 0.5 * v * k_radians_per_degree;
      double s = 0.0, c = 1.0;
      detail::sin_cos(half, s, c);
      // Intrinsic composition in channel order: r times the turn about the channel's axis,
      // the Hamilton product written out without the axis quaternion's zero components.
      switch (channel) {
      case Channel::Xrotation:
        r = {r.w * c - r.x * s, r.w * s + r.x * c, r.y * c + r.z * s, r.z * c - r.y * s};
        break;
      case Channel::Yrotation:
        r = {r.w * c - r.y * s, r.x * c - r.z * s, r.w * s + r.y * c, r.x * s + r.z * c};
        break;
      default: // Zrotation
        r = {r.w * c - r.z * s, r.x * c + r.y * s, r.y * c - r.x * s, r.w * s + r.z * c};
        break;
      }
    }
    if (joint.parent < 0) {
      out[j] = {t, r};
    } else {
      const Pose& parent = out[static_cast<std::size_t>(joint.parent)];
      out[j] = {parent.p + rotate(parent.q, t), parent.q * r};
    }
  }
}

} // namespace odemocap
