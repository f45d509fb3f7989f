#include <odemocap/ode_math.hpp>
#include <odemocap/plugin_error.hpp>
#include <odemocap/sweep_guard.hpp>

#include "describe.hpp"
#include "collision/swept_sphere.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

namespace odemocap {
namespace {

/// A sphere of a guarded geom, in its body's frame.
struct Ball {
  Vec3 centre;
  double radius = 0.0;
};

/// A guarded geom as the spheres that are swept for it: balls [first, first + count).
struct Swept {
  dGeomID geom = nullptr;
  std::size_t first = 0;
  std::size_t count = 0;
};

/// The geom's pose in its body's frame.
Pose offset_of(dGeomID geom) {
  if (!dGeomIsOffset(geom)) {
    return {};
  }
  dQuaternion q;
  dGeomGetOffsetQuaternion(geom, q);
  return {vec3_from_ode(dGeomGetOffsetPosition(geom)), quat_from_ode(q)};
}

/// A sphere as itself; a capsule as spheres along its axis, spaced so that their union covers
/// it to `tolerance` (the union's radius midway between two centres a distance s apart falls
/// short by r - sqrt(r^2 - s^2/4), about s^2 / 8r). False for other classes.
bool swept_balls(dGeomID geom, double tolerance, std::vector<Ball>& out) {
  const Pose at = offset_of(geom);
  if (dGeomGetClass(geom) == dSphereClass) {
    out.push_back({at.p, dGeomSphereGetRadius(geom)});
    return true;
  }
  if (dGeomGetClass(geom) != dCapsuleClass) {
    return false;
  }
  dReal r = 0;
  dReal length = 0;
  dGeomCapsuleGetParams(geom, &r, &length);
  const double spacing = std::min(r, std::sqrt(8.0 * r * tolerance));
  const int n = std::max(1, static_cast<int>(std::ceil(length / spacing)));
  const Vec3 a = at.p + rotate(at.q, Vec3{0, 0, -0.5 * length});
  const Vec3 b = at.p + rotate(at.q, Vec3{0, 0, 0.5 * length});
  for (int i = 0; i <= n; ++i) {
    out.push_back({a + (static_cast<double>(i) / n) * (b - a), r});
  }
  return true;
}

/// The constant angular velocity (rad/s) that turns `body` over a step of h as ODE will: its
/// spin w in finite rotation mode; otherwise ODE's first-order update q += h/2 w q, normalised,
/// which turns it about w by 2 atan(|w| h / 2) only (2.2 rad instead of 3.9 at 465 rad/s, 120 Hz).
Vec3 step_spin(dBodyID body, double h) {
  const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body));
  const double rate = norm(w);
  if (dBodyGetFiniteRotationMode(body) != 0 || !(rate * h > 1e-9)) {
    return w;
  }
  return w * (2.0 * std::atan(0.5 * rate * h) / (rate * h));
}

/// A geom the guard sweeps against: its shape in its own frame, its pose and motion now
/// (world; zero motion for a static geom).
struct Target {
  int kind = -1; ///< dSphereClass, dCapsuleClass or dBoxClass
  Pose pose;
  Vec3 velocity; ///< of the geom's origin (m/s)
  Vec3 spin;     ///< rad/s
  double radius = 0.0;
  double half_length = 0.0; ///< capsule: its axis runs along local z
  Vec3 half;                ///< box half extents
  double bound = 0.0;       ///< radius of a sphere about the origin holding the shape
};

bool describe_target(dGeomID geom, double h, Target& t) {
  t.kind = dGeomGetClass(geom);
  t.pose = {vec3_from_ode(dGeomGetPosition(geom)), Quat{}};
  dQuaternion q;
  dGeomGetQuaternion(geom, q);
  t.pose.q = quat_from_ode(q);
  const dBodyID body = dGeomGetBody(geom);
  if (body != nullptr) {
    dVector3 v;
    dBodyGetPointVel(body, t.pose.p.x, t.pose.p.y, t.pose.p.z, v);
    t.velocity = vec3_from_ode(v);
    t.spin = step_spin(body, h);
  }
  switch (t.kind) {
  case dSphereClass:
    t.radius = dGeomSphereGetRadius(geom);
    t.bound = t.radius;
    return true;
  case dCapsuleClass: {
    dReal r = 0;
    dReal length = 0;
    dGeomCapsuleGetParams(geom, &r, &length);
    t.radius = r;
    t.half_length = 0.5 * length;
    t.bound = t.half_length + r;
    return true;
  }
  case dBoxClass: {
    dVector3 sides;
    dGeomBoxGetLengths(geom, sides);
    t.half = 0.5 * vec3_from_ode(sides);
    t.bound = norm(t.half);
    return true;
  }
  default: return false;
  }
}

