// odemocap-replay: a capture replayed on kinematic ODE bodies against dynamic props, headless
// (a summary, JSON metrics, a CSV trace) or in a window.
#include "replay_scene.hpp"
#include "report.hpp"
#ifdef ODEMOCAP_REPLAY_WINDOW
#include "viewer.hpp"
#endif

#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace {

using namespace odemocap;
using namespace odemocap::replay;

constexpr double k_cmu_units = 0.0254 / 0.45; // m per CMU BVH unit

std::string default_capture() {
  const std::string built_in = ODEMOCAP_REPLAY_DEFAULT_CAPTURE;
  if (std::filesystem::exists(built_in)) {
    return built_in;
  }
  return "data/cmu/131_03.bvh";
}

struct Arguments {
  std::string capture = default_capture();
  double scale = 0.0; // 0 = automatic
  std::string drive = "geodesic";
  bool compare = false;
  double seconds = 0.0; // 0 = the capture's length
  double rate = 240.0;
  bool loop = false;
  bool headless = false;
  std::string metrics;
  std::string trace;
  std::string screenshot;
  int frames = 60;
};

bool is_bvh(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return extension == ".bvh";
}

Capture load(const Arguments& args) {
  LoadOptions options;
  options.up_axis = Axis::Z;
  if (args.scale > 0) {
    options.length_scale = args.scale;
  } else if (is_bvh(args.capture)) {
    options.length_scale = k_cmu_units; // BVH declares no unit; CMU's is the common one
  }
  return load_capture(args.capture, options);
}

void write_trace_header(std::ostream& out) {
  out << "mode,time,body,x,y,z,qw,qx,qy,qz\n";
}

void write_trace(std::ostream& out, const ReplayScene& scene, const std::string& mode) {
  char line[256];
  for (const auto& [name, body] : scene.bodies()) {
    const Pose p = body_pose(body);
    std::snprintf(line, sizeof line, "%s,%.6f,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                  mode.c_str(), scene.time(), name.c_str(), p.p.x, p.p.y, p.p.z, p.q.w, p.q.x,
                  p.q.y, p.q.z);
    out << line;
  }
}

int run_headless(const Capture& capture, const Arguments& args,
                 const std::vector<DriveMode>& modes) {
  RunInfo info;
  info.capture = args.capture;
  info.format = capture.info().format;
  info.tracks = capture.tracks().size();
  info.capture_seconds = capture_end(capture) - capture_start(capture);
  info.capture_rate = capture.info().frame_rate;
  info.sim_rate = args.rate;
  const double seconds = args.seconds > 0 ? args.seconds : info.capture_seconds;
  std::ofstream trace;
  if (!args.trace.empty()) {
    trace.open(args.trace);
    if (!trace) {
      std::cerr << "odemocap-replay: cannot write " << args.trace << "\n";
      return 2;
    }
    write_trace_header(trace);
  }
  std::vector<Metrics> runs;
  for (DriveMode mode : modes) {
    SceneOptions options;
    options.mode = mode;
    options.rate = args.rate;
    options.loop = args.loop;
    ReplayScene scene(capture, options);
    const auto steps = static_cast<long>(std::lround(seconds * args.rate));
    for (long i = 0; i < steps; ++i) {
      scene.step();
      if (trace.is_open()) {
        write_trace(trace, scene, mode_name(mode));
      }
    }
    runs.push_back(scene.metrics());
  }
  print_summary(std::cout, info, runs);
  if (!args.metrics.empty()) {
    std::ofstream out(args.metrics);
    out << to_json(info, runs);
    if (!out) {
      std::cerr << "odemocap-replay: cannot write " << args.metrics << "\n";
      return 2;
    }
  }
  for (const Metrics& m : runs) {
    if (m.nan_values > 0) {
      std::cerr << "odemocap-replay: NaN in the simulation (" << m.mode << ")\n";
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"odemocap-replay: a motion capture replayed on kinematic ODE bodies against "
               "dynamic props (boxes, balls, a stack, a chain hanging from a hand, a box "
               "riding on a tray)"};
  Arguments args;
  app.add_option("--capture", args.capture, "capture file (BVH, rigid-body CSV, Motive CSV)")
      ->capture_default_str();
  app.add_option("--scale", args.scale,
                 "metres per file unit (default: CMU's 0.05644 for BVH, the file's unit otherwise)")
      ->check(CLI::PositiveNumber);
  const std::map<std::string, DriveMode> drive_modes{{"geodesic", DriveMode::Geodesic},
                                                     {"linear", DriveMode::LinearApprox},
                                                     {"teleport", DriveMode::Teleport}};
  app.add_option("--drive", args.drive, "how captured bodies move: geodesic, linear, teleport")
      ->check(CLI::IsMember({"geodesic", "linear", "teleport"}))
      ->capture_default_str();
  app.add_flag("--compare", args.compare, "run the scene with each drive mode, side by side");
  app.add_option("--seconds", args.seconds, "simulated seconds (default: the capture's length)")
      ->check(CLI::PositiveNumber);
  app.add_option("--rate", args.rate, "simulation steps per second")
      ->check(CLI::Range(1.0, 100000.0))
      ->capture_default_str();
  app.add_flag("--loop", args.loop, "loop the capture instead of holding its last pose");
  app.add_flag("--headless", args.headless, "no window: simulate and print a summary");
  app.add_option("--metrics", args.metrics, "write the summary as JSON to this file");
  app.add_option("--trace", args.trace, "write every body's pose at every step to this CSV file");
  app.add_option("--screenshot", args.screenshot,
                 "window mode: render --frames frames, save the last as PNG, exit");
  app.add_option("--frames", args.frames, "frames to render before --screenshot")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<DriveMode> modes{drive_modes.at(args.drive)};
  if (args.compare) {
    modes = {DriveMode::Geodesic, DriveMode::LinearApprox, DriveMode::Teleport};
  }
  try {
    const Capture capture = load(args);
    if (args.headless) {
      return run_headless(capture, args, modes);
    }
#ifdef ODEMOCAP_REPLAY_WINDOW
    SceneOptions scene;
    scene.mode = modes.front();
    scene.rate = args.rate;
    scene.loop = true;
    ViewerOptions view;
    view.screenshot = args.screenshot;
    view.frames = args.frames;
    view.compare = args.compare;
    return run_viewer(capture, scene, view);
#else
    std::cerr << "odemocap-replay: built without a window (GLFW and OpenGL were not found); "
                 "use --headless\n";
    return 2;
#endif
  } catch (const std::exception& e) {
    std::cerr << "odemocap-replay: " << e.what() << "\n";
    return 1;
  }
}
