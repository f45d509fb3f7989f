// NatNet frames and server info: a packet written out byte by byte here decodes to what it
// says and is what the encoder writes; every version's frame round-trips; truncated, lying
// and trailing packets are refused naming the field and byte, before anything is allocated.
#include "support/error_message.hpp"
#include "support/packet_bytes.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace odemocap {
namespace {

/// A 3.x+ frame's suffix: timecode 0, timestamp 12.5 s, hi-res stamps 1000, 2000, 3000,
/// (4.1+, when `precision`) the precision timestamp 1700000000 s + 123456, `params`, the end
/// tag; then the packet's payload size.
void put_suffix(test::PacketBytes& p, std::int16_t params, bool precision) {
  p.put<std::uint32_t>(0);
  p.put<std::uint32_t>(0);
  p.put<double>(12.5);
  p.put<std::uint64_t>(1000);
  p.put<std::uint64_t>(2000);
  p.put<std::uint64_t>(3000);
  if (precision) { // the precision timestamp: 4.1+ as OptiTrack's SDK reads it
    p.put<std::uint32_t>(1700000000);
    p.put<std::uint32_t>(123456);
  }
  p.put<std::int16_t>(params);
  p.put<std::int32_t>(0); // end of data
  p.set_natnet_payload_size();
}

/// NatNet 3.1, one rigid body: id 3 at (0.5, 1.25, -2) m turned 73.74 degrees about z
/// (x, y, z, w = 0, 0, 0.6, 0.8), mean error 1 mm, tracked; frame 42 at 12.5 s.
std::vector<std::uint8_t> one_body_packet() {
  test::PacketBytes p;
  p.put<std::uint16_t>(7);  // frame of data
  p.put<std::uint16_t>(0);  // payload size, set below
  p.put<std::uint32_t>(42); // frame number
  p.put<std::int32_t>(0);   // marker sets
  p.put<std::int32_t>(0);   // unlabeled markers
  p.put<std::int32_t>(1);   // rigid bodies
  p.put<std::int32_t>(3);
  for (float v : {0.5f, 1.25f, -2.0f, 0.0f, 0.0f, 0.6f, 0.8f, 0.001f}) {
    p.put(v);
  }
  p.put<std::int16_t>(1); // tracking valid
  p.put<std::int32_t>(0); // skeletons
  p.put<std::int32_t>(0); // labeled markers
  p.put<std::int32_t>(0); // force plates
  p.put<std::int32_t>(0); // devices
  put_suffix(p, 0, false);
  return p.b;
}

TEST(NatNet, AHandWrittenPacketDecodesToWhatItSaysAndIsWhatTheEncoderWrites) {
  const auto bytes = one_body_packet();
  const NatNetFrame f = decode_natnet_frame(bytes.data(), bytes.size(), {3, 1});
  EXPECT_EQ(f.frame, 42u);
  ASSERT_EQ(f.rigid_bodies.size(), 1u);
  const NatNetRigidBody& b = f.rigid_bodies[0];
  EXPECT_EQ(b.id, 3);
  EXPECT_EQ(b.position.x, 0.5);
  EXPECT_EQ(b.position.z, -2.0);
  EXPECT_EQ(b.orientation.w, 0.800000011920929); // float 0.8
  EXPECT_EQ(b.orientation.z, 0.60000002384185791);
  EXPECT_TRUE(b.tracking_valid);
  EXPECT_EQ(f.timestamp, 12.5);
  EXPECT_EQ(f.transmit, 3000u);
  EXPECT_EQ(encode_natnet_frame(f, {3, 1}), bytes);
  // As live samples: the frame's timestamp is the capture time.
  const auto samples = natnet_samples(f, 100.0);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].first, 3);
  EXPECT_EQ(samples[0].second.capture_time, 12.5);
  EXPECT_EQ(samples[0].second.frame, 42u);
}