/// A sphere moving from c by d against the target, all in the target's own frame.
std::optional<detail::SweepHit> sweep(const Target& t, const Vec3& c, double r, const Vec3& d) {
  // Most sphere paths pass the target by: its bounding sphere rules them out cheaply.
  if (t.kind != dSphereClass && !detail::sweep_sphere_sphere(c, r, d, {}, t.bound)) {
    return std::nullopt;
  }
  switch (t.kind) {
  case dSphereClass: return detail::sweep_sphere_sphere(c, r, d, {}, t.radius);
  case dCapsuleClass:
    return detail::sweep_sphere_capsule(c, r, d, {0, 0, -t.half_length}, {0, 0, t.half_length},
                                        t.radius);
  default: return detail::sweep_sphere_box(c, r, d, Pose{}, t.half);
  }
}

bool bits_allow(dGeomID a, dGeomID b) {
  return (dGeomGetCategoryBits(a) & dGeomGetCollideBits(b)) != 0 ||
         (dGeomGetCategoryBits(b) & dGeomGetCollideBits(a)) != 0;
}

/// The broad phase's findings: dynamic geoms near the swept volume.
struct Candidates {
  dBodyID body = nullptr;
  dGeomID probe = nullptr;
  std::vector<dGeomID>* geoms = nullptr;
};

void gather(void* data, dGeomID a, dGeomID b) {
  auto* c = static_cast<Candidates*>(data);
  const dGeomID other = a == c->probe ? b : a;
  if (dGeomIsSpace(other)) {
    dSpaceCollide2(c->probe, other, data, &gather);
    return;
  }
  const dBodyID body = dGeomGetBody(other);
  if (body == nullptr || body == c->body || dBodyIsKinematic(body) ||
      dAreConnectedExcluding(body, c->body, dJointTypeContact)) {
    return; // static, its own, kinematic (no contact between two), or joined to it
  }
  c->geoms->push_back(other);
}

/// Where a swept sphere first touches a target over the step: fraction of the step, the hit,
/// and the sphere's centre at the start, at the hit and at the end (relative to the target's
/// motion).
struct FirstTouch {
  double s = 2.0;
  detail::SweepHit hit;
  Vec3 start;
  Vec3 at_hit;
  Vec3 end;
};

/// A hit to complete after the step: the two bodies (body 1 may be null: a static target), the
/// contact point in each body's frame, the normal (from body 2 into body 1) in body 1's frame
/// (world for a static one), and the feedback that says whether the contact pushed.
struct Pending {
  dBodyID body1 = nullptr;
  dBodyID body2 = nullptr;
  Vec3 local1;
  Vec3 local2;
  Vec3 normal1;
  const dJointFeedback* feedback = nullptr;
  /// For a hit on a box's face: the box geom, the face (axis 0-2, sign) and the sphere that
  /// hit it (centre in body 2's frame, radius); face_axis < 0 otherwise.
  dGeomID box = nullptr;
  int face_axis = -1;
  double face_sign = 1.0;
  Vec3 ball;
  double ball_radius = 0.0;
  Vec3 ball_start; ///< the sphere's centre before the step (world)
  Pose box_start;  ///< the box's pose before the step
};

/// A body's world inverse inertia applied to v: R I^-1 R^T v (I in body coordinates).
Vec3 inverse_inertia_times(dBodyID body, const Vec3& v) {
  dMass m;
  dBodyGetMass(body, &m);
  const auto at = [&](int r, int c) { return m.I[4 * r + c]; };
  const Quat q = quat_from_ode(dBodyGetQuaternion(body));
  const Vec3 b = rotate(conj(q), v);
  // Inverse of the symmetric 3x3 inertia by cofactors.
  const double c00 = at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1);
  const double c01 = at(0, 2) * at(2, 1) - at(0, 1) * at(2, 2);
  const double c02 = at(0, 1) * at(1, 2) - at(0, 2) * at(1, 1);
  const double c11 = at(0, 0) * at(2, 2) - at(0, 2) * at(2, 0);
  const double c12 = at(0, 2) * at(1, 0) - at(0, 0) * at(1, 2);
  const double c22 = at(0, 0) * at(1, 1) - at(0, 1) * at(1, 0);
  const double det = at(0, 0) * c00 + at(0, 1) * (at(1, 2) * at(2, 0) - at(1, 0) * at(2, 2)) +
                     at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
  const Vec3 out{(c00 * b.x + c01 * b.y + c02 * b.z) / det,
                 (c01 * b.x + c11 * b.y + c12 * b.z) / det,
                 (c02 * b.x + c12 * b.y + c22 * b.z) / det};
  return rotate(q, out);
}

bool moves_freely(dBodyID body) {
  return body != nullptr && !dBodyIsKinematic(body);
}

