#include <odemocap/error.hpp>
#include <odemocap/live_stream.hpp>
#include <odemocap/pose_source.hpp>
#include <odemocap/qtm_rt.hpp>
#include <odemocap/quat.hpp>

#include "net/socket.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

namespace odemocap {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double k_poll = 0.05;                // s between checks of the stop flag
constexpr std::size_t k_max_frames = 1u << 24; // frames a server precomputes (about 19 h at 240 Hz)

/// One frame's bodies: pose (m) and tracked flag, in served order; and its markers (m; NaN
/// when not seen).
struct ServedFrame {
  double time = 0.0; ///< s, capture time
  std::vector<Pose> poses;
  std::vector<std::uint8_t> tracked;
  std::vector<Vec3> markers;
};

/// One connected QTM client: its connection (replies and TCP-streamed frames share it) and the
/// protocol version it asked for.
struct QtmSession {
  net::TcpStream stream;
  std::mutex send;
  std::string version = "1.1"; // what QTM assumes until a Version command
};

constexpr double k_natnet_clock = 1e7;  // ticks per s of the NatNet timestamps (as a PC's QPC)
constexpr double k_natnet_timeout = 10; // s of silence after which a keep-alive client is gone
constexpr NatNetVersion k_natnet_oldest{2, 0};
constexpr NatNetVersion k_natnet_newest{4, 1};
constexpr std::uint8_t k_event_rt_from_file_started = 8; // QTM RT event: real time from a file

/// Where a client wants frames: a UDP endpoint or its TCP connection (QTM). A NatNet client is
/// known by the endpoint its requests come from (address and port: several clients may share a
/// host) and reads frames in its own version.
struct Destination {
  net::Endpoint udp;
  bool tcp = false;
  net::Endpoint reply;    ///< NatNet: where its requests come from
  NatNetVersion version;  ///< NatNet: what it reads
  Clock::time_point heard; ///< NatNet: its last request
  bool keeps_alive = false; ///< NatNet: it has sent a keep-alive (so silence means gone)
  std::shared_ptr<QtmSession> session;   ///< QTM: the client that asked
  std::vector<QtmComponent> components;  ///< QTM: what it streams, in its order
  std::uint64_t divisor = 1;             ///< QTM: every divisor-th frame
  bool group = false;                    ///< NatNet: the multicast group (group_senders)
};

/// The version a NatNet connect request asks for: NatNet 4 SDKs send "Ping", zeros and the
/// version's four bytes at payload offset 265 (some at 264, right after 260 zeros); older
/// clients send "Ping" alone. Nothing when the request names none.
std::optional<NatNetVersion> requested_version(const std::uint8_t* packet, std::size_t size) {
  const std::size_t payload = size - 4;
  for (std::size_t at : {std::size_t{265}, std::size_t{264}}) {
    if (payload >= at + 4 && packet[4 + at] >= 2 && packet[4 + at] <= 9) {
      return NatNetVersion{packet[4 + at], packet[4 + at + 1]};
    }
  }
  return std::nullopt;
}

/// `v` within what the encoder writes: 2.0 to 4.1.
NatNetVersion servable(NatNetVersion v) {
  if (v < k_natnet_oldest) {
    return k_natnet_oldest;
  }
  return k_natnet_newest < v ? k_natnet_newest : v;
}

/// A Bitstream request's version ("Bitstream,3.1" or "Bitstream 3.1"), if well formed.
std::optional<NatNetVersion> bitstream_version(const std::string& text) {
  if (text.rfind("Bitstream", 0) != 0 || text.size() < 12) {
    return std::nullopt;
  }
  const char* p = text.c_str() + 10;
  char* end = nullptr;
  const long major = std::strtol(p, &end, 10);
  if (end == p || *end != '.') {
    return std::nullopt;
  }
  const long minor = std::strtol(end + 1, nullptr, 10);
  if (major < 2 || major > 9 || minor < 0 || minor > 99) {
    return std::nullopt;
  }
  return NatNetVersion{static_cast<int>(major), static_cast<int>(minor)};
}

/// Whether `track` has data at `time`: a valid sample there, or valid samples on both sides
/// (a gap or the time outside the track is not tracked, as a capture system would send it).
bool recorded_at(const Track& track, double time) {
  constexpr double k_same = 1e-9; // s
  const TimeBase& times = track.times();
  const auto at = std::lower_bound(times.begin(), times.end(), time - k_same);
  if (at == times.end()) {
    return false;
  }
  const auto i = static_cast<std::size_t>(at - times.begin());
  if (std::abs(*at - time) <= k_same) {
    return track.valid(i);
  }
  return i > 0 && track.valid(i) && track.valid(i - 1);
}

} // namespace

