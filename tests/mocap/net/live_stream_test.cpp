// Live streams over the loopback interface: a real capture served as Motive (NatNet) or QTM
// (QTM RT) would, received by LiveStream, compared with the file: every pose equal to the
// protocol's float precision, in order, with the file's times. Under 5% loss and 5 ms jitter
// (more than the 3.9 ms between frames, so frames overtake each other): no NaN, played time
// never goes back (while the newest packet does), the pose a driver gets stays within what the
// extrapolation cap allows, the stream reports itself stale when the server stops. Malformed
// datagrams are counted and dropped while good frames keep coming.
#include "net/socket.hpp"
#include "support/data_paths.hpp"
#include "support/error_message.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace odemocap {
namespace {

struct Arrival {
  std::string body;
  LiveSample sample;
};

/// Everything a LiveStream delivered, in arrival order.
struct Recorder {
  std::mutex mutex;
  std::vector<Arrival> arrivals;
  std::function<void(const std::string&, const LiveSample&)> callback() {
    return [this](const std::string& body, const LiveSample& s) {
      std::lock_guard<std::mutex> lock(mutex);
      arrivals.push_back({body, s});
    };
  }
};

Capture stand() {
  return load_capture(test::shared_data("imusim/stand_6D.tsv"));
}

/// The name the stream gives the i-th body: the track's (NatNet: from the model definitions
/// the client asks for; its id, i + 1, finds the same source).
std::string served_name(LiveProtocol, const StreamServer& server, std::size_t i) {
  return server.bodies()[i];
}

LiveStreamSettings client_of(const StreamServer& server, LiveProtocol protocol) {
  LiveStreamSettings s;
  s.protocol = protocol;
  s.command_port = server.command_port();
  s.data_port = 0;
  s.up_axis = Axis::Z; // the file's: NatNet frames come Y up, as Motive sends them
  return s;
}

StreamServerSettings server_settings(LiveProtocol protocol) {
  StreamServerSettings s;
  s.protocol = protocol;
  s.command_port = 0;
  s.data_port = 0;
  return s;
}

class LiveLoopback : public ::testing::TestWithParam<LiveProtocol> {};

TEST_P(LiveLoopback, EveryPoseOfTheFileArrivesInOrderWithItsTime) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const LiveProtocol protocol = GetParam();
  const Capture capture = stand();
  StreamServer server(capture, server_settings(protocol));
  Recorder recorder;
  LiveStreamSettings settings = client_of(server, protocol);
  settings.on_sample = recorder.callback();
  LiveStream stream(settings);
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  ASSERT_EQ(server.bodies().size(), 3u);
  std::lock_guard<std::mutex> lock(recorder.mutex);
  for (std::size_t b = 0; b < 3; ++b) {
    const Track& track = capture.track(server.bodies()[b]);
    const std::string name = served_name(protocol, server, b);
    SCOPED_TRACE(name);
    std::size_t next = 0;
    double worst_position = 0.0, worst_angle = 0.0;
    for (const Arrival& a : recorder.arrivals) {
      if (a.body != name) {
        continue;
      }
      ASSERT_EQ(a.sample.frame, next) << "frames arrive once each, in order";
      ASSERT_TRUE(a.sample.valid);
      // NatNet sends the time as a double; QTM as whole microseconds (256 Hz frames fall on
      // quarter microseconds: rounded, up to half a microsecond off).
      EXPECT_LE(std::abs(a.sample.capture_time - track.time(next)), 0.5e-6 + 1e-12);
      worst_position = std::max(worst_position, norm(a.sample.pose.p - track.position(next)));
      worst_angle = std::max(worst_angle, angle_between(a.sample.pose.q, track.orientation(next)));
      ++next;
    }
    EXPECT_EQ(next, track.size());
    // Float precision: positions of about 1 m (NatNet m, QTM mm), orientations as float
    // quaternions (NatNet) or float matrices (QTM).
    EXPECT_LT(worst_position, 1e-6);
    EXPECT_LT(worst_angle, 1e-6);
  }
  EXPECT_EQ(stream.stats().malformed, 0u);
  EXPECT_EQ(stream.body(served_name(protocol, server, 0))->state().stats.lost, 0u);
  if (protocol == LiveProtocol::NatNet) {
    EXPECT_GE(server.stats().keep_alives, 1u) << "one a second from the client";
    EXPECT_EQ(stream.body("3"), stream.body(server.bodies()[2])) << "an id finds the named body";
  }
}

