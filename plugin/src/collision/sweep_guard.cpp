#include <odemocap/ode_math.hpp>
#include <odemocap/plugin_error.hpp>
#include <odemocap/sweep_guard.hpp>

#include "collision/box_lanes.hpp"
#include "collision/chord_error.hpp"
#include "collision/nearest.hpp"
#include "collision/relative_path.hpp"
#include "collision/swept_box.hpp"
#include "collision/swept_sphere.hpp"
#include "collision/triangle_tree.hpp"
#include "describe.hpp"
#include "geom_bits.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <optional>

namespace odemocap {
namespace {

/// A guarded geom as the spheres that are swept for it, in its body's frame: `count` spheres of
/// one radius whose centres lie evenly spaced from `front` to `back` (one sphere: both the same).
struct Swept {
  dGeomID geom = nullptr;
  Vec3 front;
  Vec3 back;
  double radius = 0.0;
  std::size_t count = 1;

  /// Where sphere i sits on the segment (0 at the front, 1 at the back).
  double fraction(std::size_t i) const {
    return count > 1 ? static_cast<double>(i) / static_cast<double>(count - 1) : 0.0;
  }
  Vec3 centre(std::size_t i) const { return front + fraction(i) * (back - front); }
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
/// short by r - sqrt(r^2 - s^2/4), about s^2 / 8r). Empty for other classes.
std::optional<Swept> swept_spheres(dGeomID geom, double tolerance) {
  const Pose at = offset_of(geom);
  if (dGeomGetClass(geom) == dSphereClass) {
    return Swept{geom, at.p, at.p, dGeomSphereGetRadius(geom), 1};
  }
  if (dGeomGetClass(geom) != dCapsuleClass) {
    return std::nullopt;
  }
  dReal r = 0;
  dReal length = 0;
  dGeomCapsuleGetParams(geom, &r, &length);
  const double spacing = std::min(r, std::sqrt(8.0 * r * tolerance));
  const int n = std::max(1, static_cast<int>(std::ceil(length / spacing)));
  return Swept{geom, at.p + rotate(at.q, Vec3{0, 0, -0.5 * length}),
               at.p + rotate(at.q, Vec3{0, 0, 0.5 * length}), r, static_cast<std::size_t>(n) + 1};
}

/// A guarded box geom: its pose in its body's frame, half extents (m) and half diagonal.
struct SweptBox {
  dGeomID geom = nullptr;
  Pose at;
  Vec3 half;
  double bound = 0.0;
};

/// The angular velocity a free body in gyroscopic mode (ODE's default) turns with over a step
/// of h, before any joint or contact acts: ODE's dWorldStep and dWorldQuickStep take the
/// gyroscopic term implicitly (Lacoursiere 2006), w' = (I - h [L]x)^-1 L with L = I w (world
/// frame), and turn the body with w', not w. For a rod spinning at 240 rad/s about an axis
/// off its principal ones that is 55 rad/s; a sweep along w would miss where it goes. Solved
/// here in the body's frame, where I is its mass's; w itself when that system is singular (as
/// ODE then leaves w alone too).
Vec3 gyroscopic_spin(dBodyID body, const Vec3& w, double h) {
  dMass m;
  dBodyGetMass(body, &m);
  const auto inertia = [&](int r, int c) { return m.I[4 * r + c]; };
  if (inertia(0, 1) == 0.0 && inertia(0, 2) == 0.0 && inertia(1, 2) == 0.0 &&
      inertia(0, 0) == inertia(1, 1) && inertia(1, 1) == inertia(2, 2)) {
    return w; // a ball's inertia: w x I w is zero, and so is the update
  }
  const Quat q = quat_from_ode(dBodyGetQuaternion(body));
  const Vec3 b = rotate(conj(q), w);
  const Vec3 l{inertia(0, 0) * b.x + inertia(0, 1) * b.y + inertia(0, 2) * b.z,
               inertia(1, 0) * b.x + inertia(1, 1) * b.y + inertia(1, 2) * b.z,
               inertia(2, 0) * b.x + inertia(2, 1) * b.y + inertia(2, 2) * b.z};
  // A = I - h [L]x, whose columns are I's columns minus h L x (the unit vectors).
  const Vec3 c0 = Vec3{inertia(0, 0), inertia(1, 0), inertia(2, 0)} - h * Vec3{0.0, l.z, -l.y};
  const Vec3 c1 = Vec3{inertia(0, 1), inertia(1, 1), inertia(2, 1)} - h * Vec3{-l.z, 0.0, l.x};
  const Vec3 c2 = Vec3{inertia(0, 2), inertia(1, 2), inertia(2, 2)} - h * Vec3{l.y, -l.x, 0.0};
  // Cramer's rule.
  const double det = dot(c0, cross(c1, c2));
  if (!(std::fabs(det) > 0.0) || !std::isfinite(det)) {
    return w;
  }
  const Vec3 x{dot(l, cross(c1, c2)) / det, dot(c0, cross(l, c2)) / det,
               dot(c0, cross(c1, l)) / det};
  return rotate(q, x);
}

/// The constant angular velocity (rad/s) that turns `body` over a step of h as ODE will, before
/// any joint or contact acts: its spin w, or for a free body in gyroscopic mode the implicit
/// gyroscopic update of w (gyroscopic_spin), in finite rotation mode; otherwise ODE's
/// first-order update q += h/2 w q, normalised, which turns it about w by 2 atan(|w| h / 2)
/// only (2.2 rad instead of 3.9 at 465 rad/s, 120 Hz).
/// Below this turn per step (rad) the gyroscopic update turns a body less than 1e-4 rad further
/// over the step (times the ratio of its moments), well within the tolerance: not worked out.
constexpr double k_gyroscopic_turn = 0.01;

Vec3 step_spin(dBodyID body, double h) {
  Vec3 w = vec3_from_ode(dBodyGetAngularVel(body));
  if (norm(w) * h > k_gyroscopic_turn && !dBodyIsKinematic(body) &&
      dBodyGetGyroscopicMode(body) != 0) {
    w = gyroscopic_spin(body, w, h);
  }
  const double rate = norm(w);
  if (dBodyGetFiniteRotationMode(body) != 0 || !(rate * h > 1e-9)) {
    return w;
  }
  return w * (2.0 * std::atan(0.5 * rate * h) / (rate * h));
}

/// A geom the guard sweeps against: its shape in its own frame, its pose and motion now
/// (world; zero motion for a static geom).
struct Target {
  /// dSphereClass, dCapsuleClass, dBoxClass, or (static only) dPlaneClass or dTriMeshClass
  int kind = -1;
  Pose pose;
  Vec3 velocity; ///< of the geom's origin (m/s)
  Vec3 spin;     ///< rad/s: of the frame the sweep runs in (the body's; none for a sphere)
  double radius = 0.0;
  double half_length = 0.0; ///< capsule: its axis runs along local z
  Vec3 half;                ///< box half extents
  const detail::TriangleTree* mesh = nullptr; ///< trimesh: its triangles in its frame
  double bound = 0.0; ///< radius of a sphere about the origin holding the shape
};

/// What the first cull needs of a target: its shape, and where its origin is and goes. False
/// for a class the guard cannot sweep against, and for a trimesh without `mesh`, its triangles
/// (those of a guarded static trimesh).
bool locate_target(dGeomID geom, Target& t, const detail::TriangleTree* mesh = nullptr) {
  t.kind = dGeomGetClass(geom);
  if (t.kind == dPlaneClass) {
    // Not placeable: its frame is made here, the origin on the plane nearest the world's and
    // local z along the normal, so that the solid is z <= 0. No body, no motion.
    dVector4 plane;
    dGeomPlaneGetParams(geom, plane);
    const Vec3 n{plane[0], plane[1], plane[2]};
    const double length = norm(n);
    if (!(length > 0.0) || !std::isfinite(length) || !std::isfinite(plane[3])) {
      return false;
    }
    t.pose = {n * (plane[3] / (length * length)), from_to({0, 0, 1}, n * (1.0 / length))};
    t.bound = INFINITY;
    return true;
  }
  t.pose.p = vec3_from_ode(dGeomGetPosition(geom));
  const dBodyID body = dGeomGetBody(geom);
  if (body != nullptr) {
    dVector3 v;
    dBodyGetPointVel(body, t.pose.p.x, t.pose.p.y, t.pose.p.z, v);
    t.velocity = vec3_from_ode(v);
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
  case dTriMeshClass:
    t.mesh = mesh;
    t.bound = mesh != nullptr ? mesh->bound() : 0.0;
    return mesh != nullptr;
  default: return false;
  }
}

/// A placeable geom's orientation (world).
Quat geom_orientation(dGeomID geom) {
  dQuaternion q;
  dGeomGetQuaternion(geom, q);
  return quat_from_ode(q);
}

/// The rest, for a target that passed the cull: its orientation and the spin of the frame the
/// sweep runs in.
void orient_target(dGeomID geom, double h, Target& t) {
  if (t.kind == dPlaneClass) {
    return; // oriented by locate_target()
  }
  t.pose.q = geom_orientation(geom);
  const dBodyID body = dGeomGetBody(geom);
  // A sphere is the same shape in any frame moving with its centre: that frame need not turn.
  t.spin = body != nullptr && t.kind != dSphereClass ? step_spin(body, h) : Vec3{};
}

bool describe_target(dGeomID geom, double h, Target& t) {
  if (!locate_target(geom, t)) {
    return false;
  }
  orient_target(geom, h, t);
  return true;
}

/// A sphere or capsule target as spheres along its axis (in its frame), as swept_spheres()
/// makes of a guarded one.
Swept target_spheres(const Target& t, double tolerance) {
  if (t.kind != dCapsuleClass) {
    return Swept{nullptr, {}, {}, t.radius, 1};
  }
  const double spacing = std::min(t.radius, std::sqrt(8.0 * t.radius * tolerance));
  const int n = std::max(1, static_cast<int>(std::ceil(2.0 * t.half_length / spacing)));
  return Swept{nullptr,
               {0, 0, -t.half_length},
               {0, 0, t.half_length},
               t.radius,
               static_cast<std::size_t>(n) + 1};
}

/// A sphere moving from c by d against the target, all in the target's own frame.
std::optional<detail::SweepHit> sweep(const Target& t, const Vec3& c, double r, const Vec3& d) {
  // Most sphere paths pass the target by: its bounding sphere rules them out cheaply, by the
  // path's closest approach to the origin.
  const double dd = dot(d, d);
  const double s = dd > 0.0 ? std::clamp(-dot(c, d) / dd, 0.0, 1.0) : 0.0;
  const Vec3 closest = c + s * d;
  if (dot(closest, closest) > (t.bound + r) * (t.bound + r)) {
    return std::nullopt;
  }
  switch (t.kind) {
  case dSphereClass: return detail::sweep_sphere_sphere(c, r, d, {}, t.radius);
  case dCapsuleClass:
    return detail::sweep_sphere_capsule(c, r, d, {0, 0, -t.half_length}, {0, 0, t.half_length},
                                        t.radius);
  case dPlaneClass: return detail::sweep_sphere_half_space(c, r, d);
  case dTriMeshClass: return t.mesh->sweep(c, r, d);
  default: return detail::sweep_sphere_centred_box(c, r, d, t.half);
  }
}

/// A point moving from c by d against a box or plane target (in its frame): where it enters,
/// with the normal of the face it enters through (at t = 0 when it starts inside).
std::optional<detail::SweepHit> sweep_point(const Target& t, const Vec3& c, const Vec3& d) {
  if (t.kind == dPlaneClass) {
    return detail::sweep_sphere_half_space(c, 0.0, d);
  }
  const auto entry = detail::enter_box(c, d, t.half);
  if (!entry) {
    return std::nullopt;
  }
  const Vec3 at = c + entry->t * d;
  Vec3 normal{0, 0, 1};
  if (entry->axis >= 0) {
    const double along[3] = {at.x, at.y, at.z};
    double n[3] = {0.0, 0.0, 0.0};
    n[entry->axis] = along[entry->axis] > 0.0 ? 1.0 : -1.0;
    normal = {n[0], n[1], n[2]};
  }
  return detail::SweepHit{entry->t, at, normal};
}

/// A time no later than a sphere's path first touches the target (in the target's frame),
/// cheaply: for a box or a capsule where the path enters the box that holds the shape grown by
/// r; for a mesh where it enters the first box of its tree's leaves grown by r; for a sphere
/// or a plane the touch itself. Empty when it never does.
std::optional<double> touch_no_later_than(const Target& t, const Vec3& c, double r, const Vec3& d) {
  switch (t.kind) {
  case dSphereClass: {
    const auto hit = detail::sweep_sphere_sphere(c, r, d, {}, t.radius);
    return hit ? std::optional<double>(hit->t) : std::nullopt;
  }
  case dPlaneClass: {
    const auto hit = detail::sweep_sphere_half_space(c, r, d);
    return hit ? std::optional<double>(hit->t) : std::nullopt;
  }
  case dTriMeshClass: return t.mesh->first_entry(c, r, d);
  case dCapsuleClass: {
    const double across = t.radius + r;
    const auto entry = detail::enter_box(c, d, {across, across, t.half_length + across});
    return entry ? std::optional<double>(entry->t) : std::nullopt;
  }
  default: {
    const auto entry = detail::enter_box(c, d, t.half + Vec3{r, r, r});
    return entry ? std::optional<double>(entry->t) : std::nullopt;
  }
  }
}

/// A geom's sphere centres over one sub-step, in the target's frame: sphere i lies at fraction
/// u_i of a segment whose ends move on straight lines, so its centre moves from
/// front0 + u_i axis0 to front1 + u_i axis1; `stretch` is the longer of the two axes.
struct SegmentPath {
  Vec3 front0;
  Vec3 axis0;
  Vec3 front1;
  Vec3 axis1;
  double stretch = 0.0;
};

/// A sphere's first touch in a sub-step: which sphere, the hit, its centre's path.
struct BallHit {
  std::size_t ball = 0;
  detail::SweepHit hit;
  Vec3 c0;
  Vec3 c1;
};

/// The first touch of spheres lo..hi of `g` on its path against the target, if earlier than
/// `best`. The spheres are first swept together, as one sphere about the path of their middle
/// (fraction u_m) grown by the farthest any of them lies from it throughout, |u - u_m| times
/// the stretch, against the target's holding box (touch_no_later_than): that touches no later
/// than any sphere it holds touches the target, so a group that misses, or touches no earlier
/// than the best hit so far, is passed over, and otherwise its halves are tried, the front half
/// first (among equal times the frontmost sphere wins, as when swept one by one).
void first_touch(const Target& t, const Swept& g, const SegmentPath& path, std::size_t lo,
                 std::size_t hi, const std::vector<char>* skip, std::optional<BallHit>& best) {
  const double u = 0.5 * (g.fraction(lo) + g.fraction(hi));
  const double spread = 0.5 * (g.fraction(hi) - g.fraction(lo)) * path.stretch;
  const Vec3 c0 = path.front0 + u * path.axis0;
  const Vec3 c1 = path.front1 + u * path.axis1;
  if (lo == hi) {
    if (skip != nullptr && (*skip)[lo] != 0) {
      return;
    }
    const auto hit = sweep(t, c0, g.radius, c1 - c0);
    if (hit && (!best || hit->t < best->hit.t)) {
      best = BallHit{lo, *hit, c0, c1};
    }
    return;
  }
  const auto no_later = touch_no_later_than(t, c0, g.radius + spread, c1 - c0);
  if (!no_later || (best && *no_later >= best->hit.t)) {
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  first_touch(t, g, path, lo, mid, skip, best);
  first_touch(t, g, path, mid + 1, hi, skip, best);
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
  dGeomID target = nullptr; ///< the target geom (body 1's, or a guarded static one)
  dGeomID swept = nullptr;  ///< the swept geom (body 2's)
  Pose target_start;        ///< the target geom's pose before the step
  /// For a hit on a box's face: the face (axis 0-2, sign) and the sphere that hit it (centre
  /// in body 2's frame, radius); face_axis < 0 otherwise.
  int face_axis = -1;
  double face_sign = 1.0;
  Vec3 ball;
  double ball_radius = 0.0;
  Vec3 ball_start; ///< the sphere's centre before the step (world)
  Vec3 body_start; ///< body 2's origin before the step (world)
  /// Restitution of the contact made for the hit (SweepSettings::surface as on_contact left
  /// it); for a pair only watched, the settings' own.
  double bounce = 0.0;
};

/// The restitution a contact's surface gives (0 without dContactBounce).
double bounce_of(const dSurfaceParameters& surface) {
  return (surface.mode & dContactBounce) != 0 ? surface.bounce : 0.0;
}

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

/// A pair touching when the step begins is watched (after_step()) with the normal that the
/// geom's touching sphere or point found on a box target. In a thin box that sphere may already
/// lie past the middle, and its normal then points back out of the far side (a 12 cm capsule
/// hand with one end through a 6 mm plate: the plate was moved 10 cm back over the hand). Where
/// the geom's centre is outside the box, the normal is turned round if it leads from the box
/// towards that centre rather than from it into the box.
void face_the_geom(const Target& target, dGeomID swept, Pending& p) {
  if (target.kind != dBoxClass) {
    return;
  }
  const Vec3 centre =
      rotate(conj(target.pose.q), vec3_from_ode(dGeomGetPosition(swept)) - target.pose.p);
  const Vec3 inside{std::clamp(centre.x, -target.half.x, target.half.x),
                    std::clamp(centre.y, -target.half.y, target.half.y),
                    std::clamp(centre.z, -target.half.z, target.half.z)};
  const Vec3 into = rotate(conj(target.pose.q), direction_to_world(p.body1, p.normal1));
  if (dot(into, centre - inside) > 0.0) {
    p.normal1 = -1.0 * p.normal1;
    p.face_sign = -p.face_sign;
  }
}

/// A geom of a dynamic body, with the box that holds it over the coming step: its AABB now
/// grown by the farthest any of its points moves (|v| + |w| r) h, so that a target that moves
/// or spins into a swept path is a candidate too.
struct Dynamic {
  dGeomID geom = nullptr;
  dBodyID body = nullptr;
  dReal box[6] = {};
};

/// Every enabled dynamic body's geoms in the space (nested spaces included).
void collect_dynamic(dSpaceID space, double h, std::vector<Dynamic>& out) {
  const int n = dSpaceGetNumGeoms(space);
  for (int i = 0; i < n; ++i) {
    const dGeomID g = dSpaceGetGeom(space, i);
    if (dGeomIsSpace(g)) {
      collect_dynamic(reinterpret_cast<dSpaceID>(g), h, out);
      continue;
    }
    const dBodyID b = dGeomGetBody(g);
    if (b == nullptr || dBodyIsKinematic(b) || !dBodyIsEnabled(b)) {
      continue;
    }
    Dynamic d;
    d.geom = g;
    d.body = b;
    dGeomGetAABB(g, d.box);
    const double extent =
        0.5 * norm(Vec3{d.box[1] - d.box[0], d.box[3] - d.box[2], d.box[5] - d.box[4]});
    const Vec3 offset = vec3_from_ode(dGeomGetPosition(g)) - vec3_from_ode(dBodyGetPosition(b));
    // The spin ODE will turn it with (step_spin) may exceed w where the gyroscopic update is
    // worked out; the first-order update's shortening (step_spin's atan) is left out of this
    // bound, which it can only lower.
    const Vec3 w = vec3_from_ode(dBodyGetAngularVel(b));
    const double rate = norm(w);
    const double spin = rate * h > k_gyroscopic_turn && dBodyGetGyroscopicMode(b) != 0
                            ? std::max(rate, norm(gyroscopic_spin(b, w, h)))
                            : rate;
    const double grow =
        (norm(vec3_from_ode(dBodyGetLinearVel(b))) + spin * (extent + norm(offset))) * h;
    for (int k = 0; k < 6; ++k) {
      d.box[k] += k % 2 == 0 ? -grow : grow;
    }
    out.push_back(d);
  }
}

/// Evaluated without branches: in a broad phase most boxes are apart, each for a reason of
/// its own, which a chain of branches mispredicts.
bool overlaps(const dReal* aabb, const Vec3& low, const Vec3& high) {
  return static_cast<bool>(
      static_cast<int>(aabb[0] <= high.x) & static_cast<int>(aabb[1] >= low.x) &
      static_cast<int>(aabb[2] <= high.y) & static_cast<int>(aabb[3] >= low.y) &
      static_cast<int>(aabb[4] <= high.z) & static_cast<int>(aabb[5] >= low.z));
}

/// How far the pieces of a point's path through a step, seen from a solid that turned, may
/// stray from it (m): a tenth of the guard's default tolerance, under a tenth of the thinnest
/// plates' half thickness (2.5 mm) that the tests throw hands at.
constexpr double k_path_stray = 2e-4;

/// Whether the segment a..b (the box's frame) starts outside the box of half extents
/// `half_extents` and enters it; if so, through which face (`axis`, and `sign`: the face's side).
bool enters_box(const Vec3& half_extents, const Vec3& a, const Vec3& b, int& axis, double& sign) {
  double enter = -INFINITY;
  double leave = INFINITY;
  int entry_axis = -1;
  double entry_side = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double ai = (&a.x)[i];
    const double half = (&half_extents.x)[i];
    const double d = (&b.x)[i] - ai;
    if (d == 0.0) {
      if (std::fabs(ai) > half) {
        return false;
      }
      continue;
    }
    double t0 = (-half - ai) / d;
    double t1 = (half - ai) / d;
    if (t0 > t1) {
      std::swap(t0, t1);
    }
    if (t0 > enter) {
      enter = t0;
      entry_axis = i;
      entry_side = d > 0.0 ? -1.0 : 1.0;
    }
    leave = std::min(leave, t1);
  }
  if (!(enter <= leave && enter <= 1.0 && leave >= 0.0 && enter >= 0.0)) {
    return false;
  }
  axis = entry_axis;
  sign = entry_side;
  return true;
}

/// A thin box that turned fast in the step (a plate struck off its centre spins a radian or
/// more per step) can end the step across the path of the sphere that hit it, which contacts
/// linear in the step cannot see. Where the sphere's centre, seen from the box (from its pose
/// before the step to its pose after it: chord_or_path), went into the box, or ends deep in it
/// in front of the struck face's middle, the box is moved back along the face's normal until
/// the sphere touches the face again: what a finely sub-stepped run does by hitting the plate
/// again during the turn.
bool push_out_of_the_way(const Pending& p, double tolerance) {
  if (p.target == nullptr || p.body1 == nullptr || dBodyIsKinematic(p.body1)) {
    return false;
  }
  Target t;
  describe_target(p.target, 0.0, t);
  if (t.kind != dBoxClass) {
    return false;
  }
  const Vec3 end = to_world(p.body2, p.ball);
  const Vec3 c1 = rotate(conj(t.pose.q), end - t.pose.p);
  const double b[3] = {c1.x, c1.y, c1.z};
  const double half[3] = {t.half.x, t.half.y, t.half.z};
  // The centre's way against the box itself (slabs): where it went in, through which face.
  int axis = -1;
  double sign = 0.0;
  const bool crossed = detail::chord_or_path(
      p.target_start, t.pose, p.ball_start, end, t.bound, k_path_stray,
      [&](const Vec3& from, const Vec3& to) { return enters_box(t.half, from, to, axis, sign); });
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

/// A sphere, capsule or box target's core (the shape less its radius).
detail::Core core_of(const Target& t) {
  return {t.kind, t.half_length, t.half};
}

/// A sphere, capsule or box geom's shape and pose (no motion); false for other classes.
bool solid_of(dGeomID geom, Target& t) {
  const int kind = dGeomGetClass(geom);
  if (kind != dSphereClass && kind != dCapsuleClass && kind != dBoxClass) {
    return false; // a plane's pose is not placeable, a trimesh has no core
  }
  locate_target(geom, t);
  t.pose.q = geom_orientation(geom);
  return true;
}

/// Whether a point that was at `from` (world) when the solid had the pose `then`, and is at `to`
/// now, went into it on the way, seen from the solid: its chord or its path in the solid's frame
/// (chord_or_path) comes within the solid's radius of its core.
bool went_into(const Target& t, const Pose& then, const Vec3& from, const Vec3& to) {
  constexpr double k_touching = 1e-9; // m
  const detail::Core core = core_of(t);
  return detail::chord_or_path(then, t.pose, from, to, t.bound, k_path_stray,
                               [&](const Vec3& a, const Vec3& b) {
                                 double along = 0.0;
                                 Vec3 nearest;
                                 const Vec3 p = detail::nearest_to_core(core, a, b, along, nearest);
                                 // A path through a box is found at a face, where rounding may
                                 // leave it 1e-18 m outside.
                                 return norm(p - nearest) <= t.radius + k_touching;
                               });
}

/// The point of a solid that reaches farthest along the unit direction n (world).
Vec3 farthest_along(const Target& t, const Vec3& n) {
  const Vec3 m = rotate(conj(t.pose.q), n);
  const auto toward = [](double along, double half) { return along >= 0.0 ? half : -half; };
  const Vec3 corner = t.kind == dBoxClass       ? Vec3{toward(m.x, t.half.x), toward(m.y, t.half.y),
                                                 toward(m.z, t.half.z)}
                      : t.kind == dCapsuleClass ? Vec3{0.0, 0.0, toward(m.z, t.half_length)}
                                                : Vec3{};
  return t.pose.p + rotate(t.pose.q, corner) + t.radius * n;
}

/// How far solid `a` reaches past the near side of solid `b` along the unit direction n (a's
/// leading point, `lead`, against b's point farthest back): how far one of them must move
/// along n for the two to be apart along it.
double reach_past(const Target& a, const Target& b, const Vec3& n, Vec3& lead) {
  lead = farthest_along(a, n);
  return dot(lead - farthest_along(b, -1.0 * n), n);
}

/// After the step, a free target struck by a body that does not move freely (a captured hand,
/// which keeps to its capture) and found with that body's geom past its middle (every contact
/// ODE finds between them on the target's far side), or with the body's origin gone through it: a
/// plate struck off its middle spins at hundreds of rad/s, turns its face into the rest of the hand
/// within the step, and the hand ends the step through it. The target is moved ahead along the
/// hit's normal until its near side is at the geom's leading point, and its speed at that point
/// along the normal brought up to the geom's. False when nothing was moved.
bool move_target_ahead(const Pending& p) {
  if (p.body1 == nullptr || !moves_freely(p.body1) || moves_freely(p.body2) ||
      p.target == nullptr || p.swept == nullptr) {
    return false;
  }
  Target swept;
  Target target;
  if (!solid_of(p.swept, swept) || !solid_of(p.target, target)) {
    return false;
  }
  // The hit's normal, turned with the target since.
  const Vec3 into = direction_to_world(p.body1, p.normal1);
  std::array<dContactGeom, 8> found{};
  const int n = dCollide(p.swept, p.target, static_cast<int>(found.size()), found.data(),
                         sizeof(dContactGeom));
  const bool on_its_side = std::any_of(found.data(), found.data() + n, [&](const dContactGeom& c) {
    return dot(vec3_from_ode(c.normal), into) < -0.5;
  });
  if (!(n > 0 && !on_its_side) &&
      !went_into(target, p.target_start, p.body_start, vec3_from_ode(dBodyGetPosition(p.body2)))) {
    return false; // apart, or touching on the side it hit
  }
  Vec3 lead;
  const double ahead = reach_past(swept, target, into, lead);
  if (!(ahead > 0.0)) {
    return false;
  }
  const Vec3 moved = vec3_from_ode(dBodyGetPosition(p.body1)) + ahead * into;
  dBodySetPosition(p.body1, moved.x, moved.y, moved.z);
  const double behind = dot(into, point_velocity(p.body2, lead) - point_velocity(p.body1, lead));
  if (behind > 0.0) {
    apply_impulse(p.body1, lead, (behind / inverse_mass_along(p.body1, lead, into)) * into);
  }
  return true;
}

/// After the step, a free body whose swept geom hit a guarded static geom and ended the step
/// deeper in it than the tolerance, on the side the hit came from: a thrown stick whose end
/// struck swings its other end further in than the contacts' rows, linear in the step, hold,
/// and ODE's error reduction would throw it back out over the coming steps. The body is moved
/// out along the deepest contact's normal, and that point's speed into the geom taken away
/// (or reversed by the hit's contact's restitution), as the hit within the step would have done.
/// A body found past the middle of a thin target, or all the way through it, is moved back to
/// the side the hit came from instead. False when nothing was moved.
bool move_out_of_static(const Pending& p, double tolerance) {
  if (p.body1 != nullptr || p.target == nullptr || p.swept == nullptr || !moves_freely(p.body2) ||
      dGeomGetClass(p.swept) == dSphereClass) {
    return false; // a sphere has no other part to swing in: its own contact holds it
  }
  std::array<dContactGeom, 8> found{};
  const int n = dCollide(p.swept, p.target, static_cast<int>(found.size()), found.data(),
                         sizeof(dContactGeom));
  const dContactGeom* deepest = nullptr;
  for (const dContactGeom* c = found.data(); c != found.data() + n; ++c) {
    // Out of the static geom, against the hit's normal (from the swept geom into the target):
    // a geom pushed through a thin one to its far side is not pulled out there.
    if (dot(vec3_from_ode(c->normal), p.normal1) < -0.5 &&
        (deepest == nullptr || c->depth > deepest->depth)) {
      deepest = c;
    }
  }
  Vec3 normal;
  double depth = 0.0;
  Vec3 point; // of the geom, deepest in the target, where it will be
  if (deepest != nullptr) {
    normal = vec3_from_ode(deepest->normal);
    depth = deepest->depth;
    point = vec3_from_ode(deepest->pos) + depth * normal;
  } else if (Target swept, target; solid_of(p.swept, swept) && solid_of(p.target, target) &&
                                   (n > 0 || went_into(target, target.pose, p.body_start,
                                                       vec3_from_ode(dBodyGetPosition(p.body2))))) {
    // Every contact on the far side, or none and the body's origin went through the target:
    // the geom went more than half way or all the way through a thin target within the step
    // (a box or plank struck on a corner spins at 200-700 rad/s and can swing through a 1 cm
    // wall). Back along the hit's normal until its leading point is at the target's near side:
    // the two are then apart along that normal. Sphere, capsule and box targets.
    const Vec3 into = p.normal1;
    Vec3 lead;
    depth = reach_past(swept, target, into, lead);
    normal = -1.0 * into;
    point = lead + depth * normal;
  }
  if (!(depth > tolerance)) {
    return false;
  }
  const Vec3 moved = vec3_from_ode(dBodyGetPosition(p.body2)) + depth * normal;
  dBodySetPosition(p.body2, moved.x, moved.y, moved.z);
  const double into = dot(normal, point_velocity(p.body2, point));
  if (into < 0.0) {
    const double k = inverse_mass_along(p.body2, point, normal);
    apply_impulse(p.body2, point, (-(1.0 + p.bounce) * into / k) * normal);
  }
  return true;
}

} // namespace

/// A guarded static trimesh: its triangles in its own frame, and what they were read from.
struct StaticMesh {
  dGeomID geom = nullptr;
  dTriMeshDataID data = nullptr;
  int triangles = 0;
  detail::TriangleTree tree;

