#pragma once
/// OptiTrack NatNet, the protocol Motive streams with: frame-of-data and server-info messages
/// as bytes, both ways, written from the protocol's description (no SDK). Little-endian;
/// positions in metres (Motive's frame, Y or Z up as set in Motive), quaternions x, y, z, w.
/// Versions 2.0 to 4.1 (Motive 1.x to 3.1 and later): 4.1 puts each frame section's and each
/// model dataset's size in bytes after its count, adds a section of assets (trained
/// markersets), read past, and a precision timestamp before the frame's params. 4.2 adds a rest
/// orientation to rigid body descriptions. Later 4.x versions are read as 4.2, their sizes
/// checked, so a section that holds more than that puts in it is refused rather than misread;
/// 5.0 and later are refused. The encoders write up to 4.1.

#include <odemocap/live_source.hpp>
#include <odemocap/pose.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace odemocap {

/// A NatNet protocol version (the server's info reply says which it sends).
struct NatNetVersion {
  int major = 3;
  int minor = 1;
};
constexpr bool operator<(NatNetVersion a, NatNetVersion b) {
  return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}
constexpr bool operator>=(NatNetVersion a, NatNetVersion b) {
  return !(a < b);
}

/// Message ids (the first two bytes of every packet; the next two are the payload's size).
enum class NatNetMessage : std::uint16_t {
  Connect = 0,
  ServerInfo = 1,
  Request = 2,
  Response = 3,
  RequestModelDef = 4,
  ModelDef = 5,
  RequestFrameOfData = 6,
  FrameOfData = 7,
  MessageString = 8,
  Disconnect = 9,
  KeepAlive = 10,
  EchoRequest = 12, ///< payload: the client's 8-byte timestamp
  EchoResponse = 13, ///< payload: that timestamp, then the server's (8 bytes each)
  Unrecognized = 100,
};

struct NatNetRigidBody {
  std::int32_t id = 0;
  Vec3 position;              ///< m
  Quat orientation;           ///< sent as x, y, z, w floats
  float mean_error = 0.f;     ///< m, per marker (NatNet 2.0+)
  bool tracking_valid = true; ///< params bit 0 (NatNet 2.6+; earlier: always true)
  /// Its markers (NatNet before 3.0 only): positions, ids (2.0+), sizes (2.0+).
  std::vector<Vec3> markers;
  std::vector<std::int32_t> marker_ids;
  std::vector<float> marker_sizes;
};

struct NatNetMarkerSet {
  std::string name;
  std::vector<Vec3> markers;
};

struct NatNetSkeleton {
  std::int32_t id = 0;
  std::vector<NatNetRigidBody> bones; ///< ids: skeleton id << 16 | bone id
};

struct NatNetLabeledMarker {
  std::uint16_t id = 0;
  std::uint16_t model = 0; ///< the asset it belongs to, 0 for none
  Vec3 position;
  float size = 0.f;
  std::int16_t params = 0; ///< 2.6+: bit 0 occluded, 1 point-cloud solved, 2 model solved
  float residual = 0.f;    ///< 3.0+
};

/// One frame of data. Force plates and devices are read past, not kept.
struct NatNetFrame {
  std::uint32_t frame = 0;
  std::vector<NatNetMarkerSet> marker_sets;
  std::vector<Vec3> unlabeled_markers;
  std::vector<NatNetRigidBody> rigid_bodies;
  std::vector<NatNetSkeleton> skeletons;            ///< 2.1+
  std::vector<NatNetLabeledMarker> labeled_markers; ///< 2.3+
  std::uint32_t timecode = 0;
  std::uint32_t timecode_subframe = 0;
  double timestamp = 0.0; ///< s since Motive started (float before 2.7)
  /// 3.0+: camera mid-exposure, data received and transmit times, in the server's
  /// high-resolution clock ticks.
  std::uint64_t mid_exposure = 0;
  std::uint64_t data_received = 0;
  std::uint64_t transmit = 0;
  /// 4.1+: the precision (PTP or IRIG) timestamp, whole seconds and their fraction, 0 when the
  /// server has none. Written in 4.1 frames, as OptiTrack's NatNet SDK reads them; read when
  /// the frame holds them (some writers leave them out).
  std::uint32_t precision_seconds = 0;
  std::uint32_t precision_fraction = 0;
  std::int16_t params = 0; ///< bit 0 recording, bit 1 tracked models changed
};