NatNetRigidBody random_body(std::mt19937& rng, bool markers) {
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  NatNetRigidBody b;
  b.id = static_cast<std::int32_t>(rng() % 1000);
  b.position = {u(rng), u(rng), u(rng)};
  const Quat q = normalized(Quat{u(rng), u(rng), u(rng), u(rng)});
  b.orientation = {static_cast<float>(q.w), static_cast<float>(q.x), static_cast<float>(q.y),
                   static_cast<float>(q.z)};
  b.mean_error = 0.0005f;
  b.tracking_valid = rng() % 4 != 0;
  if (markers) {
    for (int m = 0; m < 3; ++m) {
      b.markers.push_back({u(rng), u(rng), u(rng)});
      b.marker_ids.push_back(m + 1);
      b.marker_sizes.push_back(0.014f);
    }
  }
  return b;
}

void expect_same_body(const NatNetRigidBody& a, const NatNetRigidBody& b, bool valid_flag) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(norm(a.position - b.position), 0.0);
  EXPECT_EQ(a.orientation.w, b.orientation.w);
  EXPECT_EQ(a.orientation.x, b.orientation.x);
  EXPECT_EQ(a.mean_error, b.mean_error);
  EXPECT_EQ(a.tracking_valid, valid_flag ? b.tracking_valid : true);
  EXPECT_EQ(a.markers.size(), b.markers.size());
  EXPECT_EQ(a.marker_ids, b.marker_ids);
}

TEST(NatNet, EveryVersionsFrameRoundTrips) {
  const NatNetVersion versions[] = {{2, 0}, {2, 5}, {2, 6}, {2, 9}, {2, 11},
                                    {3, 0}, {3, 1}, {4, 0}, {4, 1}};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (const NatNetVersion v : versions) {
    SCOPED_TRACE(std::to_string(v.major) + "." + std::to_string(v.minor));
    const bool markers = v < NatNetVersion{3, 0};
    NatNetFrame f;
    f.frame = 1234;
    f.marker_sets = {{"tool", {{0.1f, 0.2f, 0.3f}, {u(rng), u(rng), u(rng)}}}, {"all", {}}};
    f.unlabeled_markers = {{u(rng), u(rng), u(rng)}};
    for (int i = 0; i < 4; ++i) {
      f.rigid_bodies.push_back(random_body(rng, markers));
    }
    if (v >= NatNetVersion{2, 1}) {
      f.skeletons = {{7, {random_body(rng, markers), random_body(rng, markers)}}};
    }
    if (v >= NatNetVersion{2, 3}) {
      f.labeled_markers = {{5,
                            2,
                            {u(rng), u(rng), u(rng)},
                            0.014f,
                            static_cast<std::int16_t>(v >= NatNetVersion{2, 6} ? 4 : 0),
                            v >= NatNetVersion{3, 0} ? 0.25f : 0.f}};
    }
    f.timecode = 77;
    f.timecode_subframe = 2;
    f.timestamp = v >= NatNetVersion{2, 7} ? 3.0000001 : 3.0;
    if (v >= NatNetVersion{3, 0}) {
      f.mid_exposure = 123456789012345ull;
      f.data_received = 123456789012999ull;
      f.transmit = 123456789013999ull;
    }
    f.params = 1;
    const auto bytes = encode_natnet_frame(f, v);
    const NatNetFrame g = decode_natnet_frame(bytes.data(), bytes.size(), v);
    EXPECT_EQ(g.frame, f.frame);
    ASSERT_EQ(g.marker_sets.size(), 2u);
    EXPECT_EQ(g.marker_sets[0].name, "tool");
    EXPECT_EQ(g.marker_sets[0].markers.size(), 2u);
    EXPECT_EQ(g.unlabeled_markers.size(), 1u);
    ASSERT_EQ(g.rigid_bodies.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      expect_same_body(g.rigid_bodies[i], f.rigid_bodies[i], v >= NatNetVersion{2, 6});
    }
    ASSERT_EQ(g.skeletons.size(), f.skeletons.size());
    if (!g.skeletons.empty()) {
      EXPECT_EQ(g.skeletons[0].id, 7);
      expect_same_body(g.skeletons[0].bones[1], f.skeletons[0].bones[1], v >= NatNetVersion{2, 6});
    }
    ASSERT_EQ(g.labeled_markers.size(), f.labeled_markers.size());
    if (!g.labeled_markers.empty()) {
      EXPECT_EQ(g.labeled_markers[0].model, 2);
      EXPECT_EQ(g.labeled_markers[0].params, f.labeled_markers[0].params);
      EXPECT_EQ(g.labeled_markers[0].residual, f.labeled_markers[0].residual);
    }
    EXPECT_EQ(g.timestamp, f.timestamp);
    EXPECT_EQ(g.transmit, f.transmit);
    EXPECT_EQ(g.params, 1);
  }
}

