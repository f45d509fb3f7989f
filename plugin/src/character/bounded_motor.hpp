#pragma once
// A three-row ODE motor (a linear motor, or an angular motor in user mode) whose total force
// is bounded in magnitude, not per axis. ODE bounds each row's force by its own FMax, so three
// world-axis rows with FMax = F allow sqrt(3) F. Here the rows are an orthonormal basis whose
// first axis lies along the force the step is expected to need; that row may use a share
// `lead` of F and the other two `side` each, with lead^2 + 2 side^2 = 1, so the sum of the
// three never exceeds F whatever the solver does. The lead row gets twice the predicted need
// (at most 99.5%, at least an equal share): when the prediction is right (an unobstructed
// body) it carries all of it, and the other two keep the rest of the limit for what the
// prediction cannot see. A body that needs little (a hand holding its orientation while it
// slides on a table) thus keeps 58% of its limit in every direction against a contact's
// torque, where a fixed 99.5% lead left 7% (sqrt((1 - 0.995^2) / 2)) beside a lead that
// pointed wherever rounding put it.

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

#include <cmath>

namespace odemocap::detail {

enum class MotorKind { Linear, Angular };

/// Creates the motor between `body1` and `body2` (null: the static world) with three stiff
/// rows (CFM 1e-10 whatever the world's) in world axes and feedback into `feedback`.
dJointID create_bounded_motor(dWorldID world, MotorKind kind, dBodyID body1, dBodyID body2,
                              dJointFeedback* feedback);

/// Sets the rows of `motor` for one step: the velocity of body 1 relative to body 2 (m/s or
/// rad/s, world frame) becomes `velocity` along every row the force bound allows, the first
/// row along `lead` (any direction when `lead` is zero), the force magnitude (N or N m) at most
/// `max`.
void set_bounded_rows(dJointID motor, MotorKind kind, const Vec3& lead, const Vec3& velocity,
                      double max);

/// Sets the rows of `motor` for one step of a body held against a surface of unit `normal`:
/// the first row along the normal, the second along the part of `lead` across it, the third
/// beside both, each holding `velocity`'s component, with the limits set_bounded_rows gives a
/// basis led by `lead`, seen along these axes (still at most `max` in total). A row that cannot
/// reach its speed (the surface holds the body, or friction) then pushes along its own axis
/// only: whatever the rows across the normal cannot reach does not move the body along it.
void set_bounded_rows_across(dJointID motor, MotorKind kind, const Vec3& normal, const Vec3& lead,
                             const Vec3& velocity, double max);

/// Sets the rows of `motor` along the world axes with equal limits max / sqrt(3): the force
/// (N or N m) is at most `max` in magnitude whatever its direction, and at least 58% of it is
/// available in every direction. For motors whose force cannot be predicted.
void set_isotropic_rows(dJointID motor, MotorKind kind, const Vec3& velocity, double max);

/// Two unit vectors that make (a, b, c) a right-handed orthonormal basis with the unit `a`.
void complete_basis(const Vec3& a, Vec3& b, Vec3& c);

} // namespace odemocap::detail
