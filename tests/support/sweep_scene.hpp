#pragma once
// A scene for swept-collision tests: no gravity, one contact surface for every pair with a
// dynamic body (the same surface is given to the SweepGuard), kinematic bodies moved by
// velocities set directly (any speed, no driver limits). The same scene stepped `substeps`
// times per step of h, without a guard, is the reference: discrete collision at h/64 sees
// every contact the guarded step must not miss. MeshGeom: a static trimesh for the guard's
// static targets.

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <memory>
#include <utility>
#include <vector>

namespace odemocap::test {

class SweepScene {
public:
  /// `simple_space`: a dSimpleSpace (every pair tested) instead of a dHashSpace. Debian's
  /// libode 0.16 hash space misses some overlapping pairs (a 5 cm ball 3 cm deep in a 52 x 60
  /// cm plate, found with the two geoms alone in a space): a reference that must see every
  /// contact uses a simple space.
  explicit SweepScene(double mu = 0.5, double bounce = 0.0, bool simple_space = false) {
    dInitODE2(0);
    dRandSetSeed(1);
    world = dWorldCreate();
    space = simple_space ? dSimpleSpaceCreate(nullptr) : dHashSpaceCreate(nullptr);
    contacts = dJointGroupCreate(0);
    surface.mode = dContactApprox1 | (bounce > 0.0 ? dContactBounce : 0);
    surface.mu = mu;
    surface.bounce = bounce;
  }
  ~SweepScene() {
    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    dWorldDestroy(world);
    dCloseODE();
  }
  SweepScene(const SweepScene&) = delete;
  SweepScene& operator=(const SweepScene&) = delete;

  /// A kinematic body carrying one geom (the caller sets its velocities).
  dBodyID kinematic(dGeomID geom) {
    dBodyID body = dBodyCreate(world);
    dBodySetKinematic(body);
    dBodySetFiniteRotationMode(body, 1);
    dGeomSetBody(geom, body);
    return body;
  }

  /// A dynamic body carrying one geom, with mass `kg` spread as the geom's shape.
  dBodyID dynamic(dGeomID geom, double kg) {
    dBodyID body = dBodyCreate(world);
    dMass m;
    switch (dGeomGetClass(geom)) {
    case dSphereClass:
      dMassSetSphereTotal(&m, kg, dGeomSphereGetRadius(geom));
      break;
    case dBoxClass: {
      dVector3 s;
      dGeomBoxGetLengths(geom, s);
      dMassSetBoxTotal(&m, kg, s[0], s[1], s[2]);
      break;
    }
    default: {
      dReal r = 0, l = 0;
      dGeomCapsuleGetParams(geom, &r, &l);
      dMassSetCapsuleTotal(&m, kg, 3, r, l);
    }
    }
    dBodySetMass(body, &m);
    dGeomSetBody(geom, body);
    return body;
  }

  /// Discrete collision, then the guard (if any), then one dWorldStep of h, then the guard's
  /// after_step() (unless `after_step` is false: the loop before the twenty-fourth session's
  /// README, which left it to the next collide()).
  void step(double h, SweepGuard* guard = nullptr, bool after_step = true) {
    dSpaceCollide(space, this, &near);
    if (guard != nullptr) {
      guard->collide(h);
    }
    dWorldStep(world, h);
    dJointGroupEmpty(contacts);
    if (guard != nullptr && after_step) {
      guard->after_step();
    }
  }

  dWorldID world;
  dSpaceID space;
  dJointGroupID contacts;
  dSurfaceParameters surface{};

private:
  static void near(void* data, dGeomID a, dGeomID b) {
    auto* scene = static_cast<SweepScene*>(data);
    dBodyID ba = dGeomGetBody(a);
    dBodyID bb = dGeomGetBody(b);
    const bool a_moves = ba != nullptr && !dBodyIsKinematic(ba);
    const bool b_moves = bb != nullptr && !dBodyIsKinematic(bb);
    if (!a_moves && !b_moves) {
      return;
    }
    dContact c[8];
    const int n = dCollide(a, b, 8, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface = scene->surface;
      dJointAttach(dJointCreateContact(scene->world, scene->contacts, &c[i]), ba, bb);
    }
  }
};

/// A static trimesh geom and the arrays ODE reads it from; the geom is destroyed first.
class MeshGeom {
public:
  MeshGeom(dSpaceID space, std::vector<double> vertices, std::vector<dTriIndex> indices)
      : vertices_(std::move(vertices)), indices_(std::move(indices)) {
    data_ = dGeomTriMeshDataCreate();
    dGeomTriMeshDataBuildDouble(data_, vertices_.data(), 3 * sizeof(double),
                                static_cast<int>(vertices_.size() / 3), indices_.data(),
                                static_cast<int>(indices_.size()), 3 * sizeof(dTriIndex));
    geom = dCreateTriMesh(space, data_, nullptr, nullptr, nullptr);
  }
  ~MeshGeom() {
    dGeomDestroy(geom);
    dGeomTriMeshDataDestroy(data_);
  }
  MeshGeom(const MeshGeom&) = delete;
  MeshGeom& operator=(const MeshGeom&) = delete;

  dTriMeshDataID data() const { return data_; }
  dGeomID geom = nullptr;

private:
  std::vector<double> vertices_;
  std::vector<dTriIndex> indices_;
  dTriMeshDataID data_ = nullptr;
};

/// A closed box of half extents `half` about the origin, 12 triangles facing out.
inline std::unique_ptr<MeshGeom> box_mesh(dSpaceID space, const Vec3& half) {
  std::vector<double> vertices;
  for (int k = 0; k < 8; ++k) {
    vertices.insert(vertices.end(),
                    {(k & 1) != 0 ? half.x : -half.x, (k & 2) != 0 ? half.y : -half.y,
                     (k & 4) != 0 ? half.z : -half.z});
  }
  // Each face's corners counter-clockwise seen from outside.
  const std::vector<dTriIndex> faces[6] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  std::vector<dTriIndex> indices;
  for (const auto& f : faces) {
    indices.insert(indices.end(), {f[0], f[1], f[2], f[0], f[2], f[3]});
  }
  return std::make_unique<MeshGeom>(space, std::move(vertices), std::move(indices));
}

} // namespace odemocap::test