/// The server's reply to a connect request. From NatNet 3.0 the reply goes on with the
/// connection: Motive 2.1 (NatNet 3.0) sends 279 payload bytes.
struct NatNetServerInfo {
  std::string application = "odemocap"; ///< at most 255 bytes
  std::array<std::uint8_t, 4> application_version{0, 0, 0, 0};
  std::array<std::uint8_t, 4> natnet_version{3, 1, 0, 0};
  /// 3.0+: ticks per second of the clock the frames' timestamps count in.
  std::uint64_t clock_frequency = 0;
  std::uint16_t data_port = 1511;                    ///< 3.0+: where multicast frames go
  bool multicast = false;                            ///< 3.0+: frames go to the group
  std::array<std::uint8_t, 4> multicast_group{239, 255, 42, 99}; ///< 3.0+
};

/// A rigid body as Motive describes it (model definitions): the name users gave it in Motive.
struct NatNetRigidBodyDescription {
  std::string name;
  std::int32_t id = 0;         ///< the id frames carry
  std::int32_t parent_id = -1; ///< -1: none
  Vec3 offset;                 ///< m, from the parent
  Quat orientation;            ///< 4.2+: the body's rest orientation (x, y, z, w floats)
  /// 3.0+: its markers' positions (m, body frame) and active labels; 4.0+: their names.
  std::vector<Vec3> markers;
  std::vector<std::int32_t> marker_labels;
  std::vector<std::string> marker_names;
};

struct NatNetMarkerSetDescription {
  std::string name;
  std::vector<std::string> marker_names;
};

struct NatNetSkeletonDescription {
  std::string name;
  std::int32_t id = 0;
  std::vector<NatNetRigidBodyDescription> bones;
};

/// The server's reply to a model definitions request: the assets frames refer to by id. Force
/// plates, devices and cameras are read past, not kept.
struct NatNetModelDefinitions {
  std::vector<NatNetMarkerSetDescription> marker_sets;
  std::vector<NatNetRigidBodyDescription> rigid_bodies;
  std::vector<NatNetSkeletonDescription> skeletons;
};

/// Whether the decoders read `version` (2.0 to 4.x).
bool natnet_readable(NatNetVersion version);

/// The whole packet (header included) of a frame in `version`. Throws MocapError for a
/// version outside 2.0-4.1 or a count beyond the packet's 65535-byte payload.
std::vector<std::uint8_t> encode_natnet_frame(const NatNetFrame& frame, NatNetVersion version);
/// Reads a frame-of-data packet (header included) sent in `version`. Throws MocapError naming
/// the field and byte offset for a wrong message id, a size that disagrees with the packet, a
/// count that claims more elements than the bytes left can hold (checked before anything is
/// allocated), a truncated field, trailing bytes, or (4.1+) a section whose contents end
/// elsewhere than its size says.
NatNetFrame decode_natnet_frame(const std::uint8_t* data, std::size_t size, NatNetVersion version);

/// The server info packet: 264 payload bytes before NatNet 3.0 (the version it names), 279
/// from 3.0 on (clock frequency, data port, multicast flag and group follow).
std::vector<std::uint8_t> encode_natnet_server_info(const NatNetServerInfo& info);
NatNetServerInfo decode_natnet_server_info(const std::uint8_t* data, std::size_t size);
/// The echo reply to an echo request's packet (the request's 8-byte stamp, then `server_time`);
/// throws MocapError for a request without its stamp.
std::vector<std::uint8_t> encode_natnet_echo_response(const std::uint8_t* request,
                                                      std::size_t size, std::uint64_t server_time);

/// The model definitions packet (header included) of its marker sets and rigid bodies.
std::vector<std::uint8_t> encode_natnet_model_definitions(const NatNetModelDefinitions& defs,
                                                          NatNetVersion version);
/// Reads a model definitions packet sent in `version`; throws MocapError as
/// decode_natnet_frame does, and for a dataset type the version does not describe.
NatNetModelDefinitions decode_natnet_model_definitions(const std::uint8_t* data, std::size_t size,
                                                       NatNetVersion version);

/// Each rigid body of a frame as a LiveSample (capture time: the frame's timestamp), by id.
std::vector<std::pair<std::int32_t, LiveSample>> natnet_samples(const NatNetFrame& frame,
                                                                double receive_time);

} // namespace odemocap