TEST_P(LiveLoopback, UnderLossAndJitterTheDriverPoseStaysWithinTheExtrapolationCap) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const LiveProtocol protocol = GetParam();
  const Capture capture = stand();
  StreamServerSettings ss = server_settings(protocol);
  ss.loss = 0.05;
  ss.jitter = 0.005;
  ss.seed = 11;
  StreamServer server(capture, ss);
  Recorder recorder;
  LiveStreamSettings settings = client_of(server, protocol);
  settings.on_sample = recorder.callback();
  LiveStream stream(settings);
  const std::string name = served_name(protocol, server, 2); // the lower leg: moves the most
  const Track& track = capture.track(server.bodies()[2]);
  const TrackSource truth(track);
  std::shared_ptr<LiveSource> source = stream.body(name);

  // The file's fastest motion bounds how far an extrapolation can go wrong within the cap.
  double v_max = 0.0, w_max = 0.0;
  for (std::size_t i = 1; i < track.size(); ++i) {
    const double dt = track.time(i) - track.time(i - 1);
    v_max = std::max(v_max, norm(track.position(i) - track.position(i - 1)) / dt);
    w_max = std::max(w_max, angle_between(track.orientation(i), track.orientation(i - 1)) / dt);
  }
  const double cap = LiveSourceSettings{}.max_extrapolation;

  // A driver at 1 kHz for as long as the stream runs, and 200 ms after.
  double played = -1e300, worst_position = 0.0, worst_angle = 0.0;
  std::size_t poses = 0;
  bool finished = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto after_end = std::chrono::steady_clock::time_point::max();
  while (std::chrono::steady_clock::now() < std::min(deadline, after_end)) {
    Pose pose;
    if (source->pose_at_local(source->now(), pose)) {
      ++poses;
      ASSERT_TRUE(is_finite(pose.p) && is_finite(pose.q));
      const double c = source->state().played_time;
      ASSERT_GE(c, played) << "played time went back";
      played = c;
      Pose expected;
      ASSERT_TRUE(truth.pose(std::min(c, track.end_time()), expected));
      if (c <= track.end_time()) {
        worst_position = std::max(worst_position, norm(pose.p - expected.p));
        worst_angle = std::max(worst_angle, angle_between(pose.q, expected.q));
      }
    }
    if (!finished && server.wait_finished(0.0)) {
      finished = true;
      after_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(finished);
  EXPECT_GT(poses, 500u); // about 1900 on an idle machine
  EXPECT_LE(worst_position, 2.0 * v_max * cap + 1e-6);
  EXPECT_LE(worst_angle, 2.0 * w_max * cap + 1e-6);
  std::printf("[ live ] %s: worst position error %.3g m (bound %.3g), angle %.3g rad (bound "
              "%.3g)\n",
              protocol_name(protocol), worst_position, 2.0 * v_max * cap, worst_angle,
              2.0 * w_max * cap);

  const LiveState state = source->state();
  EXPECT_TRUE(state.stale) << "the server stopped 200 ms ago";
  EXPECT_GT(state.stats.stale, 0u);
  EXPECT_GT(state.stats.lost, 0u);
  // Every frame is either received or counted lost, up to the last received one; the server
  // dropped about 5%.
  std::lock_guard<std::mutex> lock(recorder.mutex);
  std::uint64_t last = 0;
  std::size_t overtaken = 0;
  double newest_arrival = -1e300;
  for (const Arrival& a : recorder.arrivals) {
    if (a.body != name) {
      continue;
    }
    last = std::max(last, a.sample.frame);
    // What a naive "use the latest packet" driver would play: it goes back in time.
    if (a.sample.capture_time < newest_arrival) {
      ++overtaken;
    }
    newest_arrival = std::max(newest_arrival, a.sample.capture_time);
  }
  EXPECT_EQ(state.stats.received + state.stats.lost, last + 1);
  EXPECT_GT(overtaken, 0u) << "5 ms of jitter at 256 Hz reorders frames";
  EXPECT_EQ(state.stats.reordered, overtaken);
  const double dropped =
      static_cast<double>(server.stats().dropped) / static_cast<double>(server.frame_count());
  EXPECT_GT(dropped, 0.02);
  EXPECT_LT(dropped, 0.09);
  std::printf("[ live ] %s: %zu frames, %zu dropped by the server, %zu lost, %zu reordered, "
              "%zu late, %zu extrapolated of %zu queries, depth %.1f ms\n",
              protocol_name(protocol), server.frame_count(), server.stats().dropped,
              state.stats.lost, state.stats.reordered, state.stats.late, state.stats.extrapolated,
              poses, state.delay * 1e3);
}

INSTANTIATE_TEST_SUITE_P(Protocols, LiveLoopback,
                         ::testing::Values(LiveProtocol::NatNet, LiveProtocol::Qtm),
                         [](const ::testing::TestParamInfo<LiveProtocol>& p) {
                           return std::string(p.param == LiveProtocol::NatNet ? "NatNet" : "Qtm");
                         });

// Motive 3.1 and later stream NatNet 4.1 (each section's size, an asset section): a stream was
// refused at connect ("4.1 and later ... are refused"). Served in 4.1, every pose arrives as in
// 3.1, and a server that says 5.0 is refused at connect with a message.
TEST(LiveStream, ANatNet41StreamIsFollowedLikeEarlierOnes) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  StreamServerSettings ss = server_settings(LiveProtocol::NatNet);
  ss.natnet_version = {4, 1};
  StreamServer server(capture, ss);
  Recorder recorder;
  LiveStreamSettings settings = client_of(server, LiveProtocol::NatNet);
  settings.on_sample = recorder.callback();
  LiveStream stream(settings);
  EXPECT_NE(stream.server_description().find("NatNet 4.1"), std::string::npos)
      << stream.server_description();
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::lock_guard<std::mutex> lock(recorder.mutex);
  for (std::size_t b = 0; b < server.bodies().size(); ++b) {
    const Track& track = capture.track(server.bodies()[b]);
    std::size_t next = 0;
    double worst = 0.0;
    for (const Arrival& a : recorder.arrivals) {
      if (a.body == server.bodies()[b]) {
        ASSERT_EQ(a.sample.frame, next);
        worst = std::max(worst, norm(a.sample.pose.p - track.position(next)) +
                                    angle_between(a.sample.pose.q, track.orientation(next)));
        ++next;
      }
    }
    EXPECT_EQ(next, track.size()) << server.bodies()[b];
    EXPECT_LT(worst, 2e-6) << server.bodies()[b];
  }
  EXPECT_EQ(stream.stats().malformed, 0u);
}

