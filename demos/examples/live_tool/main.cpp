// A tracked tool streamed live into an ODE world: a kinematic paddle follows one rigid body of
// a NatNet (OptiTrack Motive) or QTM RT (Qualisys) stream with exact velocities, in real time
// (add your dynamic bodies and contacts as usual: they meet a body that moves). Without a capture
// system at hand, give a capture file: it is served here over NatNet, with 5% of the frames lost
// and 5 ms of jitter, as Motive would stream it.
//
//   odemocap-live-tool CAPTURE [BODY] [SECONDS]      serve CAPTURE here, follow BODY
//   odemocap-live-tool --natnet HOST BODY [SECONDS]  follow BODY (name or id) from Motive
//   odemocap-live-tool --qtm HOST BODY [SECONDS]     follow 6DOF body BODY from QTM
#include <odemocap/plugin.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace odemocap;

constexpr double k_rate_hz = 240.0;

struct Arguments {
  std::string capture; // serve this file here, or
  LiveProtocol protocol = LiveProtocol::NatNet;
  std::string host; // connect to this server
  std::string body; // NatNet id or QTM name; with a capture, a track name (default: first)
  double seconds = 3.0;
};

bool parse(int argc, char** argv, Arguments& a) {
  if (argc < 2) {
    return false;
  }
  int next = 2;
  if (std::strcmp(argv[1], "--natnet") == 0 || std::strcmp(argv[1], "--qtm") == 0) {
    if (argc < 4) {
      return false;
    }
    a.protocol = argv[1][2] == 'n' ? LiveProtocol::NatNet : LiveProtocol::Qtm;
    a.host = argv[2];
    a.body = argv[3];
    next = 4;
  } else {
    a.capture = argv[1];
    if (argc > 2) {
      a.body = argv[2];
      next = 3;
    }
  }
  if (argc > next) {
    a.seconds = std::stod(argv[next]);
  }
  return a.seconds > 0.0;
}

/// The simulation: a kinematic paddle driven by `live`, stepped in real time; every half
/// second its pose and the velocity the driver gave it.
void simulate(const std::shared_ptr<LiveSource>& live, double seconds) {
  dWorldID world = dWorldCreate();
  dWorldSetGravity(world, 0, 0, -9.81);
  dBodyID paddle = dBodyCreate(world);
  KinematicDriver driver(world);
  const KinematicDriver::BindingId id = driver.bind(paddle, live); // like a track
  const double h = 1.0 / k_rate_hz;
  const auto steps = static_cast<long>(seconds * k_rate_hz);
  const auto begin = std::chrono::steady_clock::now();
  for (long k = 1; k <= steps; ++k) {
    driver.prestep(h); // the pose the stream gives for the end of this step, and its velocity
    const dReal* v = dBodyGetLinearVel(paddle);
    dWorldQuickStep(world, h);
    if (k % static_cast<long>(k_rate_hz / 2) == 0) {
      const Pose p = body_pose(paddle);
      std::printf("t %5.2f s  tool at (%7.3f %7.3f %7.3f) m, moving %6.3f m/s%s\n", k * h, p.p.x,
                  p.p.y, p.p.z, norm(Vec3{v[0], v[1], v[2]}),
                  live->state().stale ? "  (stream stale: holding)" : "");
    }
    // Real time: the stream is played at the wall clock's pace.
    std::this_thread::sleep_until(begin +
                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(k * h)));
  }
  std::printf("driver: %ld steps, %zu without a pose\n", steps, driver.stats(id).gaps);
  dWorldDestroy(world);
}

void report(const LiveStream& stream, const std::string& body, LiveSource& source) {
  const LiveState s = source.state();
  std::printf("stream %s, body %s: received %zu, lost %zu, reordered %zu, late %zu, "
              "extrapolated %zu, stale %zu; buffer %.1f ms; malformed packets %zu\n",
              stream.server_description().c_str(), body.c_str(), s.stats.received, s.stats.lost,
              s.stats.reordered, s.stats.late, s.stats.extrapolated, s.stats.stale, s.delay * 1e3,
              stream.stats().malformed);
}

} // namespace

int main(int argc, char** argv) {
  Arguments args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: %s CAPTURE [BODY] [SECONDS]\n"
                 "       %s --natnet|--qtm HOST BODY [SECONDS]\n",
                 argv[0], argv[0]);
    return 2;
  }
  try {
    std::unique_ptr<StreamServer> server;
    LiveStreamSettings settings;
    settings.protocol = args.protocol;
    settings.up_axis = Axis::Z; // Motive streams Y up; ODE scenes are Z up here
    if (!args.capture.empty()) {
      LoadOptions load;
      load.to_metres = true;
      StreamServerSettings serve;
      serve.command_port = 0; // free ports: no clash with a real Motive on this machine
      serve.data_port = 0;
      serve.loss = 0.05;
      serve.jitter = 0.005;
      serve.loop = true;
      server = std::make_unique<StreamServer>(load_capture(args.capture, load), serve);
      std::size_t index = 0;
      if (!args.body.empty()) {
        while (index < server->bodies().size() && server->bodies()[index] != args.body) {
          ++index;
        }
        if (index == server->bodies().size()) {
          throw MocapError("the capture has no rigid body '" + args.body + "'");
        }
      }
      std::printf("serving %s over NatNet on port %d; following '%s' (id %zu)\n",
                  args.capture.c_str(), server->command_port(), server->bodies()[index].c_str(),
                  index + 1);
      args.body = server->bodies()[index]; // NatNet names it from the model definitions
      settings.command_port = server->command_port();
      settings.data_port = 0;
    } else {
      settings.server = args.host;
    }
    LiveStream stream(settings);
    std::shared_ptr<LiveSource> source = stream.body(args.body);
    // Let the first frames in: the paddle is placed on the first pose.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    dInitODE2(0);
    simulate(source, args.seconds);
    dCloseODE();
    report(stream, args.body, *source);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "odemocap-live-tool: %s\n", e.what());
    return 1;
  }
}