/// NatNet 4.1 (Motive 3.1) as the real client in ../shared/clients reads it: after each
/// section's count its size in bytes (uint32), and an assets section after the skeletons.
/// Here: one labelled marker set "tool" of 2 markers, one unlabelled marker, rigid body 3 of
/// one_body_packet(), a skeleton (id 7) of one bone (id 7 << 16 | 1), an asset (id 9: one rigid
/// body and one marker, read past), one labelled marker, no force plates or devices.
std::vector<std::uint8_t> natnet_41_packet(std::uint32_t extra_body_bytes = 0,
                                           bool precision = true) {
  test::PacketBytes p;
  p.put<std::uint16_t>(7);
  p.put<std::uint16_t>(0); // payload size, set below
  p.put<std::uint32_t>(42);
  const auto section = [&](std::int32_t count, const auto& contents) {
    p.put<std::int32_t>(count);
    const std::size_t at = p.b.size();
    p.put<std::uint32_t>(0);
    contents();
    p.set_u32(at, static_cast<std::uint32_t>(p.b.size() - at - 4));
  };
  const auto body = [&](std::int32_t id, float x) {
    p.put<std::int32_t>(id);
    for (float v : {x, 1.25f, -2.0f, 0.0f, 0.0f, 0.6f, 0.8f, 0.001f}) {
      p.put(v);
    }
    p.put<std::int16_t>(1);
    for (std::uint32_t k = 0; k < extra_body_bytes; ++k) {
      p.b.push_back(0xee); // what a later version might add to a rigid body
    }
  };
  section(1, [&] {
    for (char c : std::string("tool")) {
      p.b.push_back(static_cast<std::uint8_t>(c));
    }
    p.b.push_back(0);
    p.put<std::int32_t>(2);
    for (float v : {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}) {
      p.put(v);
    }
  });
  section(1, [&] {
    for (float v : {-1.0f, -2.0f, -3.0f}) {
      p.put(v);
    }
  });
  section(1, [&] { body(3, 0.5f); });
  section(1, [&] {
    p.put<std::int32_t>(7);
    p.put<std::int32_t>(1);
    body(7 << 16 | 1, 0.25f);
  });
  section(1, [&] { // assets: id, rigid bodies (id, pos, rot, error, params), markers
    p.put<std::int32_t>(9);
    p.put<std::int32_t>(1);
    p.put<std::int32_t>(1);
    for (float v : {1.f, 2.f, 3.f, 0.f, 0.f, 0.f, 1.f, 0.001f}) {
      p.put(v);
    }
    p.put<std::int16_t>(1);
    p.put<std::int32_t>(1);
    p.put<std::int32_t>(4);
    for (float v : {1.f, 2.f, 3.1f, 0.014f}) {
      p.put(v);
    }
    p.put<std::int16_t>(0);
    p.put<float>(0.0002f);
  });
  section(1, [&] {
    p.put<std::uint16_t>(5);
    p.put<std::uint16_t>(2);
    for (float v : {0.7f, 0.8f, 0.9f, 0.014f}) {
      p.put(v);
    }
    p.put<std::int16_t>(4);
    p.put<float>(0.25f);
  });
  section(0, [] {}); // force plates
  section(0, [] {}); // devices
  put_suffix(p, 2, precision); // params: tracked models changed
  return p.b;
}

