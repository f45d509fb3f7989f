#pragma once
// A three-row ODE motor (a linear motor, or an angular motor in user mode) whose total force
// is bounded in magnitude, not per axis. ODE bounds each row's force by its own FMax, so three
// world-axis rows with FMax = F allow sqrt(3) F. Here the rows are an orthonormal basis whose
// first axis lies along the force the step is expected to need; that row may use
// k_lead * F and the other two k_side * F each, with k_lead^2 + 2 k_side^2 = 1, so the sum of
// the three never exceeds F whatever the solver does. When the expected force is right (an
// unobstructed body) the first row carries all of it, and the other two correct what the
// prediction missed.

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

namespace odemocap::detail {

constexpr double k_lead = 0.995;
constexpr double k_side = 0.07053367989832943; // sqrt((1 - k_lead^2) / 2)

enum class MotorKind { Linear, Angular };

/// Creates the motor between `body1` and `body2` (null: the static world) with three stiff
/// rows (CFM 1e-10 whatever the world's) in world axes and feedback into `feedback`.
dJointID create_bounded_motor(dWorldID world, MotorKind kind, dBodyID body1, dBodyID body2,
                              dJointFeedback* feedback);

/// Sets the rows of `motor` for one step: the velocity of body 1 relative to body 2 (m/s or
/// rad/s, world frame) becomes `velocity` along every row the force bound allows, the first
/// row along `lead` (any direction when `lead` is zero), the force magnitude (N or N m) at
/// most `max`.
void set_bounded_rows(dJointID motor, MotorKind kind, const Vec3& lead, const Vec3& velocity,
                      double max);

/// Sets the rows of `motor` along the world axes with equal limits max / sqrt(3): the force
/// (N or N m) is at most `max` in magnitude whatever its direction, and at least 58% of it is
/// available in every direction. For motors whose force cannot be predicted.
void set_isotropic_rows(dJointID motor, MotorKind kind, const Vec3& velocity, double max);

/// Two unit vectors that make (a, b, c) a right-handed orthonormal basis with the unit `a`.
void complete_basis(const Vec3& a, Vec3& b, Vec3& c);

} // namespace odemocap::detail
