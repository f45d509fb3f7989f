#pragma once
/// Qualisys Track Manager's real-time protocol (QTM RT), written from Qualisys's public protocol
/// documentation: packets as bytes, both ways. Little-endian (QTM's port 22223; the big-endian
/// port is not spoken). Every packet is a header (size of the whole packet, uint32; type,
/// uint32) and a payload: a NUL-terminated string for commands, errors and XML, a frame for
/// data. 6D bodies are positions in millimetres and rotation matrices stored column by column
/// (R11, R21, R31, R12, ...), the order QTM's TSV export uses too; a body QTM does not see is
/// sent as NaN.

#include <odemocap/live_source.hpp>
#include <odemocap/pose.hpp>
#include <odemocap/vec3.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace odemocap {

enum class QtmPacketType : std::uint32_t {
  Error = 0,
  Command = 1,
  Xml = 2,
  Data = 3,
  NoMoreData = 4,
  C3dFile = 5,
  Event = 6,
  Discover = 7,
  QtmFile = 8,
};

/// Frame components: the marker (3D) and body (6D) families, which are written and decoded
/// here; the others (2D, analog, force, image, skeleton...) are skipped by their size.
enum class QtmComponent : std::uint32_t {
  Marker3d = 1,
  Marker3dNoLabels = 2,
  Body6d = 5,
  Body6dEuler = 6,
  Marker3dResidual = 9,
  Marker3dNoLabelsResidual = 10,
  Body6dResidual = 11,
  Body6dEulerResidual = 12,
};

/// A component as StreamFrames and GetCurrentFrame name it ("6DEulerRes", "3dnolabels"; any
/// case), or nothing for a name that is not one of the 3D and 6D families. `known` says
/// whether the name is one of QTM's other components (2D, Analog, Force, Image, Timecode,
/// Skeleton, GazeVector, EyeTracker...), which QTM knows but a capture does not hold.
std::optional<QtmComponent> parse_qtm_component(const std::string& name, bool* known = nullptr);

constexpr std::size_t k_qtm_header_bytes = 8;
/// Largest packet accepted (bytes): more than any frame of 6D bodies, markers or parameters
/// QTM sends; a header claiming more is refused before anything is allocated.
constexpr std::size_t k_qtm_max_packet = 4u << 20;

struct QtmBody {
  Vec3 position; ///< mm, QTM's world frame; NaN when not tracked
  std::array<float, 9> rotation{1, 0, 0, 0, 1, 0, 0, 0, 1}; ///< column by column, body to world
  float residual = 0.f; ///< mm, sent with QtmComponent::Body6dResidual only
};

struct QtmFrame {
  std::uint64_t timestamp = 0; ///< µs, QTM's capture clock
  std::uint32_t frame = 0;
  bool has_bodies = false;            ///< a 6D component was present
  bool residuals = false;             ///< it was Body6dResidual
  std::vector<QtmBody> bodies;        ///< in the order of the 6D parameters' bodies
  std::vector<Vec3> markers;          ///< mm, from a 3D component; NaN when not seen
  std::vector<float> marker_residuals; ///< mm, per marker (3D residual components)
  std::uint16_t drop_rate = 0;        ///< 2D drop rate of the 6D component, per mille
  std::uint16_t out_of_sync_rate = 0; ///< per mille
};

/// A packet's type and size from its first 8 bytes. Throws MocapError for an unknown type or a
/// size below 8 or above k_qtm_max_packet.
std::pair<QtmPacketType, std::size_t> decode_qtm_header(const std::uint8_t* data, std::size_t size);

/// A command, error or XML packet carrying `text`.
std::vector<std::uint8_t> encode_qtm_string(QtmPacketType type, const std::string& text);
/// The text of a command, error or XML packet (header included). Throws MocapError.
std::string decode_qtm_string(const std::uint8_t* data, std::size_t size);

/// QTM's discovery (UDP, port 22226): a client broadcasts a discover packet (the header,
/// then the port to answer to, 2 bytes in network order); each QTM answers there with the
/// header, a text describing itself (NUL-terminated) and its base port (network order; the
/// little-endian RT port is the base port + 1).
constexpr int k_qtm_discovery_port = 22226;
/// The port a discover packet asks to be answered on; nothing for any other datagram.
std::optional<std::uint16_t> decode_qtm_discover(const std::uint8_t* data, std::size_t size);
std::vector<std::uint8_t> encode_qtm_discover_response(const std::string& text,
                                                       std::uint16_t base_port);

/// A data packet with the frame's 6D component (Body6dResidual when `frame.residuals`) and,
/// when it has markers, a 3D component.
std::vector<std::uint8_t> encode_qtm_frame(const QtmFrame& frame);
/// A data packet with the components asked for, in that order: 6D bodies as matrices or as
/// Euler angles (degrees: roll, pitch, yaw about X, Y, Z with R = Rz(yaw) Ry(pitch) Rx(roll),
/// QTM's default definition), with or without residuals; 3D markers labelled (in the order of
/// the 3D parameters' labels, NaN when not seen) or unlabelled (the seen ones with an id: the
/// label's index + 1), with or without residuals.
std::vector<std::uint8_t> encode_qtm_frame(const QtmFrame& frame,
                                           const std::vector<QtmComponent>& components);
/// Reads a data packet (header included). Throws MocapError naming the field and byte offset
/// for a wrong type, sizes that disagree with the packet, counts the bytes cannot hold
/// (checked before allocating) or trailing bytes.
QtmFrame decode_qtm_frame(const std::uint8_t* data, std::size_t size);

/// What a server describes in its parameters.
struct QtmParameters {
  double frequency = 100.0;       ///< Hz
  double capture_time = 0.0;      ///< s
  std::vector<std::string> bodies;  ///< 6D bodies
  std::vector<std::string> markers; ///< 3D labels
  char up_axis = 'Z';             ///< the 3D data's upwards axis, +X, +Y or +Z
};

/// GetParameters' XML as QTM writes it for protocol version `version` ("1.25"): a root
/// QTM_Parameters_Ver_<version> holding the sections asked for (`general`, `the_3d`,
/// `the_6d`). 6D bodies carry, from 1.21 on, Name, Enabled, Color, MaximumResidual,
/// MinimumMarkersInBody, BoneLengthTolerance, Filter, Mesh, Points, Data_origin and
/// Data_orientation; before 1.21 a Bodies count and Name, RGBColor and Point per body.
std::string qtm_parameters_xml(const QtmParameters& parameters, const std::string& version,
                               bool general, bool the_3d, bool the_6d);
/// The body names of a 6D parameters XML, in order. Throws MocapError for XML that is not one.
std::vector<std::string> qtm_body_names(const std::string& xml);

/// A body's pose from the packet: metres, unit quaternion; false for an untracked body (NaN)
/// or a matrix that is not a rotation.
bool qtm_body_pose(const QtmBody& body, Pose& out);
/// A 6D body of a pose (m to mm; the rotation matrix in float).
QtmBody qtm_body(const Pose& pose);

/// Each body of a frame as a LiveSample (capture time: the timestamp in s), by index.
std::vector<LiveSample> qtm_samples(const QtmFrame& frame, double receive_time);

} // namespace odemocap
