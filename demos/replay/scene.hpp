#pragma once
// What the viewer steps and draws: the replay scene (a capture against props) or the strike
// scene (a bat swung through balls, with the sweep guard or without).

#include <odemocap/plugin.hpp>

#include <ode/ode.h>

#include <optional>
#include <string>
#include <vector>

namespace odemocap::replay {

/// How the captured bodies move: kinematic in one of the driver's modes, or soft.
enum class Drive { Geodesic, Linear, Teleport, Soft };

/// The drive's name on the command line and in reports: geodesic, linear, teleport, soft.
const char* drive_name(Drive drive);
/// The drive of that name, or empty.
std::optional<Drive> parse_drive(const std::string& name);

/// What a drawn geom is, for colours.
enum class Role { Captured, Prop, Stack, Chain, Tray, Rider, Pedestal };

/// One geom to draw (the viewer reads poses from ODE).
struct Shape {
  dGeomID geom;
  Role role;
};

class Scene {
public:
  virtual ~Scene() = default;
  /// One simulation step of step_size() seconds, measuring as it goes.
  virtual void step() = 0;
  virtual double time() const = 0;
  virtual double step_size() const = 0;
  virtual const std::vector<Shape>& shapes() const = 0;
  /// A point the camera can follow (m, world).
  virtual Vec3 focus() const = 0;
  virtual double floor_height() const = 0;
  /// Switches between the kinematic drives mid-run; false when that needs a new scene.
  virtual bool switch_drive(Drive) { return false; }
  /// What the status line calls this scene.
  virtual std::string label() const = 0;
};

} // namespace odemocap::replay
