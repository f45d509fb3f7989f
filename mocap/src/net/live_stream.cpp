#include <odemocap/error.hpp>
#include <odemocap/live_stream.hpp>
#include <odemocap/qtm_rt.hpp>
#include <odemocap/quat.hpp>

#include "checks.hpp"
#include "net/socket.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <map>
#include <mutex>
#include <poll.h>
#include <thread>

namespace odemocap {
namespace {

constexpr std::size_t k_datagram = 65536;   // largest UDP payload
constexpr double k_poll = 0.05;             // s between checks of the stop flag
constexpr double k_keep_alive = 1.0;        // s between NatNet keep-alive messages
constexpr std::size_t k_early_frames = 256; // frames kept while the names are awaited (1 s)
const char* const k_qtm_version = "1.20";

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::uint8_t> natnet_request(NatNetMessage id) {
  const auto v = static_cast<std::uint16_t>(id);
  return {static_cast<std::uint8_t>(v & 0xff), static_cast<std::uint8_t>(v >> 8), 0, 0};
}

/// Reads one whole QTM packet from a TCP stream; empty on timeout.
std::vector<std::uint8_t> read_qtm_packet(net::TcpStream& tcp, double timeout) {
  std::vector<std::uint8_t> packet(k_qtm_header_bytes);
  if (!tcp.receive_exact(packet.data(), packet.size(), timeout)) {
    return {};
  }
  const std::size_t size = decode_qtm_header(packet.data(), packet.size()).second;
  packet.resize(size); // at most k_qtm_max_packet: the header check bounds it
  if (size > k_qtm_header_bytes &&
      !tcp.receive_exact(packet.data() + k_qtm_header_bytes, size - k_qtm_header_bytes, 2.0)) {
    throw MocapError("QTM RT: a packet's payload did not follow its header");
  }
  return packet;
}

} // namespace

LiveProtocol parse_live_protocol(std::string_view name) {
  if (name == "natnet") {
    return LiveProtocol::NatNet;
  }
  if (name == "qtm") {
    return LiveProtocol::Qtm;
  }
  throw MocapError("unknown live protocol '" + std::string(name) + "' (natnet or qtm)");
}

const char* protocol_name(LiveProtocol protocol) {
  return protocol == LiveProtocol::NatNet ? "natnet" : "qtm";
}

struct LiveStream::Impl {
  LiveStreamSettings settings;
  net::Endpoint server;
  std::unique_ptr<net::UdpSocket> command; // NatNet
  std::unique_ptr<net::UdpSocket> data;
  net::TcpStream tcp; // QTM
  NatNetVersion version;
  std::string description;
  std::vector<std::string> qtm_names;
  std::map<std::int32_t, std::string> natnet_names; ///< from the model definitions
  double next_model_request =
      0.0;              ///< s, steady clock: model definitions asked at most once a second
  bool turning = false; ///< poses are turned by `turn` (settings.up_axis)
  Quat turn;

  mutable std::mutex mutex;
  std::map<std::string, std::shared_ptr<LiveSource>> sources;
  std::vector<std::string> order;
  LiveStreamStats stats;

  std::atomic<bool> stop{false};
  std::thread thread;

  /// A NatNet id ("3") as the name Motive gave that body, when known.
  std::string key_locked(const std::string& name) const {
    std::int32_t id = 0;
    const char* end = name.data() + name.size();
    const auto [at, error] = std::from_chars(name.data(), end, id);
    if (error != std::errc() || at != end || name.empty()) {
      return name;
    }
    const auto named = natnet_names.find(id);
    return named != natnet_names.end() ? named->second : name;
  }

  std::shared_ptr<LiveSource> source_locked(const std::string& requested) {
    const std::string name = key_locked(requested);
    auto it = sources.find(name);
    if (it == sources.end()) {
      it = sources.emplace(name, std::make_shared<LiveSource>(name, settings.source)).first;
      order.push_back(name);
    }
    return it->second;
  }

  /// Pushes a sample to the body `key` names (a NatNet id is turned into its name here).
  void deliver(const std::string& key, LiveSample s) {
    if (turning && s.valid) {
      s.pose.p = rotate(turn, s.pose.p);
      s.pose.q = turn * s.pose.q;
    }
    std::shared_ptr<LiveSource> source;
    std::string name;
    {
      std::lock_guard<std::mutex> lock(mutex);
      name = key_locked(key);
      source = source_locked(name);
    }
    source->push(s);
    if (settings.on_sample) {
      settings.on_sample(name, s);
    }
  }

