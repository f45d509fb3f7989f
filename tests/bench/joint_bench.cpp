// Quaternion joints against ODE's built-in equivalents in the same run: 100 boxes, each held
// to the world by one joint, under gravity and a turning torque; one full step (prestep, which
// recomputes our joints' rows, then the ODE stepper) per iteration.
#include <odemocap/plugin.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

namespace {

using namespace odemocap;
constexpr double k_h = 1.0 / 120;
constexpr int k_boxes = 100;

enum Kind { quat_lock, ode_fixed, quat_hinge, ode_hinge };

class JointScene {
public:
  explicit JointScene(Kind kind) {
    dInitODE2(0);
    world_ = dWorldCreate();
    dWorldSetGravity(world_, 0, 0, -9.81);
    driver_ = std::make_unique<KinematicDriver>(world_);
    for (int i = 0; i < k_boxes; ++i) {
      dBodyID body = dBodyCreate(world_);
      dMass m;
      dMassSetBoxTotal(&m, 1.0, 0.4, 0.2, 0.1);
      dBodySetMass(body, &m);
      dBodySetPosition(body, 0.2 + i, 0, 1);
      bodies_.push_back(body);
      const Vec3 anchor{static_cast<double>(i), 0, 1};
      add_joint(kind, body, anchor);
    }
  }
  ~JointScene() {
    locks_.clear();
    hinges_.clear();
    driver_.reset();
    dWorldDestroy(world_);
    dCloseODE();
  }
  JointScene(const JointScene&) = delete;
  JointScene& operator=(const JointScene&) = delete;

  void step(bool quick) {
    t_ += k_h;
    for (dBodyID b : bodies_) {
      dBodyAddTorque(b, std::cos(2 * t_), std::sin(3 * t_), 0.5);
    }
    driver_->prestep(k_h);
    if (quick) {
      dWorldQuickStep(world_, k_h);
    } else {
      dWorldStep(world_, k_h);
    }
  }

private:
  void add_joint(Kind kind, dBodyID body, const Vec3& anchor) {
    if (kind == quat_lock) {
      QuatLockSettings s;
      s.body1 = body;
      s.anchor = anchor;
      locks_.emplace_back(*driver_, s);
    } else if (kind == quat_hinge) {
      QuatHingeSettings s;
      s.body1 = body;
      s.anchor = anchor;
      s.axis = {0, 1, 0};
      hinges_.emplace_back(*driver_, s);
    } else if (kind == ode_fixed) {
      dJointID j = dJointCreateFixed(world_, nullptr);
      dJointAttach(j, body, nullptr);
      dJointSetFixed(j);
    } else {
      dJointID j = dJointCreateHinge(world_, nullptr);
      dJointAttach(j, body, nullptr);
      dJointSetHingeAnchor(j, anchor.x, anchor.y, anchor.z);
      dJointSetHingeAxis(j, 0, 1, 0);
    }
  }

  dWorldID world_;
  std::unique_ptr<KinematicDriver> driver_;
  std::vector<dBodyID> bodies_;
  std::vector<QuatLockJoint> locks_;
  std::vector<QuatHingeJoint> hinges_;
  double t_ = 0.0;
};

template <Kind kind, bool quick> void step_100_joints(benchmark::State& state) {
  JointScene scene(kind);
  for (auto _ : state) {
    scene.step(quick);
  }
  state.SetItemsProcessed(state.iterations() * k_boxes);
}
BENCHMARK_TEMPLATE(step_100_joints, ode_fixed, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, quat_lock, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, ode_hinge, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, quat_hinge, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, ode_fixed, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, quat_lock, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, ode_hinge, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(step_100_joints, quat_hinge, true)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