/// 1 / (effective mass) of a body along unit n at world point p; 0 for what cannot move.
double inverse_mass_along(dBodyID body, const Vec3& p, const Vec3& n) {
  if (!moves_freely(body)) {
    return 0.0;
  }
  dMass m;
  dBodyGetMass(body, &m);
  const Vec3 r = p - vec3_from_ode(dBodyGetPosition(body));
  return 1.0 / m.mass + dot(n, cross(inverse_inertia_times(body, cross(r, n)), r));
}

void apply_impulse(dBodyID body, const Vec3& p, const Vec3& impulse) {
  if (!moves_freely(body)) {
    return;
  }
  dMass m;
  dBodyGetMass(body, &m);
  const Vec3 r = p - vec3_from_ode(dBodyGetPosition(body));
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body)) + impulse / m.mass;
  const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body)) +
                 inverse_inertia_times(body, cross(r, impulse));
  dBodySetLinearVel(body, v.x, v.y, v.z);
  dBodySetAngularVel(body, w.x, w.y, w.z);
}

Vec3 point_velocity(dBodyID body, const Vec3& p) {
  if (body == nullptr) {
    return {};
  }
  dVector3 v;
  dBodyGetPointVel(body, p.x, p.y, p.z, v);
  return vec3_from_ode(v);
}

Vec3 to_local(dBodyID body, const Vec3& p) {
  if (body == nullptr) {
    return p;
  }
  return rotate(conj(quat_from_ode(dBodyGetQuaternion(body))),
                p - vec3_from_ode(dBodyGetPosition(body)));
}

Vec3 to_world(dBodyID body, const Vec3& local) {
  if (body == nullptr) {
    return local;
  }
  return vec3_from_ode(dBodyGetPosition(body)) +
         rotate(quat_from_ode(dBodyGetQuaternion(body)), local);
}

Vec3 direction_to_world(dBodyID body, const Vec3& local) {
  return body == nullptr ? local : rotate(quat_from_ode(dBodyGetQuaternion(body)), local);
}

Vec3 direction_to_local(dBodyID body, const Vec3& world) {
  return body == nullptr ? world : rotate(conj(quat_from_ode(dBodyGetQuaternion(body))), world);
}

/// The face of a box a hit's normal (target frame) comes out of: axis and sign; axis -1 for an
/// edge or a corner, or another shape.
void face_of(const Target& t, const Vec3& n, int& axis, double& sign) {
  axis = -1;
  if (t.kind != dBoxClass) {
    return;
  }
  const double c[3] = {n.x, n.y, n.z};
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(c[i]) > 1.0 - 1e-9) {
      axis = i;
      sign = c[i] > 0.0 ? 1.0 : -1.0;
    }
  }
}

/// Every dynamic body with sphere or capsule geoms in the space (nested spaces included).
void collect_movers(dSpaceID space, std::vector<dBodyID>& out) {
  const int n = dSpaceGetNumGeoms(space);
  for (int i = 0; i < n; ++i) {
    const dGeomID g = dSpaceGetGeom(space, i);
    if (dGeomIsSpace(g)) {
      collect_movers(reinterpret_cast<dSpaceID>(g), out);
      continue;
    }
    const dBodyID b = dGeomGetBody(g);
    const int kind = dGeomGetClass(g);
    if (b != nullptr && !dBodyIsKinematic(b) && dBodyIsEnabled(b) &&
        (kind == dSphereClass || kind == dCapsuleClass)) {
      out.push_back(b);
    }
  }
}

/// The farthest any point of a dynamic geom of the space moves in a step of h (m), from its
/// velocities: the broad phase grows the swept volume by it, so that a target that moves or
/// spins into the path is a candidate too.
double motion_margin(dSpaceID space, double h) {
  double margin = 0.0;
  const int n = dSpaceGetNumGeoms(space);
  for (int i = 0; i < n; ++i) {
    const dGeomID g = dSpaceGetGeom(space, i);
    if (dGeomIsSpace(g)) {
      margin = std::max(margin, motion_margin(reinterpret_cast<dSpaceID>(g), h));
      continue;
    }
    const dBodyID b = dGeomGetBody(g);
    if (b == nullptr || dBodyIsKinematic(b) || !dBodyIsEnabled(b)) {
      continue;
    }
    dReal aabb[6];
    dGeomGetAABB(g, aabb);
    const double extent =
        0.5 * norm(Vec3{aabb[1] - aabb[0], aabb[3] - aabb[2], aabb[5] - aabb[4]});
    const Vec3 offset = vec3_from_ode(dGeomGetPosition(g)) - vec3_from_ode(dBodyGetPosition(b));
    margin = std::max(margin, (norm(vec3_from_ode(dBodyGetLinearVel(b))) +
                               norm(vec3_from_ode(dBodyGetAngularVel(b))) *
                                   (extent + norm(offset))) *
                                  h);
  }
  return margin;
}

