#pragma once
// The window mode of odemocap-replay (built when GLFW and OpenGL are found).

#include "replay_scene.hpp"
#include "strike_scene.hpp"

#include <string>

namespace odemocap::replay {

struct ViewerOptions {
  int width = 1280;
  int height = 720;
  /// With a path: render `frames` frames, save the last as PNG and return.
  std::string screenshot;
  int frames = 60;
  bool compare = false; ///< the four drives side by side
  bool strike = false;  ///< the strike scene, guard off and on side by side (no capture)
};

/// Opens a window and replays until it is closed; returns a process exit status. Prints why
/// when no window can be opened.
int run_viewer(const Capture& capture, const SceneOptions& scene, const ViewerOptions& options);

} // namespace odemocap::replay
