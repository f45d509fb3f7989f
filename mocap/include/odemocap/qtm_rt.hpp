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

/// Frame components (the ones decoded here; others are skipped by their size).
enum class QtmComponent : std::uint32_t {
  Marker3d = 1,
  Body6d = 5,
  Marker3dResidual = 9,
  Body6dResidual = 11,
};

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
  std::vector<Vec3> markers;          ///< mm, from a 3D component (labelled markers)
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

/// A data packet with the frame's 6D component (Body6dResidual when `frame.residuals`) and,
/// when it has markers, a 3D component.
std::vector<std::uint8_t> encode_qtm_frame(const QtmFrame& frame);
/// Reads a data packet (header included). Throws MocapError naming the field and byte offset
/// for a wrong type, sizes that disagree with the packet, counts the bytes cannot hold
/// (checked before allocating) or trailing bytes.
QtmFrame decode_qtm_frame(const std::uint8_t* data, std::size_t size);

/// The 6D parameters XML QTM answers "GetParameters 6D" with, naming `bodies`.
std::string qtm_6d_parameters_xml(const std::vector<std::string>& bodies);
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
