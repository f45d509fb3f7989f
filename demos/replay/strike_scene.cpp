#include "strike_scene.hpp"
#include "report.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace odemocap::replay {
namespace {

constexpr double k_spin = 30.0;   // rad/s
constexpr double k_bat = 0.8;     // m, end to end
constexpr double k_bat_r = 0.03;  // m
constexpr double k_ball_r = 0.02; // m
constexpr double k_height = 1.0;  // m, the swing's plane
constexpr double k_restitution = 0.5;
constexpr int k_balls = 24;

dSurfaceParameters surface() {
  dSurfaceParameters s{};
  s.mode = dContactApprox1 | dContactBounce;
  s.mu = 0.3;
  s.bounce = k_restitution;
  s.bounce_vel = 0.1;
  return s;
}

/// The captured swing: the wrist at (0, 0, 1), the bat making one turn about z (0.21 s),
/// sampled at 120 Hz; then it holds still, so each ball meets it once.
Track swing() {
  Track track("bat");
  const int samples = static_cast<int>(std::ceil(2 * 3.14159265358979323846 / k_spin * 120));
  for (int i = 0; i <= samples; ++i) {
    const double t = i / 120.0;
    track.append(t, {{0, 0, k_height}, from_axis_angle({0, 0, 1}, k_spin * t)});
  }
  return track;
}

} // namespace

StrikeScene::StrikeScene(const StrikeOptions& options) : options_(options) {
  h_ = 1.0 / options.rate;
  dInitODE2(0);
  world_ = dWorldCreate();
  dWorldSetGravity(world_, 0, 0, -9.81);
  // Sweep and prune, not a hash space: Debian's ODE 0.16 hash space never reports some
  // touching pairs (about one in a hundred random touching pairs; plugin/README.md).
  space_ = dSweepAndPruneSpaceCreate(nullptr, dSAP_AXES_XYZ);
  contacts_ = dJointGroupCreate(0);
  driver_ = std::make_unique<KinematicDriver>(world_);
  dCreatePlane(space_, 0, 0, 1, 0);

  bat_ = dBodyCreate(world_);
  dGeomID capsule = dCreateCapsule(space_, k_bat_r, k_bat - 2 * k_bat_r);
  dGeomSetBody(capsule, bat_);
  dGeomSetOffsetPosition(capsule, 0.5 * k_bat, 0, 0);
  dQuaternion along_x;
  to_ode(from_to({0, 0, 1}, {1, 0, 0}), along_x);
  dGeomSetOffsetQuaternion(capsule, along_x);
  shapes_.push_back({capsule, Role::Captured});
  BindOptions bind;
  bind.max_linear_speed = 100.0;
  driver_->bind(bat_, swing(), bind);
  if (options.guard) {
    SweepSettings settings;
    settings.surface = surface();
    guard_ = std::make_unique<SweepGuard>(world_, space_, contacts_, settings);
    guard_->guard(bat_);
  }

  // Balls on tees around the wrist, at the bat's height, spread over its first turn.
  for (int i = 0; i < k_balls; ++i) {
    const double phase = 0.6 + 5.0 * (i + 0.5) / k_balls;
    const double radius = 0.15 + 0.6 * std::fmod(0.618034 * (i + 1), 1.0);
    const Vec3 at{radius * std::cos(phase), radius * std::sin(phase), k_height};
    const double tee = k_height - k_ball_r;
    dGeomID post = dCreateBox(space_, 0.02, 0.02, tee);
    dGeomSetPosition(post, at.x, at.y, 0.5 * tee);
    shapes_.push_back({post, Role::Pedestal});
    dBodyID body = dBodyCreate(world_);
    dMass m;
    dMassSetSphereTotal(&m, 0.05, k_ball_r);
    dBodySetMass(body, &m);
    dBodySetPosition(body, at.x, at.y, at.z);
    dGeomID geom = dCreateSphere(space_, k_ball_r);
    dGeomSetBody(geom, body);
    shapes_.push_back({geom, Role::Prop});
    balls_.push_back({body, at, radius});
  }
}

StrikeScene::~StrikeScene() {
  guard_.reset();
  driver_.reset();
  dJointGroupDestroy(contacts_);
  dSpaceDestroy(space_);
  dWorldDestroy(world_);
  dCloseODE();
}

void StrikeScene::near_callback(void* data, dGeomID a, dGeomID b) {
  auto* scene = static_cast<StrikeScene*>(data);
  dBodyID ba = dGeomGetBody(a);
  dBodyID bb = dGeomGetBody(b);
  const auto dynamic = [](dBodyID body) { return body != nullptr && !dBodyIsKinematic(body); };
  if (!dynamic(ba) && !dynamic(bb)) {
    return;
  }
  dContact c[4];
  const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
  for (int i = 0; i < n; ++i) {
    c[i].surface = surface();
    dJointAttach(dJointCreateContact(scene->world_, scene->contacts_, &c[i]), ba, bb);
  }
}