TEST(LiveStream, ARecordingOfANatNetStreamIsTheFileInMotivesYUpFrame) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand(); // Z up
  StreamServer server(capture, server_settings(LiveProtocol::NatNet));
  LiveRecorder recorder;
  LiveStreamSettings settings = client_of(server, LiveProtocol::NatNet);
  settings.up_axis.reset(); // keep the server's frame: Y up, as Motive streams by default
  settings.on_sample = recorder.on_sample();
  {
    LiveStream stream(settings);
    ASSERT_TRUE(server.wait_finished(20.0));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const Capture recorded = recorder.capture(CaptureInfo{});
  EXPECT_NEAR(recorded.info().frame_rate, 256.0, 1e-9);
  ASSERT_EQ(recorded.tracks().size(), 3u);
  // Z up to Y up is a quarter turn about -x: (x, y, z) -> (x, z, -y).
  const Quat turn = from_axis_angle(Vec3{-1, 0, 0}, 0.5 * 3.14159265358979323846);
  for (std::size_t b = 0; b < 3; ++b) {
    const Track& file = capture.track(server.bodies()[b]);
    const Track& got = recorded.track(server.bodies()[b]);
    ASSERT_EQ(got.size(), file.size());
    for (std::size_t i = 0; i < file.size(); i += 16) {
      const Vec3 p = file.position(i);
      EXPECT_LT(norm(got.position(i) - Vec3{p.x, p.z, -p.y}), 1e-6);
      EXPECT_LT(angle_between(got.orientation(i), turn * file.orientation(i)), 1e-6);
      EXPECT_EQ(got.time(i), file.time(i));
    }
  }
}

