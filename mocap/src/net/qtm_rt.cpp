#include <odemocap/error.hpp>
#include <odemocap/qtm_rt.hpp>
#include <odemocap/quat.hpp>

#include "net/packet_io.hpp"

#include <pugixml.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace odemocap {
namespace {

using packet_io::Reader;
using packet_io::Writer;

constexpr std::size_t k_component_header = 8; // size (incl. this header), type
constexpr std::size_t k_body_bytes = 12 * 4;
constexpr std::size_t k_marker_bytes = 3 * 4;

void put_header(Writer& w, QtmPacketType type) {
  w.u32(0); // size, patched when the payload is written
  w.u32(static_cast<std::uint32_t>(type));
}

void patch_u32(std::vector<std::uint8_t>& out, std::size_t at, std::size_t value) {
  for (std::size_t i = 0; i < 4; ++i) {
    out[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
}

QtmPacketType checked_type(std::uint32_t t) {
  if (t > static_cast<std::uint32_t>(QtmPacketType::QtmFile)) {
    throw MocapError("QTM RT packet: unknown packet type " + std::to_string(t) + " at byte 4");
  }
  return static_cast<QtmPacketType>(t);
}

void read_bodies(Reader& r, QtmFrame& f, bool residuals) {
  if (f.has_bodies) {
    r.fail("6D component", "a second 6D component in one frame");
  }
  f.has_bodies = true;
  f.residuals = residuals;
  const std::size_t n = r.count("6D body count", k_body_bytes + (residuals ? 4 : 0));
  f.drop_rate = r.u16("6D 2D drop rate");
  f.out_of_sync_rate = r.u16("6D out-of-sync rate");
  f.bodies.resize(n);
  for (QtmBody& b : f.bodies) {
    b.position = r.vec3("6D body position");
    for (float& e : b.rotation) {
      e = r.f32("6D body rotation");
    }
    if (residuals) {
      b.residual = r.f32("6D body residual");
    }
  }
}

void read_markers(Reader& r, QtmFrame& f, bool residuals) {
  const std::size_t n = r.count("3D marker count", k_marker_bytes + (residuals ? 4 : 0));
  r.u16("3D 2D drop rate");
  r.u16("3D out-of-sync rate");
  f.markers.resize(n);
  for (Vec3& m : f.markers) {
    m = r.vec3("3D marker position");
    if (residuals) {
      r.f32("3D marker residual");
    }
  }
}

/// Reads the component in bytes [begin, end) with `read`, which must use all of them.
template <class Read>
void read_component(const std::uint8_t* data, std::size_t begin, std::size_t end, const char* what,
                    Read read) {
  Reader c(data, end, "QTM RT frame");
  c.skip(begin, "component");
  read(c);
  if (c.left() != 0) {
    c.fail(what, std::to_string(c.left()) + " bytes past its contents");
  }
}

} // namespace

std::pair<QtmPacketType, std::size_t> decode_qtm_header(const std::uint8_t* data,
                                                        std::size_t size) {
  Reader r(data, size, "QTM RT packet");
  const std::uint32_t bytes = r.u32("packet size");
  const QtmPacketType type = checked_type(r.u32("packet type"));
  if (bytes < k_qtm_header_bytes || bytes > k_qtm_max_packet) {
    throw MocapError("QTM RT packet: packet size " + std::to_string(bytes) +
                     " at byte 0 is outside 8 to " + std::to_string(k_qtm_max_packet));
  }
  return {type, bytes};
}

std::vector<std::uint8_t> encode_qtm_string(QtmPacketType type, const std::string& text) {
  Writer w;
  put_header(w, type);
  w.out.insert(w.out.end(), text.begin(), text.end());
  w.out.push_back(0);
  patch_u32(w.out, 0, w.out.size());
  return w.out;
}

std::string decode_qtm_string(const std::uint8_t* data, std::size_t size) {
  const auto [type, bytes] = decode_qtm_header(data, size);
  if (type != QtmPacketType::Command && type != QtmPacketType::Error &&
      type != QtmPacketType::Xml) {
    throw MocapError("QTM RT packet: type " + std::to_string(static_cast<int>(type)) +
                     " carries no text");
  }
  if (bytes != size) {
    throw MocapError("QTM RT packet: size field says " + std::to_string(bytes) + " bytes, the " +
                     "packet has " + std::to_string(size));
  }
  const auto* text = reinterpret_cast<const char*>(data + k_qtm_header_bytes);
  std::size_t n = size - k_qtm_header_bytes;
  if (n > 0 && text[n - 1] == '\0') {
    --n; // QTM terminates its strings; a missing terminator is tolerated
  }
  return std::string(text, n);
}

std::vector<std::uint8_t> encode_qtm_frame(const QtmFrame& frame) {
  Writer w;
  put_header(w, QtmPacketType::Data);
  w.u64(frame.timestamp);
  w.u32(frame.frame);
  w.u32(frame.markers.empty() ? 1 : 2);
  const std::size_t component = w.out.size();
  w.u32(0);
  w.u32(static_cast<std::uint32_t>(frame.residuals ? QtmComponent::Body6dResidual
                                                   : QtmComponent::Body6d));
  w.count(frame.bodies.size());
  w.u16(frame.drop_rate);
  w.u16(frame.out_of_sync_rate);
  for (const QtmBody& b : frame.bodies) {
    w.vec3(b.position);
    for (float e : b.rotation) {
      w.f32(e);
    }
    if (frame.residuals) {
      w.f32(b.residual);
    }
  }
  patch_u32(w.out, component, w.out.size() - component);
  if (!frame.markers.empty()) {
    const std::size_t markers = w.out.size();
    w.u32(0);
    w.u32(static_cast<std::uint32_t>(QtmComponent::Marker3d));
    w.count(frame.markers.size());
    w.u16(0);
    w.u16(0);
    for (const Vec3& m : frame.markers) {
      w.vec3(m);
    }
    patch_u32(w.out, markers, w.out.size() - markers);
  }
  if (w.out.size() > k_qtm_max_packet) {
    throw MocapError("encode_qtm_frame: " + std::to_string(w.out.size()) +
                     " bytes exceed the largest packet");
  }
  patch_u32(w.out, 0, w.out.size());
  return w.out;
}

QtmFrame decode_qtm_frame(const std::uint8_t* data, std::size_t size) {
  const auto [type, bytes] = decode_qtm_header(data, size);
  Reader r(data, size, "QTM RT frame");
  r.skip(k_qtm_header_bytes, "header");
  if (type != QtmPacketType::Data) {
    r.fail("packet type", "type " + std::to_string(static_cast<int>(type)) + " is not data (3)");
  }
  if (bytes != size) {
    r.fail("packet size",
           "says " + std::to_string(bytes) + " bytes, the packet has " + std::to_string(size));
  }
  QtmFrame f;
  f.timestamp = r.u64("timestamp");
  f.frame = r.u32("frame number");
  const std::size_t components = r.count("component count", k_component_header);
  for (std::size_t i = 0; i < components; ++i) {
    const std::size_t start = r.pos();
    const std::uint32_t component_size = r.u32("component size");
    const std::uint32_t component_type = r.u32("component type");
    if (component_size < k_component_header || component_size - k_component_header > r.left()) {
      r.fail_at(start, "component size",
                std::to_string(component_size) + " bytes do not fit in the " +
                    std::to_string(r.left() + k_component_header) + " left");
    }
    const std::size_t end = start + component_size;
    const auto kind = static_cast<QtmComponent>(component_type);
    switch (kind) {
    case QtmComponent::Body6d:
    case QtmComponent::Body6dResidual:
      read_component(data, r.pos(), end, "6D component",
                     [&](Reader& c) { read_bodies(c, f, kind == QtmComponent::Body6dResidual); });
      break;
    case QtmComponent::Marker3d:
    case QtmComponent::Marker3dResidual:
      read_component(data, r.pos(), end, "3D component", [&](Reader& c) {
        read_markers(c, f, kind == QtmComponent::Marker3dResidual);
      });
      break;
    default: break; // analog, force, 2D, skeletons...: not used here
    }
    r.skip(end - r.pos(), "component");
  }
  if (r.left() != 0) {
    r.fail("end of frame", std::to_string(r.left()) + " bytes past the last component");
  }
  return f;
}

std::string qtm_6d_parameters_xml(const std::vector<std::string>& bodies) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("QTM_Parameters_Ver_1.20");
  pugi::xml_node six = root.append_child("The_6D");
  six.append_child("Bodies").text().set(static_cast<unsigned>(bodies.size()));
  for (const std::string& name : bodies) {
    six.append_child("Body").append_child("Name").text().set(name.c_str());
  }
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw);
  return out.str();
}