// Motive 3.1 and later stream NatNet 4.1, which was refused ("4.1 and later add byte counts to
// the frame's sections"): a follower of a current Motive got nothing.
TEST(NatNet, AHandWritten41FrameWithSectionSizesAndAnAssetDecodes) {
  const auto bytes = natnet_41_packet();
  const NatNetFrame f = decode_natnet_frame(bytes.data(), bytes.size(), {4, 1});
  EXPECT_EQ(f.frame, 42u);
  ASSERT_EQ(f.marker_sets.size(), 1u);
  EXPECT_EQ(f.marker_sets[0].name, "tool");
  ASSERT_EQ(f.marker_sets[0].markers.size(), 2u);
  EXPECT_EQ(f.marker_sets[0].markers[1].z, 0.60000002384185791);
  ASSERT_EQ(f.unlabeled_markers.size(), 1u);
  EXPECT_EQ(f.unlabeled_markers[0].z, -3.0);
  ASSERT_EQ(f.rigid_bodies.size(), 1u);
  EXPECT_EQ(f.rigid_bodies[0].id, 3);
  EXPECT_EQ(f.rigid_bodies[0].position.x, 0.5);
  EXPECT_EQ(f.rigid_bodies[0].orientation.w, 0.800000011920929);
  ASSERT_EQ(f.skeletons.size(), 1u);
  ASSERT_EQ(f.skeletons[0].bones.size(), 1u);
  EXPECT_EQ(f.skeletons[0].bones[0].id, 7 << 16 | 1);
  EXPECT_EQ(f.skeletons[0].bones[0].position.x, 0.25);
  ASSERT_EQ(f.labeled_markers.size(), 1u);
  EXPECT_EQ(f.labeled_markers[0].model, 2);
  EXPECT_EQ(f.labeled_markers[0].residual, 0.25);
  EXPECT_EQ(f.timestamp, 12.5);
  EXPECT_EQ(f.transmit, 3000u);
  EXPECT_EQ(f.precision_seconds, 1700000000u);
  EXPECT_EQ(f.precision_fraction, 123456u);
  EXPECT_EQ(f.params, 2);
  // A 4.1 writer that leaves the precision timestamp out (as ../shared/clients reads 4.1):
  // the same frame, the params where they are.
  const auto plain = natnet_41_packet(0, false);
  const NatNetFrame g0 = decode_natnet_frame(plain.data(), plain.size(), {4, 1});
  EXPECT_EQ(g0.precision_seconds, 0u);
  EXPECT_EQ(g0.params, 2);
  EXPECT_EQ(g0.transmit, 3000u);
  // The encoder writes the same bytes but an empty asset section (it keeps none).
  const auto written = encode_natnet_frame(f, {4, 1});
  const NatNetFrame g = decode_natnet_frame(written.data(), written.size(), {4, 1});
  EXPECT_EQ(encode_natnet_frame(g, {4, 1}), written);
  EXPECT_EQ(written.size(), bytes.size() - (4 + 4 + (4 + 32 + 2) + 4 + (4 + 16 + 2 + 4)));
  // 4.0's reading of 4.1's bytes fails: the sizes are not skipped by chance.
  EXPECT_THROW(decode_natnet_frame(bytes.data(), bytes.size(), {4, 0}), MocapError);
  // A later 4.x is read as 4.1; one whose rigid bodies hold more than 4.1's is refused,
  // naming the section, not misread.
  const auto later = natnet_41_packet(6);
  const std::string message = test::error_message<MocapError>([&] {
    decode_natnet_frame(later.data(), later.size(), {4, 2});
  });
  EXPECT_NE(message.find("rigid body count"), std::string::npos) << message;
  EXPECT_NE(message.find("size says 44 bytes, its 1 elements took 38"), std::string::npos)
      << message;
  EXPECT_EQ(decode_natnet_frame(bytes.data(), bytes.size(), {4, 2}).rigid_bodies.size(), 1u);
  EXPECT_THROW(decode_natnet_frame(bytes.data(), bytes.size(), {5, 0}), MocapError);
  EXPECT_THROW(encode_natnet_frame(f, {4, 2}), MocapError);
  // A size beyond the packet is named before anything is read into.
  auto lying = bytes;
  lying[4 + 4 + 4] = 0xff; // the marker sets' size
  lying[4 + 4 + 4 + 1] = 0xff;
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_frame(lying.data(), lying.size(), {4, 1});
            }).find("marker set count at byte 12: size says 65535 bytes"),
            std::string::npos);
}