TEST(LiveStream, ASourceBoundByNatNetIdBeforeTheNamesCameIsTheNamedBodysSource) {
  // A program may bind body("2") before the model definitions name it: the same source then
  // carries the named body's frames.
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  StreamServer server(capture, server_settings(LiveProtocol::NatNet));
  LiveStream stream(client_of(server, LiveProtocol::NatNet));
  const std::vector<std::string> bodies = stream.bodies();
  EXPECT_EQ(bodies, server.bodies()) << "named from the start: the names came with the connect";
  std::shared_ptr<LiveSource> by_id = stream.body("2");
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(by_id, stream.body(server.bodies()[1]));
  EXPECT_EQ(by_id->state().stats.received, server.frame_count());
  EXPECT_EQ(stream.bodies().size(), 3u);
}

TEST(LiveStream, MalformedDatagramsAreCountedAndDroppedWhileGoodFramesFlow) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  StreamServer server(capture, server_settings(LiveProtocol::NatNet));
  LiveStream stream(client_of(server, LiveProtocol::NatNet));
  // A hostile sender: frame-of-data headers over garbage, a count claiming 2^31 bodies, a
  // truncated frame; 30 of them while the real frames flow.
  net::UdpSocket attacker(0);
  const net::Endpoint to = net::resolve("127.0.0.1", stream.data_port());
  NatNetFrame one;
  one.rigid_bodies.resize(1);
  std::vector<std::uint8_t> truncated = encode_natnet_frame(one, {3, 1});
  truncated.resize(truncated.size() - 3);
  std::vector<std::uint8_t> lying = encode_natnet_frame(one, {3, 1});
  lying[16] = 0xff;
  lying[17] = 0xff;
  lying[18] = 0xff;
  lying[19] = 0x7f;
  std::vector<std::uint8_t> garbage{7, 0, 200, 0, 1, 2, 3};
  for (int i = 0; i < 10; ++i) {
    for (const std::vector<std::uint8_t>* p : {&truncated, &lying, &garbage}) {
      attacker.send_to(p->data(), p->size(), to);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const LiveStreamStats stats = stream.stats();
  EXPECT_EQ(stats.malformed, 30u);
  EXPECT_FALSE(stats.last_error.empty());
  EXPECT_EQ(stats.frames, server.frame_count());
  EXPECT_EQ(stream.body(server.bodies()[0])->state().stats.received, server.frame_count());
}

TEST(LiveStream, ClientsThatHangUpAtOnceDoNotStopTheQtmServer) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  StreamServer server(stand(), server_settings(LiveProtocol::Qtm));
  const net::Endpoint at = net::resolve("127.0.0.1", server.command_port());
  for (int i = 0; i < 5; ++i) {
    net::TcpStream::connect(at, 1.0).close(); // before or while the greeting is written
  }
  LiveStream stream(client_of(server, LiveProtocol::Qtm));
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(stream.body(server.bodies()[0])->state().stats.received, server.frame_count());
  EXPECT_EQ(server.stats().clients, 6u);
}

TEST(LiveStream, ACaptureWhoseFramesDoNotFitAPacketIsRefusedUpFront) {
  // NatNet 3.1 spends 38 bytes per rigid body; a frame's payload holds at most 65535.
  Capture many(CaptureInfo{});
  many.info().unit_in_metres = 1.0;
  many.info().unit_source = "given";
  many.info().frame_rate = 100.0;
  for (int b = 0; b < 2000; ++b) {
    Track t("b" + std::to_string(b));
    t.append(0.0, Pose{});
    t.append(0.01, Pose{});
    many.add_track(std::move(t));
  }
  StreamServerSettings settings = server_settings(LiveProtocol::NatNet);
  EXPECT_THROW(StreamServer(many, settings), MocapError);
}