bool overlaps(const dReal* aabb, const Vec3& low, const Vec3& high) {
  return aabb[0] <= high.x && aabb[1] >= low.x && aabb[2] <= high.y && aabb[3] >= low.y &&
         aabb[4] <= high.z && aabb[5] >= low.z;
}

/// A thin box that turned fast in the step (a plate struck off its centre spins a radian or
/// more per step) can end the step across the path of the sphere that hit it, which contacts
/// linear in the step cannot see. Where the sphere's path, seen from the box (from its pose
/// before the step to its pose after it), ends behind the struck face, or crosses the box's
/// middle within the face, the box is moved back along the face's normal until the sphere
/// touches the face again: what a finely sub-stepped run does by hitting the plate again
/// during the turn.
bool push_out_of_the_way(const Pending& p, double tolerance) {
  if (p.box == nullptr || p.body1 == nullptr || dBodyIsKinematic(p.body1)) {
    return false;
  }
  Target t;
  describe_target(p.box, 0.0, t);
  if (t.kind != dBoxClass) {
    return false;
  }
  const Vec3 c1 = rotate(conj(t.pose.q), to_world(p.body2, p.ball) - t.pose.p);
  const Vec3 c0 = rotate(conj(p.box_start.q), p.ball_start - p.box_start.p);
  const double a[3] = {c0.x, c0.y, c0.z};
  const double b[3] = {c1.x, c1.y, c1.z};
  const double half[3] = {t.half.x, t.half.y, t.half.z};
  // The centre's path against the box itself (slabs): where it went in, through which face.
  double enter = -INFINITY;
  double leave = INFINITY;
  int axis = p.face_axis;
  double sign = p.face_sign;
  for (int i = 0; i < 3; ++i) {
    const double d = b[i] - a[i];
    if (d == 0.0) {
      if (std::fabs(a[i]) > half[i]) {
        return false;
      }
      continue;
    }
    double t0 = (-half[i] - a[i]) / d;
    double t1 = (half[i] - a[i]) / d;
    const double entry_sign = d > 0.0 ? -1.0 : 1.0;
    if (t0 > t1) {
      std::swap(t0, t1);
    }
    if (t0 > enter) {
      enter = t0;
      axis = i;
      sign = entry_sign;
    }
    leave = std::min(leave, t1);
  }
  const bool crossed = enter <= leave && enter <= 1.0 && leave >= 0.0 && enter >= 0.0;
  bool penetrating = false;
  if (!crossed && p.face_axis >= 0) {
    // Still in front of the struck face's middle but deep in it, within the face.
    axis = p.face_axis;
    sign = p.face_sign;
    penetrating = true;
    for (int i = 0; i < 3; ++i) {
      penetrating = penetrating && (i == axis || std::fabs(b[i]) <= half[i]);
    }
  }
  if (axis < 0 || (!crossed && !penetrating)) {
    return false;
  }
  const double depth = half[axis] + p.ball_radius - sign * b[axis];
  if (!(depth > tolerance)) {
    return false;
  }
  double move[3] = {0.0, 0.0, 0.0};
  move[axis] = -sign * depth;
  const Vec3 now =
      vec3_from_ode(dBodyGetPosition(p.body1)) + rotate(t.pose.q, Vec3{move[0], move[1], move[2]});
  dBodySetPosition(p.body1, now.x, now.y, now.z);
  return true;
}

} // namespace

/// One row of after_step()'s impulse solve.
struct ImpulseRow {
  const Pending* pending = nullptr;
  Vec3 p1, p2; ///< the contact point on each body now (world)
  Vec3 n;      ///< from body 2 into body 1 (world)
  double k = 0.0; ///< inverse effective mass along n
  double impulse = 0.0; ///< accumulated, >= 0
};

struct SweepGuard::Scratch {
  std::vector<Ball> balls;
  std::vector<Swept> swept;
  std::vector<Pose> poses;
  std::vector<dGeomID> candidates;
  Vec3 low;  ///< the swept volume's bounds, this body, this step
  Vec3 high;
  double reach = 0.0; ///< farthest swept point from the body's origin (m)
  int k_steps = 1;
  std::vector<Pose> frames;     ///< per sub-step: world to the target's frame (p, conj q)
  std::vector<Pose> body_poses; ///< per sub-step: the swept body's pose
  std::deque<dJointFeedback> feedback; ///< stable addresses for ODE to write into
  std::vector<Pending> pending;
  std::vector<ImpulseRow> rows;
  std::vector<dBodyID> expected_bodies; ///< kinematic guarded bodies and where they go
  std::vector<Vec3> expected;
  std::vector<dBodyID> movers; ///< dynamic bodies, for static geoms
};

