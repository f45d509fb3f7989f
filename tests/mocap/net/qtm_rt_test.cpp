// QTM RT packets: a data packet written out byte by byte here decodes to what it says (the
// rotation matrix column by column, millimetres) and is what the encoder writes; strings and
// 6D parameters round-trip; truncated, lying and trailing packets are refused naming the field
// and byte, before anything is allocated.
#include "support/error_message.hpp"
#include "support/packet_bytes.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

namespace odemocap {
namespace {

/// Frame 7 at 1.5 s: one body at (100, -250, 1000) mm turned a quarter turn about z (R maps x
/// to y: R21 = 1, R12 = -1), one untracked body (NaN); an analog component QTM might add.
std::vector<std::uint8_t> two_body_packet() {
  test::PacketBytes p;
  p.put<std::uint32_t>(0); // size, set below
  p.put<std::uint32_t>(3); // data
  p.put<std::uint64_t>(1500000);
  p.put<std::uint32_t>(7);
  p.put<std::uint32_t>(2); // components
  const std::size_t six = p.b.size();
  p.put<std::uint32_t>(0);
  p.put<std::uint32_t>(5); // 6D
  p.put<std::uint32_t>(2); // bodies
  p.put<std::uint16_t>(0);
  p.put<std::uint16_t>(0);
  for (float v : {100.f, -250.f, 1000.f, 0.f, 1.f, 0.f, -1.f, 0.f, 0.f, 0.f, 0.f, 1.f}) {
    p.put(v);
  }
  for (int i = 0; i < 12; ++i) {
    p.put(std::nanf(""));
  }
  p.set_u32(six, static_cast<std::uint32_t>(p.b.size() - six));
  p.put<std::uint32_t>(8 + 4);
  p.put<std::uint32_t>(3); // analog: skipped by its size
  p.put<std::uint32_t>(0);
  p.set_u32(0, static_cast<std::uint32_t>(p.b.size()));
  return p.b;
}

TEST(QtmRt, AHandWrittenFrameDecodesToWhatItSays) {
  const auto bytes = two_body_packet();
  const QtmFrame f = decode_qtm_frame(bytes.data(), bytes.size());
  EXPECT_EQ(f.timestamp, 1500000u);
  EXPECT_EQ(f.frame, 7u);
  ASSERT_EQ(f.bodies.size(), 2u);
  Pose pose;
  ASSERT_TRUE(qtm_body_pose(f.bodies[0], pose));
  EXPECT_NEAR(pose.p.x, 0.1, 1e-9);
  EXPECT_NEAR(pose.p.y, -0.25, 1e-9);
  EXPECT_NEAR(pose.p.z, 1.0, 1e-9);
  // A quarter turn about +z: x goes to y.
  const Vec3 x_to = rotate(pose.q, Vec3{1, 0, 0});
  EXPECT_NEAR(x_to.y, 1.0, 1e-7);
  EXPECT_NEAR(std::abs(pose.q.w), std::sqrt(0.5), 1e-7);
  EXPECT_FALSE(qtm_body_pose(f.bodies[1], pose));
  const auto samples = qtm_samples(f, 9.0);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].capture_time, 1.5);
  EXPECT_TRUE(samples[0].valid);
  EXPECT_FALSE(samples[1].valid);
}

TEST(QtmRt, DiscoverPacketsAsTheProtocolDescribesThem) {
  // The client's broadcast: size 10 and type 7 (little-endian, as every RT header), then the
  // port to answer to in network order (22222 = 0x56CE), as Qualisys's SDK packs it ("<II",
  // ">H").
  const std::uint8_t request[] = {10, 0, 0, 0, 7, 0, 0, 0, 0x56, 0xCE};
  EXPECT_EQ(decode_qtm_discover(request, sizeof request), std::optional<std::uint16_t>(22222));
  // Anything else on the port is not a request: another type, a size that disagrees, a
  // datagram cut short or longer.
  std::uint8_t command[sizeof request];
  std::memcpy(command, request, sizeof request);
  command[4] = 1;
  EXPECT_FALSE(decode_qtm_discover(command, sizeof command));
  std::uint8_t lying[sizeof request];
  std::memcpy(lying, request, sizeof request);
  lying[0] = 11;
  EXPECT_FALSE(decode_qtm_discover(lying, sizeof lying));
  EXPECT_FALSE(decode_qtm_discover(request, 9));
  EXPECT_FALSE(decode_qtm_discover(request, 0));
  // The answer: the header, the text with its NUL, the base port in network order; its size
  // counts all of it (the SDK reads the text as size - 3 - 8 bytes and the port at size - 2).
  const std::vector<std::uint8_t> answer = encode_qtm_discover_response("qtm", 22222);
  const std::vector<std::uint8_t> expected{14, 0, 0, 0, 7, 0, 0, 0, 'q', 't', 'm', 0, 0x56, 0xCE};
  EXPECT_EQ(answer, expected);
}

