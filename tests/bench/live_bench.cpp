// Latency a live stream adds: from the moment a NatNet frame leaves the sender on this machine's
// loopback interface to the moment its pose is in the LiveSource (LiveStream's receiver thread:
// wake-up, receive, decode, push; the pose is then what the driver's prestep reads), against the
// bare minimum: a thread blocked in poll + recvfrom on a plain UDP socket, noting when the
// datagram is in its buffer. Frames are sent at 240 Hz, as a capture system streams, and each is
// timed alone. `added_latency` runs both in one loop, alternating, for the p99 comparison.
#include "net/socket.hpp"

#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
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

/// A receiver under test: where frames go, and the arrival times its thread writes (by frame
/// count: loopback keeps the order).
struct Receiver {
  static constexpr std::size_t k_capacity = 1 << 14;
  net::UdpSocket* sender = nullptr;
  net::Endpoint to;
  std::vector<double> arrivals = std::vector<double>(k_capacity);
  std::vector<double> sends = std::vector<double>(k_capacity);
  std::atomic<std::uint32_t> count{0};
  std::uint32_t next_frame = 0;

  /// Called by the receiving thread when a frame is in.
  void arrived() {
    const std::uint32_t n = count.load(std::memory_order_relaxed);
    arrivals[n % k_capacity] = seconds(Clock::now());
    count.store(n + 1, std::memory_order_release);
  }

  /// Sends the next frame and returns at once.
  void send() {
    const auto packet = frame(next_frame);
    sends[next_frame % k_capacity] = seconds(Clock::now());
    sender->send_to(packet.data(), packet.size(), to);
    ++next_frame;
  }

  /// Latency of frame n (s), waiting for it to arrive by sleeping: a sender spinning here held,
  /// on this 2-core machine, the core the receiving thread was woken on, for a scheduler tick
  /// (4 ms) in about one frame in a hundred, and more often for the busier receiver.
  double latency(std::uint32_t n) const {
    while (count.load(std::memory_order_acquire) <= n) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return arrivals[n % k_capacity] - sends[n % k_capacity];
  }
};

/// Sends one frame to each receiver every 1/240 s, the receivers' frames spread evenly over
/// the period, and returns each one's latencies. The sender sleeps between frames.
template <class... R>
std::vector<std::vector<double>> time_frames(benchmark::State& state, R&... receivers) {
  std::vector<std::vector<double>> latencies(sizeof...(R));
  const auto slot = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1 / k_rate / sizeof...(R)));
  auto next = Clock::now();
  for (auto _ : state) {
    double total = 0.0;
    std::size_t i = 0;
    for (Receiver* r : {&receivers.receiver...}) {
      next += slot;
      std::this_thread::sleep_until(next);
      // The frame before has had a whole period to arrive: waiting for it costs nothing.
      if (r->next_frame > 0) {
        latencies[i].push_back(r->latency(r->next_frame - 1));
        total += latencies[i].back();
      }
      r->send();
      ++i;
    }
    state.SetIterationTime(std::max(total, 1e-9));
  }
  std::size_t i = 0;
  for (Receiver* r : {&receivers.receiver...}) {
    latencies[i++].push_back(r->latency(r->next_frame - 1));
  }
  return latencies;
}

double percentile(std::vector<double> values, int p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, values.size() * static_cast<std::size_t>(p) / 100)];
}

/// Baseline: a thread in poll + recvfrom on a plain socket.
struct BareReceiver {
  net::UdpSocket socket{0};
  net::UdpSocket sender{0};
  Receiver receiver;
  std::atomic<bool> stop{false};
  std::thread thread;
  BareReceiver() {
    receiver.sender = &sender;
    receiver.to = net::resolve("127.0.0.1", socket.local_port());
    thread = std::thread([this] {
      std::vector<std::uint8_t> buffer(65536);
      while (!stop) {
        if (socket.receive(buffer.data(), buffer.size(), 0.05) > 0) {
          receiver.arrived();
        }
      }
    });
  }
  ~BareReceiver() {
    stop = true;
    thread.join();
  }
};

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
struct LiveReceiver {
  FakeMotive motive;
  Receiver receiver;
  std::unique_ptr<LiveStream> stream;
  LiveReceiver() {
    LiveStreamSettings settings;
    settings.command_port = motive.command.local_port();
    settings.data_port = 0; // frames to the command socket, as the fake server sends them
    settings.on_sample = [this](const std::string&, const LiveSample&) {
      receiver.arrived();
    };
    stream = std::make_unique<LiveStream>(settings);
    while (!motive.connected) {
    }
    receiver.sender = &motive.command;
    receiver.to = motive.client;
  }
};

void report(benchmark::State& state, const std::vector<double>& latencies) {
  state.counters["median_us"] = percentile(latencies, 50) * 1e6;
  state.counters["p99_us"] = percentile(latencies, 99) * 1e6;
}

/// Each receiver alone, frames at 240 Hz.
template <class R>
void receive_alone(benchmark::State& state) {
  R r;
  report(state, time_frames(state, r)[0]);
}
BENCHMARK_TEMPLATE(receive_alone, BareReceiver)
    ->Name("bare_udp_receive")
    ->Iterations(k_frames)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(receive_alone, LiveReceiver)
    ->Name("live_stream_receive")
    ->Iterations(k_frames)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

/// The added latency's method: both receivers in one run, one frame to each per 1/240 s, half a
/// period apart, so whatever the machine does meanwhile falls on both alike. Reported: each
/// one's median and 99th percentile over the same 1200 periods; the added p99 = live p99 - bare
/// p99 (`added_p99_us`, the measure) and, beside it, the 99th percentile of the
/// per-period difference (`paired_diff_p99_us`: it also carries a delay that fell on one frame
/// only, so it bounds the added latency from above).
void added_latency(benchmark::State& state) {
  BareReceiver bare;
  LiveReceiver live;
  const auto latencies = time_frames(state, bare, live);
  const std::vector<double>& b = latencies[0];
  const std::vector<double>& l = latencies[1];
  std::vector<double> difference(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    difference[i] = l[i] - b[i];
  }
  state.counters["bare_median_us"] = percentile(b, 50) * 1e6;
  state.counters["bare_p99_us"] = percentile(b, 99) * 1e6;
  state.counters["live_median_us"] = percentile(l, 50) * 1e6;
  state.counters["live_p99_us"] = percentile(l, 99) * 1e6;
  state.counters["added_median_us"] =
      state.counters["live_median_us"] - state.counters["bare_median_us"];
  state.counters["added_p99_us"] = state.counters["live_p99_us"] - state.counters["bare_p99_us"];
  state.counters["paired_diff_p99_us"] = percentile(difference, 99) * 1e6;
}
BENCHMARK(added_latency)->Iterations(5 * k_frames)->UseManualTime()->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