SweepGuard::SweepGuard(dWorldID world, dSpaceID space, dJointGroupID contacts,
                       const SweepSettings& settings)
    : world_(world), space_(space), contacts_(contacts), settings_(settings),
      scratch_(std::make_unique<Scratch>()) {
  if (world == nullptr || space == nullptr || contacts == nullptr) {
    throw PluginError("SweepGuard: world, space and contact group must not be null");
  }
  if (!(settings.tolerance > 0.0) || !std::isfinite(settings.tolerance)) {
    throw PluginError("SweepGuard: tolerance must be finite and positive, got " +
                      detail::describe(settings.tolerance));
  }
  if (settings.max_sub_steps < 1) {
    throw PluginError("SweepGuard: max_sub_steps must be at least 1, got " +
                      std::to_string(settings.max_sub_steps));
  }
  probe_ = dCreateBox(nullptr, 1, 1, 1);
}

SweepGuard::~SweepGuard() {
  dGeomDestroy(probe_);
}

void SweepGuard::guard(dBodyID body) {
  if (body == nullptr || dBodyGetWorld(body) != world_) {
    throw PluginError("SweepGuard::guard: the body is null or of another world");
  }
  if (std::find(bodies_.begin(), bodies_.end(), body) == bodies_.end()) {
    bodies_.push_back(body);
  }
}

void SweepGuard::unguard(dBodyID body) {
  bodies_.erase(std::remove(bodies_.begin(), bodies_.end(), body), bodies_.end());
}

void SweepGuard::guard_static(dGeomID geom) {
  if (geom == nullptr || dGeomGetBody(geom) != nullptr) {
    throw PluginError("SweepGuard::guard_static: the geom is null or has a body (guard the body)");
  }
  const int kind = dGeomGetClass(geom);
  if (kind != dSphereClass && kind != dCapsuleClass && kind != dBoxClass) {
    throw PluginError("SweepGuard::guard_static: only sphere, capsule and box geoms can be "
                      "guarded, got geom class " +
                      std::to_string(kind));
  }
  if (std::find(statics_.begin(), statics_.end(), geom) == statics_.end()) {
    statics_.push_back(geom);
  }
}

void SweepGuard::unguard_static(dGeomID geom) {
  statics_.erase(std::remove(statics_.begin(), statics_.end(), geom), statics_.end());
}

void SweepGuard::after_step() {
  Scratch& x = *scratch_;
  // The hits that pushed, as impulse rows: a few Gauss-Seidel sweeps with impulses kept >= 0,
  // so that a hit held at both ends of its path across a plate is completed as a push, not
  // as a blow at one end that would set the plate spinning.
  x.rows.clear();
  for (const Pending& p : x.pending) {
    if (p.feedback == nullptr) {
      continue; // watched only, or a bounce (ODE gave the whole rebound)
    }
    const dReal* f1 = p.feedback->f1;
    const dReal* f2 = p.feedback->f2;
    const double force2 = f1[0] * f1[0] + f1[1] * f1[1] + f1[2] * f1[2] + f2[0] * f2[0] +
                          f2[1] * f2[1] + f2[2] * f2[2];
    if (!(force2 > 0.0)) {
      continue; // the contact did not push: no hit happened in the step
    }
    ImpulseRow row;
    row.pending = &p;
    row.p1 = to_world(p.body1, p.local1);
    row.p2 = to_world(p.body2, p.local2);
    row.n = direction_to_world(p.body1, p.normal1);
    row.k = inverse_mass_along(p.body1, row.p1, row.n) + inverse_mass_along(p.body2, row.p2, row.n);
    if (row.k > 0.0) {
      x.rows.push_back(row);
    }
  }
  for (int sweep = 0; sweep < 8 && !x.rows.empty(); ++sweep) {
    for (ImpulseRow& row : x.rows) {
      const Pending& p = *row.pending;
      const double closing =
          dot(row.n, point_velocity(p.body2, row.p2) - point_velocity(p.body1, row.p1));
      const double total = std::max(0.0, row.impulse + closing / row.k);
      const double delta = total - row.impulse;
      if (delta == 0.0) {
        continue;
      }
      row.impulse = total;
      apply_impulse(p.body1, row.p1, delta * row.n);
      apply_impulse(p.body2, row.p2, -delta * row.n);
    }
  }
  for (const ImpulseRow& row : x.rows) {
    stats_.corrected += row.impulse > 0.0 ? 1 : 0;
  }
  for (const Pending& p : x.pending) {
    stats_.pushed_out += push_out_of_the_way(p, settings_.tolerance) ? 1 : 0;
  }
  x.pending.clear();
  x.feedback.clear();
}

