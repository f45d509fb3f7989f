#pragma once
// The strike scene: a captured bat swung through balls on tees, run with the SweepGuard and
// without it. The bat (a 0.8 m capsule of radius 3 cm) turns about a wrist at 30 rad/s, its
// pose captured at 120 Hz; at that speed its tip moves 20 cm per step at 120 Hz, five times a
// ball's width, and discrete collision alone misses many balls it passes through.

#include "scene.hpp"

#include <memory>
#include <string>
#include <vector>

namespace odemocap::replay {

struct StrikeOptions {
  bool guard = true;
  double rate = 120.0; ///< simulation steps per second
};

/// Figures of one run.
struct StrikeMetrics {
  std::string label; ///< "guard off" or "guard on"
  long steps = 0;
  double simulated_s = 0.0;
  int balls = 0;
  int balls_hit = 0;    ///< moved off their tee by the bat
  int balls_struck = 0; ///< launched at 80% or more of the elastic estimate
  long speculative_contacts = 0;
  double launch_ratio_mean = 0.0; ///< launch speed / elastic estimate, over the balls hit
  double launch_ratio_min = 0.0;
  double launch_ratio_max = 0.0;
  long nan_values = 0;
  double step_time_mean_us = 0.0;
};

class StrikeScene final : public Scene {
public:
  explicit StrikeScene(const StrikeOptions& options);
  ~StrikeScene() override;
  StrikeScene(const StrikeScene&) = delete;
  StrikeScene& operator=(const StrikeScene&) = delete;

  void step() override;
  double time() const override { return driver_->time(); }
  double step_size() const override { return h_; }
  const std::vector<Shape>& shapes() const override { return shapes_; }
  Vec3 focus() const override { return {0, 0, 1}; }
  double floor_height() const override { return 0.0; }
  std::string label() const override { return options_.guard ? "guard on" : "guard off"; }
  StrikeMetrics metrics() const;

private:
  struct Ball {
    dBodyID body;
    Vec3 start;
    double radius_from_wrist; ///< m
    /// m/s, at the end of the step it first moved in (-1: not yet). ODE gives a hit with
    /// restitution its whole rebound in that step; a ball that flies into a neighbour on its
    /// tee in the next (the balls collide) would be measured after that collision instead.
    double launch_speed = -1;
    int moving_since = -1;
  };
  static void near_callback(void* data, dGeomID a, dGeomID b);

  StrikeOptions options_;
  double h_;
  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  std::unique_ptr<KinematicDriver> driver_;
  std::unique_ptr<SweepGuard> guard_;
  dBodyID bat_ = nullptr;
  std::vector<Ball> balls_;
  std::vector<Shape> shapes_;
  long steps_ = 0;
  long nan_values_ = 0;
  double step_time_sum_us_ = 0.0;
};

/// The strike scene's summary, a column per run.
void print_strike_summary(std::ostream& out, const std::vector<StrikeMetrics>& runs, double rate);
std::string strike_json(const std::vector<StrikeMetrics>& runs, double rate);

} // namespace odemocap::replay