  /// Whether the geom still has the data its triangles were read from.
  bool current() const {
    return dGeomTriMeshGetTriMeshDataID(geom) == data &&
           dGeomTriMeshGetTriangleCount(geom) == triangles;
  }
  /// Reads the geom's triangles into its own frame. Throws PluginError for a vertex that is
  /// not finite.
  static StaticMesh read(dGeomID geom);
};

StaticMesh StaticMesh::read(dGeomID geom) {
  StaticMesh m;
  m.geom = geom;
  m.data = dGeomTriMeshGetTriMeshDataID(geom);
  m.triangles = dGeomTriMeshGetTriangleCount(geom);
  // ODE gives the vertices in the world, placed by the geom's pose now: taken back into its
  // frame, they hold wherever the geom is put later.
  const Quat to_frame = conj(geom_orientation(geom));
  const Vec3 origin = vec3_from_ode(dGeomGetPosition(geom));
  std::vector<detail::Triangle> triangles(static_cast<std::size_t>(std::max(m.triangles, 0)));
  for (int i = 0; i < m.triangles; ++i) {
    dVector3 v[3];
    dGeomTriMeshGetTriangle(geom, i, &v[0], &v[1], &v[2]);
    for (int k = 0; k < 3; ++k) {
      const Vec3 world = vec3_from_ode(v[k]);
      if (!is_finite(world)) {
        throw PluginError("SweepGuard::guard_static: triangle " + std::to_string(i) +
                          " of the trimesh has a vertex that is not finite");
      }
      triangles[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] =
          rotate(to_frame, world - origin);
    }
  }
  m.tree = detail::TriangleTree(std::move(triangles));
  return m;
}

/// One row of after_step()'s impulse solve.
struct ImpulseRow {
  const Pending* pending = nullptr;
  Vec3 p1, p2; ///< the contact point on each body now (world)
  Vec3 n;      ///< from body 2 into body 1 (world)
  double k = 0.0; ///< inverse effective mass along n
  double impulse = 0.0; ///< accumulated, >= 0
};

struct SweepGuard::Scratch {
  std::vector<Swept> swept;
  std::vector<SweptBox> boxes;
  std::vector<Pose> poses;
  Vec3 low;  ///< the swept volume's bounds, this body, this step
  Vec3 high;
  double reach = 0.0; ///< farthest swept point from the body's origin (m)
  int k_steps = 1;
  std::vector<Pose> frames;     ///< per sub-step: world to the target's frame (p, conj q)
  std::vector<Pose> body_poses; ///< per sub-step: the swept body's pose
  std::vector<std::pair<Vec3, Vec3>> ends; ///< per sub-step: a geom's front and its axis
  std::vector<char> ends_known;
  std::vector<char> skip;              ///< per sphere of a geom touching its target now
  std::deque<dJointFeedback> feedback; ///< stable addresses for ODE to write into
  std::vector<Pending> pending;
  std::vector<ImpulseRow> rows;
  std::vector<dBodyID> expected_bodies; ///< kinematic guarded bodies and where they go
  std::vector<Vec3> expected;
  std::vector<dBodyID> movers; ///< dynamic bodies, for static geoms
  std::vector<Dynamic> dynamic; ///< this step's dynamic geoms, once a body needed them
  detail::BoxLanes dynamic_boxes; ///< their boxes (the same order), for the broad phase
  bool dynamic_ready = false;
  /// Not scratch: the guarded static trimeshes' triangles, kept from guard_static() on and
  /// built again when the geom's data changes.
  std::vector<StaticMesh> meshes;
  const StaticMesh* mesh_of(dGeomID geom) const {
    const auto it = std::find_if(meshes.begin(), meshes.end(),
                                 [geom](const StaticMesh& m) { return m.geom == geom; });
    return it != meshes.end() ? &*it : nullptr;
  }
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
}

SweepGuard::~SweepGuard() = default;

void SweepGuard::guard(dBodyID body) {
  if (body == nullptr || dBodyGetWorld(body) != world_) {
    throw PluginError("SweepGuard::guard: the body is null or of another world");
  }
  if (std::find(bodies_.begin(), bodies_.end(), body) == bodies_.end()) {
    bodies_.push_back(body);
  }
}

template <typename Match> void SweepGuard::forget_pending(const Match& match) {
  auto& pending = scratch_->pending;
  pending.erase(std::remove_if(pending.begin(), pending.end(), match), pending.end());
}

void SweepGuard::unguard(dBodyID body) {
  bodies_.erase(std::remove(bodies_.begin(), bodies_.end(), body), bodies_.end());
  forget_pending([body](const Pending& p) { return p.body1 == body || p.body2 == body; });
}

void SweepGuard::guard_static(dGeomID geom) {
  if (geom == nullptr || dGeomGetBody(geom) != nullptr) {
    throw PluginError("SweepGuard::guard_static: the geom is null or has a body (guard the body)");
  }
  const int kind = dGeomGetClass(geom);
  if (kind != dSphereClass && kind != dCapsuleClass && kind != dBoxClass && kind != dPlaneClass &&
      kind != dTriMeshClass) {
    throw PluginError("SweepGuard::guard_static: only sphere, capsule, box, plane and trimesh "
                      "geoms can be guarded, got geom class " +
                      std::to_string(kind));
  }
  if (std::find(statics_.begin(), statics_.end(), geom) != statics_.end()) {
    return;
  }
  if (kind == dTriMeshClass) {
    scratch_->meshes.push_back(StaticMesh::read(geom));
  }
  statics_.push_back(geom);
}

void SweepGuard::unguard_static(dGeomID geom) {
  statics_.erase(std::remove(statics_.begin(), statics_.end(), geom), statics_.end());
  forget_pending([geom](const Pending& p) { return p.target == geom; });
  auto& meshes = scratch_->meshes;
  meshes.erase(std::remove_if(meshes.begin(), meshes.end(),
                              [geom](const StaticMesh& m) { return m.geom == geom; }),
               meshes.end());
}

void SweepGuard::after_step() {
  stepping_ = false;
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
  // Once per pair: a free target a captured body ended the step through, a free body that
  // ended it deep in or through a guarded static geom.
  for (auto p = x.pending.begin(); p != x.pending.end(); ++p) {
    const bool seen = std::any_of(x.pending.begin(), p, [&](const Pending& q) {
      return q.swept == p->swept && q.target == p->target;
    });
    if (!seen) {
      stats_.pushed_out += move_target_ahead(*p) ? 1 : 0;
      stats_.moved_out += move_out_of_static(*p, settings_.tolerance) ? 1 : 0;
    }
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
  stats_.completed_late += stepping_ ? 1 : 0;
  after_step();
  check_teleports();
  ++stats_.steps;
  added_ = 0;
  contacts_made_.clear();
  scratch_->dynamic_ready = false;
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
  stepping_ = true;
  return added_;
}

template <typename Error> int SweepGuard::sub_steps(const Error& error) {
  // The fewest sub-steps whose chords keep within the tolerance. The error shrinks with the
  // span, about as its square for small turns: start from that estimate and step to the answer.
  const auto enough = [&](int k) { return error(1.0 / k) <= settings_.tolerance; };
  const double whole = error(1.0);
  if (whole <= settings_.tolerance || !std::isfinite(whole)) {
    return 1; // within the tolerance, or a motion that is not finite: nothing to cut
  }
  const int most = settings_.max_sub_steps;
  if (most == 1) {
    ++stats_.sub_step_limit;
    return 1;
  }
  const double estimate = std::ceil(std::sqrt(whole / settings_.tolerance));
  int k = static_cast<int>(std::clamp(estimate, 2.0, static_cast<double>(most)));
  while (k < most && !enough(k)) {
    ++k;
  }
  if (!enough(k)) {
    ++stats_.sub_step_limit;
    return k;
  }
  while (k > 2 && enough(k - 1)) {
    --k;
  }
  return k;
}

void SweepGuard::gather_dynamic(double h) {
  Scratch& x = *scratch_;
  if (!x.dynamic_ready) {
    x.dynamic.clear();
    collect_dynamic(space_, h, x.dynamic);
    x.dynamic_boxes.clear();
    for (const Dynamic& d : x.dynamic) {
      x.dynamic_boxes.add(d.box);
    }
    x.dynamic_ready = true;
  }
}

bool SweepGuard::prepare(dBodyID body, double h) {
  Scratch& x = *scratch_;
  x.swept.clear();
  x.boxes.clear();
  for (dGeomID g = dBodyGetFirstGeom(body); g != nullptr; g = dBodyGetNextGeom(g)) {
    if (const std::optional<Swept> swept = swept_spheres(g, settings_.tolerance)) {
      x.swept.push_back(*swept);
    } else if (dGeomGetClass(g) == dBoxClass) {
      dVector3 sides;
      dGeomBoxGetLengths(g, sides);
      const Vec3 half = 0.5 * vec3_from_ode(sides);
      x.boxes.push_back({g, offset_of(g), half, norm(half)});
    } else {
      ++stats_.unsupported;
    }
  }
  if (x.swept.empty() && x.boxes.empty()) {
    return false;
  }
  // A geom's sphere centres lie on a segment, so the farthest from the origin, and each
  // coordinate's extremes, are at its ends. Discrete collision at both ends of a step misses
  // nothing deeper than the tolerance where a sphere of radius r moves at most
  // 2 sqrt(2 r tolerance) (the depth between the two spheres is the sagitta of that chord);
  // a box's corner can slip past a thin target's edge by as far as it moves, so a box allows
  // the tolerance itself.
  double reach = 0.0;        // farthest swept point from the body's origin
  double allowed = INFINITY; // most any point may move in the step without being swept
  for (const Swept& g : x.swept) {
    reach = std::max(reach, std::max(norm(g.front), norm(g.back)) + g.radius);
    allowed = std::min(allowed, 2.0 * std::sqrt(2.0 * g.radius * settings_.tolerance));
  }
  for (const SweptBox& b : x.boxes) {
    reach = std::max(reach, norm(b.at.p) + b.bound);
    allowed = std::min(allowed, settings_.tolerance);
  }
  const Pose start = body_pose(body);
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body));
  const Vec3 w = step_spin(body, h);
  // Too slow to pass anything: no point moves further than this bound in the step.
  const double travel = (norm(v) + norm(w) * reach) * h;
  if (travel <= allowed) {
    ++stats_.slow;
    return false;
  }
  const int k_steps = sub_steps(detail::ChordError{0.0, reach, norm(w) * h, 0.0, 0.0});
  stats_.sub_steps_max = std::max(stats_.sub_steps_max, k_steps);
  x.k_steps = k_steps;
  x.poses.resize(static_cast<std::size_t>(k_steps) + 1);
  Vec3 low{INFINITY, INFINITY, INFINITY};
  Vec3 high = -1.0 * low;
  // The body turns by a fixed rotation per sub-step, composed as set_frames() composes it
  // (a sine and cosine once, not at every instant).
  const double sub = h / k_steps;
  const Quat turn = from_rotation_vector(w * sub);
  Quat q = start.q;
  for (int k = 0; k <= k_steps; ++k) {
    Pose& pose = x.poses[static_cast<std::size_t>(k)];
    pose = {start.p + (k * sub) * v, q};
    q = turn * q;
    const auto hold = [&](const Vec3& c, double radius) {
      const double grow = radius + settings_.tolerance;
      low = {std::min(low.x, c.x - grow), std::min(low.y, c.y - grow), std::min(low.z, c.z - grow)};
      high = {std::max(high.x, c.x + grow), std::max(high.y, c.y + grow),
              std::max(high.z, c.z + grow)};
    };
    for (const Swept& g : x.swept) {
      hold(pose.p + rotate(pose.q, g.front), g.radius);
      hold(pose.p + rotate(pose.q, g.back), g.radius);
    }
    for (const SweptBox& b : x.boxes) {
      hold(pose.p + rotate(pose.q, b.at.p), b.bound);
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
  // Broad phase: the box around the swept volume against each dynamic geom's box over the
  // step (gathered once per step, when the first body needs them).
  gather_dynamic(h);
  x.dynamic_boxes.each_meeting(x.low, x.high, [&](std::size_t i) {
    const Dynamic& d = x.dynamic[i];
    if (d.body == body || !overlaps(d.box, x.low, x.high) ||
        dAreConnectedExcluding(d.body, body, dJointTypeContact)) {
      return; // its own, out of reach, or joined to it
    }
    sweep_against(body, d.geom, h);
  });
}

void SweepGuard::sweep_into_static(double h) {
  Scratch& x = *scratch_;
  for (StaticMesh& m : x.meshes) {
    if (!m.current()) {
      m = StaticMesh::read(m.geom); // the user gave the geom other data
    }
  }
  gather_dynamic(h);
  x.movers.clear();
  for (const Dynamic& d : x.dynamic) {
    const int kind = dGeomGetClass(d.geom);
    if (kind == dSphereClass || kind == dCapsuleClass || kind == dBoxClass) {
      x.movers.push_back(d.body);
    }
  }
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

namespace {

/// The contact: body 1 the target, body 2 the swept body, normal from the swept geom into the
/// target (ODE's normal points into body 1), placed on the target as it is now (the hit's point
/// and normal in the target's frame, taken back to its pose now). In that frame the touching
/// point travels `travel` along the normal over the step and reaches the target after `gap`:
/// the target's surface there must give way by travel - gap beyond the motion it has, so
/// n . (v_target(point) - v_swept(point)) >= (travel - gap) / h +
/// n . (v_target(point) - v_swept(point)) with the velocities now. ODE reads the swept body's
/// velocity at the contact point, which for a turning body is not the velocity of the point
/// that hits: this is why the right-hand side comes from that point's path. For bodies that
/// only translate it is -gap / h, the pair closing by the gap and no more.
struct Hit {
  Vec3 normal; ///< world
  Vec3 point;  ///< world
  double gap = 0.0;
  double travel = 0.0;
  Pending pending;
};

} // namespace

/// A first touch to make a contact of: the touch in the target's frame, the swept geom and the
/// point of it that touches (in its body's frame): a sphere's centre and radius, or a point on
/// a box's surface and radius 0.
struct SweepGuard::Touch {
  FirstTouch first;
  dGeomID swept = nullptr;
  Vec3 body_point;
  double radius = 0.0;
};

/// One guarded body swept against one target over a step: what all the body's geoms share.
struct SweepGuard::Pair {
  dBodyID body = nullptr;
  dGeomID other = nullptr;
  dBodyID other_body = nullptr; ///< null for a guarded static geom
  Target target;
  Pose start; ///< the swept body's pose now
  Vec3 v;     ///< its velocity (m/s)
  Vec3 w;     ///< its spin over the step (rad/s, step_spin())
  double h = 0.0;
  double relative_travel = 0.0; ///< of the two origins over the step (m)
  /// Farthest a swept point lies from the target's origin over the step (m).
  double distance = 0.0;
  int k_steps = 1;                               ///< sub-steps of the frames below (set_frames())
  const std::vector<Pose>* frames = nullptr;     ///< per sub-step: world to the target's frame
  const std::vector<Pose>* body_poses = nullptr; ///< per sub-step: the swept body's pose

  /// Whether the hit may turn one of the two so that other parts of them meet later in the
  /// step, where no single contact, linear in the step, holds them apart: a free swept body
  /// (a thrown stick whose end strikes swings its other end down), or a free target that is
  /// not a sphere (a plate struck off its centre turns its face into the rest of a captured
  /// hand). A captured body against a ball or static geometry keeps its path and its pair
  /// their first touch.
  bool may_turn() const {
    return moves_freely(body) || (moves_freely(other_body) && target.kind != dSphereClass);
  }
  /// Where a point of the swept body (in its frame) is at sub-step instant k, in the target's
  /// frame.
  Vec3 local(int k, const Vec3& body_point) const {
    const Pose& f = (*frames)[static_cast<std::size_t>(k)];
    const Pose& b = (*body_poses)[static_cast<std::size_t>(k)];
    return rotate(f.q, b.p + rotate(b.q, body_point) - f.p);
  }
  /// The bound on how far the chords of a swept point's path in the target's frame stray
  /// from it (chord_error.hpp).
  detail::ChordError chord_error(double reach) const {
    return {distance, reach, norm(w) * h, norm(target.spin) * h, relative_travel};
  }
  Hit hit_of(const Touch& touch) const;
  /// Tells a capsule's first touch again by the capsule itself (see the definition).
  void touch_by_axis(const Swept& g, Touch& touch) const;
};

Hit SweepGuard::Pair::hit_of(const Touch& touch) const {
  FirstTouch f = touch.first;
  f.end = local(k_steps, touch.body_point);
  const Vec3 local_normal = -1.0 * f.hit.normal;
  Hit out;
  out.gap = std::max(0.0, dot(f.at_hit - f.start, local_normal));
  out.travel = dot(f.end - f.start, local_normal);
  out.normal = rotate(target.pose.q, local_normal);
  // ODE takes one point for both bodies' lever arms. On a dynamic target, the hit's point on
  // its surface now. On a static one the lever arm that matters is the moving body's: the
  // point of it that leads along the normal now, not where it will be (a lever arm reaching
  // ahead to the touch would let the solver spin a ball instead of stopping it).
  const Pose& now = (*body_poses)[0];
  out.point = moves_freely(other_body)
                  ? target.pose.p + rotate(target.pose.q, f.hit.point)
                  : now.p + rotate(now.q, touch.body_point) + touch.radius * out.normal;
  Pending& pending = out.pending;
  pending.body1 = other_body;
  pending.body2 = body;
  pending.local1 = to_local(other_body, out.point);
  pending.local2 = to_local(body, out.point);
  pending.normal1 = direction_to_local(other_body, out.normal);
  face_of(target, f.hit.normal, pending.face_axis, pending.face_sign);
  pending.target = other;
  pending.ball = touch.body_point;
  pending.ball_radius = touch.radius;
  pending.ball_start = start.p + rotate(start.q, pending.ball);
  pending.body_start = start.p;
  pending.target_start = target.pose;
  pending.swept = touch.swept;
  return out;
}

// A capsule is swept as spheres along its axis, and the first of them to touch finds the
// touch; but the normal and lever arm of that sphere's touch lean from the capsule's by as much
// as the sphere sits off the axis's point nearest the target, up to half the spheres' spacing
// (sqrt(2 r tolerance), 11 mm for a 3 cm capsule) over the sum of the radii: a bat struck a ball
// 10 cm from its pivot 10% too slowly and sent it up to 13 degrees off its normal. So the touch
// is told again by the capsule: the point of its axis nearest the target's core, found at the
// first instant (on the same chords, searched back from the sphere's touch) at which the
// capsule's surface reaches the target's, becomes the touching sphere (its normal the line
// between the two nearest points). For sphere, capsule and box targets (the nearest points of
// two convex sets); plane and trimesh targets keep the sphere's touch.
void SweepGuard::Pair::touch_by_axis(const Swept& g, Touch& touch) const {
  if (target.kind != dSphereClass && target.kind != dCapsuleClass && target.kind != dBoxClass) {
    return;
  }
  FirstTouch& f = touch.first;
  const double reach = g.radius + (target.kind == dBoxClass ? 0.0 : target.radius);
  const detail::Core core = core_of(target);
  const int k0 = std::clamp(static_cast<int>(f.s * k_steps), 0, k_steps - 1);
  const Vec3 a0 = local(k0, g.front);
  const Vec3 a1 = local(k0 + 1, g.front);
  const Vec3 b0 = local(k0, g.back);
  const Vec3 b1 = local(k0 + 1, g.back);
  // The nearest points at fraction u of sub-step k0 (the segment's ends on their chords), and
  // how far they are apart beyond the reach: above zero while the two are apart. Where several
  // are nearest (a stick landing flat), the one nearest the sphere that touched.
  const Vec3 axis = g.back - g.front;
  double along = std::clamp(dot(touch.body_point - g.front, axis) / dot(axis, axis), 0.0, 1.0);
  Vec3 p;
  Vec3 q;
  const auto apart_at = [&](double u) {
    p = detail::nearest_to_core(core, a0 + u * (a1 - a0), b0 + u * (b1 - b0), along, q);
    return norm(p - q) - reach;
  };
  // The first instant the capsule reaches the target lies between the sub-step's start (if
  // apart then; else it touched within the spheres' cover before it, and the sphere's instant
  // stands) and the sphere's touch: regula falsi, Illinois' variant, on that bracket.
  double hi = std::clamp(f.s * k_steps - k0, 0.0, 1.0);
  double f_hi = apart_at(hi);
  double lo = 0.0;
  double f_lo = apart_at(lo);
  if (f_lo > 0.0 && f_hi <= 0.0) {
    int side = 0;
    for (int i = 0; i < 60 && hi - lo > 1e-12; ++i) {
      const double u = std::clamp((lo * f_hi - hi * f_lo) / (f_hi - f_lo), lo, hi);
      const double f_u = apart_at(u);
      if (f_u > 0.0) {
        lo = u;
        f_lo = f_u;
        f_hi *= side == -1 ? 0.5 : 1.0;
        side = -1;
      } else {
        hi = u;
        f_hi = f_u;
        f_lo *= side == 1 ? 0.5 : 1.0;
        side = 1;
        if (f_u > -1e-12) {
          break;
        }
      }
    }
  }
  if (!(apart_at(hi) + reach > 0.0)) {
    return; // the axis inside the core: the sphere's touch stands
  }
  const Vec3 normal = (p - q) * (1.0 / norm(p - q));
  touch.body_point = g.front + along * (g.back - g.front);
  f.s = (k0 + hi) / k_steps;
  f.hit.t = hi;
  f.hit.normal = normal;
  f.hit.point = q + (target.kind == dBoxClass ? 0.0 : target.radius) * normal;
  f.start = local(0, touch.body_point);
  f.at_hit = p;
}

void SweepGuard::set_frames(Pair& pair, int k_steps) {
  Scratch& x = *scratch_;
  stats_.sub_steps_max = std::max(stats_.sub_steps_max, k_steps);
  // Each sub-step's map from world to the target's frame (x -> conj(q) (x - p)) and the swept
  // body's pose: both turn by a fixed rotation per sub-step, composed rather than recomputed.
  x.frames.resize(static_cast<std::size_t>(k_steps) + 1);
  x.body_poses.resize(static_cast<std::size_t>(k_steps) + 1);
  const double sub = pair.h / k_steps;
  const Quat target_turn = conj(from_rotation_vector(pair.target.spin * sub));
  const Quat body_turn = from_rotation_vector(pair.w * sub);
  Quat target_q = conj(pair.target.pose.q);
  Quat body_q = pair.start.q;
  for (int k = 0; k <= k_steps; ++k) {
    const double t = k * sub;
    x.frames[static_cast<std::size_t>(k)] = {pair.target.pose.p + t * pair.target.velocity,
                                             target_q};
    x.body_poses[static_cast<std::size_t>(k)] = k_steps == x.k_steps
                                                    ? x.poses[static_cast<std::size_t>(k)]
                                                    : Pose{pair.start.p + t * pair.v, body_q};
    target_q = target_q * target_turn;
    body_q = body_turn * body_q;
  }
  pair.k_steps = k_steps;
  pair.frames = &x.frames;
  pair.body_poses = &x.body_poses;
}

void SweepGuard::sweep_against(dBodyID body, dGeomID other, double h) {
  Scratch& x = *scratch_;
  Pair pair;
  const StaticMesh* mesh = dGeomGetBody(other) == nullptr ? x.mesh_of(other) : nullptr;
  if (!locate_target(other, pair.target, mesh != nullptr ? &mesh->tree : nullptr)) {
    ++stats_.unsupported;
    return;
  }
  pair.body = body;
  pair.other = other;
  pair.other_body = dGeomGetBody(other);
  pair.h = h;
  pair.start = body_pose(body);
  pair.v = vec3_from_ode(dBodyGetLinearVel(body));
  const Target& target = pair.target;
  // Most candidates never come near: the distance between the two origins (each moving on a
  // line; turning about its own origin changes no distance from it) stays above the sum of
  // the radii that hold each shape.
  {
    const Vec3 m = pair.start.p - target.pose.p;
    const Vec3 d = h * (pair.v - target.velocity);
    const double dd = dot(d, d);
    const double s = dd > 0.0 ? std::clamp(-dot(m, d) / dd, 0.0, 1.0) : 0.0;
    if (norm(m + s * d) > target.bound + x.reach + settings_.tolerance) {
      return;
    }
  }
  orient_target(other, h, pair.target);
  pair.w = step_spin(body, h);
  pair.relative_travel = norm(pair.v - target.velocity) * h;
  pair.distance = norm(pair.start.p - target.pose.p) + x.reach + pair.relative_travel;
  // The sweep runs in the target's own frame, which moves and turns with it meanwhile: a
  // spinning plate's rim comes round to meet the sphere. In that frame a swept point's path is
  // curved, and it is swept along chords; over a fraction tau of the step they stray from it by
  // at most chord_error(tau) (see there), and the step is cut into as many sub-steps as keep
  // that within the tolerance.
  if (!x.swept.empty()) {
    set_frames(pair, std::max(x.k_steps, sub_steps(pair.chord_error(x.reach))));
    for (std::size_t i = 0; i < x.swept.size(); ++i) {
      sweep_spheres(pair, i);
    }
  }
  for (std::size_t i = 0; i < x.boxes.size(); ++i) {
    sweep_box(pair, i);
  }
}

void SweepGuard::sweep_spheres(const Pair& pair, std::size_t geom) {
  Scratch& x = *scratch_;
  const Swept& g = x.swept[geom];
  const Target& target = pair.target;
  const int k_steps = pair.k_steps;
  if (!detail::bits_allow(g.geom, pair.other)) {
    return;
  }
  ++stats_.pairs_swept;
  const detail::ChordError chord_error = pair.chord_error(x.reach);
  // The geom's spheres between two of the sub-steps' instants, along the chords joining them;
  // the ends of its segment at each instant in the target's frame, worked out when first asked.
  // With `alone` set, the segment shrinks to that one sphere's centre (the only one swept).
  x.ends.resize(static_cast<std::size_t>(k_steps) + 1);
  x.ends_known.assign(static_cast<std::size_t>(k_steps) + 1, 0);
  std::optional<std::size_t> alone;
  const auto path_between = [&](int k0, int k1) {
    const auto ends = [&](int k) -> const std::pair<Vec3, Vec3>& {
      const auto i = static_cast<std::size_t>(k);
      if (!x.ends_known[i]) {
        if (alone) {
          x.ends[i] = {pair.local(k, g.centre(*alone)), Vec3{}};
        } else {
          const Vec3 front = pair.local(k, g.front);
          x.ends[i] = {front, pair.local(k, g.back) - front};
        }
        x.ends_known[i] = 1;
      }
      return x.ends[i];
    };
    const auto& [front0, axis0] = ends(k0);
    const auto& [front1, axis1] = ends(k1);
    return SegmentPath{front0, axis0, front1, axis1, std::max(norm(axis0), norm(axis1))};
  };
  FirstTouch first;
  std::size_t first_ball = 0;
  const std::vector<char>* skip = nullptr; // spheres left to discrete collision
  // Sub-steps k0..k1 at once first: the chords from instant k0 to k1 stray from the
  // sub-steps' chords (which join points of the path) by no more than from the path,
  // chord_error of their span, so the geom as one sphere grown by that and swept along them
  // touches no later than any sphere in any of those sub-steps. A miss passes them all over;
  // otherwise the earlier half first, down to single sub-steps, each swept as before
  // (first_touch). A pair that passes wide ends at the top.
  const auto first_in = [&](const auto& self, int k0, int k1) -> bool {
    if (k1 - k0 > 1) {
      const SegmentPath path = path_between(k0, k1);
      const Vec3 middle0 = path.front0 + 0.5 * path.axis0;
      const Vec3 middle1 = path.front1 + 0.5 * path.axis1;
      const double grown =
          g.radius + 0.5 * path.stretch + chord_error(static_cast<double>(k1 - k0) / k_steps);
      if (!touch_no_later_than(target, middle0, grown, middle1 - middle0)) {
        return false;
      }
      const int mid = k0 + (k1 - k0) / 2;
      return self(self, k0, mid) || self(self, mid, k1);
    }
    std::optional<BallHit> best;
    first_touch(target, g, path_between(k0, k1), 0, g.count - 1, skip, best);
    if (!best) {
      return false;
    }
    const double s0 = static_cast<double>(k0) / k_steps;
    const double s1 = static_cast<double>(k1) / k_steps;
    first = {s0 + best->hit.t * (s1 - s0),
             best->hit,
             pair.local(0, g.centre(best->ball)),
             best->c0 + best->hit.t * (best->c1 - best->c0),
             {}};
    first_ball = best->ball;
    return true;
  };
  first_in(first_in, 0, k_steps);
  if (first.s > 1.0) {
    return;
  }
  const auto touch_of = [&](std::size_t ball) {
    return Touch{first, g.geom, g.centre(ball), g.radius};
  };
  // A pair touching now (a hit at the start) has its contact from discrete collision; on a
  // box's face the guard still watches that the sphere does not end the step through the
  // face (after_step()). The geom's spheres that touch now are discrete collision's, but where
  // the hit may turn either (Pair::may_turn) one that does not may still reach the target
  // later in the step (a stick turning about the end it rests on swings its other end down; a
  // plate turning about the touch swings its face into a captured capsule's other end): the
  // first of those gets a contact.
  dContactGeom touching_geom[1];
  if (first.s == 0.0 && dCollide(g.geom, pair.other, 1, touching_geom, sizeof(dContactGeom)) > 0) {
    ++stats_.touching;
    watch(pair, touch_of(first_ball));
    if (!pair.may_turn()) {
      return; // its first touch decides
    }
    x.skip.resize(g.count);
    for (std::size_t i = 0; i < g.count; ++i) {
      x.skip[i] = sweep(target, pair.local(0, g.centre(i)), g.radius, {}) ? 1 : 0;
    }
    skip = &x.skip;
    first = FirstTouch{};
    first_in(first_in, 0, k_steps);
    skip = nullptr;
    if (first.s > 1.0) {
      return;
    }
  }
  Touch touch = touch_of(first_ball);
  if (g.count > 1) {
    pair.touch_by_axis(g, touch);
  }
  add_contact(pair, touch);
  // A free body that the contact turns (a thrown stick whose end strikes) swings its other
  // end along an arc no single contact's row, linear in the step, holds back, and so does a
  // target the contact turns into the capsule: each end of a capsule that reaches the target
  // in the step gets a contact of its own as well.
  if (g.count < 2 || !pair.may_turn()) {
    return;
  }
  for (const std::size_t end : {std::size_t{0}, g.count - 1}) {
    if (end == first_ball) {
      continue;
    }
    x.skip.assign(g.count, 1);
    x.skip[end] = 0;
    if (sweep(target, pair.local(0, g.centre(end)), g.radius, {})) {
      continue; // touching now: discrete collision's
    }
    skip = &x.skip;
    alone = end; // swept as itself: the segment's bounds would not cull its path
    x.ends_known.assign(x.ends_known.size(), 0);
    first = FirstTouch{};
    first_in(first_in, 0, k_steps);
    skip = nullptr;
    if (first.s <= 1.0) {
      add_contact(pair, touch_of(end));
    }
  }
}

void SweepGuard::sweep_box(Pair& pair, std::size_t geom) {
  Scratch& x = *scratch_;
  const SweptBox b = x.boxes[geom];
  const Target& target = pair.target;
  if (!detail::bits_allow(b.geom, pair.other)) {
    return;
  }
  if (target.kind == dTriMeshClass) {
    ++stats_.unsupported; // a box against a trimesh's triangles is not swept
    return;
  }
  ++stats_.pairs_swept;
  const double h = pair.h;
  // Frames, the box's centre and orientation, at sub-step instant k.
  const auto box_pose = [&](int k) {
    const Pose& f = (*pair.frames)[static_cast<std::size_t>(k)];
    const Pose& body = (*pair.body_poses)[static_cast<std::size_t>(k)];
    return Pose{pair.local(k, b.at.p), f.q * body.q * b.at.q};
  };
  const auto touch_at = [&](int k, const detail::SweepHit& hit, const Vec3& geom_point) {
    Touch touch;
    touch.swept = b.geom;
    touch.body_point = b.at.p + rotate(b.at.q, geom_point);
    touch.first.s = (k + hit.t) / pair.k_steps;
    touch.first.hit = hit;
    touch.first.start = pair.local(0, touch.body_point);
    touch.first.at_hit = hit.point;
    return touch;
  };
  if (target.kind == dBoxClass || target.kind == dPlaneClass) {
    // In the target's frame, each sub-step the box translates along its centre's chord at its
    // middle orientation (sweep_box_centred_box, sweep_box_half_space). Its points stray from
    // their paths by their chords' error and by the turn ignored: half the sub-step's turn of
    // the box against the frame times the box's half diagonal.
    const detail::ChordError chord_error = pair.chord_error(x.reach);
    const double turn = (norm(pair.w) + norm(target.spin)) * h;
    const auto error = [&](double tau) {
      return chord_error(tau) + b.bound * std::min(0.5 * turn * tau, 2.0);
    };
    set_frames(pair, std::max(x.k_steps, sub_steps(error)));
    const double slack = error(1.0 / pair.k_steps);
    Pose now = box_pose(0);
    for (int k = 0; k < pair.k_steps; ++k) {
      const Pose next = box_pose(k + 1);
      const Vec3 d = next.p - now.p;
      const Quat middle = nlerp(now.q, next.q, 0.5);
      std::optional<detail::SweepHit> hit;
      if (touch_no_later_than(target, now.p, b.bound + slack, d)) {
        hit = target.kind == dBoxClass
                  ? detail::sweep_box_centred_box(now.p, middle, b.half, d, target.half)
                  : detail::sweep_box_half_space(now.p, middle, b.half, d);
      }
      if (hit) {
        const Touch first =
            touch_at(k, *hit, rotate(conj(middle), hit->point - (now.p + hit->t * d)));
        // Touching now, the corners swept still where the hit may turn either: a free box
        // swings its other corners in (a box striking a wall with one corner), a struck plate
        // its face into a captured box's other corners.
        if (box_touch(pair, first) || pair.may_turn()) {
          box_corners(pair, geom, first.body_point);
        }
        return;
      }
      now = next;
    }
    return;
  }
  // A sphere or a capsule: its spheres swept in the box's frame (the roles swapped), where
  // they move along chords as the box's spheres do in a target's frame.
  const Swept spheres = target_spheres(target, settings_.tolerance);
  const detail::ChordError chord_error{pair.distance + target.bound, target.bound,
                                       norm(target.spin) * h, norm(pair.w) * h,
                                       pair.relative_travel};
  // The box's frame turns about the body's origin, not its own: add its centre's sagitta.
  const double turn = norm(pair.w) * h;
  const auto error = [&](double tau) {
    return chord_error(tau) + norm(b.at.p) * std::min(0.125 * turn * turn * tau * tau, 2.0);
  };
  set_frames(pair, std::max(x.k_steps, sub_steps(error)));
  Target box;
  box.kind = dBoxClass;
  box.half = b.half;
  box.bound = b.bound;
  // Where a point of the target (its frame) is at instant k, in the box's frame.
  const auto in_box = [&](int k, const Vec3& point) {
    const Pose& f = (*pair.frames)[static_cast<std::size_t>(k)];
    const Pose& body = (*pair.body_poses)[static_cast<std::size_t>(k)];
    const Vec3 world = f.p + rotate(conj(f.q), point);
    return rotate(conj(body.q * b.at.q), world - (body.p + rotate(body.q, b.at.p)));
  };
  for (int k = 0; k < pair.k_steps; ++k) {
    const Vec3 front0 = in_box(k, spheres.front);
    const Vec3 front1 = in_box(k + 1, spheres.front);
    const Vec3 axis0 = in_box(k, spheres.back) - front0;
    const Vec3 axis1 = in_box(k + 1, spheres.back) - front1;
    std::optional<BallHit> best;
    first_touch(box, spheres, {front0, axis0, front1, axis1, std::max(norm(axis0), norm(axis1))}, 0,
                spheres.count - 1, nullptr, best);
    if (!best) {
      continue;
    }
    // The touch in the target's frame: the box's surface point there at the hit, the normal
    // (box to sphere in the box's frame) turned round, at instant k.
    const Vec3 geom_point = best->hit.point;
    const Vec3 body_point = b.at.p + rotate(b.at.q, geom_point);
    const Pose& body = (*pair.body_poses)[static_cast<std::size_t>(k)];
    const Pose& f = (*pair.frames)[static_cast<std::size_t>(k)];
    const Vec3 normal = rotate(f.q * body.q * b.at.q, -1.0 * best->hit.normal);
    const Vec3 at_hit = pair.local(k, body_point) +
                        best->hit.t * (pair.local(k + 1, body_point) - pair.local(k, body_point));
    box_touch(pair, touch_at(k, {best->hit.t, at_hit, normal}, geom_point));
    return;
  }
}

bool SweepGuard::box_touch(const Pair& pair, const Touch& touch) {
  // Touching now: discrete collision's (watched on a box's face, as for spheres).
  dContactGeom touching_geom[1];
  if (touch.first.s == 0.0 &&
      dCollide(touch.swept, pair.other, 1, touching_geom, sizeof(dContactGeom)) > 0) {
    ++stats_.touching;
    watch(pair, touch);
    return false;
  }
  add_contact(pair, touch);
  return true;
}

void SweepGuard::watch(const Pair& pair, const Touch& touch) {
  if (pair.target.kind != dBoxClass && pair.other_body != nullptr) {
    return;
  }
  Pending& p = scratch_->pending.emplace_back(pair.hit_of(touch).pending);
  p.bounce = bounce_of(settings_.surface);
  face_the_geom(pair.target, touch.swept, p);
}

void SweepGuard::box_corners(const Pair& pair, std::size_t geom, const Vec3& first_point) {
  // A box that strikes a plate with a corner or an edge goes on to press its face into it
  // within the step: one contact lets the plate turn about it and the box's other corners
  // through. Each corner that reaches the target in the step, swept as a point along its own
  // chords, gets a contact of its own, as discrete collision would give them in turn.
  const SweptBox& b = scratch_->boxes[geom];
  for (int i = 0; i < 8; ++i) {
    const Vec3 corner = b.at.p + rotate(b.at.q, Vec3{(i & 1) != 0 ? b.half.x : -b.half.x,
                                                     (i & 2) != 0 ? b.half.y : -b.half.y,
                                                     (i & 4) != 0 ? b.half.z : -b.half.z});
    if (norm(corner - first_point) <= 1e-9 * b.bound) {
      continue; // the first touch itself
    }
    for (int k = 0; k < pair.k_steps; ++k) {
      const Vec3 c0 = pair.local(k, corner);
      const auto hit = sweep_point(pair.target, c0, pair.local(k + 1, corner) - c0);
      if (!hit) {
        continue;
      }
      if (k > 0 || hit->t > 0.0) {
        Touch touch;
        touch.swept = b.geom;
        touch.body_point = corner;
        touch.first.s = (k + hit->t) / pair.k_steps;
        touch.first.hit = *hit;
        touch.first.start = pair.local(0, corner);
        touch.first.at_hit = c0 + hit->t * (pair.local(k + 1, corner) - c0);
        add_contact(pair, touch);
      }
      break; // a corner inside the target now is discrete collision's
    }
  }
}

void SweepGuard::add_contact(const Pair& pair, const Touch& touch) {
  Scratch& x = *scratch_;
  const Hit hit = pair.hit_of(touch);
  dContact contact{};
  contact.surface = settings_.surface;
  to_ode(hit.point, contact.geom.pos);
  to_ode(hit.normal, contact.geom.normal);
  contact.geom.depth = 0.0;
  contact.geom.g1 = pair.other;
  contact.geom.g2 = touch.swept;
  if (settings_.on_contact && !settings_.on_contact(contact)) {
    ++stats_.refused;
    return;
  }
  // With restitution, ODE measures the bounce relative to motionN (its right-hand side is
  // -e (v - motionN) + motionN), which would take (1 + e) gap / h off the rebound: there
  // motionN stays 0 and the rebound is the one the approach speed calls for, given in this
  // step rather than at the touch.
  const bool bounces = (contact.surface.mode & dContactBounce) != 0;
  const double closing_now = dot(hit.normal, point_velocity(pair.other_body, hit.point) -
                                                 point_velocity(pair.body, hit.point));
  contact.surface.mode |= dContactMotionN;
  contact.surface.motionN = bounces ? 0.0 : (hit.travel - hit.gap) / pair.h + closing_now;
  const dJointID joint = dJointCreateContact(world_, contacts_, &contact);
  dJointAttach(joint, pair.other_body, pair.body);
  Pending pending = hit.pending;
  pending.bounce = bounce_of(contact.surface);
  if (!bounces) {
    x.feedback.emplace_back();
    dJointSetFeedback(joint, &x.feedback.back());
    pending.feedback = &x.feedback.back();
  }
  x.pending.push_back(pending);
  contacts_made_.push_back({joint, pair.other, touch.swept, hit.point, hit.normal, hit.gap});
  ++stats_.speculative_contacts;
  ++added_;
}

} // namespace odemocap