TEST(NatNet, BrokenPacketsAreRefusedNamingTheFieldAndByte) {
  const auto good = one_body_packet();
  // Every truncation: refused (the size field no longer agrees, or, with it fixed, a field
  // runs off the end), but for the end-of-data tag alone: a frame without it is whole (the
  // python SDKs never read it) and reads as with it.
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(decode_natnet_frame(good.data(), n, {3, 1}), MocapError) << n;
    if (n >= 4) {
      auto cut = std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<long>(n));
      const auto payload = static_cast<std::uint16_t>(n - 4);
      std::memcpy(&cut[2], &payload, 2);
      if (n == good.size() - 4) {
        EXPECT_EQ(decode_natnet_frame(cut.data(), cut.size(), {3, 1}).transmit, 3000u);
      } else {
        EXPECT_THROW(decode_natnet_frame(cut.data(), cut.size(), {3, 1}), MocapError) << n;
      }
    }
  }
  auto lying = good;
  const std::int32_t huge = 0x7fffffff;
  std::memcpy(&lying[16], &huge, 4); // the rigid body count
  const std::string message = test::error_message<MocapError>([&] {
    decode_natnet_frame(lying.data(), lying.size(), {3, 1});
  });
  EXPECT_NE(message.find("rigid body count at byte 16: claims 2147483647 elements"),
            std::string::npos)
      << message;
  auto other = good;
  other[0] = 5;
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_frame(other.data(), other.size(), {3, 1});
            }).find("not a frame of data"),
            std::string::npos);
  auto trailing = good;
  trailing.push_back(0);
  const auto payload = static_cast<std::uint16_t>(trailing.size() - 4);
  std::memcpy(&trailing[2], &payload, 2);
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_frame(trailing.data(), trailing.size(), {3, 1});
            }).find("1 bytes follow"),
            std::string::npos);
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_frame(good.data(), good.size(), {5, 0});
            }).find("5.0 is not supported (2.0 to 4.x)"),
            std::string::npos);
  // The same bytes read as NatNet 2.5 (rigid bodies with markers): refused, not misread.
  EXPECT_THROW(decode_natnet_frame(good.data(), good.size(), {2, 5}), MocapError);
}

TEST(NatNet, AHandWritten29FrameWithRigidBodyMarkersDecodesAndIsWhatTheEncoderWrites) {
  // NatNet 2.9 (Motive 1.x): a rigid body carries its markers: count, positions, ids, sizes,
  // then the mean error and the params word, as NatNet's PacketClient and the Python client of
  // ../shared/clients read them (no padding between the sizes and the mean error).
  test::PacketBytes p;
  p.put<std::uint16_t>(7);
  p.put<std::uint16_t>(0);
  p.put<std::uint32_t>(9);  // frame number
  p.put<std::int32_t>(0);   // marker sets
  p.put<std::int32_t>(0);   // unlabeled markers
  p.put<std::int32_t>(1);   // rigid bodies
  p.put<std::int32_t>(2);   // id
  for (float v : {1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f, 1.0f}) {
    p.put(v);
  }
  p.put<std::int32_t>(1); // one marker
  for (float v : {1.1f, 2.2f, 3.3f}) {
    p.put(v);
  }
  p.put<std::int32_t>(77);    // its id
  p.put<float>(0.014f);       // its size
  p.put<float>(0.0005f);      // mean error
  p.put<std::int16_t>(1);     // tracking valid
  p.put<std::int32_t>(0);     // skeletons
  p.put<std::int32_t>(0);     // labeled markers
  p.put<std::int32_t>(0);     // force plates (2.9)
  p.put<std::uint32_t>(0);    // timecode
  p.put<std::uint32_t>(0);
  p.put<double>(4.5);         // timestamp (2.7+: double)
  p.put<std::int16_t>(0);     // params
  p.put<std::int32_t>(0);     // end of data
  p.set_natnet_payload_size();
  const NatNetFrame f = decode_natnet_frame(p.b.data(), p.b.size(), {2, 9});
  ASSERT_EQ(f.rigid_bodies.size(), 1u);
  const NatNetRigidBody& b = f.rigid_bodies[0];
  ASSERT_EQ(b.markers.size(), 1u);
  EXPECT_EQ(b.marker_ids[0], 77);
  EXPECT_EQ(b.marker_sizes[0], 0.014f);
  EXPECT_EQ(b.mean_error, 0.0005f);
  EXPECT_TRUE(b.tracking_valid);
  EXPECT_EQ(f.timestamp, 4.5);
  EXPECT_EQ(encode_natnet_frame(f, {2, 9}), p.b);
}