void SweepGuard::check_teleports() {
  Scratch& x = *scratch_;
  for (std::size_t i = 0; i < x.expected_bodies.size(); ++i) {
    const dBodyID body = x.expected_bodies[i];
    if (std::find(bodies_.begin(), bodies_.end(), body) == bodies_.end()) {
      continue; // unguarded since (and perhaps destroyed)
    }
    if (norm(vec3_from_ode(dBodyGetPosition(body)) - x.expected[i]) > settings_.tolerance) {
      ++stats_.teleported;
    }
  }
  x.expected_bodies.clear();
  x.expected.clear();
  for (dBodyID body : bodies_) {
    if (dBodyIsKinematic(body)) {
      x.expected_bodies.push_back(body);
    }
  }
}

int SweepGuard::collide(double h) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw PluginError("SweepGuard::collide: h must be finite and positive, got " +
                      detail::describe(h));
  }
  after_step();
  check_teleports();
  ++stats_.steps;
  added_ = 0;
  contacts_made_.clear();
  margin_ = bodies_.empty() ? 0.0 : motion_margin(space_, h);
  for (dBodyID body : bodies_) {
    sweep_body(body, h);
  }
  if (!statics_.empty()) {
    sweep_into_static(h);
  }
  Scratch& x = *scratch_;
  for (dBodyID body : x.expected_bodies) {
    x.expected.push_back(vec3_from_ode(dBodyGetPosition(body)) +
                         h * vec3_from_ode(dBodyGetLinearVel(body)));
  }
  return added_;
}

bool SweepGuard::prepare(dBodyID body, double h) {
  Scratch& x = *scratch_;
  x.balls.clear();
  x.swept.clear();
  double reach = 0.0;         // farthest swept point from the body's origin
  double smallest = INFINITY; // smallest swept radius
  for (dGeomID g = dBodyGetFirstGeom(body); g != nullptr; g = dBodyGetNextGeom(g)) {
    const std::size_t first = x.balls.size();
    if (!swept_balls(g, settings_.tolerance, x.balls)) {
      ++stats_.unsupported;
      continue;
    }
    x.swept.push_back({g, first, x.balls.size() - first});
  }
  if (x.swept.empty()) {
    return false;
  }
  for (const Ball& b : x.balls) {
    reach = std::max(reach, norm(b.centre) + b.radius);
    smallest = std::min(smallest, b.radius);
  }
  const Pose start = body_pose(body);
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body));
  const Vec3 w = step_spin(body, h);
  // Too slow to pass anything: no point moves further than this bound in the step.
  const double travel = (norm(v) + norm(w) * reach) * h;
  if (travel <= 2.0 * std::sqrt(2.0 * smallest * settings_.tolerance)) {
    ++stats_.slow;
    return false;
  }
  // Sub-steps: a point at distance `reach` turning by phi strays from its chord by
  // reach (1 - cos(phi / 2)); keep that within the tolerance.
  const double turn = norm(w) * h;
  int k_steps = 1;
  if (turn > 0.0 && settings_.tolerance < 2.0 * reach) {
    const double phi = 2.0 * std::acos(1.0 - settings_.tolerance / reach);
    const double needed = std::ceil(turn / phi);
    if (needed > settings_.max_sub_steps) {
      ++stats_.sub_step_limit;
    }
    k_steps = static_cast<int>(std::min<double>(needed, settings_.max_sub_steps));
    k_steps = std::max(k_steps, 1);
  }
  stats_.sub_steps_max = std::max(stats_.sub_steps_max, k_steps);
  x.k_steps = k_steps;
  x.poses.resize(static_cast<std::size_t>(k_steps) + 1);
  Vec3 low{INFINITY, INFINITY, INFINITY};
  Vec3 high = -1.0 * low;
  for (int k = 0; k <= k_steps; ++k) {
    const double s = static_cast<double>(k) / k_steps;
    Pose& pose = x.poses[static_cast<std::size_t>(k)];
    pose = {start.p + (s * h) * v, integrate(start.q, w, s * h)};
    for (const Ball& b : x.balls) {
      const Vec3 c = pose.p + rotate(pose.q, b.centre);
      const double grow = b.radius + settings_.tolerance;
      low = {std::min(low.x, c.x - grow), std::min(low.y, c.y - grow), std::min(low.z, c.z - grow)};
      high = {std::max(high.x, c.x + grow), std::max(high.y, c.y + grow),
              std::max(high.z, c.z + grow)};
    }
  }
  x.low = low;
  x.high = high;
  x.reach = reach;
  return true;
}

