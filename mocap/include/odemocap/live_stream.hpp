#pragma once
/// Live capture over the network: LiveStream receives OptiTrack NatNet or Qualisys QTM RT frames
/// on a thread of its own and feeds one LiveSource per rigid body; StreamServer plays a capture
/// as Motive or QTM would (for tests, demos and users without hardware).

#include <odemocap/capture.hpp>
#include <odemocap/live_source.hpp>
#include <odemocap/natnet.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap {

enum class LiveProtocol { NatNet, Qtm };

/// "natnet" or "qtm"; throws MocapError naming the choices.
LiveProtocol parse_live_protocol(std::string_view name);
const char* protocol_name(LiveProtocol protocol);

/// Well-known ports.
constexpr int k_natnet_command_port = 1510;
constexpr int k_natnet_data_port = 1511;
constexpr const char* k_natnet_multicast_group = "239.255.42.99";
constexpr int k_qtm_port = 22223; ///< QTM RT, little-endian

/// Where and how to receive; every field has a default.
struct LiveStreamSettings {
  LiveProtocol protocol = LiveProtocol::NatNet;
  std::string server = "127.0.0.1"; ///< Motive's or QTM's address
  /// The server's command port; -1: the protocol's (NatNet 1510, QTM 22223).
  int command_port = -1;
  /// The local UDP port frames arrive on. NatNet: -1 is Motive's 1511; 0 takes frames on the
  /// command socket (servers that answer there). QTM: -1 or 0 picks a free port and asks QTM to
  /// stream to it.
  int data_port = -1;
  /// NatNet multicast group to join ("" for unicast; Motive's default is 239.255.42.99).
  std::string multicast;
  /// With `multicast`: the IPv4 address of the local interface to join the group on (the one
  /// the server sends by, e.g. "127.0.0.1" for a server on this machine sending on loopback, as
  /// Motive's default Local Interface); "": the interface the system routes the group through.
  std::string multicast_interface;
  double connect_timeout = 2.0; ///< s to wait for the server's answers
  /// The up axis of the server's world frame; default the protocol's: NatNet Y (Motive's
  /// default), QTM Z.
  std::optional<Axis> server_up_axis;
  /// When set, poses are turned from the server's up axis to this one (the shortest rotation C:
  /// p' = C p, q' = C q, as loading a file with LoadOptions::up_axis), e.g. Z for ODE scenes.
  std::optional<Axis> up_axis;
  LiveSourceSettings source; ///< every body's LiveSource
  /// Called on the receiver thread after each sample is pushed (e.g. to record); must not block
  /// or throw.
  std::function<void(const std::string& body, const LiveSample& sample)> on_sample;
};

struct LiveStreamStats {
  std::size_t packets = 0;   ///< datagrams received
  std::size_t frames = 0;    ///< frames decoded
  std::size_t malformed = 0; ///< packets the decoder refused (dropped, counted)
  std::string last_error;    ///< why the latest malformed packet was refused
};

/// A connection to a live server. The constructor connects (NatNet: server info for the
/// protocol version, model definitions for the bodies' names; QTM: version, 6D parameters, a
/// UDP stream of 6D frames) and starts the
/// receiver thread; the destructor stops it. Nothing here blocks a caller for long: body()
/// and stats() take a mutex the receiver holds only to push a sample.
class LiveStream {
public:
  /// Throws MocapError when the server does not answer or refuses.
  explicit LiveStream(LiveStreamSettings settings);
  ~LiveStream();
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  /// The source of the named rigid body (its name in Motive's model definitions or QTM's 6D
  /// parameters; NatNet also takes the id, e.g. "3", and bodies a server leaves unnamed go by
  /// id), created empty when not yet seen so a driver can bind it before data comes.
  std::shared_ptr<LiveSource> body(const std::string& name);
  /// The bodies announced (model definitions, 6D parameters) or seen so far.
  std::vector<std::string> bodies() const;
  LiveStreamStats stats() const;
  /// The local UDP port frames arrive on.
  int data_port() const;
  /// E.g. "Motive 3.0.1.0, NatNet 3.1" or "QTM RT 1.20 (3 bodies)".
  std::string server_description() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

/// What a capture recorded from a stream with `settings` says of itself: source
/// "natnet://server" (or qtm), format "natnet-live", metres (declared), the up axis the poses
/// were delivered in and the server's.
CaptureInfo live_recording_info(const LiveStreamSettings& settings);

/// Collects what a LiveStream delivers (hand on_sample() to LiveStreamSettings::on_sample) and
/// turns it into a Capture: per body, samples in capture-time order, a frame received twice
/// kept once, untracked frames as gaps.
class LiveRecorder {
public:
  /// The callback to give LiveStreamSettings::on_sample; it must not outlive the recorder.
  std::function<void(const std::string& body, const LiveSample& sample)> on_sample();
  std::size_t size() const; ///< samples collected
  /// The recording as a capture with `info` (frame_rate filled in from the median interval
  /// when 0); bodies in the order first seen. Every track has a sample at every frame any body
  /// was received in (frame numbers in order, each at the capture time first seen for it): a
  /// body that appears late, vanishes or comes back has gaps there. A sample flagged valid
  /// whose pose is not one (a zero or non-unit quaternion, NaN) is a gap, counted in
  /// invalid(). Throws MocapError when nothing was received.
  Capture capture(CaptureInfo info) const;
  /// Per body, the samples that arrived flagged valid but held no pose.
  std::vector<std::pair<std::string, std::size_t>> invalid() const;

