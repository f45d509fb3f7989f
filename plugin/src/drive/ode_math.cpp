#include <odemocap/ode_math.hpp>

namespace odemocap {

void to_ode(const Quat& q, dQuaternion out) {
  out[0] = q.w;
  out[1] = q.x;
  out[2] = q.y;
  out[3] = q.z;
}

void to_ode(const Vec3& v, dVector3 out) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = 0.0;
}

Quat quat_from_ode(const dReal* q) {
  return {q[0], q[1], q[2], q[3]};
}

Vec3 vec3_from_ode(const dReal* v) {
  return {v[0], v[1], v[2]};
}

Pose body_pose(dBodyID body) {
  return {vec3_from_ode(dBodyGetPosition(body)), quat_from_ode(dBodyGetQuaternion(body))};
}

void set_body_pose(dBodyID body, const Pose& pose) {
  dBodySetPosition(body, pose.p.x, pose.p.y, pose.p.z);
  dQuaternion q;
  to_ode(pose.q, q);
  dBodySetQuaternion(body, q);
}

} // namespace odemocap