  /// Names for NatNet ids from the model definitions. A source already made under an id
  /// (a driver bound body("3") before the names came) is the named body's source from now on.
  void learn_names(const NatNetModelDefinitions& defs) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const NatNetRigidBodyDescription& d : defs.rigid_bodies) {
      std::string name = d.name.empty() ? std::to_string(d.id) : d.name;
      for (const auto& [id, given] : natnet_names) {
        if (given == name && id != d.id) {
          name += "#" + std::to_string(d.id); // two bodies of one name: the id tells them apart
        }
      }
      natnet_names[d.id] = name;
      const std::string id_key = std::to_string(d.id);
      const auto by_id = sources.find(id_key);
      if (by_id != sources.end() && sources.count(name) == 0) {
        sources.emplace(name, by_id->second);
        std::replace(order.begin(), order.end(), id_key, name);
      }
      source_locked(name); // announced, as QTM's 6D parameters announce theirs
    }
  }

  void request_models() {
    const auto ask = natnet_request(NatNetMessage::RequestModelDef);
    command->send_to(ask.data(), ask.size(), server);
    next_model_request = steady_seconds() + 1.0;
  }

  void malformed(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.malformed;
    stats.last_error = why;
  }

  void connect_natnet() {
    command = std::make_unique<net::UdpSocket>(0);
    // The data socket listens before frames are asked for: frames sent to it while the names
    // are awaited wait in its buffer instead of being lost.
    if (settings.data_port != 0) {
      const int port = settings.data_port < 0 ? k_natnet_data_port : settings.data_port;
      data = std::make_unique<net::UdpSocket>(port, !settings.multicast.empty());
      if (!settings.multicast.empty()) {
        data->join_multicast(settings.multicast, settings.multicast_interface);
      }
    }
    const std::vector<std::uint8_t> hello = natnet_request(NatNetMessage::Connect);
    std::vector<std::uint8_t> buffer(k_datagram);
    const double deadline = steady_seconds() + settings.connect_timeout;
    for (;;) {
      command->send_to(hello.data(), hello.size(), server);
      const double wait = std::min(0.25, deadline - steady_seconds());
      net::Endpoint from;
      const std::size_t n =
          wait > 0 ? command->receive(buffer.data(), buffer.size(), wait, &from) : 0;
      if (n >= 2 && buffer[0] == static_cast<std::uint8_t>(NatNetMessage::ServerInfo) &&
          buffer[1] == 0) {
        const NatNetServerInfo info = decode_natnet_server_info(buffer.data(), n);
        version = {info.natnet_version[0], info.natnet_version[1]};
        description = info.application + " " + std::to_string(info.application_version[0]) + "." +
                      std::to_string(info.application_version[1]) + "." +
                      std::to_string(info.application_version[2]) + "." +
                      std::to_string(info.application_version[3]) + ", NatNet " +
                      std::to_string(version.major) + "." + std::to_string(version.minor);
        if (!natnet_readable(version)) { // refused now, not frame by frame
          throw MocapError("NatNet server " + server.str() + " sends NatNet " +
                           std::to_string(version.major) + "." + std::to_string(version.minor) +
                           ", which is not read (2.0 to 4.x)");
        }
        break;
      }
      if (steady_seconds() >= deadline) {
        throw MocapError("NatNet server " + server.str() +
                         " did not answer a connect request "
                         "within " +
                         detail::describe(settings.connect_timeout) + " s");
      }
    }
    // Names for the ids: Motive answers a model definitions request on the command socket.
    // Frames arriving meanwhile are kept and delivered after, under the names; a server that
    // does not answer (in time) leaves the bodies named by id until it does.
    request_models();
    const double names_deadline = steady_seconds() + std::min(1.0, settings.connect_timeout);
    std::vector<std::pair<std::vector<std::uint8_t>, double>> early;
    while (steady_seconds() < names_deadline && early.size() < k_early_frames) {
      const std::size_t n =
          command->receive(buffer.data(), buffer.size(), names_deadline - steady_seconds());
      if (n >= 2 && buffer[0] == static_cast<std::uint8_t>(NatNetMessage::ModelDef) &&
          buffer[1] == 0) {
        handle_models(buffer.data(), n);
        break;
      }
      if (n > 0) {
        early.emplace_back(std::vector<std::uint8_t>(buffer.begin(), buffer.begin() + n),
                           settings.source.clock());
      }
    }
    for (const auto& [packet, when] : early) {
      receive(packet.data(), packet.size(), when);
    }
  }

  std::string qtm_command(const std::string& text) {
    const auto packet = encode_qtm_string(QtmPacketType::Command, text);
    tcp.send_all(packet.data(), packet.size());
    for (;;) {
      const auto reply = read_qtm_packet(tcp, settings.connect_timeout);
      if (reply.empty()) {
        throw MocapError("QTM RT server " + server.str() + " did not answer '" + text + "'");
      }
      const QtmPacketType type = decode_qtm_header(reply.data(), reply.size()).first;
      if (type == QtmPacketType::Event) {
        continue;
      }
      const std::string answer = decode_qtm_string(reply.data(), reply.size());
      if (type == QtmPacketType::Error) {
        throw MocapError("QTM RT server " + server.str() + " refused '" + text + "': " + answer);
      }
      return answer;
    }
  }

  /// Connects, retrying a refused connection (a server still starting) until the timeout.
  void connect_tcp() {
    const double deadline = steady_seconds() + settings.connect_timeout;
    for (;;) {
      try {
        tcp = net::TcpStream::connect(server, std::max(0.01, deadline - steady_seconds()));
        return;
      } catch (const MocapError&) {
        if (steady_seconds() + 0.1 >= deadline) {
          throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }

  void connect_qtm() {
    connect_tcp();
    const auto welcome = read_qtm_packet(tcp, settings.connect_timeout);
    if (welcome.empty()) {
      throw MocapError("QTM RT server " + server.str() + " sent no greeting");
    }
    qtm_command(std::string("Version ") + k_qtm_version);
    qtm_names = qtm_body_names(qtm_command("GetParameters 6D"));
    data = std::make_unique<net::UdpSocket>(settings.data_port > 0 ? settings.data_port : 0);
    // StreamFrames has no answer when it succeeds; an error comes back on the TCP channel.
    const auto start = encode_qtm_string(
        QtmPacketType::Command,
        "StreamFrames AllFrames UDP:" + std::to_string(data->local_port()) + " 6D");
    tcp.send_all(start.data(), start.size());
    description = std::string("QTM RT ") + k_qtm_version + " (" + std::to_string(qtm_names.size()) +
                  " bodies)";
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& name : qtm_names) {
      source_locked(name);
    }
  }

  void handle_models(const std::uint8_t* p, std::size_t n) {
    try {
      learn_names(decode_natnet_model_definitions(p, n, version));
    } catch (const MocapError& e) {
      malformed(e.what());
    }
  }

  void handle_natnet(const std::uint8_t* p, std::size_t n, double now) {
    if (n >= 2 && p[1] == 0 && p[0] == static_cast<std::uint8_t>(NatNetMessage::ModelDef)) {
      handle_models(p, n);
      return;
    }
    if (n < 2 || p[1] != 0 || p[0] != static_cast<std::uint8_t>(NatNetMessage::FrameOfData)) {
      return; // server info, keep-alives, message strings: not frames
    }
    try {
      const NatNetFrame frame = decode_natnet_frame(p, n, version);
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++stats.frames;
      }
      // Motive flags a frame whose tracked models changed: the names may have too.
      if ((frame.params & 2) != 0 && steady_seconds() >= next_model_request) {
        request_models();
      }
      for (const auto& [id, sample] : natnet_samples(frame, now)) {
        deliver(std::to_string(id), sample);
      }
    } catch (const MocapError& e) {
      malformed(e.what());
    }
  }

  void handle_qtm(const std::uint8_t* p, std::size_t n, double now) {
    try {
      const auto [type, size] = decode_qtm_header(p, n);
      if (type != QtmPacketType::Data) {
        return;
      }
      const QtmFrame frame = decode_qtm_frame(p, n);
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++stats.frames;
      }
      const std::vector<LiveSample> samples = qtm_samples(frame, now);
      for (std::size_t i = 0; i < samples.size(); ++i) {
        deliver(i < qtm_names.size() ? qtm_names[i] : "body " + std::to_string(i + 1), samples[i]);
      }
    } catch (const MocapError& e) {
      malformed(e.what());
    }
  }

  void run() {
    std::vector<std::uint8_t> buffer(k_datagram);
    std::vector<net::UdpSocket*> sockets; // parallel to fds; null for QTM's TCP channel
    std::vector<pollfd> fds;
    for (net::UdpSocket* socket : {command.get(), data.get()}) {
      if (socket != nullptr) {
        sockets.push_back(socket);
        fds.push_back({socket->fd(), POLLIN, 0});
      }
    }
    if (tcp.valid()) {
      sockets.push_back(nullptr);
      fds.push_back({tcp.fd(), POLLIN, 0});
    }
    double next_keep_alive = steady_seconds() + k_keep_alive;
    while (!stop.load(std::memory_order_relaxed)) {
      if (command && steady_seconds() >= next_keep_alive) {
        keep_alive();
        next_keep_alive += k_keep_alive;
      }
      for (pollfd& f : fds) {
        f.revents = 0;
      }
      if (::poll(fds.data(), fds.size(), static_cast<int>(k_poll * 1000)) <= 0) {
        continue;
      }
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents == 0 || fds[i].fd < 0) {
          continue;
        }
        if (sockets[i] == nullptr) {
          drain_tcp(fds[i]);
          continue;
        }
        try {
          const std::size_t n = sockets[i]->receive(buffer.data(), buffer.size(), 0.0);
          if (n > 0) {
            receive(buffer.data(), n, settings.source.clock());
          }
        } catch (const MocapError& e) { // nothing leaves this thread: noted, and on
          std::lock_guard<std::mutex> lock(mutex);
          stats.last_error = std::string("receiving: ") + e.what();
        }
      }
    }
  }

  /// NatNet's keep-alive message, once a second: keeps a unicast subscription alive; harmless
  /// under multicast.
  void keep_alive() {
    const auto packet = natnet_request(NatNetMessage::KeepAlive);
    try {
      command->send_to(packet.data(), packet.size(), server);
    } catch (const MocapError& e) {
      std::lock_guard<std::mutex> lock(mutex);
      stats.last_error = std::string("NatNet keep-alive: ") + e.what();
    }
  }

  /// QTM's command channel while streaming: events and errors, read and let go; when QTM
  /// closes it, it is no longer polled.
  void drain_tcp(pollfd& f) {
    try {
      read_qtm_packet(tcp, 0.0);
    } catch (const MocapError& e) {
      std::lock_guard<std::mutex> lock(mutex);
      stats.last_error = std::string("QTM RT command channel: ") + e.what();
      f.fd = -1;
    }
  }

  void receive(const std::uint8_t* p, std::size_t n, double now) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.packets;
    }
    if (settings.protocol == LiveProtocol::NatNet) {
      handle_natnet(p, n, now);
    } else {
      handle_qtm(p, n, now);
    }
  }
};

