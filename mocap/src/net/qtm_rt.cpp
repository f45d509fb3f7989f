#include <odemocap/error.hpp>
#include <odemocap/qtm_rt.hpp>
#include <odemocap/quat.hpp>

#include "net/packet_io.hpp"

#include <pugixml.hpp>

#include <odemocap/cluster.hpp> // nearest_rotation
#include <odemocap/euler.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

void read_markers(Reader& r, QtmFrame& f, bool residuals, bool ids) {
  const std::size_t n =
      r.count("3D marker count", k_marker_bytes + (residuals ? 4 : 0) + (ids ? 4 : 0));
  r.u16("3D 2D drop rate");
  r.u16("3D out-of-sync rate");
  f.markers.resize(n);
  f.marker_residuals.assign(residuals ? n : 0, 0.f);
  for (std::size_t i = 0; i < n; ++i) {
    f.markers[i] = r.vec3("3D marker position");
    if (ids) {
      r.u32("3D marker id");
    }
    if (residuals) {
      f.marker_residuals[i] = r.f32("3D marker residual");
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

std::optional<std::uint16_t> decode_qtm_discover(const std::uint8_t* data, std::size_t size) {
  // A stray datagram on the discovery port is ignored, not an error.
  if (size != k_qtm_header_bytes + 2) {
    return std::nullopt;
  }
  Reader r(data, size, "QTM RT discover packet");
  if (r.u32("packet size") != size ||
      r.u32("packet type") != static_cast<std::uint32_t>(QtmPacketType::Discover)) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(data[8] << 8 | data[9]); // network order
}

std::vector<std::uint8_t> encode_qtm_discover_response(const std::string& text,
                                                       std::uint16_t base_port) {
  Writer w;
  put_header(w, QtmPacketType::Discover);
  w.out.insert(w.out.end(), text.begin(), text.end());
  w.out.push_back(0);
  w.out.push_back(static_cast<std::uint8_t>(base_port >> 8));
  w.out.push_back(static_cast<std::uint8_t>(base_port & 0xFF));
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
  std::vector<QtmComponent> components{frame.residuals ? QtmComponent::Body6dResidual
                                                       : QtmComponent::Body6d};
  if (!frame.markers.empty()) {
    components.push_back(QtmComponent::Marker3d);
  }
  return encode_qtm_frame(frame, components);
}

namespace {

bool is_residual(QtmComponent c) {
  return c == QtmComponent::Marker3dResidual || c == QtmComponent::Marker3dNoLabelsResidual ||
         c == QtmComponent::Body6dResidual || c == QtmComponent::Body6dEulerResidual;
}

bool is_euler(QtmComponent c) {
  return c == QtmComponent::Body6dEuler || c == QtmComponent::Body6dEulerResidual;
}

bool is_body(QtmComponent c) {
  return c == QtmComponent::Body6d || c == QtmComponent::Body6dResidual || is_euler(c);
}

bool is_unlabelled(QtmComponent c) {
  return c == QtmComponent::Marker3dNoLabels || c == QtmComponent::Marker3dNoLabelsResidual;
}

/// Roll, pitch, yaw (degrees) of a body's matrix (column by column) with R = Rz(yaw) Ry(pitch)
/// Rx(roll); NaN for an untracked body.
std::array<float, 3> euler_degrees(const QtmBody& b) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (!std::isfinite(b.position.x)) {
    return {nan, nan, nan};
  }
  Mat3 m;
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 3; ++row) {
      m.m[row][col] = b.rotation[static_cast<std::size_t>(3 * col + row)];
    }
  }
  const EulerAngles a = to_euler(nearest_rotation(m), EulerOrder::XYZ, EulerFrame::Extrinsic);
  constexpr double k_degrees = 180.0 / 3.14159265358979323846;
  return {static_cast<float>(a.first * k_degrees), static_cast<float>(a.second * k_degrees),
          static_cast<float>(a.third * k_degrees)};
}

void write_component(Writer& w, const QtmFrame& frame, QtmComponent c) {
  const std::size_t start = w.out.size();
  w.u32(0);
  w.u32(static_cast<std::uint32_t>(c));
  const bool residual = is_residual(c);
  if (is_body(c)) {
    w.count(frame.bodies.size());
    w.u16(frame.drop_rate);
    w.u16(frame.out_of_sync_rate);
    for (const QtmBody& b : frame.bodies) {
      w.vec3(b.position);
      if (is_euler(c)) {
        for (float e : euler_degrees(b)) {
          w.f32(e);
        }
      } else {
        for (float e : b.rotation) {
          w.f32(e);
        }
      }
      if (residual) {
        w.f32(b.residual);
      }
    }
  } else {
    const bool unlabelled = is_unlabelled(c);
    std::size_t seen = 0;
    for (const Vec3& m : frame.markers) {
      seen += std::isfinite(m.x) ? 1 : 0;
    }
    w.count(unlabelled ? seen : frame.markers.size());
    w.u16(frame.drop_rate);
    w.u16(frame.out_of_sync_rate);
    for (std::size_t i = 0; i < frame.markers.size(); ++i) {
      const Vec3& m = frame.markers[i];
      if (unlabelled && !std::isfinite(m.x)) {
        continue;
      }
      w.vec3(m);
      if (unlabelled) {
        w.u32(static_cast<std::uint32_t>(i + 1));
      }
      if (residual) {
        w.f32(i < frame.marker_residuals.size() ? frame.marker_residuals[i] : 0.f);
      }
    }
  }
  patch_u32(w.out, start, w.out.size() - start);
}

} // namespace