TEST(QtmRt, FramesStringsAndParametersRoundTrip) {
  QtmFrame f;
  f.timestamp = 123456789;
  f.frame = 99;
  f.has_bodies = true;
  for (double i = 0; i < 3; ++i) {
    f.bodies.push_back(
        qtm_body({{0.1 * i, -0.2, 1.5}, from_axis_angle(Vec3{1, 2, 3 + i}, 0.3 + i)}));
  }
  f.markers = {{1.f, 2.f, 3.f}};
  for (const bool residuals : {false, true}) {
    f.residuals = residuals;
    const auto bytes = encode_qtm_frame(f);
    const QtmFrame g = decode_qtm_frame(bytes.data(), bytes.size());
    EXPECT_EQ(g.frame, 99u);
    EXPECT_EQ(g.residuals, residuals);
    ASSERT_EQ(g.bodies.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(g.bodies[i].rotation, f.bodies[i].rotation);
      EXPECT_EQ(norm(g.bodies[i].position - f.bodies[i].position), 0.0);
    }
    EXPECT_EQ(g.markers.size(), 1u);
  }
  // The pose survives the trip to the packet's floats: millimetres and a float matrix.
  Pose back;
  const Pose sent{{0.2, -0.2, 1.5}, from_axis_angle(Vec3{1, 2, 5}, 2.3)};
  ASSERT_TRUE(qtm_body_pose(qtm_body(sent), back));
  EXPECT_LT(norm(back.p - sent.p), 1e-7);
  EXPECT_LT(angle_between(back.q, sent.q), 1e-6);

  const auto command = encode_qtm_string(QtmPacketType::Command, "StreamFrames AllFrames 6D");
  EXPECT_EQ(command.size(), 8u + 25u + 1u);
  EXPECT_EQ(decode_qtm_string(command.data(), command.size()), "StreamFrames AllFrames 6D");
  const std::vector<std::string> names{"tool", "hand", "Rigid Body 3"};
  QtmParameters parameters;
  parameters.bodies = names;
  for (const char* version : {"1.20", "1.25"}) { // both 6D layouts
    EXPECT_EQ(qtm_body_names(qtm_parameters_xml(parameters, version, false, false, true)), names);
  }
}

TEST(QtmRt, QtmsOwnParameterXmlNamesItsBodies) {
  // The shape QTM answers GetParameters 6D with (protocol 1.2x), trimmed to two bodies.
  const std::string xml =
      "<QTM_Parameters_Ver_1.21><The_6D><Bodies>2</Bodies><Body><Name>Wand</Name>"
      "<Color R=\"255\" G=\"0\" B=\"0\"/><Points><Point X=\"1\" Y=\"2\" Z=\"3\"/></Points></Body>"
      "<Body><Name>Plate</Name></Body><Euler><First>X</First></Euler></The_6D>"
      "</QTM_Parameters_Ver_1.21>";
  EXPECT_EQ(qtm_body_names(xml), (std::vector<std::string>{"Wand", "Plate"}));
  EXPECT_NE(test::error_message<MocapError>([] {
              qtm_body_names("<QTM_Parameters/>");
            }).find("no The_6D element"),
            std::string::npos);
  EXPECT_THROW(qtm_body_names("<QTM"), MocapError);
}

TEST(QtmRt, BrokenPacketsAreRefusedNamingTheFieldAndByte) {
  const auto good = two_body_packet();
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(decode_qtm_frame(good.data(), n), MocapError) << n;
    if (n >= 8) { // size field fixed: a field or component runs off the end
      auto cut = std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<long>(n));
      const auto size = static_cast<std::uint32_t>(n);
      std::memcpy(&cut[0], &size, 4);
      EXPECT_THROW(decode_qtm_frame(cut.data(), cut.size()), MocapError) << n;
    }
  }
  auto lying = good;
  const std::uint32_t huge = 0x7fffffff;
  std::memcpy(&lying[32], &huge, 4); // the 6D body count
  const std::string message =
      test::error_message<MocapError>([&] { decode_qtm_frame(lying.data(), lying.size()); });
  EXPECT_NE(message.find("6D body count at byte 32: claims 2147483647 elements"), std::string::npos)
      << message;
  auto big = good;
  const std::uint32_t claimed = 0xfffffff0;
  std::memcpy(&big[0], &claimed, 4);
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_qtm_header(big.data(), big.size());
            }).find("outside 8 to"),
            std::string::npos);
  auto component = good;
  std::memcpy(&component[24], &huge, 4); // the 6D component's size
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_qtm_frame(component.data(), component.size());
            }).find("component size at byte 24"),
            std::string::npos);
  auto trailing = good;
  trailing.push_back(0);
  const auto size = static_cast<std::uint32_t>(trailing.size());
  std::memcpy(&trailing[0], &size, 4);
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_qtm_frame(trailing.data(), trailing.size());
            }).find("1 bytes past the last component"),
            std::string::npos);
  auto unknown = good;
  unknown[4] = 42;
  EXPECT_NE(test::error_message<MocapError>([&] {
              decode_qtm_frame(unknown.data(), unknown.size());
            }).find("unknown packet type 42"),
            std::string::npos);
}

std::vector<std::uint8_t> seed(const std::string& name) {
  std::ifstream in(std::string(ODEMOCAP_FUZZ_SEEDS_DIR) + "/qtm_rt/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(QtmRt, TheFuzzSeedsAreValidPacketsOfEachKind) {
  // Seeds the fuzzer mutates must start valid, or it explores only the first checks.
  const auto six = seed("frame_6d.bin");
  EXPECT_EQ(decode_qtm_frame(six.data(), six.size()).bodies.size(), 2u);
  const auto residual = seed("frame_6d_residual_3d.bin");
  const QtmFrame f = decode_qtm_frame(residual.data(), residual.size());
  EXPECT_TRUE(f.residuals);
  EXPECT_EQ(f.markers.size(), 2u);
  const auto command = seed("command.bin");
  EXPECT_EQ(decode_qtm_string(command.data(), command.size()), "QTM RT Interface connected");
  const auto xml = seed("parameters.bin");
  EXPECT_EQ(qtm_body_names(decode_qtm_string(xml.data(), xml.size())),
            (std::vector<std::string>{"Wand", "Plate"}));
}

} // namespace
} // namespace odemocap
