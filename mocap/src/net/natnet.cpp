#include <odemocap/error.hpp>
#include <odemocap/natnet.hpp>

#include "net/packet_io.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace odemocap {

bool natnet_readable(NatNetVersion v) {
  return v >= NatNetVersion{2, 0} && v.major <= 4;
}

namespace {

using packet_io::Reader;
using packet_io::Writer;

constexpr std::size_t k_header = 4;          // message id, payload size (uint16 each)
constexpr std::size_t k_max_payload = 65535; // the size field's range
constexpr std::size_t k_server_name = 256;   // char[256] in the server info

/// From NatNet 4.1 (Motive 3.1) each of a frame's sections, and each dataset of the model
/// definitions, carries its size in bytes after its count (or type).
constexpr NatNetVersion k_sized{4, 1};
/// The newest version the encoders write; the decoders read every 4.x from 4.2 on as 4.2,
/// the sizes telling whether a section held what 4.2 puts in it.
constexpr NatNetVersion k_newest_written{4, 1};

bool sized(NatNetVersion v) {
  return v >= k_sized;
}

std::string version_text(NatNetVersion v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

void check_decodable(NatNetVersion v, const char* function) {
  if (!natnet_readable(v)) {
    throw MocapError(std::string(function) + ": NatNet " + version_text(v) +
                     " is not supported (2.0 to 4.x)");
  }
}

void check_encodable(NatNetVersion v, const char* function) {
  if (v < NatNetVersion{2, 0} || k_newest_written < v) {
    throw MocapError(std::string(function) + ": NatNet " + version_text(v) +
                     " is not written (2.0 to " + version_text(k_newest_written) + ")");
  }
}

/// A size in bytes (uint32) of what is written after it while this lives: written as 0, set
/// when it goes. Nothing at all when `present` is false (before NatNet 4.1).
class SizeField {
public:
  SizeField(packet_io::Writer& w, bool present) : w_(w), at_(present ? w.out.size() : k_none) {
    if (present) {
      w.u32(0);
    }
  }
  SizeField(const SizeField&) = delete;
  SizeField& operator=(const SizeField&) = delete;
  ~SizeField() {
    if (at_ != k_none) {
      const auto size = static_cast<std::uint32_t>(w_.out.size() - at_ - 4);
      for (std::size_t i = 0; i < 4; ++i) {
        w_.out[at_ + i] = static_cast<std::uint8_t>(size >> (8 * i));
      }
    }
  }

private:
  static constexpr std::size_t k_none = static_cast<std::size_t>(-1);
  packet_io::Writer& w_;
  std::size_t at_;
};

/// A size in bytes (uint32) read, when `present`, and checked against the bytes left: what
/// follows must end where it says (check_end), or is passed over (skip).
class SizeRead {
public:
  SizeRead(packet_io::Reader& r, bool present, const char* what) : r_(r), what_(what) {
    if (present) {
      at_ = r.pos();
      const std::uint32_t size = r.u32(what);
      if (size > r.left()) {
        r.fail_at(at_, what,
                  "size says " + std::to_string(size) + " bytes, " + std::to_string(r.left()) +
                      " are left");
      }
      end_ = r.pos() + size;
    }
  }
  bool present() const { return at_ != k_none; }
  void skip() { r_.skip(end_ - r_.pos(), what_); }
  /// `contents` says what took the bytes, for the error ("its 2 elements").
  void check_end(const std::string& contents) const {
    if (present() && r_.pos() != end_) {
      r_.fail_at(at_, what_,
                 "size says " + std::to_string(end_ - at_ - 4) + " bytes, " + contents + " took " +
                     std::to_string(r_.pos() - at_ - 4));
    }
  }

private:
  static constexpr std::size_t k_none = static_cast<std::size_t>(-1);
  packet_io::Reader& r_;
  const char* what_;
  std::size_t at_ = k_none;
  std::size_t end_ = 0;
};

packet_io::Writer& counted(packet_io::Writer& w, std::size_t count) {
  w.count(count);
  return w;
}

/// A frame section's count and (4.1+) its size.
struct SectionWriter {
  SectionWriter(packet_io::Writer& w, std::size_t count, NatNetVersion v)
      : size(counted(w, count), sized(v)) {}
  SizeField size;
};

/// A frame section's count (checked against the bytes left) and (4.1+) its size.
struct SectionReader {
  SectionReader(packet_io::Reader& r, const char* what, std::size_t min_bytes, NatNetVersion v)
      : count(r.count(what, min_bytes)), size(r, sized(v), what) {}
  void skip() { size.skip(); }
  void check_end() const { size.check_end("its " + std::to_string(count) + " elements"); }
  std::size_t count;
  SizeRead size;
};

/// Reads a packet's header: the message id must be `expected`, the payload size the bytes left.
void read_header(Reader& r, NatNetMessage expected, const char* what) {
  const std::uint16_t id = r.u16("message id");
  if (id != static_cast<std::uint16_t>(expected)) {
    r.fail("message id", "is " + std::to_string(id) + ", not " + what);
  }
  const std::uint16_t payload = r.u16("payload size");
  if (payload != r.left()) {
    r.fail("payload size", "says " + std::to_string(payload) + " bytes, the packet has " +
                               std::to_string(r.left()));
  }
}

/// Sets the payload size of a packet written after a header whose size was left 0.
std::vector<std::uint8_t> finish_packet(Writer& w, const char* function) {
  const std::size_t payload = w.out.size() - k_header;
  if (payload > k_max_payload) {
    throw MocapError(std::string(function) + ": " + std::to_string(payload) +
                     " bytes of payload do not fit one packet (at most 65535)");
  }
  w.out[2] = static_cast<std::uint8_t>(payload);
  w.out[3] = static_cast<std::uint8_t>(payload >> 8);
  return std::move(w.out);
}

// Smallest encodings (bytes), for the count checks.
std::size_t rigid_body_bytes(NatNetVersion v) {
  std::size_t n = 4 + 12 + 16;
  if (v < NatNetVersion{3, 0}) {
    n += 4 + 4; // marker count, padding
  }
  if (v >= NatNetVersion{2, 0}) {
    n += 4; // mean error
  }
  if (v >= NatNetVersion{2, 6}) {
    n += 2; // params
  }
  return n;
}

std::size_t labeled_marker_bytes(NatNetVersion v) {
  return 4 + 12 + 4 + (v >= NatNetVersion{2, 6} ? 2 : 0) + (v >= NatNetVersion{3, 0} ? 4 : 0);
}

NatNetRigidBody read_rigid_body(Reader& r, NatNetVersion v) {
  NatNetRigidBody b;
  b.id = r.i32("rigid body id");
  b.position = r.vec3("rigid body position");
  const float x = r.f32("rigid body orientation"), y = r.f32("rigid body orientation"),
              z = r.f32("rigid body orientation"), w = r.f32("rigid body orientation");
  b.orientation = {w, x, y, z};
  if (v < NatNetVersion{3, 0}) {
    const std::size_t markers = r.count("rigid body marker count", 12 + 4 + 4);
    for (std::size_t i = 0; i < markers; ++i) {
      b.markers.push_back(r.vec3("rigid body marker"));
    }
    for (std::size_t i = 0; i < markers; ++i) {
      b.marker_ids.push_back(r.i32("rigid body marker id"));
    }
    for (std::size_t i = 0; i < markers; ++i) {
      b.marker_sizes.push_back(r.f32("rigid body marker size"));
    }
  }
  b.mean_error = r.f32("rigid body mean error");
  if (v >= NatNetVersion{2, 6}) {
    b.tracking_valid = (r.i16("rigid body params") & 0x01) != 0;
  }
  return b;
}

void write_rigid_body(Writer& w, const NatNetRigidBody& b, NatNetVersion v) {
  w.i32(b.id);
  w.vec3(b.position);
  w.f32(b.orientation.x);
  w.f32(b.orientation.y);
  w.f32(b.orientation.z);
  w.f32(b.orientation.w);
  if (v < NatNetVersion{3, 0}) {
    w.count(b.markers.size());
    for (const Vec3& m : b.markers) {
      w.vec3(m);
    }
    for (std::size_t i = 0; i < b.markers.size(); ++i) {
      w.i32(i < b.marker_ids.size() ? b.marker_ids[i] : 0);
    }
    for (std::size_t i = 0; i < b.markers.size(); ++i) {
      w.f32(i < b.marker_sizes.size() ? b.marker_sizes[i] : 0.f);
    }
  }
  w.f32(b.mean_error);
  if (v >= NatNetVersion{2, 6}) {
    w.i16(b.tracking_valid ? 1 : 0);
  }
}

/// Force plates and devices: an id, then channels of frames of 4-byte values; read past.
void skip_devices(Reader& r, const char* what) {
  const std::size_t devices = r.count(what, 8);
  for (std::size_t d = 0; d < devices; ++d) {
    r.i32(what);
    const std::size_t channels = r.count(what, 4);
    for (std::size_t c = 0; c < channels; ++c) {
      const std::size_t frames = r.count(what, 4);
      r.skip(4 * frames, what);
    }
  }
}

} // namespace

std::vector<std::uint8_t> encode_natnet_frame(const NatNetFrame& f, NatNetVersion v) {
  check_encodable(v, "encode_natnet_frame");
  Writer w;
  w.u16(static_cast<std::uint16_t>(NatNetMessage::FrameOfData));
  w.u16(0); // the payload's size, set below
  w.u32(f.frame);
  {
    const SectionWriter section(w, f.marker_sets.size(), v);
    for (const NatNetMarkerSet& s : f.marker_sets) {
      w.cstr(s.name);
      w.count(s.markers.size());
      for (const Vec3& m : s.markers) {
        w.vec3(m);
      }
    }
  }
  {
    const SectionWriter section(w, f.unlabeled_markers.size(), v);
    for (const Vec3& m : f.unlabeled_markers) {
      w.vec3(m);
    }
  }
  {
    const SectionWriter section(w, f.rigid_bodies.size(), v);
    for (const NatNetRigidBody& b : f.rigid_bodies) {
      write_rigid_body(w, b, v);
    }
  }
  if (v >= NatNetVersion{2, 1}) {
    const SectionWriter section(w, f.skeletons.size(), v);
    for (const NatNetSkeleton& s : f.skeletons) {
      w.i32(s.id);
      w.count(s.bones.size());
      for (const NatNetRigidBody& b : s.bones) {
        write_rigid_body(w, b, v);
      }
    }
  }
  if (sized(v)) {
    const SectionWriter assets(w, 0, v); // 4.1+: trained markersets and other assets; none
  }
  if (v >= NatNetVersion{2, 3}) {
    const SectionWriter section(w, f.labeled_markers.size(), v);
    for (const NatNetLabeledMarker& m : f.labeled_markers) {
      w.u16(m.id);
      w.u16(m.model);
      w.vec3(m.position);
      w.f32(m.size);
      if (v >= NatNetVersion{2, 6}) {
        w.i16(m.params);
      }
      if (v >= NatNetVersion{3, 0}) {
        w.f32(m.residual);
      }
    }
  }
  if (v >= NatNetVersion{2, 9}) {
    const SectionWriter force_plates(w, 0, v);
  }
  if (v >= NatNetVersion{2, 11}) {
    const SectionWriter devices(w, 0, v);
  }
  w.u32(f.timecode);
  w.u32(f.timecode_subframe);
  if (v >= NatNetVersion{2, 7}) {
    w.f64(f.timestamp);
  } else {
    w.f32(f.timestamp);
  }
  if (v >= NatNetVersion{3, 0}) {
    w.u64(f.mid_exposure);
    w.u64(f.data_received);
    w.u64(f.transmit);
  }
  if (sized(v)) {
    w.u32(f.precision_seconds);
    w.u32(f.precision_fraction);
  }
  w.i16(f.params);
  w.i32(0); // end of data
  return finish_packet(w, "encode_natnet_frame");
}

NatNetFrame decode_natnet_frame(const std::uint8_t* data, std::size_t size, NatNetVersion v) {
  check_decodable(v, "decode_natnet_frame");
  Reader r(data, size, "NatNet frame");
  read_header(r, NatNetMessage::FrameOfData, "a frame of data (7)");
  NatNetFrame f;
  f.frame = r.u32("frame number");
  {
    SectionReader sets(r, "marker set count", 1 + 4, v);
    for (std::size_t i = 0; i < sets.count; ++i) {
      NatNetMarkerSet s;
      s.name = r.cstr("marker set name", k_server_name);
      const std::size_t markers = r.count("marker set marker count", 12);
      for (std::size_t m = 0; m < markers; ++m) {
        s.markers.push_back(r.vec3("marker set marker"));
      }
      f.marker_sets.push_back(std::move(s));
    }
    sets.check_end();
  }
  {
    SectionReader unlabeled(r, "unlabeled marker count", 12, v);
    for (std::size_t m = 0; m < unlabeled.count; ++m) {
      f.unlabeled_markers.push_back(r.vec3("unlabeled marker"));
    }
    unlabeled.check_end();
  }
  {
    SectionReader bodies(r, "rigid body count", rigid_body_bytes(v), v);
    for (std::size_t b = 0; b < bodies.count; ++b) {
      f.rigid_bodies.push_back(read_rigid_body(r, v));
    }
    bodies.check_end();
  }
  if (v >= NatNetVersion{2, 1}) {
    SectionReader skeletons(r, "skeleton count", 8, v);
    for (std::size_t s = 0; s < skeletons.count; ++s) {
      NatNetSkeleton k;
      k.id = r.i32("skeleton id");
      const std::size_t bones = r.count("skeleton bone count", rigid_body_bytes(v));
      for (std::size_t b = 0; b < bones; ++b) {
        k.bones.push_back(read_rigid_body(r, v));
      }
      f.skeletons.push_back(std::move(k));
    }
    skeletons.check_end();
  }
  if (sized(v)) {
    SectionReader assets(r, "asset count", 4 + 4 + 4, v); // id, rigid bodies, markers
    assets.skip(); // trained markersets and other assets: not kept
  }
  if (v >= NatNetVersion{2, 3}) {
    SectionReader markers(r, "labeled marker count", labeled_marker_bytes(v), v);
    for (std::size_t m = 0; m < markers.count; ++m) {
      NatNetLabeledMarker l;
      l.id = r.u16("labeled marker id");
      l.model = r.u16("labeled marker model");
      l.position = r.vec3("labeled marker position");
      l.size = r.f32("labeled marker size");
      if (v >= NatNetVersion{2, 6}) {
        l.params = r.i16("labeled marker params");
      }
      if (v >= NatNetVersion{3, 0}) {
        l.residual = r.f32("labeled marker residual");
      }
      f.labeled_markers.push_back(l);
    }
    markers.check_end();
  }
  for (const auto& [since, what] : {std::pair{NatNetVersion{2, 9}, "force plates"},
                                    std::pair{NatNetVersion{2, 11}, "devices"}}) {
    if (v >= since) {
      if (sized(v)) {
        SectionReader devices(r, what, 8, v);
        devices.skip();
      } else {
        skip_devices(r, what);
      }
    }
  }
  f.timecode = r.u32("timecode");
  f.timecode_subframe = r.u32("timecode subframe");
  f.timestamp = v >= NatNetVersion{2, 7} ? r.f64("timestamp") : r.f32("timestamp");
  if (v >= NatNetVersion{3, 0}) {
    f.mid_exposure = r.u64("mid-exposure timestamp");
    f.data_received = r.u64("data-received timestamp");
    f.transmit = r.u64("transmit timestamp");
  }
  // 4.1+: the precision timestamp, which OptiTrack's SDK reads from 4.1 on and other clients
  // (../shared/clients) do not: there when the 2 bytes of params (and 4 of the end tag) leave
  // 8 more.
  if (sized(v) && (r.left() == 2 + 8 || r.left() == 2 + 8 + 4)) {
    f.precision_seconds = r.u32("precision timestamp seconds");
    f.precision_fraction = r.u32("precision timestamp fraction");
  }
  f.params = r.i16("frame params");
  if (r.left() != 0) { // the end-of-data tag: Motive writes it; a frame without it is whole
    r.i32("end of data");
  }
  if (r.left() != 0) {
    r.fail("end of data", std::to_string(r.left()) + " bytes follow it");
  }
  return f;
}

std::vector<std::uint8_t> encode_natnet_server_info(const NatNetServerInfo& info) {
  if (info.application.size() >= k_server_name) {
    throw MocapError("encode_natnet_server_info: the application name has " +
                     std::to_string(info.application.size()) + " bytes, at most 255 fit");
  }
  const bool connection = info.natnet_version[0] >= 3;
  Writer w;
  w.u16(static_cast<std::uint16_t>(NatNetMessage::ServerInfo));
  w.u16(static_cast<std::uint16_t>(k_server_name + 8 + (connection ? 15 : 0)));
  for (std::size_t i = 0; i < k_server_name; ++i) {
    w.bytes(i < info.application.size() ? static_cast<unsigned char>(info.application[i]) : 0, 1);
  }
  for (std::uint8_t b : info.application_version) {
    w.bytes(b, 1);
  }
  for (std::uint8_t b : info.natnet_version) {
    w.bytes(b, 1);
  }
  if (connection) {
    w.u64(info.clock_frequency);
    w.u16(info.data_port);
    w.bytes(info.multicast ? 1 : 0, 1);
    for (std::uint8_t b : info.multicast_group) {
      w.bytes(b, 1);
    }
  }
  return w.out;
}

std::vector<std::uint8_t> encode_natnet_echo_response(const std::uint8_t* request,
                                                      std::size_t size, std::uint64_t server_time) {
  Reader r(request, size, "NatNet echo request");
  const std::uint16_t id = r.u16("message id");
  if (id != static_cast<std::uint16_t>(NatNetMessage::EchoRequest)) {
    r.fail("message id", "is " + std::to_string(id) + ", not an echo request (12)");
  }
  r.u16("payload size");
  const std::uint64_t client_time = r.u64("client timestamp");
  Writer w;
  w.u16(static_cast<std::uint16_t>(NatNetMessage::EchoResponse));
  w.u16(16);
  w.u64(client_time);
  w.u64(server_time);
  return w.out;
}

NatNetServerInfo decode_natnet_server_info(const std::uint8_t* data, std::size_t size) {
  Reader r(data, size, "NatNet server info");
  const std::uint16_t id = r.u16("message id");
  if (id != static_cast<std::uint16_t>(NatNetMessage::ServerInfo)) {
    r.fail("message id", "is " + std::to_string(id) + ", not server info (1)");
  }
  const std::uint16_t payload = r.u16("payload size");
  if (payload != r.left() || payload < k_server_name + 8) {
    r.fail("payload size", "says " + std::to_string(payload) + " bytes, the packet has " +
                               std::to_string(r.left()) + " (at least 264 expected)");
  }
  NatNetServerInfo info;
  const std::size_t start = r.pos();
  info.application = r.cstr("application name", k_server_name);
  r.skip(start + k_server_name - r.pos(), "application name"); // a fixed char[256]
  for (std::uint8_t& b : info.application_version) {
    b = static_cast<std::uint8_t>(r.bytes(1, "application version"));
  }
  for (std::uint8_t& b : info.natnet_version) {
    b = static_cast<std::uint8_t>(r.bytes(1, "NatNet version"));
  }
  if (r.left() >= 15) { // 3.0+: the connection
    info.clock_frequency = r.u64("clock frequency");
    info.data_port = r.u16("data port");
    info.multicast = r.bytes(1, "multicast flag") != 0;
    for (std::uint8_t& b : info.multicast_group) {
      b = static_cast<std::uint8_t>(r.bytes(1, "multicast group"));
    }
  }
  return info; // anything later passed over
}

namespace {

NatNetRigidBodyDescription read_rigid_body_description(Reader& r, NatNetVersion v) {
  NatNetRigidBodyDescription d;
  d.name = r.cstr("rigid body name", k_server_name);
  d.id = r.i32("rigid body id");
  d.parent_id = r.i32("rigid body parent id");
  d.offset = r.vec3("rigid body offset");
  if (v >= NatNetVersion{4, 2}) { // 4.2+: the rest orientation, x y z w
    const float x = r.f32("rigid body orientation"), y = r.f32("rigid body orientation"),
                z = r.f32("rigid body orientation"), w = r.f32("rigid body orientation");
    d.orientation = {w, x, y, z};
  }
  if (v < NatNetVersion{3, 0}) {
    return d;
  }
  // 3.0+: the markers' positions, then their labels, then (4.0+) their names.
  const std::size_t markers = r.count("rigid body marker count", 12 + 4);
  d.markers.resize(markers);
  for (Vec3& m : d.markers) {
    m = r.vec3("rigid body marker position");
  }
  d.marker_labels.resize(markers);
  for (std::int32_t& l : d.marker_labels) {
    l = r.i32("rigid body marker label");
  }
  if (v >= NatNetVersion{4, 0}) {
    d.marker_names.resize(markers);
    for (std::string& n : d.marker_names) {
      n = r.cstr("rigid body marker name", k_server_name);
    }
  }
  return d;
}

void write_rigid_body_description(Writer& w, const NatNetRigidBodyDescription& d, NatNetVersion v) {
  w.cstr(d.name);
  w.i32(d.id);
  w.i32(d.parent_id);
  w.vec3(d.offset);
  if (v < NatNetVersion{3, 0}) {
    return;
  }
  w.count(d.markers.size());
  for (const Vec3& m : d.markers) {
    w.vec3(m);
  }
  for (std::size_t i = 0; i < d.markers.size(); ++i) {
    w.i32(i < d.marker_labels.size() ? d.marker_labels[i] : 0);
  }
  if (v >= NatNetVersion{4, 0}) {
    for (std::size_t i = 0; i < d.markers.size(); ++i) {
      w.cstr(i < d.marker_names.size() ? d.marker_names[i] : std::string());
    }
  }
}

/// Force plates, devices and cameras (3.0+): read past, so what follows is found.
void skip_description(Reader& r, std::int32_t type) {
  switch (type) {
  case 3: { // force plate
    r.i32("force plate id");
    r.cstr("force plate serial", k_server_name);
    r.skip(4 * (2 + 3 + 144 + 12), "force plate geometry and calibration");
    r.skip(4 + 4, "force plate types");
    const std::size_t channels = r.count("force plate channel count", 1);
    for (std::size_t c = 0; c < channels; ++c) {
      r.cstr("force plate channel name", k_server_name);
    }
    break;
  }
  case 4: { // device
    r.i32("device id");
    r.cstr("device name", k_server_name);
    r.cstr("device serial", k_server_name);
    r.skip(4 + 4, "device types");
    const std::size_t channels = r.count("device channel count", 1);
    for (std::size_t c = 0; c < channels; ++c) {
      r.cstr("device channel name", k_server_name);
    }
    break;
  }
  default: // 5, camera
    r.cstr("camera name", k_server_name);
    r.skip(12 + 16, "camera pose");
    break;
  }
}

} // namespace

std::vector<std::uint8_t> encode_natnet_model_definitions(const NatNetModelDefinitions& defs,
                                                          NatNetVersion v) {
  check_encodable(v, "encode_natnet_model_definitions");
  Writer w;
  w.u16(static_cast<std::uint16_t>(NatNetMessage::ModelDef));
  w.u16(0); // the payload's size, set below
  w.count(defs.marker_sets.size() + defs.rigid_bodies.size());
  // Each dataset's type, then (4.1+) its size.
  const auto dataset = [&](std::int32_t type, const auto& write) {
    w.i32(type);
    const SizeField size(w, sized(v));
    write();
  };
  for (const NatNetMarkerSetDescription& m : defs.marker_sets) {
    dataset(0, [&] {
      w.cstr(m.name);
      w.count(m.marker_names.size());
      for (const std::string& n : m.marker_names) {
        w.cstr(n);
      }
    });
  }
  for (const NatNetRigidBodyDescription& d : defs.rigid_bodies) {
    dataset(1, [&] { write_rigid_body_description(w, d, v); });
  }
  return finish_packet(w, "encode_natnet_model_definitions");
}

NatNetModelDefinitions decode_natnet_model_definitions(const std::uint8_t* data, std::size_t size,
                                                       NatNetVersion v) {
  check_decodable(v, "decode_natnet_model_definitions");
  Reader r(data, size, "NatNet model definitions");
  read_header(r, NatNetMessage::ModelDef, "model definitions (5)");
  NatNetModelDefinitions defs;
  const std::size_t count = r.count("dataset count", 4 + 1);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = r.pos();
    const std::int32_t type = r.i32("dataset type");
    SizeRead dataset(r, sized(v), "dataset size");
    if (type == 0) {
      NatNetMarkerSetDescription m;
      m.name = r.cstr("marker set name", k_server_name);
      const std::size_t markers = r.count("marker set marker count", 1);
      for (std::size_t k = 0; k < markers; ++k) {
        m.marker_names.push_back(r.cstr("marker set marker name", k_server_name));
      }
      defs.marker_sets.push_back(std::move(m));
    } else if (type == 1) {
      defs.rigid_bodies.push_back(read_rigid_body_description(r, v));
    } else if (type == 2) {
      NatNetSkeletonDescription s;
      s.name = r.cstr("skeleton name", k_server_name);
      s.id = r.i32("skeleton id");
      const std::size_t bones = r.count("skeleton bone count", 1 + 20);
      for (std::size_t k = 0; k < bones; ++k) {
        s.bones.push_back(read_rigid_body_description(r, v));
      }
      defs.skeletons.push_back(std::move(s));
    } else if (dataset.present()) {
      dataset.skip(); // force plates, devices, cameras, assets, newer kinds
    } else if (type >= 3 && type <= 5 && v >= NatNetVersion{3, 0}) {
      skip_description(r, type);
    } else {
      r.fail_at(at, "dataset type",
                "is " + std::to_string(type) + ", not one NatNet " + version_text(v) +
                    " describes");
    }
    dataset.check_end("the dataset of type " + std::to_string(type));
  }
  if (r.left() != 0) {
    r.fail("end of model definitions", std::to_string(r.left()) + " bytes past the last dataset");
  }
  return defs;
}

std::vector<std::pair<std::int32_t, LiveSample>> natnet_samples(const NatNetFrame& frame,
                                                                double receive_time) {
  std::vector<std::pair<std::int32_t, LiveSample>> out;
  for (const NatNetRigidBody& b : frame.rigid_bodies) {
    LiveSample s;
    s.capture_time = frame.timestamp;
    s.receive_time = receive_time;
    s.frame = frame.frame;
    s.pose = {b.position, b.orientation};
    s.valid = b.tracking_valid;
    out.emplace_back(b.id, s);
  }
  return out;
}

} // namespace odemocap
