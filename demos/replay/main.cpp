// odemocap-replay: a capture replayed on kinematic ODE bodies against dynamic props, headless
// (a summary, JSON metrics, a CSV trace) or in a window.
#include "replay_scene.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "strike_scene.hpp"
#ifdef ODEMOCAP_REPLAY_WINDOW
#include "viewer.hpp"
#endif

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <thread>

namespace {

using namespace odemocap;
using namespace odemocap::replay;

/// The bundled capture: installed beside the program (<prefix>/share/odemocap/data, found from
/// the program's own location, so an installed tree can move), else the source tree's.
std::string bundled(const char* relative) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed =
        self.parent_path().parent_path() / "share" / "odemocap" / "data" / relative;
    if (std::filesystem::exists(installed, ec)) {
      return installed.string();
    }
  }
  const std::filesystem::path source =
      std::filesystem::path(ODEMOCAP_REPLAY_SOURCE_DATA) / relative;
  return std::filesystem::exists(source, ec) ? source.string() : std::string("data/") + relative;
}

std::string default_capture() {
  return bundled("cmu/131_03.bvh");
}

struct Arguments {
  std::string scene = "capture";
  std::string capture = default_capture();
  std::string walk = bundled("cmu/35_07.bvh");
  std::string run = bundled("cmu/35_24.bvh");
  double ramp = 3.0;
  std::string unit; // empty: the file's, else inferred
  std::string drive = "geodesic";
  bool compare = false;
  double seconds = 0.0; // 0 = the capture's length
  std::size_t max_tracks = 500;
  double rate = 240.0;
  bool loop = false;
  bool headless = false;
  std::string metrics;
  std::string trace;
  std::string plot;
  std::string screenshot;
  int frames = 60;
  std::string live; // natnet or qtm: drive the captured bodies from a stream
  std::string server = "127.0.0.1";
  int port = -1;      // the protocol's
  int data_port = -1; // the protocol's
  std::string multicast;
  std::string multicast_interface; // "": the one the system routes the group through
  std::string server_up;           // the protocol's
  double warmup = 1.0;   // s of stream the scene is built from
};

/// Every capture in metres, Z up: the scene (floor, props, tray, chain) is built in metres.
Capture load(const Arguments& args, const std::string& path) {
  LoadOptions options;
  options.up_axis = Axis::Z;
  options.to_metres = true;
  if (!args.unit.empty()) {
    options.unit_in_metres = *parse_length_unit(args.unit);
  }
  Capture capture = load_capture(path, options);
  // Each track becomes a body: a C3D of 65535 markers ran for over ten minutes at 747 MB
  // without a word (4000 markers: 335 ms a step). Past --max-tracks the rest are left out,
  // and said so; a skeleton is kept whole (its bones hang together).
  const std::size_t n = capture.tracks().size();
  if (capture.skeleton() == nullptr && n > args.max_tracks) {
    Capture kept(capture.info());
    for (std::size_t i = 0; i < args.max_tracks; ++i) {
      kept.add_track(capture.tracks()[i]);
    }
    std::cerr << "odemocap-replay: " << path << " has " << n << " tracks; replaying the first "
              << args.max_tracks << " (--max-tracks)\n";
    return kept;
  }
  return capture;
}

/// The walk/run blend scene: a gait cycle cut from each file (after its first frame, which
/// CMU's conversions fill with the rest pose), blended while the speed ramps from the walk's
/// to the run's (1 s of walk, --ramp seconds of ramp, 1.5 s of run). `live` makes a fresh
/// blend whose bones the character follows, its speed set before every step; `capture` is the
/// same blend baked at 240 Hz with the walk's skeleton, what the scene (character, floor,
/// props, tray) is built from and what the soft drive follows.
struct BlendScene {
  Capture capture;
  std::function<LiveSources(const std::vector<std::string>&)> live;
};

/// --live: the captured bodies follow a NatNet or QTM RT stream. The scene (bodies, floor,
/// props) is built from the stream's first --warmup seconds, recorded, turned Z up; then each
/// body follows its LiveSource (jitter buffer, capped extrapolation), steps paced to the wall
/// clock. `report` prints what the network did.
struct LiveScene {
  BlendScene scene;
  std::function<void()> report;
};