struct StreamServer::Impl {
  StreamServerSettings settings;
  std::vector<std::string> names;
  std::vector<ServedFrame> frames;
  double rate = 0.0;

  std::unique_ptr<net::UdpSocket> command; // NatNet
  std::unique_ptr<net::UdpSocket> data;    // both: frames leave from here
  /// NatNet multicast: frames to the group leave from each, by its interface.
  std::vector<std::unique_ptr<net::UdpSocket>> group_senders;
  std::unique_ptr<net::TcpListener> listener;
  std::unique_ptr<net::UdpSocket> discovery; // QTM: discover requests arrive here
  std::thread discovery_thread;
  std::vector<std::thread> qtm_threads; // one per QTM client
  std::vector<std::string> marker_names;
  std::atomic<std::uint64_t> current{0}; // the frame being served, for GetCurrentFrame

  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::vector<Destination> destinations;
  bool subscribed = false;
  bool finished = false;
  StreamServerStats stats;

  std::atomic<bool> stop{false};
  Clock::time_point started = Clock::now();
  std::thread control_thread;
  std::thread send_thread;

  void subscribe(const Destination& d) {
    std::lock_guard<std::mutex> lock(mutex);
    const auto same = std::find_if(destinations.begin(), destinations.end(), [&](const Destination& e) {
      return e.tcp == d.tcp && e.session == d.session && (d.tcp || e.udp == d.udp);
    });
    if (same == destinations.end()) {
      destinations.push_back(d);
    } else {
      *same = d; // a client asking again: its version, endpoints and components as it asks now
    }
    subscribed = true;
    changed.notify_all();
  }

  /// Forgets what a QTM client asked to stream.
  void unsubscribe(const std::shared_ptr<QtmSession>& session) {
    std::lock_guard<std::mutex> lock(mutex);
    destinations.erase(std::remove_if(destinations.begin(), destinations.end(),
                                      [&](const Destination& d) { return d.session == session; }),
                       destinations.end());
  }

  // --- NatNet -----------------------------------------------------------------------------

  void natnet_control() {
    std::vector<std::uint8_t> buffer(65536);
    while (!stop.load(std::memory_order_relaxed)) {
      try {
        natnet_answer_once(buffer);
      } catch (const MocapError&) {
        // a reply that could not be sent (the client is gone): the next request is answered
      }
      natnet_forget_silent();
    }
  }

  /// The client whose requests come from `from`: its version, and marks it heard.
  NatNetVersion natnet_heard(const net::Endpoint& from, bool keep_alive) {
    std::lock_guard<std::mutex> lock(mutex);
    for (Destination& d : destinations) {
      if (!d.tcp && d.reply == from) {
        d.heard = Clock::now();
        d.keeps_alive = d.keeps_alive || keep_alive;
        return d.version;
      }
    }
    return settings.natnet_version;
  }

