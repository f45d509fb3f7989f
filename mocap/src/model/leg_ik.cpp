#include "model/leg_ik.hpp"

#include <odemocap/quat.hpp>

#include <algorithm>
#include <cmath>

namespace odemocap::detail {

std::vector<std::size_t> bones_below(const std::vector<int>& parents, std::size_t bone) {
  // Parents come first, so one pass finds every descendant.
  std::vector<bool> inside(parents.size(), false);
  inside[bone] = true;
  std::vector<std::size_t> out;
  for (std::size_t b = bone + 1; b < parents.size(); ++b) {
    if (parents[b] >= 0 && inside[static_cast<std::size_t>(parents[b])]) {
      inside[b] = true;
      out.push_back(b);
    }
  }
  return out;
}

bool find_leg(const std::vector<int>& parents, std::size_t foot, Leg& leg) {
  if (foot >= parents.size() || parents[foot] < 0) {
    return false;
  }
  const auto knee = static_cast<std::size_t>(parents[foot]);
  if (parents[knee] < 0) {
    return false;
  }
  leg.hip = static_cast<std::size_t>(parents[knee]);
  leg.knee = knee;
  leg.foot = foot;
  leg.below = bones_below(parents, foot);
  return true;
}

bool solve_leg(std::vector<Pose>& world, const std::vector<Pose>& local, const Leg& leg,
               const Vec3& target, const Quat& foot_q, const std::vector<int>& parents) {
  const Vec3 hip = world[leg.hip].p;
  const Vec3 knee = world[leg.knee].p;
  const Vec3 ankle = world[leg.foot].p;
  const double thigh = norm(knee - hip);
  const double shin = norm(ankle - knee);
  const Vec3 to_target = target - hip;
  const double wanted = norm(to_target);
  if (!(wanted > 0.0) || !(thigh > 0.0) || !(shin > 0.0)) {
    return false;
  }
  // Reach: the triangle hip, knee, ankle closes for |thigh - shin| <= d <= thigh + shin.
  const double longest = thigh + shin;
  const double shortest = std::fabs(thigh - shin);
  const double d = std::clamp(wanted, shortest + 1e-9 * longest, longest * (1.0 - 1e-12));
  const bool reached = d == wanted;
  const Vec3 axis = to_target * (1.0 / wanted);
  // The knee's side: its present offset from the hip-target line (law of cosines for the rest).
  Vec3 side = (knee - hip) - dot(knee - hip, axis) * axis;
  if (norm(side) < 1e-9 * thigh) { // a straight leg: keep the shin's direction off the line
    side = (ankle - knee) - dot(ankle - knee, axis) * axis;
  }
  if (norm(side) < 1e-12 * thigh) {
    side = std::fabs(axis.x) < 0.9 ? Vec3{1.0, 0.0, 0.0} : Vec3{0.0, 1.0, 0.0};
    side = side - dot(side, axis) * axis;
  }
  side = normalized(side);
  const double along = (thigh * thigh - shin * shin + d * d) / (2.0 * d);
  const double out = std::sqrt(std::max(0.0, thigh * thigh - along * along));
  const Vec3 new_knee = hip + along * axis + out * side;
  const Vec3 new_ankle = hip + d * axis;

  const Quat turn_thigh = from_to(knee - hip, new_knee - hip);
  world[leg.hip].q = normalized(turn_thigh * world[leg.hip].q);
  world[leg.knee].p = new_knee;
  const Quat turn_shin = from_to(rotate(turn_thigh, ankle - knee), new_ankle - new_knee);
  world[leg.knee].q = normalized(turn_shin * turn_thigh * world[leg.knee].q);
  world[leg.foot] = {new_ankle, foot_q};
  for (std::size_t b : leg.below) {
    const Pose& parent = world[static_cast<std::size_t>(parents[b])];
    world[b] = {parent.p + rotate(parent.q, local[b].p), parent.q * local[b].q};
  }
  return reached;
}

bool pivot_on_toe(const Vec3& hip, double reach, const Vec3& toe, Vec3& ankle) {
  if (norm(ankle - hip) <= reach) {
    return true;
  }
  // The circle where the sphere about the toe (the foot's length) meets the one about the hip.
  const double foot = norm(ankle - toe);
  const Vec3 to_hip = hip - toe;
  const double d = norm(to_hip);
  if (!(d > 0.0) || d > foot + reach || d < std::fabs(foot - reach)) {
    return false;
  }
  const Vec3 axis = to_hip * (1.0 / d);
  const double along = (foot * foot - reach * reach + d * d) / (2.0 * d);
  const double radius = std::sqrt(std::max(0.0, foot * foot - along * along));
  const Vec3 centre = toe + along * axis;
  Vec3 side = (ankle - centre) - dot(ankle - centre, axis) * axis;
  if (!(norm(side) > 0.0)) {
    return false;
  }
  ankle = centre + radius * normalized(side);
  return true;
}

} // namespace odemocap::detail
