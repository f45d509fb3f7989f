// Latency a live stream adds: from the moment a NatNet frame leaves the sender on this machine's
// loopback interface to the moment its pose is in the LiveSource (LiveStream's receiver thread:
// wake-up, receive, decode, push; the pose is then what the driver's prestep reads), against the
// bare minimum in the same run: a thread blocked in poll + recvfrom on a plain UDP socket,
// noting when the datagram is in its buffer. Frames are sent at 240 Hz, as a capture system
// streams, and each is timed alone; median and 99th percentile are reported as counters.
#include "net/socket.hpp"

#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace odemocap;
using Clock = std::chrono::steady_clock;

constexpr double k_rate = 240.0; // Hz
constexpr int k_frames = 240;    // frames timed per benchmark run (1 s)

double seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

/// One rigid body's frame n, as Motive would send it (NatNet 3.1).
std::vector<std::uint8_t> frame(std::uint32_t n) {
  NatNetFrame f;
  f.frame = n;
  f.timestamp = n / k_rate;
  NatNetRigidBody b;
  b.id = 1;
  b.position = {0.1 * std::sin(f.timestamp), 1.0, 0.2};
  f.rigid_bodies.push_back(b);
  return encode_natnet_frame(f, {3, 1});
}

/// Times each frame from send to `arrived` changing (the receiver stores its clock there).
void time_frames(benchmark::State& state, net::UdpSocket& sender, const net::Endpoint& to,
                 std::atomic<std::uint32_t>& count, std::atomic<double>& arrived) {
  std::vector<double> latencies;
  std::uint32_t n = count.load();
  auto next = Clock::now();
  for (auto _ : state) {
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / k_rate));
    std::this_thread::sleep_until(next);
    const auto packet = frame(n);
    const double sent = seconds(Clock::now());
    sender.send_to(packet.data(), packet.size(), to);
    while (count.load(std::memory_order_acquire) == n) {
    }
    ++n;
    const double latency = arrived.load() - sent;
    latencies.push_back(latency);
    state.SetIterationTime(latency);
  }
  std::sort(latencies.begin(), latencies.end());
  state.counters["median_us"] = latencies[latencies.size() / 2] * 1e6;
  state.counters["p99_us"] = latencies[latencies.size() * 99 / 100] * 1e6;
}

/// Baseline: a thread in poll + recvfrom on a plain socket.
void bare_udp_receive(benchmark::State& state) {
  net::UdpSocket receiver(0), sender(0);
  std::atomic<std::uint32_t> count{0};
  std::atomic<double> arrived{0.0};
  std::atomic<bool> stop{false};
  std::thread thread([&] {
    std::vector<std::uint8_t> buffer(65536);
    while (!stop) {
      if (receiver.receive(buffer.data(), buffer.size(), 0.05) > 0) {
        arrived = seconds(Clock::now());
        count.fetch_add(1, std::memory_order_release);
      }
    }
  });
  time_frames(state, sender, net::resolve("127.0.0.1", receiver.local_port()), count, arrived);
  stop = true;
  thread.join();
}
BENCHMARK(bare_udp_receive)->Iterations(k_frames)->UseManualTime()->Unit(benchmark::kMicrosecond);

/// A stand-in for Motive's command port: answers a connect request with its server info.
struct FakeMotive {
  net::UdpSocket command{0};
  net::Endpoint client;
  std::atomic<bool> connected{false};
  std::thread thread;
  FakeMotive() {
    thread = std::thread([this] {
      std::vector<std::uint8_t> buffer(65536);
      net::Endpoint from;
      while (!connected) {
        if (command.receive(buffer.data(), buffer.size(), 0.05, &from) >= 4 && buffer[0] == 0) {
          const auto reply = encode_natnet_server_info(NatNetServerInfo{});
          command.send_to(reply.data(), reply.size(), from);
          client = from;
          connected = true;
        }
      }
    });
  }
  ~FakeMotive() { thread.join(); }
};

/// The pipeline: LiveStream's receiver thread to the pose in the LiveSource.
void live_stream_receive(benchmark::State& state) {
  FakeMotive motive;
  std::atomic<std::uint32_t> count{0};
  std::atomic<double> arrived{0.0};
  LiveStreamSettings settings;
  settings.command_port = motive.command.local_port();
  settings.data_port = 0; // frames to the command socket, as the fake server sends them
  settings.on_sample = [&](const std::string&, const LiveSample&) {
    arrived = seconds(Clock::now());
    count.fetch_add(1, std::memory_order_release);
  };
  LiveStream stream(settings);
  while (!motive.connected) {
  }
  time_frames(state, motive.command, motive.client, count, arrived);
  Pose pose;
  benchmark::DoNotOptimize(stream.body("1")->pose_at_local(stream.body("1")->now(), pose));
}
BENCHMARK(live_stream_receive)
    ->Iterations(k_frames)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