TEST(LiveStream, NoServerIsAClearErrorNotAHang) {
  LiveStreamSettings s;
  s.command_port = 9; // discard: nobody answers NatNet there
  s.data_port = 0;
  s.connect_timeout = 0.3;
  EXPECT_THROW(LiveStream{s}, MocapError);
  s.protocol = LiveProtocol::Qtm;
  s.command_port = 1; // nothing listens: refused at once
  EXPECT_THROW(LiveStream{s}, MocapError);
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

/// A hostile NatNet server on loopback: it answers the connect and model definition requests
/// for bodies "a" (id 1) and "b" (id 2), then sends 200 frames at 100 Hz in which "b" appears
/// at frame 50, "a" vanishes for frames 100-119, "a" is flagged tracked with a zero quaternion
/// in frame 60, frame 71 comes with "a"'s id corrupted to 999, and one extra datagram claims
/// frame 4 000 000 000. Poses (m): a at (0.01 f, 0, 0), b at (0, 0.01 f, 0).
class HostileNatNet {
public:
  HostileNatNet() : socket_(0) {
    thread_ = std::thread([this] { run(); });
  }
  ~HostileNatNet() {
    stop_ = true;
    thread_.join();
  }
  int port() const { return socket_.local_port(); }

private:
  static Vec3 a_at(std::uint32_t f) { return {0.01 * f, 0.0, 0.0}; }
  static Vec3 b_at(std::uint32_t f) { return {0.0, 0.01 * f, 0.0}; }

  void run() {
    std::vector<std::uint8_t> buffer(65536);
    net::Endpoint client;
    bool connected = false;
    const NatNetVersion v{3, 1};
    std::uint32_t next = 0;
    auto due = std::chrono::steady_clock::now();
    while (!stop_) {
      net::Endpoint from;
      const std::size_t n = socket_.receive(buffer.data(), buffer.size(), 0.002, &from);
      if (n >= 4 && buffer[0] == 0) {
        NatNetServerInfo info;
        info.natnet_version = {3, 1, 0, 0};
        const auto reply = encode_natnet_server_info(info);
        socket_.send_to(reply.data(), reply.size(), from);
        client = from;
        connected = true;
      } else if (n >= 4 && buffer[0] == 4) {
        NatNetModelDefinitions defs;
        defs.rigid_bodies = {{"a", 1, -1, {}, {}, {}, {}, {}}, {"b", 2, -1, {}, {}, {}, {}, {}}};
        const auto reply = encode_natnet_model_definitions(defs, v);
        socket_.send_to(reply.data(), reply.size(), from);
      }
      if (!connected || next >= 200 || std::chrono::steady_clock::now() < due) {
        continue;
      }
      due += std::chrono::milliseconds(10);
      NatNetFrame f;
      f.frame = next;
      f.timestamp = 0.01 * next;
      if (next < 100 || next >= 120) {
        NatNetRigidBody a;
        a.id = next == 71 ? 999 : 1;
        a.position = a_at(next);
        a.orientation = next == 60 ? Quat{0, 0, 0, 0} : Quat{};
        f.rigid_bodies.push_back(a);
      }
      if (next >= 50) {
        NatNetRigidBody b;
        b.id = 2;
        b.position = b_at(next);
        f.rigid_bodies.push_back(b);
      }
      const auto packet = encode_natnet_frame(f, v);
      socket_.send_to(packet.data(), packet.size(), client);
      if (next == 80) {
        f.frame = 4000000000u;
        const auto bogus = encode_natnet_frame(f, v);
        socket_.send_to(bogus.data(), bogus.size(), client);
      }
      ++next;
    }
  }

  net::UdpSocket socket_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// A receiver of a NatNet multicast group on this machine, joined on one interface as a
/// client is (OptiTrack's SDK clients and ../shared/clients/natnet join on the local address
/// they are given, 127.0.0.1 by default; others on any). Each test's receiver has a group of
/// its own: Linux gives a socket the datagrams of every group joined on the machine, on any
/// interface (IP_MULTICAST_ALL), so receivers of one group joined on different interfaces
/// would each see what the others see.
struct GroupReceiver {
  GroupReceiver(std::string group_address, const std::string& interface)
      : group(std::move(group_address)), socket(0, true) {
    socket.join_multicast(group, interface);
  }
  /// Asks `server` for frames (a NatNet connect request), then counts the frames that arrive
  /// in `seconds`, and how many of them repeat a frame number.
  void listen(const StreamServer& server, double seconds) {
    net::UdpSocket client(0);
    const std::uint8_t connect[] = {0, 0, 5, 0, 'P', 'i', 'n', 'g', 0};
    client.send_to(connect, sizeof connect, net::resolve("127.0.0.1", server.command_port()));
    std::set<std::uint32_t> seen;
    std::vector<std::uint8_t> buffer(65536);
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      const std::size_t n = socket.receive(buffer.data(), buffer.size(), 0.01);
      if (n >= 8 && buffer[0] == 7 && buffer[1] == 0) { // a frame of data
        std::uint32_t number = 0;
        std::memcpy(&number, &buffer[4], 4);
        ++frames;
        repeats += seen.insert(number).second ? 0 : 1;
      }
    }
  }
  StreamServerSettings server_settings() const {
    StreamServerSettings s = odemocap::server_settings(LiveProtocol::NatNet);
    s.multicast = group;
    s.data_port = socket.local_port();
    return s;
  }
  std::string group;
  net::UdpSocket socket;
  std::size_t frames = 0, repeats = 0;
};

/// The IPv4 address of the interface this machine routes `group` through, as text; "" when
/// that is no route or loopback.
std::string routed_interface(const std::string& group) {
  const std::uint32_t routed = net::route_source(net::resolve(group, 0));
  if (routed == 0 || net::is_loopback(routed)) {
    return "";
  }
  const std::string with_port = net::Endpoint{routed, 0}.str(); // "a.b.c.d:0"
  return with_port.substr(0, with_port.find(':'));
}

TEST(LiveStream, NatNetMulticastReachesClientsJoinedOnLoopbackAndOnTheRoutedInterface) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand(); // 100 Hz
  GroupReceiver loopback("239.255.42.91", "127.0.0.1");
  StreamServer server(capture, loopback.server_settings());
  loopback.listen(server, 0.5);
  EXPECT_GE(loopback.frames, 30u); // about 50
  EXPECT_EQ(loopback.repeats, 0u);
  // A client joined on any interface gets the routed interface's copy, once. Not where the
  // machine has no route to the group but loopback.
  if (routed_interface("239.255.42.92").empty()) {
    GTEST_SKIP() << "no route to the group but loopback here";
  }
  GroupReceiver any("239.255.42.92", "");
  StreamServer second(capture, any.server_settings());
  any.listen(second, 0.5);
  EXPECT_GE(any.frames, 30u);
  EXPECT_EQ(any.repeats, 0u);
}