TEST(NatNet, ServerInfoRoundTripsAndSaysTheVersion) {
  NatNetServerInfo info;
  info.application = "Motive";
  info.application_version = {3, 0, 1, 0};
  info.natnet_version = {4, 0, 0, 0};
  info.clock_frequency = 3579545;
  info.data_port = 1512;
  info.multicast = true;
  info.multicast_group = {239, 255, 42, 98};
  const auto bytes = encode_natnet_server_info(info);
  // Motive 2.1 (NatNet 3.0) sends 279 payload bytes: name, two versions, then the connection:
  // clock frequency (8), data port (2), multicast flag (1), group (4), little-endian.
  ASSERT_EQ(bytes.size(), 4u + 279);
  EXPECT_EQ(bytes[2] | bytes[3] << 8, 279);
  EXPECT_EQ(bytes[4 + 264], 3579545 & 0xff);
  EXPECT_EQ(bytes[4 + 272] | bytes[4 + 273] << 8, 1512);
  EXPECT_EQ(bytes[4 + 274], 1);
  EXPECT_EQ(bytes[4 + 275], 239);
  EXPECT_EQ(bytes[4 + 278], 98);
  const NatNetServerInfo back = decode_natnet_server_info(bytes.data(), bytes.size());
  EXPECT_EQ(back.application, "Motive");
  EXPECT_EQ(back.natnet_version, info.natnet_version);
  EXPECT_EQ(back.application_version, info.application_version);
  EXPECT_EQ(back.clock_frequency, 3579545u);
  EXPECT_EQ(back.data_port, 1512);
  EXPECT_TRUE(back.multicast);
  EXPECT_EQ(back.multicast_group, info.multicast_group);
  EXPECT_THROW(decode_natnet_server_info(bytes.data(), 100), MocapError);
  // Before 3.0 the reply ends after the versions: 264 bytes.
  info.natnet_version = {2, 9, 0, 0};
  EXPECT_EQ(encode_natnet_server_info(info).size(), 4u + 264);
  info.application = std::string(300, 'x');
  EXPECT_THROW(encode_natnet_server_info(info), MocapError);
}

/// NatNet 3.1 model definitions written out here: a marker set "tool" (markers a, b), rigid
/// body "Wand" (id 7, no parent, 2 markers with labels 1 and 2), a camera (read past) and a
/// skeleton "Bob" (id 2) with one bone "Hip" (id 1, parent -1, no markers).
std::vector<std::uint8_t> model_packet() {
  test::PacketBytes p;
  const auto cstr = [&p](const char* s) {
    for (; *s != 0; ++s) {
      p.put<char>(*s);
    }
    p.put<char>(0);
  };
  p.put<std::uint16_t>(5);
  p.put<std::uint16_t>(0);
  p.put<std::int32_t>(4); // datasets
  p.put<std::int32_t>(0);
  cstr("tool");
  p.put<std::int32_t>(2);
  cstr("a");
  cstr("b");
  p.put<std::int32_t>(1);
  cstr("Wand");
  p.put<std::int32_t>(7);
  p.put<std::int32_t>(-1);
  for (int i = 0; i < 3; ++i) {
    p.put(0.f); // offset
  }
  p.put<std::int32_t>(2); // markers: positions, then labels
  for (float v : {0.01f, 0.02f, 0.03f, -0.01f, 0.f, 0.05f}) {
    p.put(v);
  }
  p.put<std::int32_t>(1);
  p.put<std::int32_t>(2);
  p.put<std::int32_t>(5); // a camera
  cstr("Cam 1");
  for (float v : {1.f, 2.f, 3.f, 0.f, 0.f, 0.f, 1.f}) {
    p.put(v);
  }
  p.put<std::int32_t>(2);
  cstr("Bob");
  p.put<std::int32_t>(2);
  p.put<std::int32_t>(1);
  cstr("Hip");
  p.put<std::int32_t>(1);
  p.put<std::int32_t>(-1);
  for (int i = 0; i < 3; ++i) {
    p.put(0.f);
  }
  p.put<std::int32_t>(0);
  p.set_natnet_payload_size();
  return p.b;
}

