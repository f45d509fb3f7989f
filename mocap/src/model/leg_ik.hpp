#pragma once
// Two-bone inverse kinematics for a leg (hip, knee, ankle), shared by the loop cut (which keeps
// a cut's seam off the stance feet) and the blend's foot lock.

#include <odemocap/pose.hpp>

#include <cstddef>
#include <vector>

namespace odemocap::detail {

/// A leg's bones: the thigh (its pose at the hip joint), the shin (at the knee) and the foot (at
/// the ankle), each the parent of the next; `below` lists the foot's descendants, parents first.
struct Leg {
  std::size_t hip = 0;
  std::size_t knee = 0;
  std::size_t foot = 0;
  std::vector<std::size_t> below;
};

/// The bones below `bone` (its descendants), parents first, given each bone's parent (-1 for a
/// root) in an order where parents come first.
std::vector<std::size_t> bones_below(const std::vector<int>& parents, std::size_t bone);

/// The leg ending in bone `foot`, or false when the foot's parent and grandparent are not bones
/// (the chain the solver needs).
bool find_leg(const std::vector<int>& parents, std::size_t foot, Leg& leg);

/// Moves the knee and ankle of world poses `world` so that the ankle is at `target`: the hip
/// stays, the thigh and shin keep their lengths, the knee stays in the plane through the hip, the
/// target and its present place (its direction is kept) and the thigh and shin turn by the
/// smallest rotations that do it. The foot's world orientation becomes `foot_q`; its descendants
/// follow from their local poses `local` (relative to their parents). Returns false, reaching as
/// far as the leg can towards the target, when the target is out of reach.
bool solve_leg(std::vector<Pose>& world, const std::vector<Pose>& local, const Leg& leg,
               const Vec3& target, const Quat& foot_q, const std::vector<int>& parents);

/// For a foot turning about its toe: where the ankle must go for the leg to reach it, given the
/// ankle's wanted place `ankle` and its toe's `toe` (world, the toe to stay put). When the hip at
/// `hip` is within `reach` of `ankle`, `ankle`; else the point nearest to it at the ankle's
/// distance from the toe and `reach` from the hip (the heel lifts). False when no such point
/// exists (the toe itself is out of reach).
bool pivot_on_toe(const Vec3& hip, double reach, const Vec3& toe, Vec3& ankle);

} // namespace odemocap::detail