  /// Unicast clients that sent keep-alives and then fell silent are gone (Motive's behaviour);
  /// clients that never send one (older SDKs) stay until they disconnect.
  void natnet_forget_silent() {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex);
    destinations.erase(std::remove_if(destinations.begin(), destinations.end(),
                                      [&](const Destination& d) {
                                        return !d.tcp && d.keeps_alive &&
                                               std::chrono::duration<double>(now - d.heard)
                                                       .count() > k_natnet_timeout;
                                      }),
                       destinations.end());
  }

  /// Answers one request on the command port, if one comes within k_poll.
  void natnet_answer_once(std::vector<std::uint8_t>& buffer) {
    net::Endpoint from;
    const std::size_t n = command->receive(buffer.data(), buffer.size(), k_poll, &from);
    if (n < 4 || buffer[1] != 0) {
      return;
    }
    const auto message = static_cast<NatNetMessage>(buffer[0]);
    switch (message) {
    case NatNetMessage::Connect: return natnet_connect(buffer.data(), n, from);
    case NatNetMessage::RequestModelDef: {
      const auto reply =
          encode_natnet_model_definitions(natnet_models(), natnet_heard(from, false));
      command->send_to(reply.data(), reply.size(), from);
      return;
    }
    case NatNetMessage::KeepAlive: {
      natnet_heard(from, true);
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.keep_alives;
      return;
    }
    case NatNetMessage::EchoRequest: {
      natnet_heard(from, false);
      const auto reply = encode_natnet_echo_response(buffer.data(), n, natnet_ticks());
      command->send_to(reply.data(), reply.size(), from);
      return;
    }
    case NatNetMessage::Request: return natnet_request(buffer.data(), n, from);
    case NatNetMessage::Disconnect: {
      std::lock_guard<std::mutex> lock(mutex);
      destinations.erase(std::remove_if(destinations.begin(), destinations.end(),
                                        [&](const Destination& d) {
                                          return !d.tcp && d.reply == from;
                                        }),
                         destinations.end());
      return;
    }
    default: {
      const std::uint8_t unrecognized[4] = {
          static_cast<std::uint8_t>(NatNetMessage::Unrecognized), 0, 0, 0};
      command->send_to(unrecognized, sizeof unrecognized, from);
      return;
    }
    }
  }

  /// A connect request: the server info in the version the client asks for (or the server's),
  /// and frames from now on to where it asked them from (Motive's unicast: the socket the
  /// request came from), to its address at the data port, or to the multicast group.
  void natnet_connect(const std::uint8_t* packet, std::size_t size, const net::Endpoint& from) {
    const NatNetVersion version =
        servable(requested_version(packet, size).value_or(settings.natnet_version));
    NatNetServerInfo info;
    info.application = "odemocap serve";
    info.application_version = {1, 0, 0, 0};
    info.natnet_version = {static_cast<std::uint8_t>(version.major),
                           static_cast<std::uint8_t>(version.minor), 0, 0};
    info.clock_frequency = static_cast<std::uint64_t>(k_natnet_clock);
    info.data_port = static_cast<std::uint16_t>(natnet_data_port());
    info.multicast = !settings.multicast.empty();
    if (info.multicast) {
      const net::Endpoint group = net::resolve(settings.multicast, natnet_data_port());
      const std::uint32_t a = group.address; // network byte order: first byte first in memory
      std::memcpy(info.multicast_group.data(), &a, 4);
    }
    const auto reply = encode_natnet_server_info(info);
    command->send_to(reply.data(), reply.size(), from);
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.clients;
    }
    Destination d;
    d.reply = from;
    d.udp = from;
    d.version = version;
    d.heard = Clock::now();
    if (info.multicast) {
      d.udp = net::resolve(settings.multicast, natnet_data_port());
      d.group = true;
      d.version = settings.natnet_version; // one stream for every listener
    } else if (settings.data_port > 0) {
      d.udp.port = static_cast<std::uint16_t>(settings.data_port);
    }
    subscribe(d);
  }

  /// A command string: "Bitstream,X.Y" switches the client's version (NatNet 4 SDKs ask so);
  /// Motive's playback commands need no answer but success; others are not recognised.
  void natnet_request(const std::uint8_t* packet, std::size_t size, const net::Endpoint& from) {
    std::string text(reinterpret_cast<const char*>(packet) + 4, size - 4);
    text = text.substr(0, text.find('\0'));
    natnet_heard(from, false);
    std::int32_t result = 0;
    if (const std::optional<NatNetVersion> asked = bitstream_version(text)) {
      const NatNetVersion v = servable(*asked);
      std::lock_guard<std::mutex> lock(mutex);
      for (Destination& d : destinations) {
        if (!d.tcp && d.reply == from && settings.multicast.empty()) {
          d.version = v;
        }
      }
      result = v.major == asked->major && v.minor == asked->minor ? 0 : -1;
    } else if (text.rfind("Timeline", 0) != 0 && text.rfind("SetPlayback", 0) != 0) {
      result = -1;
    }
    std::uint8_t reply[8] = {static_cast<std::uint8_t>(NatNetMessage::Response), 0, 4, 0};
    std::memcpy(reply + 4, &result, 4); // little-endian hosts only, as the whole codec
    command->send_to(reply, sizeof reply, from);
  }

  NatNetModelDefinitions natnet_models() const {
    NatNetModelDefinitions defs;
    if (!marker_names.empty()) {
      defs.marker_sets.push_back({"all", marker_names});
    }
    for (std::size_t b = 0; b < names.size(); ++b) {
      NatNetRigidBodyDescription d;
      d.name = names[b];
      d.id = static_cast<std::int32_t>(b + 1);
      defs.rigid_bodies.push_back(d);
    }
    return defs;
  }

  /// Now on the NatNet clock: ticks since the server started.
  std::uint64_t natnet_ticks() const {
    return static_cast<std::uint64_t>(
        std::chrono::duration<double>(Clock::now() - started).count() * k_natnet_clock);
  }

  int natnet_data_port() const {
    return settings.data_port < 0 ? k_natnet_data_port : settings.data_port;
  }

  std::vector<std::uint8_t> natnet_packet(const ServedFrame& f, std::uint32_t number,
                                          NatNetVersion version) const {
    NatNetFrame frame;
    frame.frame = number;
    frame.timestamp = f.time;
    // 3.0+ stamps on the server's clock: the exposure at the frame's capture time, received
    // as it was made, sent now.
    const double exposure = std::max(0.0, f.time) * k_natnet_clock;
    frame.mid_exposure = static_cast<std::uint64_t>(std::llround(exposure));
    frame.data_received = frame.mid_exposure;
    frame.transmit = std::max(frame.mid_exposure, natnet_ticks());
    if (!f.markers.empty()) {
      // Motive sends its markers twice: in the "all" marker set, and labelled (ids 1, 2, ...
      // in the set's order, model 0); a marker not seen is occluded at the origin.
      NatNetMarkerSet all{"all", {}};
      for (std::size_t m = 0; m < f.markers.size(); ++m) {
        const bool seen = std::isfinite(f.markers[m].x);
        all.markers.push_back(seen ? f.markers[m] : Vec3{});
        NatNetLabeledMarker label;
        label.id = static_cast<std::uint16_t>(m + 1);
        label.position = all.markers.back();
        label.size = 0.014f;
        label.params = seen ? 0 : 1;
        frame.labeled_markers.push_back(label);
      }
      frame.marker_sets.push_back(std::move(all));
    }
    frame.rigid_bodies.resize(f.poses.size());
    for (std::size_t b = 0; b < f.poses.size(); ++b) {
      NatNetRigidBody& body = frame.rigid_bodies[b];
      body.id = static_cast<std::int32_t>(b + 1);
      body.tracking_valid = f.tracked[b] != 0;
      if (body.tracking_valid) { // Motive sends an untracked body at the origin
        body.position = f.poses[b].p;
        body.orientation = f.poses[b].q;
      }
    }
    return encode_natnet_frame(frame, version);
  }

  // --- QTM --------------------------------------------------------------------------------

  static void qtm_send(QtmSession& session, const std::vector<std::uint8_t>& packet) {
    std::lock_guard<std::mutex> lock(session.send);
    session.stream.send_all(packet.data(), packet.size());
  }

  static void qtm_reply(QtmSession& session, const std::string& text,
                        QtmPacketType type = QtmPacketType::Command) {
    qtm_send(session, encode_qtm_string(type, text));
  }

  /// Answers QTM discover packets (a client's broadcast) as QTM does: to the port the packet
  /// names at its sender's address, with a description and the base port (the RT port - 1).
  void qtm_discovery() {
    std::vector<std::uint8_t> buffer(512);
    const std::string text = "odemocap serve, " + std::to_string(names.size()) + " 6D bodies, " +
                             std::to_string(marker_names.size()) + " markers";
    const auto reply =
        encode_qtm_discover_response(text, static_cast<std::uint16_t>(listener->local_port() - 1));
    while (!stop.load(std::memory_order_relaxed)) {
      try {
        net::Endpoint from;
        const std::size_t n = discovery->receive(buffer.data(), buffer.size(), k_poll, &from);
        if (const std::optional<std::uint16_t> port = decode_qtm_discover(buffer.data(), n)) {
          from.port = *port;
          discovery->send_to(reply.data(), reply.size(), from);
        }
      } catch (const MocapError&) {
        // an answer that could not be sent: the next request is answered
      }
    }
  }

  /// Accepts clients, each served by a thread of its own until it leaves or the server stops.
  void qtm_control() {
    while (!stop.load(std::memory_order_relaxed)) {
      try {
        net::TcpStream next = listener->accept(k_poll);
        if (!next.valid()) {
          continue;
        }
        auto session = std::make_shared<QtmSession>();
        session->stream = std::move(next);
        {
          std::lock_guard<std::mutex> lock(mutex);
          ++stats.clients;
        }
        qtm_threads.emplace_back([this, session] { qtm_serve(session); });
      } catch (const MocapError&) {
        // a failed accept: wait for the next client
      }
    }
    for (std::thread& t : qtm_threads) {
      t.join();
    }
  }

  void qtm_serve(const std::shared_ptr<QtmSession>& session) {
    try {
      qtm_reply(*session, "QTM RT Interface connected");
      while (!stop.load(std::memory_order_relaxed)) {
        std::vector<std::uint8_t> packet(k_qtm_header_bytes);
        if (!session->stream.receive_exact(packet.data(), packet.size(), k_poll)) {
          continue;
        }
        const std::size_t size = decode_qtm_header(packet.data(), packet.size()).second;
        packet.resize(size);
        if (size > k_qtm_header_bytes) {
          session->stream.receive_exact(packet.data() + k_qtm_header_bytes,
                                        size - k_qtm_header_bytes, 2.0);
        }
        qtm_command(session, decode_qtm_string(packet.data(), packet.size()));
      }
    } catch (const MocapError&) {
      // the client left or spoke nonsense: it is dropped, the others go on
    }
    unsubscribe(session);
    std::lock_guard<std::mutex> lock(session->send);
    session->stream.close();
  }

  /// One command, as QTM answers it; commands and their words are read in any case.
  void qtm_command(const std::shared_ptr<QtmSession>& session, const std::string& text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) {
      words.push_back(w);
    }
    std::vector<std::string> lower = words;
    for (std::string& w : lower) {
      std::transform(w.begin(), w.end(), w.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    QtmSession& s = *session;
    if (lower.empty()) {
      return qtm_reply(s, "Parse error", QtmPacketType::Error);
    }
    const std::string& verb = lower[0];
    if (verb == "version") {
      if (words.size() == 1) {
        return qtm_reply(s, "Version is " + s.version);
      }
      const std::string& asked = words[1];
      const int minor = std::atoi(asked.c_str() + std::min<std::size_t>(2, asked.size()));
      if (asked.rfind("1.", 0) != 0 || minor < 1 || minor > 26) {
        return qtm_reply(s, "Version NOT supported", QtmPacketType::Error);
      }
      s.version = asked;
      return qtm_reply(s, "Version set to " + asked);
    }
    if (verb == "byteorder") {
      return qtm_reply(s, "Byte order is little endian");
    }
    if (verb == "qtmversion") {
      return qtm_reply(s, "QTM Version is odemocap serve");
    }
    if (verb == "getstate") {
      // A server playing a capture is what QTM is when it plays a file in real time.
      std::vector<std::uint8_t> event{0, 0, 0, 0, 0, 0, 0, 0, k_event_rt_from_file_started};
      event[0] = 9;
      event[4] = static_cast<std::uint8_t>(QtmPacketType::Event);
      return qtm_send(s, event);
    }
    if (verb == "getparameters") {
      return qtm_parameters(s, lower);
    }
    if (verb == "getcurrentframe") {
      std::vector<QtmComponent> components;
      if (!qtm_components(s, words, 1, components)) {
        return;
      }
      const std::uint64_t n = current.load();
      return qtm_send(s, qtm_packet(frames[n % frames.size()], static_cast<std::uint32_t>(n),
                                    components));
    }
    if (verb == "streamframes") {
      return qtm_stream(session, words, lower);
    }
    qtm_reply(s, "Parse error: '" + words[0] + "' is not a command odemocap serve knows",
              QtmPacketType::Error);
  }

  void qtm_parameters(QtmSession& s, const std::vector<std::string>& lower) {
    bool general = false, the_3d = false, the_6d = false;
    for (std::size_t i = 1; i < lower.size(); ++i) {
      const std::string& w = lower[i];
      if (w == "all") {
        general = the_3d = the_6d = true;
      } else if (w == "general") {
        general = true;
      } else if (w == "3d") {
        the_3d = true;
      } else if (w == "6d") {
        the_6d = true;
      } else if (w != "analog" && w != "force" && w != "image" && w != "gazevector" &&
                 w != "eyetracker" && w != "skeleton" && w != "skeleton:global" &&
                 w != "calibration") {
        return qtm_reply(s, "Parse error: unknown parameter '" + w + "'", QtmPacketType::Error);
      }
    }
    if (lower.size() == 1) {
      general = the_3d = the_6d = true; // what "GetParameters" alone means to QTM
    }
    QtmParameters p;
    p.frequency = rate;
    p.capture_time = static_cast<double>(frames.size()) / rate;
    p.bodies = names;
    p.markers = marker_names;
    const Axis up = settings.up_axis.value_or(Axis::Z);
    p.up_axis = up == Axis::X ? 'X' : up == Axis::Y ? 'Y' : 'Z';
    qtm_send(s, encode_qtm_string(QtmPacketType::Xml,
                                  qtm_parameters_xml(p, s.version, general, the_3d, the_6d)));
  }

  /// The components named from word `first` on; false (after QTM's error reply) when one is not
  /// a component or is one a capture cannot give.
  bool qtm_components(QtmSession& s, const std::vector<std::string>& words, std::size_t first,
                      std::vector<QtmComponent>& out) {
    for (std::size_t i = first; i < words.size(); ++i) {
      bool known = false;
      const std::optional<QtmComponent> c = parse_qtm_component(words[i], &known);
      if (!c) {
        qtm_reply(s,
                  known ? words[i] + " is not available: odemocap serve streams the 3D and 6D "
                                     "components of a capture"
                        : "Parse error: unknown component '" + words[i] + "'",
                  QtmPacketType::Error);
        return false;
      }
      out.push_back(*c);
    }
    if (out.empty()) {
      qtm_reply(s, "Parse error: no component given", QtmPacketType::Error);
      return false;
    }
    return true;
  }

  /// StreamFrames Stop | StreamFrames AllFrames|Frequency:n|FrequencyDivisor:n
  /// [UDP[:address]:port] components...: frames over the client's connection, or UDP.
  void qtm_stream(const std::shared_ptr<QtmSession>& session, const std::vector<std::string>& words,
                  const std::vector<std::string>& lower) {
    QtmSession& s = *session;
    if (lower.size() == 2 && lower[1] == "stop") {
      return unsubscribe(session);
    }
    if (lower.size() < 3) {
      return qtm_reply(s, "Parse error: StreamFrames needs a rate and components",
                       QtmPacketType::Error);
    }
    Destination d;
    d.session = session;
    d.tcp = true;
    const std::string& rate_word = lower[1];
    if (rate_word.rfind("frequencydivisor:", 0) == 0) {
      d.divisor = std::max<long long>(1, std::atoll(rate_word.c_str() + 17));
    } else if (rate_word.rfind("frequency:", 0) == 0) {
      const double asked = std::atof(rate_word.c_str() + 10);
      d.divisor = asked > 0.0 ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(
                                                               std::llround(rate / asked)))
                              : 1;
    } else if (rate_word != "allframes") {
      return qtm_reply(s, "Parse error: '" + words[1] + "' is not AllFrames, Frequency:n or "
                                                        "FrequencyDivisor:n",
                       QtmPacketType::Error);
    }
    std::size_t next = 2;
    if (lower[2].rfind("udp", 0) == 0) {
      d.tcp = false;
      d.udp = s.stream.peer();
      const std::string spec = words[2].size() > 4 ? words[2].substr(4) : std::string();
      const std::size_t colon = spec.rfind(':');
      if (colon != std::string::npos) {
        d.udp = net::resolve(spec.substr(0, colon), 0);
      }
      d.udp.port = static_cast<std::uint16_t>(std::atoi(spec.c_str() + (colon == std::string::npos ? 0 : colon + 1)));
      if (d.udp.port == 0) {
        return qtm_reply(s, "Parse error: UDP needs a port", QtmPacketType::Error);
      }
      next = 3;
    }
    if (!qtm_components(s, words, next, d.components)) {
      return;
    }
    subscribe(d); // QTM answers StreamFrames with the frames themselves
  }

  std::vector<std::uint8_t> qtm_packet(const ServedFrame& f, std::uint32_t number,
                                       const std::vector<QtmComponent>& components) const {
    QtmFrame frame;
    frame.frame = number;
    frame.timestamp = static_cast<std::uint64_t>(std::llround(std::max(0.0, f.time) * 1e6));
    frame.has_bodies = true;
    frame.bodies.resize(f.poses.size());
    const float nan = std::nanf("");
    for (const Vec3& m : f.markers) {
      frame.markers.push_back(std::isfinite(m.x) ? m * 1e3 : Vec3{nan, nan, nan});
    }
    for (std::size_t b = 0; b < f.poses.size(); ++b) {
      if (f.tracked[b] != 0) {
        frame.bodies[b] = qtm_body(f.poses[b]);
      } else {
        frame.bodies[b].position = {nan, nan, nan};
        frame.bodies[b].rotation.fill(nan);
      }
    }
    return encode_qtm_frame(frame, components);
  }

  // --- sending ----------------------------------------------------------------------------

  /// Sends frame `f` as number `number` to every destination (NatNet: encoded once per version
  /// the clients read).
  void send(const ServedFrame& f, std::uint32_t number) {
    std::vector<Destination> to;
    {
      std::lock_guard<std::mutex> lock(mutex);
      to = destinations;
      ++stats.sent;
    }
    // Encoded once per NatNet version or QTM component list the clients asked for.
    std::vector<std::pair<const Destination*, std::vector<std::uint8_t>>> encoded;
    const auto packet = [&](const Destination& d) -> const std::vector<std::uint8_t>& {
      for (const auto& [other, bytes] : encoded) {
        if (other->version.major == d.version.major && other->version.minor == d.version.minor &&
            other->components == d.components) {
          return bytes;
        }
      }
      encoded.emplace_back(&d, settings.protocol == LiveProtocol::NatNet
                                   ? natnet_packet(f, number, d.version)
                                   : qtm_packet(f, number, d.components));
      return encoded.back().second;
    };
    for (const Destination& d : to) {
      if (number % d.divisor != 0) {
        continue;
      }
      try {
        const std::vector<std::uint8_t>& bytes = packet(d);
        if (d.tcp) {
          qtm_send(*d.session, bytes);
        } else if (d.group) {
          send_to_group(bytes, d.udp);
        } else {
          data->send_to(bytes.data(), bytes.size(), d.udp);
        }
      } catch (const MocapError&) {
        // a client that went away; the others still get their frames
      }
    }
  }

  /// A frame to the multicast group by each interface: a failure on one (its network down)
  /// does not keep it from the others.
  void send_to_group(const std::vector<std::uint8_t>& bytes, const net::Endpoint& group) {
    for (const std::unique_ptr<net::UdpSocket>& sender : group_senders) {
      try {
        sender->send_to(bytes.data(), bytes.size(), group);
      } catch (const MocapError&) {
      }
    }
  }

  /// The sockets frames to the multicast group leave from: by the interface settings name, or
  /// else by loopback and by the interface the system routes the group through (unless that
  /// is loopback too, which would send each frame twice there).
  void open_group_senders() {
    const auto sender = [this](std::optional<std::uint32_t> interface_address) {
      auto socket = std::make_unique<net::UdpSocket>(0);
      socket->set_multicast_loopback(true); // receivers on this machine get the frames too
      if (interface_address) {
        socket->set_multicast_interface(*interface_address);
      }
      group_senders.push_back(std::move(socket));
    };
    if (!settings.multicast_interface.empty()) {
      const char* what = "StreamServerSettings::multicast_interface";
      const std::uint32_t address = net::ipv4_address(settings.multicast_interface, what);
      try {
        sender(address);
      } catch (const MocapError& e) {
        throw MocapError(std::string(what) + " '" + settings.multicast_interface +
                         "' names no interface of this machine (" + e.what() + ")");
      }
      return;
    }
    sender(net::ipv4_address("127.0.0.1", "loopback"));
    const std::uint32_t routed = net::route_source(net::resolve(settings.multicast, 0));
    if (routed != 0 && !net::is_loopback(routed)) {
      sender(std::nullopt);
    }
  }

  void send_loop() {
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (!subscribed && !stop) {
        changed.wait_for(lock, std::chrono::milliseconds(50));
      }
    }
    std::mt19937 rng(settings.seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const Clock::time_point start = Clock::now();
    const double duration = static_cast<double>(frames.size()) / rate;
    std::uint64_t cycle = 0;
    do {
      // This cycle's frames with their send times (nominal + jitter); sent in time order, so
      // a frame delayed by more than a frame interval arrives after its successor.
      std::vector<std::pair<double, std::size_t>> schedule;
      for (std::size_t i = 0; i < frames.size(); ++i) {
        const bool lost = uniform(rng) < settings.loss;
        const double delay = settings.jitter * uniform(rng);
        if (lost) {
          std::lock_guard<std::mutex> lock(mutex);
          ++stats.dropped;
          continue;
        }
        schedule.emplace_back(
            static_cast<double>(cycle) * duration + static_cast<double>(i) / rate + delay, i);
      }
      std::stable_sort(schedule.begin(), schedule.end());
      for (const auto& [when, i] : schedule) {
        const Clock::time_point at = start + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(when));
        while (Clock::now() < at && !stop) {
          std::this_thread::sleep_until(std::min(at, Clock::now() + std::chrono::milliseconds(50)));
        }
        if (stop) {
          return;
        }
        const std::uint64_t number = cycle * frames.size() + i;
        current.store(number);
        ServedFrame frame = frames[i];
        frame.time += static_cast<double>(cycle) * duration;
        send(frame, static_cast<std::uint32_t>(number));
      }
      ++cycle;
    } while (settings.loop && !stop);
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    changed.notify_all();
  }

  void build_frames(const Capture& capture) {
    const double metres = capture.info().metres_per_unit();
    if (!(metres > 0.0)) {
      throw MocapError("StreamServer: the capture's length unit is unknown (load it with a "
                       "unit, e.g. --unit mm): servers send metres or millimetres");
    }
    const Axis from = capture.info().up_axis;
    const Axis to =
        settings.up_axis.value_or(settings.protocol == LiveProtocol::NatNet ? Axis::Y : Axis::Z);
    const Quat turn = from == to ? Quat{} : from_to(axis_vector(from), axis_vector(to));
    std::vector<TrackSource> sources;
    std::vector<TrackSource> markers;
    for (const Track& t : capture.tracks()) {
      if (t.valid_count() == 0) {
        continue;
      }
      if (t.position_only()) {
        markers.emplace_back(t);
        marker_names.push_back(t.name());
      } else {
        sources.emplace_back(t);
        names.push_back(t.name());
      }
    }
    if (sources.empty() && markers.empty()) {
      throw MocapError("StreamServer: the capture has no rigid body and no marker (a track with "
                       "a valid sample) to serve");
    }
    double start = INFINITY, end = -INFINITY;
    for (const std::vector<TrackSource>* group : {&sources, &markers}) {
      for (const TrackSource& s : *group) {
        start = std::min(start, s.start_time());
        end = std::max(end, s.end_time());
      }
    }
    rate = settings.rate > 0.0 ? settings.rate : capture.info().frame_rate;
    if (!(rate > 0.0)) {
      throw MocapError("StreamServer: the capture has no frame rate; give one (--rate)");
    }
    const double span = (end - start) * rate;
    if (!(span < static_cast<double>(k_max_frames))) {
      throw MocapError("StreamServer: " + std::to_string(span) + " frames are more than " +
                       std::to_string(k_max_frames) + " (a lower rate?)");
    }
    const auto count = static_cast<std::size_t>(std::floor(span + 1e-9)) + 1;
    frames.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      ServedFrame& f = frames[i];
      f.time = start + static_cast<double>(i) / rate;
      f.poses.resize(sources.size());
      f.tracked.resize(sources.size());
      for (std::size_t b = 0; b < sources.size(); ++b) {
        Pose p;
        f.tracked[b] = recorded_at(sources[b].track(), f.time) && sources[b].pose(f.time, p);
        f.poses[b] = {rotate(turn, p.p * metres), turn * p.q};
      }
      f.markers.resize(markers.size());
      for (std::size_t m = 0; m < markers.size(); ++m) {
        Pose p;
        const bool seen = recorded_at(markers[m].track(), f.time) && markers[m].pose(f.time, p);
        f.markers[m] = seen ? rotate(turn, p.p * metres) : Vec3{NAN, NAN, NAN};
      }
    }
  }
};

