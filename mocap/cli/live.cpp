#include "commands.hpp"

#include <odemocap/qtm_rt.hpp>
#include <odemocap/save.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

namespace odemocap::cli {
namespace {

std::atomic<bool> g_interrupted{false};

void on_interrupt(int) {
  g_interrupted = true;
}

/// Ctrl-C ends serving or recording cleanly (the summary is still printed, the file written).
void catch_interrupt() {
  g_interrupted = false;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

} // namespace

int run_serve(const ServeCommand& command, const LoadOptions& load) {
  ServeCommand c = command;
  c.server.jitter = c.jitter_ms * 1e-3;
  std::unique_ptr<StreamServer> server;
  try {
    const Capture capture = load_capture(c.input, load);
    server = std::make_unique<StreamServer>(capture, c.server);
  } catch (const MocapError& e) {
    std::fprintf(stderr, "odemocap serve: %s\n", e.what());
    return 2;
  }
  const bool natnet = c.server.protocol == LiveProtocol::NatNet;
  std::printf("serving %s as %s on port %d: %zu frames at %g Hz (%.3f s)%s\n", c.input.c_str(),
              natnet ? "NatNet" : "QTM RT", server->command_port(), server->frame_count(),
              server->rate(), static_cast<double>(server->frame_count()) / server->rate(),
              c.server.loop ? ", looping" : "");
  for (std::size_t i = 0; i < server->bodies().size(); ++i) {
    if (natnet) {
      std::printf("  rigid body id %zu: %s\n", i + 1, server->bodies()[i].c_str());
    } else {
      std::printf("  6D body %zu: %s\n", i + 1, server->bodies()[i].c_str());
    }
  }
  if (!natnet) {
    if (server->discovery_port() > 0) {
      std::printf("  answering QTM discovery on UDP port %d\n", server->discovery_port());
    } else {
      std::printf("  not answering QTM discovery: UDP port %d is taken\n", k_qtm_discovery_port);
    }
  }
  std::printf("waiting for a client (frames start when one subscribes; Ctrl-C stops)\n");
  std::fflush(stdout);
  catch_interrupt();
  while (!g_interrupted && !server->wait_finished(0.1)) {
  }
  const StreamServerStats stats = server->stats();
  std::printf("%s: %zu clients, %zu frames sent, %zu dropped (--loss)\n",
              g_interrupted ? "stopped" : "done", stats.clients, stats.sent, stats.dropped);
  return 0;
}

int run_record(const RecordCommand& command) {
  LiveRecorder recorder;
  RecordCommand c = command;
  c.stream.on_sample = recorder.on_sample();
  c.stream.up_axis = Axis::Z; // the rigid-body CSV's convention
  std::unique_ptr<LiveStream> stream;
  try {
    stream = std::make_unique<LiveStream>(c.stream);
  } catch (const MocapError& e) {
    std::fprintf(stderr, "odemocap record: %s\n", e.what());
    return 2;
  }
  // The CSV grows as frames arrive (settled for a quarter second, so late datagrams still
  // find their row): an interrupted recording keeps what it received. At the end it is written
  // again whole, with bodies that appeared after the first rows.
  std::ofstream live(c.output, std::ios::binary);
  if (!live) {
    std::fprintf(stderr, "odemocap record: cannot write %s\n", c.output.c_str());
    return 2;
  }
  std::printf("recording from %s for %g s into %s (Ctrl-C stops)\n",
              stream->server_description().c_str(), c.duration, c.output.c_str());
  std::fflush(stdout);
  catch_interrupt();
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(c.duration);
  auto next_write = std::chrono::steady_clock::now();
  while (!g_interrupted && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::steady_clock::now() >= next_write) {
      recorder.append_settled(live, 0.25);
      next_write += std::chrono::milliseconds(500);
    }
  }
  const LiveStreamStats stats = stream->stats();
  std::vector<std::string> bodies = stream->bodies();
  std::vector<LiveState> states;
  for (const std::string& b : bodies) {
    states.push_back(stream->body(b)->state());
  }
  stream.reset(); // stop receiving before the samples are read
  live.close();
  std::printf("%zu packets, %zu frames, %zu malformed%s%s\n", stats.packets, stats.frames,
              stats.malformed, stats.last_error.empty() ? "" : "; last: ",
              stats.last_error.c_str());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const LiveStats& s = states[i].stats;
    std::printf("  %-20s received %zu, untracked %zu, lost %zu, reordered %zu, duplicates %zu, "
                "suspicious frame numbers %zu\n",
                bodies[i].c_str(), s.received, s.invalid, s.lost, s.reordered, s.duplicates,
                s.suspicious);
  }
  for (const auto& [body, count] : recorder.invalid()) {
    std::printf("  %s: %zu sample(s) flagged tracked held no pose (a zero or non-unit "
                "quaternion): written as gaps\n",
                body.c_str(), count);
  }
  if (recorder.size() == 0) {
    std::remove(c.output.c_str());
    std::fprintf(stderr, "odemocap record: nothing was received; %s not written\n",
                 c.output.c_str());
    return 1;
  }
  const std::string whole = c.output + ".tmp";
  try {
    save_rigid_body_csv(recorder.capture(live_recording_info(c.stream)), whole);
    if (std::rename(whole.c_str(), c.output.c_str()) != 0) {
      throw MocapError("cannot replace " + c.output + " with " + whole);
    }
  } catch (const MocapError& e) {
    std::fprintf(stderr, "odemocap record: %s (what arrived in time is in %s)\n", e.what(),
                 c.output.c_str());
    return 1;
  }
  std::printf("wrote %s\n", c.output.c_str());
  return 0;
}

} // namespace odemocap::cli