  /// Appends to `out` the rigid-body CSV rows of the frames older than the newest by more than
  /// `settle` s (so late datagrams still find their row), with the columns of the bodies known
  /// when the first row is written (the header then); returns the rows written. A recording
  /// written so as it arrives keeps what came if it is interrupted; the finished file is
  /// written again from capture(), with every body.
  std::size_t append_settled(std::ostream& out, double settle);

private:
  mutable std::mutex mutex_;
  std::vector<std::string> order_;
  std::vector<std::pair<std::string, LiveSample>> samples_;
  std::vector<std::string> columns_; ///< bodies of the appended file
  std::uint64_t appended_until_ = 0; ///< frames below this were appended
  bool header_written_ = false;
};

/// How a StreamServer plays a capture; every field has a default, the constructor validates.
struct StreamServerSettings {
  LiveProtocol protocol = LiveProtocol::NatNet;
  double rate = 0.0;      ///< Hz frames are sent at; 0: the capture's frame rate
  double loss = 0.0;      ///< probability in [0, 1) that a frame is not sent
  double jitter = 0.0;    ///< s: each frame leaves up to this much late (uniform), so may overtake
  std::uint32_t seed = 1; ///< of the loss and jitter draws
  bool loop = false;      ///< start over at the end (frame numbers and times keep counting)
  /// The command port; -1: the protocol's (NatNet 1510, QTM 22223), 0: a free port.
  int command_port = -1;
  /// NatNet: where frames go. -1 or 0: the socket each client's connect request came from (as
  /// Motive's unicast sends, so clients with default settings get frames); a port: that port at
  /// the client's address. With `multicast`, the group's port (-1: 1511).
  int data_port = -1;
  /// NatNet: send frames to this multicast group instead of each client ("": unicast).
  std::string multicast;
  /// With `multicast`: the IPv4 address of the local interface frames leave by (Motive's Local
  /// Interface). "": by loopback, for clients on this machine that join the group there (as the
  /// clients of OptiTrack's SDK and others do by default), and by the interface the system
  /// routes the group through, for the others (and clients that join on any interface).
  std::string multicast_interface;
  NatNetVersion natnet_version{3, 1};
  /// QTM: the UDP port QTM's discovery requests are answered on (-1: QTM's 22226, shared with
  /// other servers on this machine; 0: a free port).
  int discovery_port = -1;
  /// The up axis frames are sent with (the capture is turned from its own); default the
  /// protocol's: NatNet Y (as Motive streams by default), QTM Z.
  std::optional<Axis> up_axis;
};

struct StreamServerStats {
  std::size_t clients = 0;     ///< connections (NatNet connect requests, QTM TCP connections)
  std::size_t sent = 0;        ///< frames sent
  std::size_t dropped = 0;     ///< frames left out by the loss setting
  std::size_t keep_alives = 0; ///< NatNet keep-alive messages received
};

/// Serves a capture's rigid bodies (its tracks with orientations) as Motive or QTM would:
/// NatNet ids 1, 2, ... in track order named by the track names in its model definitions, QTM
/// 6D bodies named by the track names; positions in metres (NatNet)
/// or millimetres (QTM); capture times as the frames' timestamps. Frames are sent from when the
/// first client subscribes (NatNet connect, QTM StreamFrames) until the capture ends.
class StreamServer {
public:
  /// Throws MocapError for invalid settings, a capture without rigid bodies or whose length
  /// unit is unknown, or a port that cannot be bound.
  StreamServer(const Capture& capture, StreamServerSettings settings);
  ~StreamServer();
  StreamServer(const StreamServer&) = delete;
  StreamServer& operator=(const StreamServer&) = delete;

  int command_port() const;
  /// QTM: the port discovery requests are answered on; 0 when they are not (NatNet, or the
  /// port could not be bound).
  int discovery_port() const;
  /// The body names served, in order (NatNet id i + 1 is bodies()[i]).
  const std::vector<std::string>& bodies() const;
  std::size_t frame_count() const;
  double rate() const;
  /// Blocks until the capture has been sent (never, when looping) or `timeout` s pass; true
  /// when it has been sent.
  bool wait_finished(double timeout) const;
  StreamServerStats stats() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace odemocap