StreamServer::StreamServer(const Capture& capture, StreamServerSettings settings)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (!(settings.loss >= 0.0 && settings.loss < 1.0)) {
    throw MocapError("StreamServerSettings::loss must be in [0, 1)");
  }
  if (!(settings.jitter >= 0.0 && settings.jitter <= 10.0)) {
    throw MocapError("StreamServerSettings::jitter must be in [0, 10] s");
  }
  if (!(settings.rate >= 0.0 && settings.rate <= 100000.0)) {
    throw MocapError("StreamServerSettings::rate must be in [0, 100000] Hz");
  }
  if (settings.discovery_port < -1 || settings.discovery_port > 65535) {
    throw MocapError("StreamServerSettings::discovery_port must be -1 to 65535, got " +
                     std::to_string(settings.discovery_port));
  }
  if (!settings.multicast_interface.empty() && settings.multicast.empty()) {
    throw MocapError("StreamServerSettings::multicast_interface is for multicast: give the "
                     "group too");
  }
  if (settings.protocol == LiveProtocol::NatNet) {
    encode_natnet_frame(NatNetFrame{}, settings.natnet_version); // refuses unknown versions
  }
  s.settings = std::move(settings);
  s.build_frames(capture);
  // Frames too big for one packet are refused here, not in the sending thread.
  if (s.settings.protocol == LiveProtocol::NatNet) {
    s.natnet_packet(s.frames.front(), 0, s.settings.natnet_version);
  } else {
    s.qtm_packet(s.frames.front(), 0, {QtmComponent::Body6dResidual, QtmComponent::Marker3dResidual});
  }
  s.data = std::make_unique<net::UdpSocket>(0);
  if (s.settings.protocol == LiveProtocol::NatNet) {
    const int port = s.settings.command_port < 0 ? k_natnet_command_port : s.settings.command_port;
    s.command = std::make_unique<net::UdpSocket>(port);
    if (!s.settings.multicast.empty()) {
      s.open_group_senders();
    }
    s.control_thread = std::thread([&s] { s.natnet_control(); });
  } else {
    const int port = s.settings.command_port < 0 ? k_qtm_port : s.settings.command_port;
    s.listener = std::make_unique<net::TcpListener>(port);
    try {
      // Shared: every QTM (and server) on a machine answers the broadcast on 22226.
      s.discovery = std::make_unique<net::UdpSocket>(
          s.settings.discovery_port < 0 ? k_qtm_discovery_port : s.settings.discovery_port, true);
    } catch (const MocapError&) {
      // The port taken without sharing: frames are served, discovery is not (discovery_port()
      // says 0).
    }
    s.control_thread = std::thread([&s] { s.qtm_control(); });
    if (s.discovery) {
      s.discovery_thread = std::thread([&s] { s.qtm_discovery(); });
    }
  }
  s.send_thread = std::thread([&s] { s.send_loop(); });
}

StreamServer::~StreamServer() {
  impl_->stop = true;
  impl_->changed.notify_all();
  impl_->send_thread.join();
  impl_->control_thread.join();
  if (impl_->discovery_thread.joinable()) {
    impl_->discovery_thread.join();
  }
}

int StreamServer::discovery_port() const {
  return impl_->discovery ? impl_->discovery->local_port() : 0;
}

int StreamServer::command_port() const {
  return impl_->command ? impl_->command->local_port() : impl_->listener->local_port();
}

const std::vector<std::string>& StreamServer::bodies() const {
  return impl_->names;
}
std::size_t StreamServer::frame_count() const {
  return impl_->frames.size();
}
double StreamServer::rate() const {
  return impl_->rate;
}

bool StreamServer::wait_finished(double timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->changed.wait_for(lock, std::chrono::duration<double>(timeout),
                                 [this] { return impl_->finished; });
}

StreamServerStats StreamServer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

} // namespace odemocap