std::optional<QtmComponent> parse_qtm_component(const std::string& name, bool* known) {
  std::string n;
  for (char ch : name) {
    n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  static const std::pair<const char*, QtmComponent> ours[] = {
      {"3d", QtmComponent::Marker3d},
      {"3dres", QtmComponent::Marker3dResidual},
      {"3dnolabels", QtmComponent::Marker3dNoLabels},
      {"3dnolabelsres", QtmComponent::Marker3dNoLabelsResidual},
      {"6d", QtmComponent::Body6d},
      {"6dres", QtmComponent::Body6dResidual},
      {"6deuler", QtmComponent::Body6dEuler},
      {"6deulerres", QtmComponent::Body6dEulerResidual}};
  for (const auto& [key, c] : ours) {
    if (n == key) {
      if (known != nullptr) {
        *known = true;
      }
      return c;
    }
  }
  static const char* others[] = {"2d",          "2dlin",      "analog",     "analogsingle",
                                 "force",       "forcesingle", "image",     "timecode",
                                 "skeleton",    "skeleton:global", "gazevector", "eyetracker"};
  if (known != nullptr) {
    *known = std::find(std::begin(others), std::end(others), n) != std::end(others);
  }
  return std::nullopt;
}

std::vector<std::uint8_t> encode_qtm_frame(const QtmFrame& frame,
                                           const std::vector<QtmComponent>& components) {
  Writer w;
  put_header(w, QtmPacketType::Data);
  w.u64(frame.timestamp);
  w.u32(frame.frame);
  w.u32(static_cast<std::uint32_t>(components.size()));
  for (QtmComponent c : components) {
    write_component(w, frame, c);
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
    case QtmComponent::Marker3dNoLabels:
    case QtmComponent::Marker3dNoLabelsResidual:
      read_component(data, r.pos(), end, "3D component", [&](Reader& c) {
        read_markers(c, f, is_residual(kind), is_unlabelled(kind));
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

namespace {

std::string fixed6(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", v);
  return text;
}

/// "1.25" -> 25, "1.8" -> 8; 0 when unreadable.
int minor_version(const std::string& version) {
  const std::size_t dot = version.find('.');
  return dot == std::string::npos ? 0 : std::atoi(version.c_str() + dot + 1);
}

void general_xml(pugi::xml_node root, const QtmParameters& p) {
  pugi::xml_node g = root.append_child("General");
  g.append_child("Frequency").text().set(static_cast<long long>(std::llround(p.frequency)));
  g.append_child("Capture_Time").text().set(fixed6(p.capture_time).c_str());
  for (const char* trigger : {"Start_On_External_Trigger", "Start_On_Trigger_NO",
                              "Start_On_Trigger_NC", "Start_On_Trigger_Software"}) {
    g.append_child(trigger).text().set("false");
  }
  pugi::xml_node euler = g.append_child("EulerAngles");
  euler.append_attribute("First") = "Roll";
  euler.append_attribute("Second") = "Pitch";
  euler.append_attribute("Third") = "Yaw";
}

void the_3d_xml(pugi::xml_node root, const QtmParameters& p) {
  pugi::xml_node t = root.append_child("The_3D");
  t.append_child("AxisUpwards").text().set((std::string("+") + p.up_axis).c_str());
  t.append_child("CalibrationTime").text().set("");
  t.append_child("Labels").text().set(static_cast<unsigned>(p.markers.size()));
  for (const std::string& name : p.markers) {
    pugi::xml_node label = t.append_child("Label");
    label.append_child("Name").text().set(name.c_str());
    label.append_child("RGBColor").text().set(16711680);
    label.append_child("Trajectory_Type").text().set("Measured");
  }
  t.append_child("Bones");
}

void the_6d_xml(pugi::xml_node root, const QtmParameters& p, int minor) {
  pugi::xml_node six = root.append_child("The_6D");
  if (minor < 21) { // the layout before protocol 1.21
    six.append_child("Bodies").text().set(static_cast<unsigned>(p.bodies.size()));
    for (const std::string& name : p.bodies) {
      pugi::xml_node body = six.append_child("Body");
      body.append_child("Name").text().set(name.c_str());
      body.append_child("RGBColor").text().set(65280);
    }
    pugi::xml_node euler = six.append_child("Euler");
    euler.append_child("First").text().set("X");
    euler.append_child("Second").text().set("Y");
    euler.append_child("Third").text().set("Z");
    return;
  }
  for (const std::string& name : p.bodies) {
    pugi::xml_node body = six.append_child("Body");
    body.append_child("Name").text().set(name.c_str());
    body.append_child("Enabled").text().set("true");
    pugi::xml_node color = body.append_child("Color");
    color.append_attribute("R") = 0;
    color.append_attribute("G") = 255;
    color.append_attribute("B") = 0;
    body.append_child("MaximumResidual").text().set(fixed6(10.0).c_str());
    body.append_child("MinimumMarkersInBody").text().set(3);
    body.append_child("BoneLengthTolerance").text().set(fixed6(10.0).c_str());
    body.append_child("Filter").append_attribute("Preset") = "No filter";
    pugi::xml_node mesh = body.append_child("Mesh");
    mesh.append_child("Name");
    for (const char* what : {"Position", "Rotation"}) {
      pugi::xml_node v = mesh.append_child(what);
      for (const char* axis : {"X", "Y", "Z"}) {
        v.append_attribute(axis) = fixed6(0.0).c_str();
      }
    }
    mesh.append_child("Scale").text().set(fixed6(1.0).c_str());
    mesh.append_child("Opacity").text().set(fixed6(1.0).c_str());
    body.append_child("Points"); // a served capture carries the bodies' poses, not their markers
    pugi::xml_node origin = body.append_child("Data_origin");
    for (const char* axis : {"X", "Y", "Z"}) {
      origin.append_attribute(axis) = fixed6(0.0).c_str();
    }
    origin.append_attribute("Relative_body") = 1;
    origin.text().set(0);
    pugi::xml_node orientation = body.append_child("Data_orientation");
    for (const char* e : {"R11", "R12", "R13", "R21", "R22", "R23", "R31", "R32", "R33"}) {
      const bool diagonal = e[1] == e[2];
      orientation.append_attribute(e) = fixed6(diagonal ? 1.0 : 0.0).c_str();
    }
    orientation.append_attribute("Relative_body") = 1;
    orientation.text().set(0);
  }
}

} // namespace

std::string qtm_parameters_xml(const QtmParameters& parameters, const std::string& version,
                               bool general, bool the_3d, bool the_6d) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child(("QTM_Parameters_Ver_" + version).c_str());
  if (general) {
    general_xml(root, parameters);
  }
  if (the_3d) {
    the_3d_xml(root, parameters);
  }
  if (the_6d) {
    the_6d_xml(root, parameters, minor_version(version));
  }
  std::ostringstream out;
  doc.save(out, "    ", pugi::format_indent | pugi::format_no_declaration);
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