LiveScene make_live(const Arguments& args) {
  LiveStreamSettings settings;
  settings.protocol = parse_live_protocol(args.live);
  settings.server = args.server;
  settings.command_port = args.port;
  settings.data_port = args.data_port;
  settings.multicast = args.multicast;
  settings.multicast_interface = args.multicast_interface;
  settings.up_axis = Axis::Z;
  if (!args.server_up.empty()) {
    const char a = static_cast<char>(args.server_up[0] | 0x20);
    settings.server_up_axis = a == 'x' ? Axis::X : a == 'y' ? Axis::Y : Axis::Z;
  }
  auto recorder = std::make_shared<LiveRecorder>();
  auto warming = std::make_shared<std::atomic<bool>>(true);
  settings.on_sample = [recorder, warming, record = recorder->on_sample()](
                           const std::string& body, const LiveSample& sample) {
    if (*warming) {
      record(body, sample);
    }
  };
  auto stream = std::make_shared<LiveStream>(settings);
  std::printf("live: %s at %s; building the scene from %.1f s of stream\n",
              stream->server_description().c_str(), args.server.c_str(), args.warmup);
  std::this_thread::sleep_for(std::chrono::duration<double>(args.warmup));
  *warming = false;
  LiveScene out;
  out.scene.capture = recorder->capture(live_recording_info(settings));
  out.scene.live = [stream](const std::vector<std::string>& names) {
    LiveSources live;
    for (const std::string& name : names) {
      live.bones.push_back(stream->body(name));
    }
    // Real time: a step waits for the wall clock (a window already keeps pace).
    auto start = std::make_shared<std::chrono::steady_clock::time_point>();
    live.before_step = [start](double t) {
      if (*start == std::chrono::steady_clock::time_point{}) {
        *start = std::chrono::steady_clock::now();
      }
      std::this_thread::sleep_until(*start +
                                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(t)));
    };
    return live;
  };
  out.report = [stream] {
    const LiveStreamStats s = stream->stats();
    std::printf("live stream: %zu packets, %zu frames, %zu malformed\n", s.packets, s.frames,
                s.malformed);
    for (const std::string& body : stream->bodies()) {
      const LiveState state = stream->body(body)->state();
      const LiveStats& b = state.stats;
      std::printf("  %-20s received %zu, lost %zu, reordered %zu, late %zu, extrapolated %zu, "
                  "stale %zu queries%s; buffer %.1f ms\n",
                  body.c_str(), b.received, b.lost, b.reordered, b.late, b.extrapolated, b.stale,
                  state.stale ? " (stale now)" : "", state.delay * 1e3);
    }
  };
  return out;
}