TEST(NatNet, ModelDefinitionsNameTheRigidBodies) {
  const auto bytes = model_packet();
  const NatNetModelDefinitions d =
      decode_natnet_model_definitions(bytes.data(), bytes.size(), {3, 1});
  ASSERT_EQ(d.marker_sets.size(), 1u);
  EXPECT_EQ(d.marker_sets[0].marker_names, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(d.rigid_bodies.size(), 1u);
  EXPECT_EQ(d.rigid_bodies[0].name, "Wand");
  EXPECT_EQ(d.rigid_bodies[0].id, 7);
  EXPECT_EQ(d.rigid_bodies[0].parent_id, -1);
  ASSERT_EQ(d.rigid_bodies[0].markers.size(), 2u);
  EXPECT_EQ(d.rigid_bodies[0].markers[1].z, 0.05f);
  EXPECT_EQ(d.rigid_bodies[0].marker_labels, (std::vector<std::int32_t>{1, 2}));
  ASSERT_EQ(d.skeletons.size(), 1u);
  EXPECT_EQ(d.skeletons[0].bones.at(0).name, "Hip");
  // What the encoder writes reads back, in every version (markers from 3.0, names from 4.0).
  NatNetModelDefinitions out;
  out.rigid_bodies = d.rigid_bodies;
  out.rigid_bodies[0].marker_names = {"m1", "m2"};
  out.marker_sets = d.marker_sets;
  for (const NatNetVersion v :
       {NatNetVersion{2, 9}, NatNetVersion{3, 1}, NatNetVersion{4, 0}, NatNetVersion{4, 1}}) {
    const auto packet = encode_natnet_model_definitions(out, v);
    const NatNetModelDefinitions back =
        decode_natnet_model_definitions(packet.data(), packet.size(), v);
    ASSERT_EQ(back.rigid_bodies.size(), 1u);
    EXPECT_EQ(back.rigid_bodies[0].name, "Wand");
    const bool markers = v >= NatNetVersion{3, 0}, names = v >= NatNetVersion{4, 0};
    EXPECT_EQ(back.rigid_bodies[0].markers.size(), markers ? 2u : 0u);
    EXPECT_EQ(back.rigid_bodies[0].marker_names.size(), names ? 2u : 0u);
  }
  // Broken: every truncation, an unknown dataset type, a lying count.
  for (std::size_t n = 4; n < bytes.size(); ++n) {
    auto cut = std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n));
    const auto payload = static_cast<std::uint16_t>(n - 4);
    std::memcpy(&cut[2], &payload, 2);
    EXPECT_THROW(decode_natnet_model_definitions(cut.data(), cut.size(), {3, 1}), MocapError) << n;
  }
  auto unknown = bytes;
  unknown[8] = 9; // the first dataset's type
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_model_definitions(unknown.data(), unknown.size(), {3, 1});
            }).find("dataset type at byte 8: is 9"),
            std::string::npos);
  auto lying = bytes;
  lying[4] = 0xff;
  lying[5] = 0xff;
  lying[6] = 0xff;
  lying[7] = 0x7f;
  EXPECT_THROW(decode_natnet_model_definitions(lying.data(), lying.size(), {3, 1}), MocapError);
}