void StrikeScene::step() {
  const auto start = std::chrono::steady_clock::now();
  driver_->prestep(h_);
  dSpaceCollide(space_, this, &near_callback);
  if (guard_) {
    guard_->collide(h_);
  }
  dWorldQuickStep(world_, h_);
  dJointGroupEmpty(contacts_);
  if (guard_) {
    guard_->after_step(); // the step's hits completed before the balls are read
  }
  step_time_sum_us_ +=
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  for (Ball& ball : balls_) {
    const Vec3 v = vec3_from_ode(dBodyGetLinearVel(ball.body));
    if (!is_finite(v) || !is_finite(vec3_from_ode(dBodyGetPosition(ball.body)))) {
      ++nan_values_;
    }
    if (ball.moving_since < 0 && norm(v) > 0.5) {
      ball.moving_since = static_cast<int>(steps_);
      ball.launch_speed = norm(v);
    }
  }
  ++steps_;
}

StrikeMetrics StrikeScene::metrics() const {
  StrikeMetrics m;
  m.label = label();
  m.steps = steps_;
  m.simulated_s = driver_->time();
  m.balls = static_cast<int>(balls_.size());
  m.speculative_contacts = guard_ ? static_cast<long>(guard_->stats().speculative_contacts) : 0;
  m.nan_values = nan_values_;
  double sum = 0.0;
  m.launch_ratio_min = INFINITY;
  m.launch_ratio_max = 0.0;
  for (const Ball& ball : balls_) {
    if (ball.launch_speed < 0) {
      continue;
    }
    ++m.balls_hit;
    // A kinematic bat: the ball leaves at (1 + e) times the bat's speed where it touches it,
    // w times its distance from the wrist (the contact is on the bat's side).
    const double ratio =
        ball.launch_speed / ((1 + k_restitution) * k_spin * ball.radius_from_wrist);
    sum += ratio;
    m.balls_struck += ratio >= 0.8 ? 1 : 0;
    m.launch_ratio_min = std::fmin(m.launch_ratio_min, ratio);
    m.launch_ratio_max = std::fmax(m.launch_ratio_max, ratio);
  }
  if (m.balls_hit > 0) {
    m.launch_ratio_mean = sum / m.balls_hit;
  } else {
    m.launch_ratio_min = 0.0;
  }
  if (steps_ > 0) {
    m.step_time_mean_us = step_time_sum_us_ / static_cast<double>(steps_);
  }
  return m;
}

void print_strike_summary(std::ostream& out, const std::vector<StrikeMetrics>& runs, double rate) {
  out << "strike: a 0.8 m bat swung at 30 rad/s, captured at 120 Hz, through " << k_balls
      << " balls of 4 cm on tees, one turn; simulation at " << format("%g", rate)
      << " Hz, dWorldQuickStep; restitution " << format("%g", k_restitution) << "\n";
  using Row = TableRow<StrikeMetrics>;
  const auto of_balls = [](int n, const StrikeMetrics& m) {
    return std::to_string(n) + " of " + std::to_string(m.balls);
  };
  const std::vector<Row> rows = {
      {"steps", [](const StrikeMetrics& m) { return std::to_string(m.steps); }},
      {"balls touched", [&](const StrikeMetrics& m) { return of_balls(m.balls_hit, m); }},
      {"balls struck (launched at >= 80% of estimate)",
       [&](const StrikeMetrics& m) { return of_balls(m.balls_struck, m); }},
      {"speculative contacts",
       [](const StrikeMetrics& m) { return std::to_string(m.speculative_contacts); }},
      {"launch speed / estimate, mean (min-max)",
       [](const StrikeMetrics& m) {
         return m.balls_hit == 0 ? std::string("-")
                                 : format("%.2f", m.launch_ratio_mean) + " (" +
                                       format("%.2f", m.launch_ratio_min) + "-" +
                                       format("%.2f", m.launch_ratio_max) + ")";
       }},
      {"NaN values", [](const StrikeMetrics& m) { return std::to_string(m.nan_values); }},
      {"step time mean (us)",
       [](const StrikeMetrics& m) { return format("%.1f", m.step_time_mean_us); }},
  };
  print_table(
      out, "", runs, [](const StrikeMetrics& m) { return m.label; }, rows, 48, 20);
}

std::string strike_json(const std::vector<StrikeMetrics>& runs, double rate) {
  nlohmann::json j;
  j["scene"] = "strike";
  j["sim_rate_hz"] = rate;
  j["runs"] = nlohmann::json::array();
  for (const StrikeMetrics& m : runs) {
    j["runs"].push_back({{"mode", m.label},
                         {"steps", m.steps},
                         {"simulated_s", m.simulated_s},
                         {"balls", m.balls},
                         {"balls_hit", m.balls_hit},
                         {"balls_struck", m.balls_struck},
                         {"speculative_contacts", m.speculative_contacts},
                         {"launch_ratio_mean", m.launch_ratio_mean},
                         {"launch_ratio_min", m.launch_ratio_min},
                         {"launch_ratio_max", m.launch_ratio_max},
                         {"nan_values", m.nan_values},
                         {"step_time_mean_us", m.step_time_mean_us}});
  }
  return j.dump(2) + "\n";
}

} // namespace odemocap::replay
