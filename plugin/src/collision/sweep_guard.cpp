#include <odemocap/ode_math.hpp>
#include <odemocap/plugin_error.hpp>
#include <odemocap/sweep_guard.hpp>

#include "describe.hpp"
#include "collision/swept_sphere.hpp"

#include <algorithm>
#include <cmath>
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

/// A dynamic geom the guard sweeps against, at its pose now.
struct Target {
  int kind = -1; ///< dSphereClass, dCapsuleClass or dBoxClass
  Pose pose;
  double radius = 0.0;
  Vec3 a, b; ///< capsule axis ends (world)
  Vec3 half; ///< box half extents
};

bool describe_target(dGeomID geom, Target& t) {
  t.kind = dGeomGetClass(geom);
  t.pose = {vec3_from_ode(dGeomGetPosition(geom)), Quat{}};
  dQuaternion q;
  dGeomGetQuaternion(geom, q);
  t.pose.q = quat_from_ode(q);
  switch (t.kind) {
  case dSphereClass: t.radius = dGeomSphereGetRadius(geom); return true;
  case dCapsuleClass: {
    dReal r = 0;
    dReal length = 0;
    dGeomCapsuleGetParams(geom, &r, &length);
    t.radius = r;
    t.a = t.pose.p + rotate(t.pose.q, Vec3{0, 0, -0.5 * length});
    t.b = t.pose.p + rotate(t.pose.q, Vec3{0, 0, 0.5 * length});
    return true;
  }
  case dBoxClass: {
    dVector3 sides;
    dGeomBoxGetLengths(geom, sides);
    t.half = 0.5 * vec3_from_ode(sides);
    return true;
  }
  default: return false;
  }
}

std::optional<detail::SweepHit> sweep(const Target& t, const Vec3& c, double r, const Vec3& d) {
  switch (t.kind) {
  case dSphereClass: return detail::sweep_sphere_sphere(c, r, d, t.pose.p, t.radius);
  case dCapsuleClass: return detail::sweep_sphere_capsule(c, r, d, t.a, t.b, t.radius);
  default: return detail::sweep_sphere_box(c, r, d, t.pose, t.half);
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
/// and the sphere's centre at the start and at the hit (relative to the target's motion).
struct FirstTouch {
  double s = 2.0;
  detail::SweepHit hit;
  Vec3 start;
  Vec3 at_hit;
};

} // namespace

struct SweepGuard::Scratch {
  std::vector<Ball> balls;
  std::vector<Swept> swept;
  std::vector<Pose> poses;
  std::vector<dGeomID> candidates;
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

int SweepGuard::collide(double h) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw PluginError("SweepGuard::collide: h must be finite and positive, got " +
                      detail::describe(h));
  }
  ++stats_.steps;
  added_ = 0;
  for (dBodyID body : bodies_) {
    sweep_body(body, h);
  }
  return added_;
}

void SweepGuard::sweep_body(dBodyID body, double h) {
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
    return;
  }
  for (const Ball& b : x.balls) {
    reach = std::max(reach, norm(b.centre) + b.radius);
    smallest = std::min(smallest, b.radius);
  }
  const Pose start = body_pose(body);
  const Vec3 v = vec3_from_ode(dBodyGetLinearVel(body));
  const Vec3 w = vec3_from_ode(dBodyGetAngularVel(body));
  // Too slow to pass anything: no point moves further than this bound in the step.
  const double travel = (norm(v) + norm(w) * reach) * h;
  if (travel <= 2.0 * std::sqrt(2.0 * smallest * settings_.tolerance)) {
    ++stats_.slow;
    return;
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
  // Broad phase: an axis-aligned box around the swept volume against the space.
  const Vec3 size = high - low;
  dGeomBoxSetLengths(probe_, size.x, size.y, size.z);
  const Vec3 mid = 0.5 * (low + high);
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
    Target target;
    if (!describe_target(other, target)) {
      ++stats_.unsupported;
      continue;
    }
    const dBodyID other_body = dGeomGetBody(other);
    // Sweep in the target's frame of motion: it moves on with its velocity meanwhile.
    const Vec3 drift = h * vec3_from_ode(dBodyGetLinearVel(other_body));
    for (const Swept& g : x.swept) {
      if (!bits_allow(g.geom, other)) {
        continue;
      }
      ++stats_.pairs_swept;
      dContactGeom touching[1];
      if (dCollide(g.geom, other, 1, touching, sizeof(dContactGeom)) > 0) {
        ++stats_.touching; // discrete collision makes this pair's contacts
        continue;
      }
      FirstTouch first;
      for (int k = 0; k < k_steps && first.s > 1.0; ++k) {
        const double s0 = static_cast<double>(k) / k_steps;
        const double s1 = static_cast<double>(k + 1) / k_steps;
        const Pose& p0 = x.poses[static_cast<std::size_t>(k)];
        const Pose& p1 = x.poses[static_cast<std::size_t>(k) + 1];
        for (std::size_t i = g.first; i < g.first + g.count; ++i) {
          const Ball& b = x.balls[i];
          const Vec3 c0 = p0.p + rotate(p0.q, b.centre) - s0 * drift;
          const Vec3 c1 = p1.p + rotate(p1.q, b.centre) - s1 * drift;
          const auto hit = sweep(target, c0, b.radius, c1 - c0);
          if (!hit) {
            continue;
          }
          const double s = s0 + hit->t * (s1 - s0);
          if (s < first.s) {
            first = {s, *hit, start.p + rotate(start.q, b.centre), c0 + hit->t * (c1 - c0)};
          }
        }
      }
      if (first.s > 1.0) {
        continue;
      }
      // The contact: body 1 the target, body 2 the guarded body, normal from the guarded
      // geom into the target (ODE's normal points into body 1). The pair may close along it
      // by the distance the swept sphere travels to the touch, no more: motionN = -gap / h.
      // With restitution, ODE measures the bounce relative to motionN (its right-hand side is
      // -e (v - motionN) + motionN), which would take (1 + e) gap / h off the rebound: there
      // motionN stays 0 and the rebound is the one the approach speed calls for, given in
      // this step rather than at the touch, up to a step early.
      const Vec3 normal = -1.0 * first.hit.normal;
      const double gap = std::max(0.0, dot(first.at_hit - first.start, normal));
      dContact contact{};
      contact.surface = settings_.surface;
      contact.surface.mode |= dContactMotionN;
      contact.surface.motionN = (contact.surface.mode & dContactBounce) != 0 ? 0.0 : -gap / h;
      const Vec3 point = first.hit.point + first.s * drift;
      to_ode(point, contact.geom.pos);
      to_ode(normal, contact.geom.normal);
      contact.geom.depth = 0.0;
      contact.geom.g1 = other;
      contact.geom.g2 = g.geom;
      dJointAttach(dJointCreateContact(world_, contacts_, &contact), other_body, body);
      ++stats_.speculative_contacts;
      ++added_;
    }
  }
}

} // namespace odemocap
