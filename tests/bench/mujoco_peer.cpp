// The scenes of tests/plugin/drive/jointed_bodies_test.cpp run in MuJoCo (Debian's
// libmujoco-dev, 2.2.2) the way its users follow a capture: a mocap body set to the captured pose
// before each step, the payload held by a weld equality constraint, the pendulum's bob by a
// connect constraint, MuJoCo's defaults otherwise (Euler integrator, Newton solver, solref 0.02).
// It prints the same figures the ODE test prints as `[ metric ]` lines, for the table in
// tests/bench/README.md. Built only where MuJoCo is installed; not a test.
#include "support/jointed_scenes.hpp"

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace jointed = odemocap::test::jointed;
using odemocap::Pose;
using odemocap::Quat;
using odemocap::Vec3;

namespace {

constexpr double k_deg = 180.0 / jointed::k_pi;

std::string numbers(const Vec3& v) {
  char out[96];
  std::snprintf(out, sizeof out, "%.17g %.17g %.17g", v.x, v.y, v.z);
  return out;
}

std::string numbers(const Quat& q) {
  char out[128];
  std::snprintf(out, sizeof out, "%.17g %.17g %.17g %.17g", q.w, q.x, q.y, q.z);
  return out;
}

/// A model from MJCF text (written to a temporary file: 2.2's loader reads files).
mjModel* load(const std::string& xml) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "odemocap_mujoco_peer.xml").string();
  std::ofstream(path) << xml;
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  if (m == nullptr) {
    throw std::runtime_error(std::string("MuJoCo: ") + error);
  }
  return m;
}

std::string header() {
  char out[160];
  std::snprintf(out, sizeof out,
                "<mujoco><option timestep=\"%.17g\" gravity=\"0 0 -9.81\"/><worldbody>",
                jointed::k_h);
  return out;
}

void set_mocap(mjData* d, const Pose& p) {
  const double v[7] = {p.p.x, p.p.y, p.p.z, p.q.w, p.q.x, p.q.y, p.q.z};
  for (int k = 0; k < 3; ++k) {
    d->mocap_pos[k] = v[k];
  }
  for (int k = 0; k < 4; ++k) {
    d->mocap_quat[k] = v[3 + k];
  }
}

/// A free body's pose from its qpos (after mj_step, xpos is the step's start).
Pose free_pose(const mjData* d) {
  const mjtNum* q = d->qpos;
  return {{q[0], q[1], q[2]}, odemocap::normalized(Quat{q[3], q[4], q[5], q[6]})};
}

struct WeldRun {
  double rms_m = 0.0, max_m = 0.0, max_deg = 0.0;
};

/// The payload welded to a mocap carrier following `at` (from its pose at time 0).
WeldRun welded(const std::function<Pose(double)>& at) {
  const Pose start = at(0.0);
  const Pose payload = jointed::compose(start, jointed::weld_offset());
  const Vec3 half = jointed::payload_sides() * 0.5;
  // The weld's relative pose is taken from the model's initial configuration: the carrier's
  // first pose and the payload on its offset.
  const std::string xml =
      header() + "<body name=\"carrier\" mocap=\"true\" pos=\"" + numbers(start.p) + "\" quat=\"" +
      numbers(start.q) + "\"/><body name=\"payload\" pos=\"" + numbers(payload.p) + "\" quat=\"" +
      numbers(payload.q) + "\"><freejoint/><geom type=\"box\" size=\"" + numbers(half) +
      "\" mass=\"" + std::to_string(jointed::k_payload_mass) +
      "\" contype=\"0\" conaffinity=\"0\"/></body></worldbody><equality><weld body1=\"carrier\" "
      "body2=\"payload\"/></equality></mujoco>";
  mjModel* m = load(xml);
  mjData* d = mj_makeData(m);
  WeldRun r;
  double sum2 = 0.0;
  const int steps = static_cast<int>(jointed::k_seconds / jointed::k_h);
  for (int i = 0; i < steps; ++i) {
    const Pose carrier = at((i + 1) * jointed::k_h);
    set_mocap(d, carrier);
    mj_step(m, d);
    const Pose want = jointed::compose(carrier, jointed::weld_offset());
    const Pose have = free_pose(d);
    const double e = odemocap::norm(have.p - want.p);
    sum2 += e * e;
    r.max_m = std::fmax(r.max_m, e);
    r.max_deg = std::fmax(r.max_deg, odemocap::angle_between(have.q, want.q) * k_deg);
  }
  r.rms_m = std::sqrt(sum2 / steps);
  mj_deleteData(d);
  mj_deleteModel(m);
  return r;
}

/// The bob on a connect constraint below the mocap swinger: the largest gap (m) between the
/// joint's point on the swinger and on the bob.
double pendulum_gap() {
  const Pose start = jointed::swing(0.0);
  const Vec3 anchor = jointed::pendulum_anchor();
  const Vec3 on_swinger = odemocap::rotate(odemocap::conj(start.q), anchor - start.p);
  const Vec3 on_bob = anchor - jointed::bob_start();
  const double half = jointed::k_bob_side / 2;
  const std::string xml =
      header() + "<body name=\"swinger\" mocap=\"true\" pos=\"" + numbers(start.p) + "\" quat=\"" +
      numbers(start.q) + "\"/><body name=\"bob\" pos=\"" + numbers(jointed::bob_start()) +
      "\"><freejoint/><geom type=\"box\" size=\"" + numbers(Vec3{half, half, half}) + "\" mass=\"" +
      std::to_string(jointed::k_bob_mass) +
      "\" contype=\"0\" conaffinity=\"0\"/></body></worldbody><equality><connect "
      "body1=\"swinger\" body2=\"bob\" anchor=\"" +
      numbers(on_swinger) + "\"/></equality></mujoco>";
  mjModel* m = load(xml);
  mjData* d = mj_makeData(m);
  double gap = 0.0;
  const int steps = static_cast<int>(jointed::k_seconds / jointed::k_h);
  for (int i = 0; i < steps; ++i) {
    const Pose swinger = jointed::swing((i + 1) * jointed::k_h);
    set_mocap(d, swinger);
    mj_step(m, d);
    const Pose bob = free_pose(d);
    const Vec3 a = swinger.p + odemocap::rotate(swinger.q, on_swinger);
    const Vec3 b = bob.p + odemocap::rotate(bob.q, on_bob);
    gap = std::fmax(gap, odemocap::norm(a - b));
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return gap;
}

} // namespace

int main() {
  try {
    const odemocap::Track wrist = jointed::cmu_wrist(ODEMOCAP_REPO_DATA_DIR "/cmu/131_03.bvh");
    const WeldRun eight = welded(jointed::figure_eight);
    const WeldRun hop = welded([&](double t) { return wrist.sample(t); });
    std::printf("MuJoCo %s, 120 Hz, defaults, mocap body and weld / connect:\n",
                mj_versionString());
    std::printf("payload welded to a 3 Hz figure eight: %.3f mm RMS, %.3f mm max, %.3g deg max\n",
                1000 * eight.rms_m, 1000 * eight.max_m, eight.max_deg);
    std::printf("payload welded to the CMU hop's right wrist: %.3f mm RMS, %.3f mm max, %.3g deg "
                "max\n",
                1000 * hop.rms_m, 1000 * hop.max_m, hop.max_deg);
    std::printf("pendulum from a swinging body: joint gap up to %.2f mm\n", 1000 * pendulum_gap());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mujoco_peer: %s\n", e.what());
    return 1;
  }
}
