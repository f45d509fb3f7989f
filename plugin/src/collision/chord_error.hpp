#pragma once
// The error of sweeping along chords: how far a point's chords, in the frame of a target that
// moves and turns, stray from the point's path there. SweepGuard cuts a step into sub-steps
// until this is within its tolerance, and grows what it sweeps over a span of sub-steps by it.

#include <algorithm>

namespace odemocap::detail {

/// How far the chords of a swept point's path in the target's frame stray from that path over
/// a fraction tau of the step (both at constant speed, compared at the same instant).
/// - In the world the point, at most `reach` from its body's origin, which turns by
///   `body_turn` in the step, strays from its chords by the sagitta of its arc,
///   r (1 - cos(turn / 2)) <= r turn^2 / 8.
/// - The target's frame turns by `target_turn` in the step about the target's origin; a chord
///   there from y0 to y1 = y0 + d becomes R(t) ((1 - t) y0 + t y1) against the chord
///   (1 - t) y0 + t R(1) y1 of its ends. They differ by (R(t) - (1 - t) I - t R(1)) y0, the
///   sagitta of y0's arc, plus t (R(t) - R(1)) d, at most 2 t sin(turn (1 - t) / 2) |d|, so
///   at most min(turn / 4, 2) |d|: first order in the turn for a point moving through the
///   frame, which y0's sagitta alone (second order) misses.
/// |y0| is at most `distance` (origin to origin, plus the reach and the relative motion over
/// the step); |d| at most the relative motion `travel` tau plus the chord of the body's turn,
/// 2 r sin(turn / 2) <= r min(turn, 2). Polynomial bounds throughout: this is evaluated for
/// every span of sub-steps tried, and a sagitta bound never exceeds 2 r.
struct ChordError {
  double distance;
  double reach;
  double body_turn;
  double target_turn;
  double travel;

  double operator()(double tau) const {
    const double body = body_turn * tau;
    const double frame = target_turn * tau;
    const double d = travel * tau + reach * std::min(body, 2.0);
    return sagitta(reach, body) + sagitta(distance, frame) + std::min(0.25 * frame, 2.0) * d;
  }

private:
  static double sagitta(double r, double turn) { return r * std::min(0.125 * turn * turn, 2.0); }
};

} // namespace odemocap::detail