void SweepGuard::sweep_body(dBodyID body, double h) {
  if (!prepare(body, h)) {
    return;
  }
  Scratch& x = *scratch_;
  // Broad phase: an axis-aligned box around the swept volume (grown by the farthest a target
  // moves meanwhile) against the space.
  const Vec3 size = x.high - x.low + Vec3{2 * margin_, 2 * margin_, 2 * margin_};
  dGeomBoxSetLengths(probe_, size.x, size.y, size.z);
  const Vec3 mid = 0.5 * (x.low + x.high);
  dGeomSetPosition(probe_, mid.x, mid.y, mid.z);
  unsigned long category = 0;
  unsigned long collide = 0;
  for (const Swept& g : x.swept) {
    category |= dGeomGetCategoryBits(g.geom);
    collide |= dGeomGetCollideBits(g.geom);
  }
  dGeomSetCategoryBits(probe_, category);
  dGeomSetCollideBits(probe_, collide);
  x.candidates.clear();
  Candidates found{body, probe_, &x.candidates};
  dSpaceCollide2(probe_, reinterpret_cast<dGeomID>(space_), &found, &gather);
  std::sort(x.candidates.begin(), x.candidates.end());
  x.candidates.erase(std::unique(x.candidates.begin(), x.candidates.end()), x.candidates.end());
  for (dGeomID other : x.candidates) {
    sweep_against(body, other, h);
  }
}

void SweepGuard::sweep_into_static(double h) {
  Scratch& x = *scratch_;
  x.movers.clear();
  collect_movers(space_, x.movers);
  std::sort(x.movers.begin(), x.movers.end());
  x.movers.erase(std::unique(x.movers.begin(), x.movers.end()), x.movers.end());
  for (dBodyID body : x.movers) {
    if (std::find(bodies_.begin(), bodies_.end(), body) != bodies_.end() || !prepare(body, h)) {
      continue; // a guarded body was swept against everything already
    }
    for (dGeomID geom : statics_) {
      dReal aabb[6];
      dGeomGetAABB(geom, aabb);
      if (overlaps(aabb, x.low, x.high)) {
        sweep_against(body, geom, h);
      }
    }
  }
}