TEST(LiveStream, NatNetMulticastByTheRoutedInterfaceAloneMissesClientsJoinedOnLoopback) {
  // What the server did before it sent by loopback too: a client on this machine joined on
  // 127.0.0.1 (the default of the clients above) got nothing.
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const std::string routed = routed_interface("239.255.42.93");
  if (routed.empty()) {
    GTEST_SKIP() << "no route to the group but loopback here";
  }
  const Capture capture = stand();
  GroupReceiver loopback("239.255.42.93", "127.0.0.1");
  StreamServerSettings by_route = loopback.server_settings();
  by_route.multicast_interface = routed;
  StreamServer server(capture, by_route);
  loopback.listen(server, 0.5);
  EXPECT_EQ(loopback.frames, 0u);
  // Named, loopback alone reaches it.
  GroupReceiver again("239.255.42.94", "127.0.0.1");
  StreamServerSettings by_loopback = again.server_settings();
  by_loopback.multicast_interface = "127.0.0.1";
  StreamServer second(capture, by_loopback);
  again.listen(second, 0.5);
  EXPECT_GE(again.frames, 30u);
}

TEST(LiveStream, ALiveStreamJoinsTheMulticastGroupOnTheInterfaceItIsGiven) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  // A server sending by loopback alone: only a receiver joined there hears it.
  const int port = net::UdpSocket(0).local_port();
  StreamServerSettings s = server_settings(LiveProtocol::NatNet);
  s.multicast = "239.255.42.96";
  s.multicast_interface = "127.0.0.1";
  s.data_port = port;
  StreamServer server(capture, s);
  LiveStreamSettings c = client_of(server, LiveProtocol::NatNet);
  c.multicast = s.multicast;
  c.multicast_interface = "127.0.0.1";
  c.data_port = port;
  LiveStream stream(c);
  ASSERT_TRUE(server.wait_finished(20.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(stream.stats().frames, server.frame_count());
  const auto refusal = [&] { return test::error_message<MocapError>([&] { LiveStream bad(c); }); };
  c.multicast_interface = "lo";
  EXPECT_NE(refusal().find("the multicast interface must be an IPv4 address (a.b.c.d), got 'lo'"),
            std::string::npos);
  c.multicast.clear();
  c.multicast_interface = "127.0.0.1";
  EXPECT_NE(refusal().find("multicast_interface is for multicast"), std::string::npos);
}

TEST(LiveStream, ANatNetMulticastInterfaceThatIsNoAddressOfThisMachineIsRefused) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  StreamServerSettings s = server_settings(LiveProtocol::NatNet);
  const auto refusal = [&] {
    return test::error_message<MocapError>([&] { StreamServer server(capture, s); });
  };
  s.multicast = "239.255.42.95";
  s.multicast_interface = "eth0";
  EXPECT_NE(refusal().find("multicast_interface must be an IPv4 address (a.b.c.d), got 'eth0'"),
            std::string::npos);
  // An address of TEST-NET-1 (for documentation only): refused unless a machine has it (then
  // the route to it starts from it).
  s.multicast_interface = "192.0.2.254";
  const std::uint32_t address = net::resolve(s.multicast_interface, 0).address;
  if (net::route_source(net::resolve(s.multicast_interface, 9)) != address) {
    EXPECT_NE(refusal().find("'192.0.2.254' names no interface of this machine"),
              std::string::npos);
  }
  s.multicast.clear();
  s.multicast_interface = "127.0.0.1";
  EXPECT_NE(refusal().find("multicast_interface is for multicast"), std::string::npos);
}