BlendScene make_blend(const Arguments& args) {
  const Capture walk = load(args, args.walk);
  const Capture run = load(args, args.run);
  std::vector<LoopClip> clips;
  for (const Capture* capture : {&walk, &run}) {
    // Every cut option at its default: a rest-pose first frame skipped, the cleanest cycle.
    clips.emplace_back(*capture);
    const LoopClip& clip = clips.back();
    for (const std::string& warning : clip.warnings()) {
      std::fprintf(stderr, "odemocap-replay: warning: %s: %s\n", clip.name().c_str(),
                   warning.c_str());
    }
  }
  const LoopClip& w = clips.front();
  const LoopClip& r = clips.back();
  std::printf("walk/run blend: %s walks %.2f m/s (cycle %zu of %zu, %.3f s, footfalls at %.3f s), "
              "%s runs %.2f m/s (cycle %zu of %zu, %.3f s, footfalls at %.3f s); speed ramps "
              "over %.1f s; feet locked where they stand (FootLock::Blended)\n",
              args.walk.c_str(), w.speed(), w.cycle() + 1, w.cycles(), w.duration(),
              w.events().back(), args.run.c_str(), r.speed(), r.cycle() + 1, r.cycles(),
              r.duration(), r.events().back(), args.ramp);
  const double walking = 1.0, running = 1.5;
  const double walk_speed = w.speed(), run_speed = r.speed(), ramp = args.ramp;
  const auto speed = [=](double t) {
    return walk_speed + std::clamp((t - walking) / ramp, 0.0, 1.0) * (run_speed - walk_speed);
  };
  BlendScene out;
  out.live = [clips, speed](const std::vector<std::string>& names) {
    auto blend = std::make_shared<ClipBlend>(clips);
    LiveSources live;
    for (const std::string& name : names) {
      const int bone = blend->clips().front().find(name);
      if (bone < 0) {
        throw MocapError("replay: the blend has no bone '" + name + "'");
      }
      live.bones.push_back(ClipBlend::bone_source(blend, static_cast<std::size_t>(bone)));
    }
    live.before_step = [blend, speed](double t) { blend->set_speed(speed(t)); };
    return live;
  };
  // The same blend baked: each step played at the speed of its start, as the live one is.
  const double rate = 240.0;
  CaptureInfo info = walk.info(); // units and scale of the walk's skeleton, which is reused
  info.source = "blend of " + args.walk + " and " + args.run;
  info.format = "blend";
  info.frame_rate = rate;
  info.notes.clear();
  info.tolerated.clear();
  out.capture = Capture(info);
  ClipBlend blend(clips);
  std::vector<Track> tracks;
  for (const std::string& bone : w.bones()) {
    tracks.emplace_back(bone);
  }
  const auto frames = static_cast<long>(std::lround((walking + ramp + running) * rate));
  for (long k = 0; k <= frames; ++k) {
    const double t = static_cast<double>(k) / rate;
    if (k > 0) {
      blend.set_speed(speed(static_cast<double>(k - 1) / rate));
      blend.advance_to(t);
    }
    for (std::size_t b = 0; b < tracks.size(); ++b) {
      tracks[b].append(t, blend.poses()[b]);
    }
  }
  for (Track& track : tracks) {
    out.capture.add_track(std::move(track));
  }
  out.capture.set_skeleton(*walk.skeleton());
  return out;
}

