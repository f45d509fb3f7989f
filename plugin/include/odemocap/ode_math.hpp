#pragma once
/// Conversions between odemocap's Vec3/Quat/Pose and ODE's dReal arrays: the one place where
/// the two meet. Both store quaternions w, x, y, z, so these are component copies.

#include <odemocap/pose.hpp>

#include <ode/ode.h>

namespace odemocap {

/// Copies q into ODE's w, x, y, z array.
void to_ode(const Quat& q, dQuaternion out);

/// Copies v into ODE's vector (the fourth, padding element is set to 0).
void to_ode(const Vec3& v, dVector3 out);

/// Quaternion from ODE's w, x, y, z array (e.g. dBodyGetQuaternion).
Quat quat_from_ode(const dReal* q);

/// Vector from the first three elements of an ODE vector (e.g. dBodyGetPosition).
Vec3 vec3_from_ode(const dReal* v);

/// Current pose of an ODE body: position (m) and orientation (body to world), world frame.
Pose body_pose(dBodyID body);

/// Sets an ODE body's position and orientation.
void set_body_pose(dBodyID body, const Pose& pose);

} // namespace odemocap