TEST(LiveStream, TheQtmServerAnswersDiscoveryWithItsBasePort) {
  const std::string path = test::shared_data("imusim/stand_6D.tsv");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture capture = stand();
  StreamServerSettings s = server_settings(LiveProtocol::Qtm);
  s.discovery_port = 0; // a free one: not QTM's, which other servers on the machine share
  StreamServer server(capture, s);
  ASSERT_GT(server.discovery_port(), 0);
  net::UdpSocket client(0);
  const auto to = net::resolve("127.0.0.1", server.discovery_port());
  // Garbage first: ignored, and the server goes on answering.
  const std::uint8_t garbage[] = {1, 2, 3};
  client.send_to(garbage, sizeof garbage, to);
  // Size 10 and type 7, little-endian; then the port to answer to, in network order.
  const auto port = static_cast<std::uint16_t>(client.local_port());
  std::vector<std::uint8_t> request{10, 0, 0, 0, 7, 0, 0, 0};
  request.push_back(static_cast<std::uint8_t>(port >> 8));
  request.push_back(static_cast<std::uint8_t>(port & 0xFF));
  client.send_to(request.data(), request.size(), to);
  std::vector<std::uint8_t> answer(512);
  answer.resize(client.receive(answer.data(), answer.size(), 2.0));
  ASSERT_GE(answer.size(), 11u);
  std::uint32_t size = 0, type = 0;
  std::memcpy(&size, answer.data(), 4);
  std::memcpy(&type, answer.data() + 4, 4);
  EXPECT_EQ(size, answer.size());
  EXPECT_EQ(type, 7u);
  const std::string text(reinterpret_cast<const char*>(answer.data()) + 8);
  EXPECT_EQ(text,
            "odemocap serve, " + std::to_string(server.bodies().size()) + " 6D bodies, 0 markers");
  EXPECT_EQ(answer[size - 2] << 8 | answer[size - 1], server.command_port() - 1);
  // A NatNet server has no discovery.
  StreamServer natnet(capture, server_settings(LiveProtocol::NatNet));
  EXPECT_EQ(natnet.discovery_port(), 0);
  s.discovery_port = 70000;
  EXPECT_NE(test::error_message<MocapError>([&] {
              StreamServer bad(capture, s);
            }).find("discovery_port must be -1 to 65535, got 70000"),
            std::string::npos);
}