LiveStream::LiveStream(LiveStreamSettings settings) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (!settings.source.clock) {
    settings.source.clock = steady_seconds;
  }
  if (!(settings.connect_timeout > 0.0)) {
    throw MocapError("LiveStreamSettings::connect_timeout must be positive");
  }
  if (!settings.multicast_interface.empty() && settings.multicast.empty()) {
    throw MocapError("LiveStreamSettings::multicast_interface is for multicast: give the group "
                     "too");
  }
  LiveSource check("settings", settings.source); // validates the source settings once
  s.settings = std::move(settings);
  const bool natnet = s.settings.protocol == LiveProtocol::NatNet;
  const int port = s.settings.command_port >= 0 ? s.settings.command_port
                                                : (natnet ? k_natnet_command_port : k_qtm_port);
  s.server = net::resolve(s.settings.server, port);
  const Axis server_up = s.settings.server_up_axis.value_or(natnet ? Axis::Y : Axis::Z);
  if (s.settings.up_axis && *s.settings.up_axis != server_up) {
    s.turning = true;
    s.turn = from_to(axis_vector(server_up), axis_vector(*s.settings.up_axis));
  }
  if (natnet) {
    s.connect_natnet();
  } else {
    s.connect_qtm();
  }
  s.thread = std::thread([&s] { s.run(); });
}

LiveStream::~LiveStream() {
  impl_->stop = true;
  if (impl_->thread.joinable()) {
    impl_->thread.join();
  }
  try {
    if (impl_->tcp.valid()) {
      const auto bye = encode_qtm_string(QtmPacketType::Command, "StreamFrames Stop");
      impl_->tcp.send_all(bye.data(), bye.size());
    } else if (impl_->command) {
      const auto bye = natnet_request(NatNetMessage::Disconnect);
      impl_->command->send_to(bye.data(), bye.size(), impl_->server);
    }
  } catch (const MocapError&) {
    // the server is gone already; nothing to tell it
  }
}

std::shared_ptr<LiveSource> LiveStream::body(const std::string& name) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->source_locked(name);
}

std::vector<std::string> LiveStream::bodies() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->order;
}

LiveStreamStats LiveStream::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

int LiveStream::data_port() const {
  return impl_->data ? impl_->data->local_port() : impl_->command->local_port();
}

std::string LiveStream::server_description() const {
  return impl_->description;
}

} // namespace odemocap
