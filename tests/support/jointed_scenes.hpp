#pragma once
// The scenes of bodies jointed to captured bodies (issue 26), without a physics engine: the
// carriers' trajectories and the jointed bodies' geometry, shared by the ODE tests
// (tests/plugin/drive/jointed_bodies_test.cpp) and the MuJoCo peer (tests/bench/mujoco_peer.cpp)
// so that both run the same scenes. 120 Hz, gravity -9.81 m/s^2 along Z.

#include <odemocap/load.hpp>
#include <odemocap/pose.hpp>

#include <cmath>
#include <string>

namespace odemocap::test::jointed {

constexpr double k_h = 1.0 / 120.0;
constexpr double k_seconds = 4.0; ///< each run's length
constexpr double k_pi = 3.14159265358979323846;

/// The pose b given in a's frame, in the world: what a rigid weld keeps.
inline Pose compose(const Pose& a, const Pose& b) {
  return {a.p + rotate(a.q, b.p), a.q * b.q};
}

/// The payload: a 0.5 kg box welded at this offset in the carrier's frame.
inline Pose weld_offset() {
  return {{0.15, 0.05, -0.1}, from_axis_angle(normalized(Vec3{1, 2, 3}), 0.7)};
}
inline constexpr double k_payload_mass = 0.5;
inline Vec3 payload_sides() {
  return {0.12, 0.08, 0.05};
}

/// A 3 Hz figure eight, 0.3 m wide, turning as it goes.
inline Pose figure_eight(double t) {
  const double w = 2 * k_pi * 3.0;
  return {{0.3 * std::sin(w * t), 0.15 * std::sin(2 * w * t), 1.0},
          from_axis_angle(normalized(Vec3{0.3, 0.2, 1.0}), 0.8 * std::sin(w * t))};
}

/// The CMU hop's right wrist, in metres, Z up; `path`: data/cmu/131_03.bvh.
inline Track cmu_wrist(const std::string& path) {
  LoadOptions load;
  load.length_scale = 0.0254 / 0.45;
  load.up_axis = Axis::Z;
  const Capture c = load_capture(path, load);
  return *c.find_track("RightWrist");
}

/// The pendulum's carrier: swinging 40 degrees about a horizontal axis at 1.5 Hz while it
/// sways 0.2 m at 0.7 Hz. A 1 kg box of 0.1 m hangs from it on a ball joint 0.2 m below its
/// origin, the box's centre 0.5 m below the joint.
inline Pose swing(double t) {
  return {{0.2 * std::sin(2 * k_pi * 0.7 * t), 0, 1.5},
          from_axis_angle({0, 1, 0}, 0.7 * std::sin(2 * k_pi * 1.5 * t))};
}
inline Vec3 pendulum_anchor() {
  return {0, 0, 1.3};
} ///< the joint at time 0 (world)
inline Vec3 bob_start() {
  return {0, 0, 0.8};
}
inline constexpr double k_bob_mass = 1.0;
inline constexpr double k_bob_side = 0.1;

} // namespace odemocap::test::jointed