// A server whose connect reply says NatNet 5.0 (a layout not known) is refused at connect,
// saying which version, not misread frame by frame.
TEST(LiveStream, ANatNetVersionNotReadIsRefusedAtConnect) {
  net::UdpSocket socket(0);
  std::atomic<bool> stop{false};
  std::thread server([&] {
    std::vector<std::uint8_t> buffer(65536);
    while (!stop) {
      net::Endpoint from;
      const std::size_t n = socket.receive(buffer.data(), buffer.size(), 0.01, &from);
      if (n >= 4 && buffer[0] == 0) {
        NatNetServerInfo info;
        info.natnet_version = {5, 0, 0, 0};
        const auto reply = encode_natnet_server_info(info);
        socket.send_to(reply.data(), reply.size(), from);
      }
    }
  });
  LiveStreamSettings s;
  s.command_port = socket.local_port();
  s.data_port = 0;
  s.connect_timeout = 2.0;
  const std::string message = test::error_message<MocapError>([&] { LiveStream stream(s); });
  stop = true;
  server.join();
  EXPECT_NE(message.find("sends NatNet 5.0, which is not read (2.0 to 4.x)"), std::string::npos)
      << message;
}

TEST(LiveRecord, AHostileSenderLosesNoGoodFrame) {
  HostileNatNet server;
  LiveRecorder recorder;
  LiveStreamSettings s;
  s.command_port = server.port();
  s.data_port = 0;
  s.on_sample = recorder.on_sample();
  LiveStats a_stats;
  {
    LiveStream stream(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    a_stats = stream.body("a")->state().stats;
  }
  const Capture c = recorder.capture(live_recording_info(s));
  const Track& a = c.track("a");
  const Track& b = c.track("b");
  ASSERT_EQ(a.size(), b.size());
  // Every frame 0..199 is a row (frame 71 too: b was in it); none of them lost.
  ASSERT_EQ(a.size(), 200u);
  for (std::uint32_t f = 0; f < 200; ++f) {
    const bool a_good = (f < 100 || f >= 120) && f != 60 && f != 71;
    EXPECT_EQ(a.valid(f), a_good) << f;
    if (a_good) {
      // The stream was not asked to turn the poses: the server's frame as sent.
      EXPECT_NEAR(a.position(f).x, 0.01 * f, 1e-6) << f;
    }
    EXPECT_EQ(b.valid(f), f >= 50) << f;
    EXPECT_NEAR(a.time(f), 0.01 * f, 1e-9);
  }
  const auto invalid = recorder.invalid();
  ASSERT_EQ(invalid.size(), 1u);
  EXPECT_EQ(invalid[0].first, "a");
  EXPECT_EQ(invalid[0].second, 1u);
  EXPECT_EQ(a_stats.suspicious, 1u);
  EXPECT_LT(a_stats.lost, 40u); // the 20 frames it vanished and the corrupted one, not 4e9
  // The spurious id is a body of its own with one sample, not an error.
  EXPECT_NE(c.find_track("999"), nullptr);
}

} // namespace
} // namespace odemocap
