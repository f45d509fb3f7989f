#pragma once
// A point's way through a step seen from a solid that moves and turns in that step: what
// SweepGuard::after_step() follows to tell whether a hand went into a plate that spun.

#include <odemocap/pose.hpp>
#include <odemocap/quat.hpp>

#include <cmath>

namespace odemocap::detail {

/// Calls `piece(a, b)` on segments of a point's way through a step seen from a solid (the
/// solid's frame), until one call returns true; returns whether one did. The point moves on a
/// line from `from` to `to` (world), the solid on a line and at one constant turn (the shorter
/// arc) from pose `then` to pose `now`. First the chord between the way's two ends in the
/// solid's frame: all that a program seeing only the poses after each step can tell. Then, where
/// the solid turned and the point comes within `bound` (m) of its origin, the path those motions
/// make, which curves in the solid's frame, in n pieces that each stray from it by at most
/// `stray` (m, > 0). The two differ where the solid turned fast: a plate struck off its middle
/// turns 1.5-2.3 rad in a step, and a hand that went through it on the way can end with the
/// chord beside the plate, or one that passed its rim with the chord through it.
///
/// The pieces: with u(s) = from - then.p + s D the point's offset from the solid's origin in
/// the world (D the difference of the two motions over the step) and theta the turn, the path
/// in the solid's frame is y(s) = R(s)^T u(s), R(s) the solid's orientation turned s theta, and
/// |y''| <= theta^2 |u| + 2 theta |D|; a chord over 1/n of the step strays from its arc by at
/// most |y''| / (8 n^2).
template <class Piece>
bool chord_or_path(const Pose& then, const Pose& now, const Vec3& from, const Vec3& to,
                   double bound, double stray, const Piece& piece) {
  constexpr int k_most_pieces = 1000;
  const Vec3 start = rotate(conj(then.q), from - then.p);
  if (piece(start, rotate(conj(now.q), to - now.p))) {
    return true;
  }
  // A turn keeps the point's distance from the solid's origin: the path stays beyond `bound`
  // where the offset u(s) does.
  const Vec3 u0 = from - then.p;
  const Vec3 travel = (to - from) - (now.p - then.p);
  const double dd = dot(travel, travel);
  const double nearest = dd > 0.0 ? std::fmin(1.0, std::fmax(0.0, -dot(u0, travel) / dd)) : 0.0;
  const Vec3 closest = u0 + nearest * travel;
  if (dot(closest, closest) > bound * bound) {
    return false;
  }
  Quat turn = now.q * conj(then.q);
  turn = turn.w < 0.0 ? -1.0 * turn : turn;
  const Vec3 rotation = to_rotation_vector(turn);
  const double theta = norm(rotation);
  const double reach = std::fmax(norm(u0), norm(to - now.p));
  const double bend = theta * theta * reach + 2.0 * theta * std::sqrt(dd);
  const double wanted = std::ceil(std::sqrt(bend / (8.0 * stray)));
  if (!(wanted > 1.0)) {
    return false; // the path is the chord, or strays from it by less than `stray`
  }
  const int pieces = wanted < k_most_pieces ? static_cast<int>(wanted) : k_most_pieces;
  const Quat step = from_rotation_vector((1.0 / pieces) * rotation);
  Quat q = then.q;
  Vec3 previous = start;
  for (int k = 1; k <= pieces; ++k) {
    const double s = static_cast<double>(k) / pieces;
    q = k == pieces ? now.q : step * q;
    const Vec3 local = rotate(conj(q), u0 + s * travel);
    if (piece(previous, local)) {
      return true;
    }
    previous = local;
  }
  return false;
}

} // namespace odemocap::detail