// NatNet 4.1's model definitions: each dataset's type, then its size in bytes. Written here as
// the real client reads them: a rigid body "Wand" (id 7, two named markers), an asset (type 6:
// name, type, id, one rigid body description, one marker description) and a dataset of a type
// no version describes yet (99), both passed over by their sizes.
TEST(NatNet, Version41ModelDefinitionsPassOverAssetsAndNewerKindsByTheirSizes) {
  test::PacketBytes p;
  const auto text = [&](const std::string& t) {
    for (char c : t) {
      p.b.push_back(static_cast<std::uint8_t>(c));
    }
    p.b.push_back(0);
  };
  bool rest_orientation = false; // 4.2+: after the offset, the rest orientation x y z w
  const auto rigid_body = [&](const std::string& name, std::int32_t id) {
    text(name);
    p.put<std::int32_t>(id);
    p.put<std::int32_t>(-1);
    for (float v : {0.f, 0.f, 0.f}) {
      p.put(v);
    }
    if (rest_orientation) {
      for (float v : {0.f, 0.6f, 0.f, 0.8f}) {
        p.put(v);
      }
    }
    p.put<std::int32_t>(2);
    for (float v : {0.1f, 0.f, 0.f, 0.f, 0.f, 0.05f}) {
      p.put(v);
    }
    p.put<std::int32_t>(1);
    p.put<std::int32_t>(2);
    text("tip");
    text("base");
  };
  const auto dataset = [&](std::int32_t type, const auto& contents) {
    p.put<std::int32_t>(type);
    const std::size_t at = p.b.size();
    p.put<std::uint32_t>(0);
    contents();
    p.set_u32(at, static_cast<std::uint32_t>(p.b.size() - at - 4));
  };
  const auto packet = [&](bool orientation) {
    p.b.clear();
    rest_orientation = orientation;
    p.put<std::uint16_t>(5);
    p.put<std::uint16_t>(0);
    p.put<std::int32_t>(3);
    dataset(1, [&] { rigid_body("Wand", 7); });
    dataset(6, [&] {
      text("Markerset 1");
      p.put<std::int32_t>(1); // asset type
      p.put<std::int32_t>(9); // asset id
      p.put<std::int32_t>(1);
      rigid_body("Markerset 1:Bone", 65537);
      p.put<std::int32_t>(1);
      text("Markerset 1:M1");
      p.put<std::int32_t>(4);
      for (float v : {1.f, 2.f, 3.f, 0.014f}) {
        p.put(v);
      }
      p.put<std::int16_t>(0);
    });
    dataset(99, [&] {
      for (int k = 0; k < 10; ++k) {
        p.b.push_back(0xab);
      }
    });
    p.set_natnet_payload_size();
    return p.b;
  };
  // NatNet 4.2 (OptiTrack's SDK reads it so): a rigid body's rest orientation after its offset.
  const auto with_orientation = packet(true);
  const NatNetModelDefinitions d42 =
      decode_natnet_model_definitions(with_orientation.data(), with_orientation.size(), {4, 2});
  ASSERT_EQ(d42.rigid_bodies.size(), 1u);
  EXPECT_EQ(d42.rigid_bodies[0].orientation.y, 0.60000002384185791);
  EXPECT_EQ(d42.rigid_bodies[0].orientation.w, 0.800000011920929);
  EXPECT_EQ(d42.rigid_bodies[0].marker_names, (std::vector<std::string>{"tip", "base"}));
  // Read as 4.1, the same bytes are refused by the dataset's size, not misread.
  EXPECT_THROW(
      decode_natnet_model_definitions(with_orientation.data(), with_orientation.size(), {4, 1}),
      MocapError);
  packet(false);
  const NatNetModelDefinitions d = decode_natnet_model_definitions(p.b.data(), p.b.size(), {4, 1});
  ASSERT_EQ(d.rigid_bodies.size(), 1u);
  EXPECT_EQ(d.rigid_bodies[0].name, "Wand");
  EXPECT_EQ(d.rigid_bodies[0].marker_names, (std::vector<std::string>{"tip", "base"}));
  // Before 4.1 the same bytes are not a model definitions packet.
  EXPECT_THROW(decode_natnet_model_definitions(p.b.data(), p.b.size(), {4, 0}), MocapError);
  // A dataset that ends elsewhere than its size says is named.
  auto wrong = p.b;
  wrong[4 + 4 + 4] += 3; // the rigid body's size
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_natnet_model_definitions(wrong.data(), wrong.size(), {4, 1});
            }).find("dataset size at byte 12"),
            std::string::npos);
}

} // namespace
} // namespace odemocap