std::vector<std::string> qtm_body_names(const std::string& xml) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    throw MocapError("QTM RT 6D parameters: " + std::string(parsed.description()) + " at byte " +
                     std::to_string(parsed.offset));
  }
  const pugi::xml_node six = doc.document_element().child("The_6D");
  if (!six) {
    throw MocapError("QTM RT 6D parameters: no The_6D element (is 6D tracking on in QTM?)");
  }
  std::vector<std::string> names;
  for (pugi::xml_node body : six.children("Body")) {
    names.emplace_back(body.child_value("Name"));
  }
  return names;
}

bool qtm_body_pose(const QtmBody& body, Pose& out) {
  if (!std::isfinite(body.position.x) || !std::isfinite(body.position.y) ||
      !std::isfinite(body.position.z)) {
    return false;
  }
  Mat3 m;
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 3; ++row) {
      m.m[row][col] = body.rotation[static_cast<std::size_t>(3 * col + row)];
    }
  }
  try {
    out.q = from_matrix(m);
  } catch (const MocapError&) {
    return false; // NaN or not a rotation: the body is not tracked this frame
  }
  out.p = body.position * 1e-3;
  return true;
}

QtmBody qtm_body(const Pose& pose) {
  QtmBody b;
  b.position = pose.p * 1e3;
  const Mat3 m = to_matrix(pose.q);
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 3; ++row) {
      b.rotation[static_cast<std::size_t>(3 * col + row)] = static_cast<float>(m.m[row][col]);
    }
  }
  return b;
}

std::vector<LiveSample> qtm_samples(const QtmFrame& frame, double receive_time) {
  std::vector<LiveSample> out(frame.bodies.size());
  for (std::size_t i = 0; i < frame.bodies.size(); ++i) {
    LiveSample& s = out[i];
    s.capture_time = static_cast<double>(frame.timestamp) * 1e-6;
    s.receive_time = receive_time;
    s.frame = frame.frame;
    s.valid = qtm_body_pose(frame.bodies[i], s.pose);
    if (!s.valid) {
      s.pose = Pose{};
    }
  }
  return out;
}

} // namespace odemocap
