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
      const double half = 0.5 * v * k_radians_per_degree;
      const double s = std::sin(half);
      const double c = std::cos(half);
      switch (joint.channels[k]) {
      case Channel::Xposition: t.x = joint.absolute_position ? v : t.x + v; break;
      case Channel::Yposition: t.y = joint.absolute_position ? v : t.y + v; break;
      case Channel::Zposition: t.z = joint.absolute_position ? v : t.z + v; break;
      // Intrinsic composition in channel order: multiply on the right.
      case Channel::Xrotation: r = r * Quat{c, s, 0, 0}; break;
      case Channel::Yrotation: r = r * Quat{c, 0, s, 0}; break;
      case Channel::Zrotation: r = r * Quat{c, 0, 0, s}; break;
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