void SweepGuard::sweep_against(dBodyID body, dGeomID other, double h) {
  Scratch& x = *scratch_;
  Target target;
  if (!describe_target(other, h, target)) {
    ++stats_.unsupported;
    return;
  }
  const dBodyID other_body = dGeomGetBody(other); // null for a guarded static geom
  const Pose start = body_pose(body);
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body));
  const Vec3 w = step_spin(body, h);
  // The sweep runs in the target's own frame, which moves and turns with it meanwhile: a
  // spinning plate's rim comes round to meet the sphere. Sub-steps so that the path of a
  // point at distance rho from the target's origin strays from its chords by at most the
  // tolerance, as for the swept body's own turn.
  int k_steps = x.k_steps;
  const double turn = norm(target.spin) * h;
  if (turn > 0.0) {
    const double rho =
        norm(start.p - target.pose.p) + x.reach + norm(v - target.velocity) * h;
    if (settings_.tolerance < 2.0 * rho) {
      const double phi = 2.0 * std::acos(1.0 - settings_.tolerance / rho);
      const double needed = std::ceil(turn / phi);
      if (needed > settings_.max_sub_steps) {
        ++stats_.sub_step_limit;
      }
      k_steps = std::max(k_steps, static_cast<int>(std::min<double>(needed, settings_.max_sub_steps)));
    }
  }
  stats_.sub_steps_max = std::max(stats_.sub_steps_max, k_steps);
  const auto body_at = [&](int k) {
    if (k_steps == x.k_steps) {
      return x.poses[static_cast<std::size_t>(k)];
    }
    const double s = static_cast<double>(k) / k_steps;
    return Pose{start.p + (s * h) * v, integrate(start.q, w, s * h)};
  };
  // Each sub-step's map from world to the target's frame: x -> conj(q) (x - p).
  x.frames.resize(static_cast<std::size_t>(k_steps) + 1);
  x.body_poses.resize(static_cast<std::size_t>(k_steps) + 1);
  for (int k = 0; k <= k_steps; ++k) {
    const double s = static_cast<double>(k) / k_steps;
    x.frames[static_cast<std::size_t>(k)] = {target.pose.p + (s * h) * target.velocity,
                                             conj(integrate(target.pose.q, target.spin, s * h))};
    x.body_poses[static_cast<std::size_t>(k)] = body_at(k);
  }
  const auto local = [&](int k, const Vec3& body_point) {
    const Pose& f = x.frames[static_cast<std::size_t>(k)];
    const Pose& b = x.body_poses[static_cast<std::size_t>(k)];
    return rotate(f.q, b.p + rotate(b.q, body_point) - f.p);
  };
  for (const Swept& g : x.swept) {
    if (!bits_allow(g.geom, other)) {
      continue;
    }
    ++stats_.pairs_swept;
    // A pair touching now has its contact from discrete collision; on a box's face the guard
    // still watches that the sphere does not end the step through the face (after_step()).
    dContactGeom touching_geom[1];
    const bool touching = dCollide(g.geom, other, 1, touching_geom, sizeof(dContactGeom)) > 0;
    if (touching) {
      ++stats_.touching;
      if (target.kind != dBoxClass) {
        continue;
      }
    }
    FirstTouch first;
    std::size_t first_ball = 0;
    for (int k = 0; k < k_steps && first.s > 1.0; ++k) {
      const double s0 = static_cast<double>(k) / k_steps;
      const double s1 = static_cast<double>(k + 1) / k_steps;
      for (std::size_t i = g.first; i < g.first + g.count; ++i) {
        const Ball& b = x.balls[i];
        const Vec3 c0 = local(k, b.centre);
        const Vec3 c1 = local(k + 1, b.centre);
        const auto hit = sweep(target, c0, b.radius, c1 - c0);
        if (!hit) {
          continue;
        }
        const double s = s0 + hit->t * (s1 - s0);
        if (s < first.s) {
          first = {s, *hit, local(0, b.centre), c0 + hit->t * (c1 - c0), {}};
          first_ball = i;
        }
      }
    }
    if (first.s > 1.0) {
      continue;
    }
    first.end = local(k_steps, x.balls[first_ball].centre);
    // The contact: body 1 the target, body 2 the swept body, normal from the swept geom into
    // the target (ODE's normal points into body 1), placed on the target as it is now (the
    // hit's point and normal in the target's frame, taken back to its pose now). In that frame
    // the sphere travels `travel` along the normal over the step and reaches the target after
    // `gap`: the target's surface there must give way by travel - gap beyond the motion it
    // has, so n . (v_target(point) - v_swept(point)) >= (travel - gap) / h +
    // n . (v_target(point) - v_swept(point)) with the velocities now. ODE reads the swept
    // body's velocity at the contact point, which for a turning body is not the velocity of
    // the sphere that hits: this is why the right-hand side comes from the sphere's path. For
    // bodies that only translate it is -gap / h, the pair closing by the gap and no more.
    // With restitution, ODE measures the bounce relative to motionN (its right-hand side is
    // -e (v - motionN) + motionN), which would take (1 + e) gap / h off the rebound: there
    // motionN stays 0 and the rebound is the one the approach speed calls for, given in this
    // step rather than at the touch.
    const Vec3 local_normal = -1.0 * first.hit.normal;
    const double gap = std::max(0.0, dot(first.at_hit - first.start, local_normal));
    const double travel = dot(first.end - first.start, local_normal);
    const Vec3 normal = rotate(target.pose.q, local_normal);
    // ODE takes one point for both bodies' lever arms. On a dynamic target, the hit's point on
    // its surface now. On a static one the lever arm that matters is the moving body's: the
    // point of its sphere that leads along the normal now, not where the sphere will be (a
    // lever arm reaching ahead to the touch would let the solver spin a ball instead of
    // stopping it).
    const Vec3 point = moves_freely(other_body)
                           ? target.pose.p + rotate(target.pose.q, first.hit.point)
                           : x.body_poses[0].p + rotate(x.body_poses[0].q, x.balls[first_ball].centre) +
                                 x.balls[first_ball].radius * rotate(target.pose.q, local_normal);
    Pending pending;
    pending.body1 = other_body;
    pending.body2 = body;
    pending.local1 = to_local(other_body, point);
    pending.local2 = to_local(body, point);
    pending.normal1 = direction_to_local(other_body, normal);
    face_of(target, first.hit.normal, pending.face_axis, pending.face_sign);
    pending.box = other;
    pending.ball = x.balls[first_ball].centre;
    pending.ball_radius = x.balls[first_ball].radius;
    pending.ball_start = start.p + rotate(start.q, pending.ball);
    pending.box_start = target.pose;
    if (touching) {
      if (target.kind == dBoxClass) {
        x.pending.push_back(pending); // watched: after_step() checks it did not pass
      }
      continue;
    }
    dContact contact{};
    contact.surface = settings_.surface;
    to_ode(point, contact.geom.pos);
    to_ode(normal, contact.geom.normal);
    contact.geom.depth = 0.0;
    contact.geom.g1 = other;
    contact.geom.g2 = g.geom;
    if (settings_.on_contact && !settings_.on_contact(contact)) {
      ++stats_.refused;
      continue;
    }
    const bool bounces = (contact.surface.mode & dContactBounce) != 0;
    const double closing_now =
        dot(normal, point_velocity(other_body, point) - point_velocity(body, point));
    contact.surface.mode |= dContactMotionN;
    contact.surface.motionN = bounces ? 0.0 : (travel - gap) / h + closing_now;
    const dJointID joint = dJointCreateContact(world_, contacts_, &contact);
    dJointAttach(joint, other_body, body);
    if (!bounces) {
      x.feedback.emplace_back();
      dJointSetFeedback(joint, &x.feedback.back());
      pending.feedback = &x.feedback.back();
    }
    x.pending.push_back(pending);
    contacts_made_.push_back({joint, other, g.geom, point, normal, gap});
    ++stats_.speculative_contacts;
    ++added_;
  }
}

} // namespace odemocap