std::string units_of(const CaptureInfo& info) {
  std::string text = "positions in m";
  if (!info.unit_source.empty()) {
    text += " (file unit " + info.length_unit + ", " + info.unit_source + ")";
  }
  return text;
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

/// Writes the JSON metrics (when asked) and turns NaN into exit status 1: the end of every
/// headless run. `nan_and_label` gives a run's NaN count and its name.
template <class Run, class NanAndLabel>
int finish(const Arguments& args, const std::string& json, const std::vector<Run>& runs,
           NanAndLabel nan_and_label) {
  if (!args.metrics.empty()) {
    std::ofstream out(args.metrics);
    out << json;
    if (!out) {
      std::cerr << "odemocap-replay: cannot write " << args.metrics << "\n";
      return 2;
    }
  }
  for (const Run& run : runs) {
    const auto [nan, label] = nan_and_label(run);
    if (nan > 0) {
      std::cerr << "odemocap-replay: NaN in the simulation (" << label << ")\n";
      return 1;
    }
  }
  return 0;
}

int run_headless(const Capture& capture, const Arguments& args, const std::vector<Drive>& drives,
                 const std::function<LiveSources(const std::vector<std::string>&)>& live) {
  RunInfo info;
  info.capture =
      capture.info().format == "blend" || !args.live.empty() ? capture.info().source : args.capture;
  info.format = capture.info().format;
  info.tracks = capture.tracks().size();
  info.capture_seconds = capture_end(capture) - capture_start(capture);
  info.capture_rate = capture.info().frame_rate;
  info.sim_rate = args.rate;
  info.units = units_of(capture.info());
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
  std::vector<PlotRun> plotted;
  for (Drive drive : drives) {
    SceneOptions options;
    options.drive = drive;
    options.rate = args.rate;
    options.loop = args.loop;
    options.live = live;
    ReplayScene scene(capture, options);
    const auto steps = static_cast<long>(std::lround(seconds * args.rate));
    for (long i = 0; i < steps; ++i) {
      scene.step();
      if (trace.is_open()) {
        write_trace(trace, scene, drive_name(drive));
      }
    }
    runs.push_back(scene.metrics());
    if (!args.plot.empty()) {
      plotted.push_back({drive_name(drive), scene.series()});
    }
  }
  print_summary(std::cout, info, runs);
  if (!args.plot.empty()) {
    std::ofstream svg(args.plot);
    write_plot(svg, "odemocap-replay: " + info.capture, plotted);
    svg.flush();
    if (!svg) {
      std::cerr << "odemocap-replay: cannot write " << args.plot << "\n";
      return 2;
    }
  }
  return finish(args, to_json(info, runs), runs,
                [](const Metrics& m) { return std::make_pair(m.nan_values, m.mode); });
}

/// The strike scene with the guard off and on, side by side.
int run_strike_headless(const Arguments& args) {
  std::vector<StrikeMetrics> runs;
  const double seconds = args.seconds > 0 ? args.seconds : 1.0;
  for (const bool guard : {false, true}) {
    StrikeScene scene({guard, args.rate});
    const auto steps = static_cast<long>(std::lround(seconds * args.rate));
    for (long i = 0; i < steps; ++i) {
      scene.step();
    }
    runs.push_back(scene.metrics());
  }
  print_strike_summary(std::cout, runs, args.rate);
  return finish(args, strike_json(runs, args.rate), runs,
                [](const StrikeMetrics& m) { return std::make_pair(m.nan_values, m.label); });
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"odemocap-replay: a motion capture replayed on kinematic ODE bodies against "
               "dynamic props (boxes, balls, a stack, a chain hanging from a hand, a box "
               "riding on a tray)"};
  Arguments args;
  app.add_option("--scene", args.scene,
                 "capture: the capture against props (default); strike: a captured bat swung "
                 "at 30 rad/s through balls, with the sweep guard and without, side by side "
                 "(120 Hz unless --rate is given, 1 s headless unless --seconds is); blend: a "
                 "walk/run blend (--walk, --run) whose speed ramps from walk to run over --ramp "
                 "seconds, against props")
      ->check(CLI::IsMember({"capture", "strike", "blend"}))
      ->capture_default_str();
  app.add_option("--capture", args.capture,
                 "capture file (BVH, ASF/AMC, Xsens MVNX, C3D, OptiTrack Motive CSV, Qualisys "
                 "TSV, Vicon Nexus CSV, OpenSim TRC, rigid-body CSV)")
      ->capture_default_str();
  app.add_option("--walk", args.walk, "blend scene: the walk (BVH of one skeleton)")
      ->capture_default_str();
  app.add_option("--run", args.run, "blend scene: the run (BVH of the walk's skeleton)")
      ->capture_default_str();
  app.add_option("--ramp", args.ramp, "blend scene: seconds over which the speed ramps up")
      ->check(CLI::Range(0.1, 1000.0))
      ->capture_default_str();
  app.add_option("--unit", args.unit,
                 "length unit of the file's numbers: m, dm, cm, mm, in, ft, cmu or metres per "
                 "unit (default: declared by the file, else inferred; the scene is in metres)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return parse_length_unit(text) ? std::string()
                                           : "must be m, dm, cm, mm, in, ft, cmu or a number > 0";
          },
          "UNIT"));
  app.add_option("--drive", args.drive,
                 "how captured bodies move: kinematic (geodesic, linear, teleport) or soft (a "
                 "puppet whose bones follow the capture with bounded torques; soft followers "
                 "for rigid bodies)")
      ->check(CLI::IsMember({"geodesic", "linear", "teleport", "soft"}))
      ->capture_default_str();
  app.add_flag("--compare", args.compare, "run the scene with each drive, side by side");
  app.add_option("--seconds", args.seconds,
                 "simulated seconds (default: the capture's length; live: 10)")
      ->check(CLI::Range(1e-3, 1e6));
  app.add_option("--rate", args.rate, "simulation steps per second (1 to 100000)")
      ->check(CLI::Range(1.0, 100000.0))
      ->capture_default_str();
  app.add_flag("--loop", args.loop, "loop the capture instead of holding its last pose");
  app.add_flag("--headless", args.headless, "no window: simulate and print a summary");
  app.add_option("--metrics", args.metrics, "write the summary as JSON to this file");
  app.add_option("--trace", args.trace, "write every body's pose at every step to this CSV file");
  app.add_option("--max-tracks", args.max_tracks,
                 "capture scene: drive at most this many tracks as bodies (a skeleton is kept "
                 "whole); the rest are left out, with a message")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--plot", args.plot,
                 "headless capture scene: plot the hand lock gap, the chain's joint gap and the "
                 "track error over time, one line per drive, as this SVG file");
  app.add_option("--screenshot", args.screenshot,
                 "window mode: render --frames frames, save the last as PNG, exit");
  app.add_option("--frames", args.frames, "frames to render before --screenshot (1 to 100000)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--live", args.live,
                 "drive the captured bodies from a live stream, natnet (OptiTrack Motive) or qtm "
                 "(Qualisys QTM RT), in real time; the scene is built from its first --warmup "
                 "seconds (try odemocap serve FILE in another terminal)")
      ->check(CLI::IsMember({"natnet", "qtm"}));
  app.add_option("--server", args.server, "live: the server's address")->capture_default_str();
  app.add_option("--port", args.port, "live: the server's command port (NatNet 1510, QTM 22223)")
      ->check(CLI::Range(1, 65535));
  app.add_option("--data-port", args.data_port,
                 "live, NatNet: local port frames arrive on (1511; 0: the command socket)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--multicast", args.multicast, "live, NatNet: multicast group to join");
  app.add_option("--interface", args.multicast_interface,
                 "live, NatNet multicast: IPv4 address of the interface to join the group on "
                 "(e.g. 127.0.0.1 for a server on this machine sending by loopback)");
  app.add_option("--server-up", args.server_up,
                 "live: up axis of the server's frames (default NatNet y, QTM z)")
      ->check(CLI::IsMember({"x", "y", "z"}, CLI::ignore_case));
  app.add_option("--warmup", args.warmup, "live: seconds of stream the scene is built from")
      ->check(CLI::Range(0.05, 60.0))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2; // usage errors are status 2, as the help says
  }

  const bool strike = args.scene == "strike";
  if (strike && app.count("--rate") == 0) {
    args.rate = 120.0;
  }
  if (strike && args.headless) {
    try {
      return run_strike_headless(args);
    } catch (const std::exception& e) {
      std::cerr << "odemocap-replay: " << e.what() << "\n";
      return 1;
    }
  }
  std::vector<Drive> drives{*parse_drive(args.drive)};
  if (args.compare) {
    drives = {Drive::Geodesic, Drive::Linear, Drive::Teleport, Drive::Soft};
  }
  if (!args.live.empty() && (args.drive == "soft" || args.compare || args.scene != "capture")) {
    std::cerr << "odemocap-replay: --live drives the capture scene kinematically (no --compare, "
                 "--drive soft or --scene)\n";
    return 2;
  }
  if (!args.live.empty() && args.seconds <= 0) {
    args.seconds = 10.0;
  }
  try {
    BlendScene blend;
    std::function<void()> live_report;
    if (!args.live.empty()) {
      LiveScene live = make_live(args);
      blend = std::move(live.scene);
      live_report = std::move(live.report);
    } else if (args.scene == "blend") {
      blend = make_blend(args);
    } else if (!strike) {
      blend.capture = load(args, args.capture);
    }
    const Capture& capture = blend.capture;
    if (args.headless) {
      const int status = run_headless(capture, args, drives, blend.live);
      if (live_report) {
        live_report();
      }
      return status;
    }
#ifdef ODEMOCAP_REPLAY_WINDOW
    SceneOptions scene;
    scene.drive = drives.front();
    scene.rate = args.rate;
    scene.loop = args.scene != "blend" && args.live.empty();
    scene.live = blend.live;
    ViewerOptions view;
    view.screenshot = args.screenshot;
    view.frames = args.frames;
    view.compare = args.compare;
    view.strike = strike;
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
