// C3D: the real Vicon and Qualisys files of ../shared/data against the figures their
// PROVENANCE gives, and small files written by tests/support/c3d_builder.hpp for every storage
// variant and for broken input.
#include "support/c3d_builder.hpp"
#include "support/error_message.hpp"
#include "support/data_paths.hpp"
#include "support/notes.hpp"
#include "support/reference_math.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace odemocap {
namespace {

using test::C3dBuilder;
using test::C3dPoint;
using test::C3dSpec;

std::size_t invalid_samples(const Capture& c) {
  std::size_t n = 0;
  for (const Track& t : c.tracks()) {
    n += t.size() - t.valid_count();
  }
  return n;
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
    out += ' ';
  }
  return out;
}

// ---- Real files --------------------------------------------------------------------------

TEST(C3dLoader, ViconFileHas51MarkersAt100HzWith305Gaps) {
  const std::string path = test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  EXPECT_EQ(c.info().format, "c3d");
  EXPECT_EQ(c.tracks().size(), 51u);
  EXPECT_DOUBLE_EQ(c.info().frame_rate, 100.0);
  EXPECT_EQ(c.info().length_unit, "mm");
  EXPECT_DOUBLE_EQ(c.info().length_scale, 0.001);
  const Track& box = c.track("boite:gauche_ext");
  EXPECT_TRUE(box.position_only());
  EXPECT_EQ(box.size(), 580u);
  EXPECT_DOUBLE_EQ(box.start_time(), 0.0);         // frame 1
  EXPECT_NEAR(box.end_time(), 579 / 100.0, 1e-12); // frame 580
  EXPECT_EQ(invalid_samples(c), 305u);             // PROVENANCE: residual < 0
  EXPECT_EQ(c.track("Daphnee:SCAP_CP").valid_count(), 488u);
  // Gaps are gaps, never a marker at the origin.
  for (const Track& t : c.tracks()) {
    for (std::size_t i : t.valid_indices()) {
      ASSERT_GT(norm(t.position(i)), 0.01) << t.name() << " sample " << i;
    }
  }
  // The analog channels (38 x 20 per frame) are stepped over, not read as points.
  ASSERT_FALSE(c.info().notes.empty());
  EXPECT_NE(c.info().notes.back().find("760 analog"), std::string::npos);
}

TEST(C3dLoader, QualisysFileStartsAtFrame705At200HzWithoutGaps) {
  const std::string path = test::shared_data("ezc3d/Qualisys.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  EXPECT_EQ(c.tracks().size(), 55u);
  EXPECT_DOUBLE_EQ(c.info().frame_rate, 200.0);
  const Track& t = c.track("L_IAS");
  EXPECT_EQ(t.size(), 340u);
  EXPECT_NEAR(t.start_time(), 704 / 200.0, 1e-12); // frame 705
  EXPECT_NEAR(t.end_time(), 1043 / 200.0, 1e-12);  // frame 1044
  EXPECT_EQ(invalid_samples(c), 0u);
  EXPECT_NE(c.info().notes.back().find("690 analog"), std::string::npos); // 69 x 10
}

TEST(C3dLoader, SelectsTracksAndConvertsToAnotherUpAxis) {
  const std::string path = test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  LoadOptions o;
  o.tracks = {"Daphnee:STER"};
  o.up_axis = Axis::Y;
  const Capture c = load_capture(path, o);
  ASSERT_EQ(c.tracks().size(), 1u);
  const Capture z = load_capture(path);
  const Vec3 a = z.track("Daphnee:STER").position(10);
  const Vec3 b = c.track("Daphnee:STER").position(10);
  // Z up to Y up: the shortest rotation takes z to y, so (x, y, z) -> (x, z, -y).
  EXPECT_TRUE(test::near_vec(b, {a.x, a.z, -a.y}, 1e-12));
  o.tracks = {"nobody"};
  EXPECT_THROW(load_capture(path, o), LoadError);
}

// ---- Storage variants ----------------------------------------------------------------------

C3dSpec three_markers(int processor, double scale) {
  C3dSpec s;
  s.processor = processor;
  s.scale = scale;
  s.rate = 50;
  s.labels = {"a", "b", "c"};
  for (int f = 0; f < 4; ++f) {
    s.frames.push_back({{10.0 * f, 20, 30, 1}, {-100, 5.5 * f, 0, 2}, {1, 2, 3, 0}});
  }
  s.frames[2][1].residual = -1; // b is missing in frame 3
  return s;
}

void expect_three_markers(const Capture& c, double tolerance) {
  ASSERT_EQ(c.tracks().size(), 3u);
  const Track& a = c.track("a");
  const Track& b = c.track("b");
  ASSERT_EQ(a.size(), 4u);
  EXPECT_NEAR(a.time(3), 3 / 50.0, 1e-15);
  EXPECT_TRUE(test::near_vec(a.position(3), {0.030, 0.020, 0.030}, tolerance)); // mm -> m
  EXPECT_TRUE(test::near_vec(b.position(1), {-0.100, 0.0055, 0}, tolerance));
  EXPECT_FALSE(b.valid(2));
  EXPECT_TRUE(b.valid(3));
  EXPECT_EQ(b.valid_count(), 3u);
}

TEST(C3dLoader, FloatStorageIntelAndDecReadTheSame) {
  for (int processor : {84, 85}) {
    const C3dSpec spec = three_markers(processor, -0.1);
    const std::string file = C3dBuilder(processor).build(spec);
    SCOPED_TRACE(processor);
    expect_three_markers(parse_c3d(file, "three.c3d"), 1e-9);
  }
}

TEST(C3dLoader, IntegerStorageIsScaledByPointScale) {
  for (int processor : {84, 85}) {
    const C3dSpec spec = three_markers(processor, 0.5); // 0.5 mm per count
    SCOPED_TRACE(processor);
    expect_three_markers(parse_c3d(C3dBuilder(processor).build(spec), "int.c3d"), 1e-12);
  }
}

TEST(C3dLoader, DecFloatEncodingMatchesHandDerivedBytes) {
  // DEC F-float: sign, 8-bit exponent biased 128, mantissa 0.1f; stored as two little-endian
  // 16-bit words, high word first. 1.0 = 0.5 * 2^1: exponent 129 -> 0x4080 0x0000.
  const C3dBuilder dec(85);
  const auto bytes = [&](double v) {
    std::string out;
    dec.f32(out, v);
    return hex(out);
  };
  EXPECT_EQ(bytes(1.0), "80 40 00 00 ");
  EXPECT_EQ(bytes(-2.5), "20 c1 00 00 "); // -0.625 * 2^2: exponent 130, mantissa .25
  EXPECT_EQ(bytes(0.1), "cc 3e cd cc ");  // 0.8 * 2^-3: exponent 125
}

TEST(C3dLoader, AnalogSamplesBetweenFramesAreSteppedOver) {
  C3dSpec spec = three_markers(84, -0.1);
  spec.analog_values = 7; // an odd count: every frame's points start off the block grid
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "analog.c3d");
  expect_three_markers(c, 1e-9);
  spec.scale = 0.5;
  expect_three_markers(parse_c3d(C3dBuilder(84).build(spec), "analog_int.c3d"), 1e-12);
}

TEST(C3dLoader, TrialFieldsGiveFrameNumbersBeyond65535) {
  C3dSpec spec = three_markers(84, -0.1);
  spec.first_frame = 70001;
  spec.trial_fields = true;
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "long.c3d");
  EXPECT_NEAR(c.track("a").start_time(), 70000 / 50.0, 1e-9);
  EXPECT_EQ(c.track("a").size(), 4u);
}

TEST(C3dLoader, LabelsAreMadeUniqueAcrossPointsAndRotations) {
  // Found by the fuzzer: a rotation labelled like a point reached Capture::add_track's
  // MocapError. Duplicates are renamed and noted; empty labels get a name.
  C3dSpec spec = three_markers(84, -0.1);
  spec.labels = {"a", "a", ""};
  spec.rotation_labels = {"a"};
  spec.rotations.assign(4, std::vector<test::C3dRotation>(1));
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "dup.c3d");
  ASSERT_EQ(c.tracks().size(), 4u);
  EXPECT_EQ(c.tracks()[0].name(), "a");
  EXPECT_EQ(c.tracks()[1].name(), "a#2");
  EXPECT_EQ(c.tracks()[2].name(), "point3");
  EXPECT_EQ(c.tracks()[3].name(), "a#3");
  EXPECT_FALSE(c.tracks()[3].position_only());
}

TEST(C3dLoader, RotationGroupBecomesRigidBodyTracks) {
  C3dSpec spec = three_markers(84, -0.1);
  spec.rotation_labels = {"tool", "plate"};
  test::Random random(3);
  std::vector<Quat> truth;
  for (int f = 0; f < 4; ++f) {
    std::vector<test::C3dRotation> frame(2);
    const Quat q = random.rotation();
    truth.push_back(q);
    const Mat3 r = to_matrix(q);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        frame[0].m[i][j] = r.m[i][j];
      }
    }
    frame[0].m[0][3] = 100 * f; // translation, mm
    frame[0].m[1][3] = -50;
    frame[0].m[2][3] = 7;
    frame[1].reliability = f == 1 ? -1 : 0; // plate missing in frame 2
    spec.rotations.push_back(frame);
  }
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "6dof.c3d");
  ASSERT_EQ(c.tracks().size(), 5u);
  const Track& tool = c.track("tool");
  EXPECT_FALSE(tool.position_only());
  for (int f = 0; f < 4; ++f) {
    EXPECT_TRUE(test::same_rotation(tool.orientation(f), truth[f], 1e-6)) << f;
    EXPECT_TRUE(test::near_vec(tool.position(f), {0.1 * f, -0.05, 0.007}, 1e-9)) << f;
  }
  EXPECT_FALSE(c.track("plate").valid(1));
  EXPECT_EQ(c.track("plate").valid_count(), 3u);
}

// ---- Bad input -----------------------------------------------------------------------------

std::string error_of(const std::string& bytes) {
  try {
    parse_c3d(bytes, "bad.c3d");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(C3dLoader, ADataSectionCutShortKeepsItsCompleteFramesWithANote) {
  const std::string good = C3dBuilder(84).build(three_markers(84, -0.1));
  const std::size_t data_end = 512 + 1024 + 4 * 3 * 16;
  const Capture cut = parse_c3d(good.substr(0, data_end - 10), "cut.c3d");
  EXPECT_EQ(cut.track("a").size(), 3u); // 3 complete frames of the 4 announced
  ASSERT_EQ(cut.info().tolerated.size(), 1u);
  EXPECT_NE(cut.info().tolerated[0].find("3 of the 4 announced frames (1 missing"),
            std::string::npos)
      << cut.info().tolerated[0];
  const Capture whole = parse_c3d(good, "whole.c3d");
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(cut.track("b").position(i).y, whole.track("b").position(i).y);
  }
}

TEST(C3dLoader, AZeroOrStaleDataStartParameterFallsBackOnTheHeader) {
  for (int stale : {0, 5000}) {
    C3dSpec spec = three_markers(84, -0.1);
    spec.point_data_start = stale;
    const std::string file = C3dBuilder(84).build(spec);
    const Capture c = parse_c3d(file, "zero.c3d");
    expect_three_markers(c, 1e-7);
    ASSERT_EQ(c.info().tolerated.size(), 1u) << stale;
    EXPECT_NE(c.info().tolerated[0].find("header's block 4"), std::string::npos)
        << c.info().tolerated[0];
    LoadOptions strict;
    strict.strict = true;
    EXPECT_NE(test::error_message<LoadError>([&] { parse_c3d(file, "zero.c3d", strict); })
                  .find("POINT:DATA_START is block"),
              std::string::npos);
  }
}

TEST(C3dLoader, AHeaderCountingFramesFromZeroStartsAtTimeZero) {
  C3dSpec spec = three_markers(84, -0.1);
  spec.first_frame = 0;
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "zero.c3d");
  expect_three_markers(c, 1e-7);
  EXPECT_EQ(c.track("a").time(0), 0.0);
  EXPECT_NE(c.info().notes.back().find("first frame is 0"), std::string::npos);
}

TEST(C3dLoader, YScreenIsAViewerSettingTheDataIsNeverTurned) {
  // Qualisys QTM writes X_SCREEN "-X", Y_SCREEN "-Z" for data that stands on +Z: L_HDF (head)
  // at z = +1441.551 mm and L_FM1 (toe) at +106.167 mm in frame 1, read from the bytes by hand
  // (../shared/data/ezc3d/Qualisys.c3d; points 10 and 24, float data at block 29).
  const std::string path = test::shared_data("ezc3d/Qualisys.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  EXPECT_EQ(c.info().up_axis, Axis::Z);
  EXPECT_EQ(c.info().up_axis_source, "declared");
  const Vec3 head = c.track("L_HDF").position(0);
  const Vec3 toe = c.track("L_FM1").position(0);
  EXPECT_NEAR(head.x, -0.1650245819, 1e-9);
  EXPECT_NEAR(head.y, 0.2306246338, 1e-9);
  EXPECT_NEAR(head.z, 1.4415513916, 1e-9);
  EXPECT_NEAR(toe.z, 0.1061674271, 1e-9);
  // The old reading turned the data half a turn: the head 1.44 m below the floor.
  const Vec3 turned = rotate(from_to({0, 0, -1}, {0, 0, 1}), head);
  EXPECT_LT(turned.z, 0.0);
  EXPECT_TRUE(test::has_note(c.info(), "Y_SCREEN is '-Z'"));

  // Written by the builder: "-Z" and "+Z" load the same numbers.
  C3dSpec spec = three_markers(84, -0.1);
  spec.y_screen = "-Z";
  const Capture down = parse_c3d(C3dBuilder(84).build(spec), "down.c3d");
  spec.y_screen = "+Z";
  const Capture up = parse_c3d(C3dBuilder(84).build(spec), "up.c3d");
  for (std::size_t i = 0; i < up.track("a").size(); ++i) {
    EXPECT_EQ(norm(down.track("a").position(i) - up.track("a").position(i)), 0.0);
  }
  spec.y_screen = "+Y";
  EXPECT_EQ(parse_c3d(C3dBuilder(84).build(spec), "y.c3d").info().file_up_axis, Axis::Y);
}

TEST(C3dLoader, UnitsPaddedWithNulBytesAreRead) {
  // OptiTrack Motive 2.2 pads POINT:UNITS with NUL bytes: "m\0\0\0" is metres, not the
  // millimetre fallback that made every position 1000 times too small.
  C3dSpec spec = three_markers(84, -0.1);
  spec.units = std::string("m\0\0\0", 4);
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "motive.c3d");
  EXPECT_EQ(c.info().unit_in_metres, 1.0);
  EXPECT_EQ(c.info().unit_source, "declared");
  EXPECT_EQ(c.info().length_unit, "m");
  spec.units = "mm";
  const Capture mm = parse_c3d(C3dBuilder(84).build(spec), "mm.c3d");
  EXPECT_NEAR(c.track("a").position(2).x, 1000.0 * mm.track("a").position(2).x, 1e-9);
}

TEST(C3dLoader, AnUnknownUnitIsInferredFromTheCoordinatesAndSaid) {
  C3dSpec spec = three_markers(84, -0.1);
  for (auto& frame : spec.frames) { // a person-sized capture volume, in millimetres
    for (C3dPoint& p : frame) {
      p.x *= 1000.0;
      p.z += 1500.0;
    }
  }
  spec.units = "furlong";
  const Capture c = parse_c3d(C3dBuilder(84).build(spec), "odd.c3d");
  EXPECT_EQ(c.info().unit_source, "inferred");
  EXPECT_EQ(c.info().unit_in_metres, 0.001);
  ASSERT_FALSE(c.info().notes.empty());
  const std::string& note = c.info().notes.back();
  EXPECT_NE(note.find("POINT:UNITS is 'furlong'"), std::string::npos) << note;
  EXPECT_NE(note.find("inferred mm"), std::string::npos) << note;
}

TEST(C3dLoader, BigEndianFilesReadTheSameNumbersAsIntelAndDec) {
  // c3d.org's sample 1: the same trial written by PC (Intel), SGI (MIPS) and DEC software.
  const Capture intel = load_capture(test::test_data("c3d/Eb015pi.c3d"));
  const Capture sgi = load_capture(test::test_data("c3d/Eb015si.c3d"));
  const Capture dec = load_capture(test::test_data("c3d/Eb015vi.c3d"));
  ASSERT_EQ(sgi.tracks().size(), 26u);
  EXPECT_EQ(sgi.info().frame_rate, 50.0);
  // Hand-read from the bytes (tests/data/c3d/PROVENANCE.md).
  const Track& rft1 = sgi.track("RFT1");
  ASSERT_EQ(rft1.size(), 450u);
  EXPECT_NEAR(rft1.position(0).x, 0.2485833407, 1e-9);
  EXPECT_NEAR(rft1.position(0).y, 0.2268333401, 1e-9);
  EXPECT_NEAR(rft1.position(0).z, 0.0374166678, 1e-9);
  EXPECT_NEAR(rft1.position(449).y, 2.2480000670, 1e-9);
  EXPECT_NEAR(sgi.tracks()[5].position(100).x, -0.0647500019, 1e-9);
  for (const Capture* other : {&intel, &dec}) {
    ASSERT_EQ(other->tracks().size(), sgi.tracks().size());
    for (std::size_t t = 0; t < sgi.tracks().size(); ++t) {
      const Track& a = sgi.tracks()[t];
      const Track& b = other->tracks()[t];
      ASSERT_EQ(a.name(), b.name());
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a.valid(i), b.valid(i));
        EXPECT_NEAR(norm(a.position(i) - b.position(i)), 0.0, 1e-9) << a.name() << " " << i;
      }
    }
  }
  // Big-endian float storage: sample 2.
  const Capture sgi_real = load_capture(test::test_data("c3d/sgi_real.c3d"));
  const Capture pc_real = load_capture(test::test_data("c3d/pc_real.c3d"));
  const Vec3 p = sgi_real.tracks()[1].position(10);
  EXPECT_NEAR(p.x, 0.27640179443, 1e-9);
  EXPECT_NEAR(p.y, 0.36159988403, 1e-9);
  EXPECT_NEAR(p.z, 0.11556575012, 1e-9);
  EXPECT_EQ(norm(p - pc_real.tracks()[1].position(10)), 0.0);
  // Read little-endian, as the old loader would have if it had not refused: garbage.
  std::ifstream in(test::test_data("c3d/Eb015si.c3d"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes[512 + 3] = 84; // claim Intel
  std::string error;
  try {
    const Capture wrong = parse_c3d(bytes, "wrong-order.c3d");
    error = "(loaded)";
    EXPECT_GT(norm(wrong.track("RFT1").position(0) - rft1.position(0)), 1.0);
  } catch (const LoadError& e) {
    error = e.what();
  }
  EXPECT_FALSE(error.empty());
  // The builder's big-endian files too.
  const Capture built = parse_c3d(C3dBuilder(86).build(three_markers(86, -0.1)), "mips.c3d");
  const Capture built_intel = parse_c3d(C3dBuilder(84).build(three_markers(84, -0.1)), "pc.c3d");
  EXPECT_EQ(norm(built.track("c").position(3) - built_intel.track("c").position(3)), 0.0);
}

TEST(C3dLoader, ParametersRunningPastTheClaimedBlocksAreReadWithANote) {
  // BTK's parameterOverflow.c3d (DEC): the section claims 46 blocks, ANALYSIS:VALUES runs past
  // them; the data starts at block 51.
  const Capture c = load_capture(test::test_data("c3d/parameterOverflow.c3d"));
  EXPECT_EQ(c.tracks().size(), 142u);
  EXPECT_EQ(c.info().frame_rate, 100.0);
  const Vec3 hip = c.track("LHipAngles").position(50);
  EXPECT_NEAR(hip.x, -0.0085555849, 1e-9);
  EXPECT_NEAR(hip.y, 0.0005215490, 1e-9);
  EXPECT_NEAR(hip.z, 0.0036657825, 1e-9);
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("claims 46 block(s)"), std::string::npos)
      << c.info().tolerated[0];
  LoadOptions strict;
  strict.strict = true;
  EXPECT_THROW(load_capture(test::test_data("c3d/parameterOverflow.c3d"), strict), LoadError);

  // The builder: a section that claims 1 block but fills 2.
  C3dSpec spec = three_markers(84, -0.1);
  spec.claimed_parameter_blocks = 1;
  spec.labels = {std::string(200, 'a'), std::string(200, 'b'), std::string(200, 'c')};
  const Capture built = parse_c3d(C3dBuilder(84).build(spec), "long.c3d");
  EXPECT_EQ(built.tracks()[2].name(), std::string(200, 'c'));
  EXPECT_EQ(built.info().tolerated.size(), 1u);
}

TEST(C3dLoader, ANegativeOffsetEndsTheParameterSectionWithANote) {
  // c3d.org sample 18: an empty group whose offset to the next record is -1.
  const Capture c = load_capture(test::test_data("c3d/bad_parameter_section.c3d"));
  EXPECT_EQ(c.tracks().size(), 45u);
  EXPECT_EQ(c.info().frame_rate, 120.0);
  const Vec3 p = c.track("P1").position(0);
  EXPECT_NEAR(p.x, -0.5873705048, 1e-9);
  EXPECT_NEAR(p.y, 0.2341298150, 1e-9);
  EXPECT_NEAR(p.z, 0.5262583533, 1e-9);
  ASSERT_EQ(c.info().tolerated.size(), 1u);
  EXPECT_NE(c.info().tolerated[0].find("gives -1 as the offset"), std::string::npos)
      << c.info().tolerated[0];
}

TEST(C3dLoader, AFileThatDeclaresNoUpAxisStandsAsItsMarkersSay) {
  // c3d.org sample 28, from a BTS system: no POINT:Y_SCREEN (and no POINT:UNITS). Read from the
  // bytes by hand (tests/data/c3d/PROVENANCE.md), frame 1: the sacrum at y = 978.355 mm, the
  // right heel at y = 28.708 mm; along z they are 221.191 and 260.279 mm.
  const std::string path = test::test_data("c3d/standing.C3D");
  {
    const Capture c = load_capture(path); // in the file's frame
    // Taken as Z up (the usual laboratory convention, and this loader's reading before), the
    // heel stood above the sacrum.
    EXPECT_LT(c.track("sacrum").position(0).z, c.track("r heel").position(0).z);
    EXPECT_EQ(c.info().up_axis, Axis::Y);
    EXPECT_EQ(c.info().file_up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_TRUE(test::has_note(c.info(), "up axis inferred from the markers: +Y"));
    EXPECT_TRUE(test::has_note(c.info(), "the file declares no up axis"));
    const Vec3 sacrum = c.track("sacrum").position(0);
    EXPECT_NEAR(sacrum.x, 0.217777099609375, 1e-12);
    EXPECT_NEAR(sacrum.y, 0.97835546875, 1e-12);
    EXPECT_NEAR(sacrum.z, 0.22119129943847656, 1e-12);
  }
  {
    LoadOptions z_up;
    z_up.up_axis = Axis::Z;
    const Capture c = load_capture(path, z_up);
    EXPECT_EQ(c.info().up_axis, Axis::Z);
    EXPECT_EQ(c.info().file_up_axis, Axis::Y);
    const Vec3 sacrum = c.track("sacrum").position(0);
    const Vec3 heel = c.track("r heel").position(0);
    EXPECT_NEAR(sacrum.z, 0.97835546875, 1e-12);
    EXPECT_NEAR(heel.z, 0.028708202362060547, 1e-12);
    EXPECT_NEAR(sacrum.x, 0.217777099609375, 1e-12); // a quarter turn about x: x stays
  }
  {
    // The same lab's walking trial as c3d.org rewrote it (units declared, still no Y_SCREEN):
    // a lower-body marker set whose stride spreads it along the walk, in a third of the frames
    // to more than two thirds of its height. RASI at y = 933.067 mm and RMET at 11.946 mm in
    // frame 101, read by hand.
    LoadOptions z_up;
    z_up.up_axis = Axis::Z;
    const Capture c = load_capture(test::test_data("c3d/type1.C3D"), z_up);
    EXPECT_EQ(c.info().file_up_axis, Axis::Y);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_TRUE(test::has_note(c.info(), "times the next in the median frame"));
    EXPECT_NEAR(c.track("RASI").position(100).z, 0.9330665283203125, 1e-12);
    EXPECT_NEAR(c.track("RMET").position(100).z, 0.011945637702941895, 1e-12);
  }
  {
    // c3d.org sample 20 (PhaseSpace, no parameters at all): its markers stand along +Z, as
    // read before.
    const Capture c = load_capture(test::test_data("c3d/phasespace_sample.c3d"));
    EXPECT_EQ(c.info().up_axis, Axis::Z);
    EXPECT_EQ(c.info().up_axis_source, "inferred");
    EXPECT_FALSE(test::has_note(c.info(), "up axis inferred"));
  }
}

/// Twelve markers of a person upright along `up` (0 x, 1 y, 2 z) with `sign`, walking along
/// the next axis, for 20 frames; Y_SCREEN as given (empty: none); numbers in mm.
C3dSpec person_c3d(int up, double sign, const std::string& y_screen, test::Random& rng) {
  C3dSpec s;
  s.rate = 100;
  s.y_screen = y_screen;
  const auto walk = static_cast<std::size_t>((up + 1) % 3);
  const auto side = static_cast<std::size_t>((up + 2) % 3);
  const double x0 = rng.uniform(-2.0, 2.0);
  for (int m = 0; m < 12; ++m) {
    s.labels.push_back("M" + std::to_string(m));
  }
  s.labels.push_back("LKneeAngles"); // a model output: degrees, not a place
  for (int f = 0; f < 20; ++f) {
    std::vector<C3dPoint> frame;
    for (int m = 0; m < 12; ++m) {
      std::array<double, 3> p{};
      p[static_cast<std::size_t>(up)] = sign * (0.05 + 0.15 * m + rng.uniform(-0.02, 0.02));
      p[walk] = x0 + 0.02 * f + 0.15 * std::sin(m);
      p[side] = 0.2 * std::cos(1.7 * m);
      frame.push_back({1000 * p[0], 1000 * p[1], 1000 * p[2], 1});
    }
    frame.push_back({rng.uniform(-20, 170), rng.uniform(-20, 20), rng.uniform(-20, 20), 1});
    s.frames.push_back(frame);
  }
  return s;
}

TEST(C3dLoader, APersonsUpAxisIsInferredOnlyWhereTheFileDeclaresNone) {
  test::Random rng(811);
  const char* names[] = {"X", "Y", "Z"};
  for (int trial = 0; trial < 12; ++trial) {
    for (int up = 0; up < 3; ++up) {
      for (double sign : {1.0, -1.0}) {
        SCOPED_TRACE(std::string(sign > 0 ? "+" : "-") + names[up] + " trial " +
                     std::to_string(trial));
        C3dSpec spec = person_c3d(up, sign, "", rng);
        LoadOptions z_up;
        z_up.up_axis = Axis::Z;
        const Capture c = parse_c3d(C3dBuilder(84).build(spec), "person.c3d", z_up);
        EXPECT_EQ(c.info().file_up_axis, up == 0 ? Axis::X : up == 1 ? Axis::Y : Axis::Z);
        EXPECT_EQ(c.info().up_axis_source, "inferred");
        // The head 1.7 m above the feet along +Z, whatever the file's axis and sign.
        const double head = c.track("M11").position(0).z;
        const double feet = c.track("M0").position(0).z;
        EXPECT_GT(head - feet, 1.5);
        EXPECT_GT(feet, 0.0);
        // The same file declaring the axis its markers show loads the same positions.
        if (sign > 0) {
          spec.y_screen = std::string("+") + names[up];
          const Capture same = parse_c3d(C3dBuilder(84).build(spec), "same.c3d", z_up);
          EXPECT_EQ(same.info().up_axis_source, "declared");
          EXPECT_TRUE(
              test::near_vec(same.track("M7").position(5), c.track("M7").position(5), 1e-12));
        }
        // Declared, the file's axis is taken as it is: +Z declared on a person along another
        // axis stays as declared.
        spec.y_screen = "+Z";
        const Capture declared = parse_c3d(C3dBuilder(84).build(spec), "d.c3d", z_up);
        EXPECT_EQ(declared.info().up_axis_source, "declared");
        EXPECT_EQ(declared.info().file_up_axis, Axis::Z);
      }
    }
  }
  // A Y_SCREEN that names no axis declares none: the markers tell.
  const Capture unreadable =
      parse_c3d(C3dBuilder(84).build(person_c3d(1, 1.0, "up", rng)), "unreadable.c3d");
  EXPECT_EQ(unreadable.info().up_axis, Axis::Y);
  EXPECT_EQ(unreadable.info().up_axis_source, "inferred");
  EXPECT_TRUE(
      test::has_note(unreadable.info(), "'up', not an axis such as +Z: read as declaring none"));
  // Markers that are no person upright (a robot tool wandering over a table, 0.9 m up): nothing
  // is inferred, Z stands.
  C3dSpec table;
  table.labels = {"a", "b", "c", "d", "e", "f"};
  for (int f = 0; f < 20; ++f) {
    std::vector<C3dPoint> frame;
    for (int m = 0; m < 6; ++m) {
      frame.push_back(
          {rng.uniform(-400, 400), rng.uniform(-400, 400), 900 + rng.uniform(-5, 5), 1});
    }
    table.frames.push_back(frame);
  }
  const Capture c = parse_c3d(C3dBuilder(84).build(table), "table.c3d");
  EXPECT_EQ(c.info().up_axis, Axis::Z);
  EXPECT_EQ(c.info().up_axis_source, "format");
}

TEST(C3dLoader, PhaseSpacesFileWithoutParametersLoadsFromItsHeader) {
  // c3d.org sample 20: a parameter section of 0 blocks; the header alone describes the data.
  const Capture c = load_capture(test::test_data("c3d/phasespace_sample.c3d"));
  ASSERT_EQ(c.tracks().size(), 40u);
  EXPECT_EQ(c.info().frame_rate, 30.0);
  EXPECT_EQ(c.tracks()[0].size(), 701u);
  EXPECT_EQ(c.info().unit_in_metres, 0.001); // inferred, with the evidence in a note
  EXPECT_EQ(c.info().unit_source, "inferred");
  const Vec3 a = c.track("point1").position(0);
  EXPECT_NEAR(a.x, 0.16052087402, 1e-9);
  EXPECT_NEAR(a.y, -0.13520828247, 1e-9);
  EXPECT_NEAR(a.z, 1.29668017578, 1e-9);
  const Vec3 b = c.track("point6").position(100);
  EXPECT_NEAR(b.x, -0.73982885742, 1e-9);
  EXPECT_NEAR(b.z, 1.50938464355, 1e-9);
}

TEST(C3dLoader, AFileWithoutParametersLoadsFromItsHeaderWithANote) {
  C3dSpec spec = three_markers(84, -0.1);
  for (auto& frame : spec.frames) { // millimetres, so that the unit can be inferred
    for (C3dPoint& p : frame) {
      p.x *= 1000.0;
      p.y *= 1000.0;
      p.z = 1000.0 + 100.0 * p.z;
    }
  }
  const std::string full = C3dBuilder(84).build(spec);
  const Capture reference = parse_c3d(full, "full.c3d");
  // Header and data only: the header's parameter pointer and data start both say block 2.
  std::string bare = full.substr(0, 512) + full.substr(512 * 3);
  bare[0] = 2;
  bare[16] = 2;
  bare[17] = 0;
  // And the parameter pointer 0 with the parameter blocks left in place.
  std::string zero = full;
  zero[0] = 0;
  for (const std::string& bytes : {bare, zero}) {
    const Capture c = parse_c3d(bytes, "bare.c3d");
    ASSERT_EQ(c.tracks().size(), 3u);
    EXPECT_EQ(c.tracks()[0].name(), "point1");
    EXPECT_EQ(c.info().frame_rate, spec.rate);
    EXPECT_EQ(c.info().unit_source, "inferred");
    for (std::size_t t = 0; t < 3; ++t) {
      for (std::size_t i = 0; i < c.tracks()[t].size(); ++i) {
        EXPECT_NEAR(norm(c.tracks()[t].position(i) - reference.tracks()[t].position(i)), 0.0,
                    1e-9);
      }
    }
    EXPECT_TRUE(test::has_note(c.info(), "no parameter section"));
  }
  // A header that describes nothing readable is refused, naming why.
  std::string nothing = bare;
  nothing[20] = nothing[21] = nothing[22] = nothing[23] = 0; // rate 0 in every byte order
  EXPECT_NE(error_of(nothing).find("no parameter section"), std::string::npos)
      << error_of(nothing);
}

TEST(C3dLoader, BrokenFilesAreRefusedWithTheByteWhereTheyBreak) {
  const std::string good = C3dBuilder(84).build(three_markers(84, -0.1));
  ASSERT_EQ(error_of(good), "(no error)");

  const std::size_t data_end = 512 + 1024 + 4 * 3 * 16; // header, parameters, 4 frames
  EXPECT_EQ(error_of(good.substr(0, data_end)), "(no error)");
  EXPECT_NE(error_of(good.substr(0, 300)).find("file ends at byte 300"), std::string::npos);
  // Cut inside the data: refused when strict (the default keeps the complete frames, below).
  LoadOptions strict;
  strict.strict = true;
  try {
    parse_c3d(good.substr(0, data_end - 10), "cut.c3d", strict);
    ADD_FAILURE() << "a cut data section loaded in strict mode";
  } catch (const LoadError& e) {
    EXPECT_NE(e.message().find("truncated"), std::string::npos) << e.what();
    EXPECT_EQ(e.byte(), 512u + 1024u) << e.what(); // where the data section starts
    EXPECT_EQ(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("cut.c3d: byte 1536: C3D:"), std::string::npos)
        << e.what();
  }

  std::string bad_processor = good;
  bad_processor[512 + 3] = 90;
  EXPECT_NE(error_of(bad_processor).find("processor type 90"), std::string::npos);

  std::string wrong_key = good;
  wrong_key[1] = 0x51;
  EXPECT_NE(error_of(wrong_key).find("not a C3D file"), std::string::npos);

  std::string far_parameters = good;
  far_parameters[0] = static_cast<char>(200); // parameter block 200 of a 3-block file
  EXPECT_NE(error_of(far_parameters).find("byte 101891"), std::string::npos)
      << error_of(far_parameters);

  // POINT:USED claims 30000 markers: the data section would be 1.9 MB; refused before any
  // allocation, naming the data section.
  C3dSpec many = three_markers(84, -0.1);
  std::string absurd = C3dBuilder(84).build(many);
  const std::size_t used = absurd.find("USED");
  ASSERT_NE(used, std::string::npos);
  absurd[used + 4 + 2 + 2] = static_cast<char>(30000 & 0xff); // after name, offset, type, dims
  absurd[used + 4 + 2 + 3] = static_cast<char>(30000 >> 8);
  EXPECT_NE(error_of(absurd).find("the data section"), std::string::npos) << error_of(absurd);

  std::string backwards = good;
  const std::size_t scale = backwards.find("SCALE");
  backwards[scale + 5] = static_cast<char>(0xf0); // offset to the next parameter: -16
  backwards[scale + 6] = static_cast<char>(0xff);
  // A negative offset ends the section (c3d.org sample 18 is written so): tolerated with a
  // note, refused when strict; what it cut off is then missing (here RATE: the header's).
  EXPECT_EQ(error_of(backwards), "(no error)");
  EXPECT_NE(parse_c3d(backwards, "b.c3d").info().tolerated.at(0).find("-16"), std::string::npos);
  EXPECT_THROW(parse_c3d(backwards, "b.c3d", strict), LoadError);

  std::string bad_type = good;
  bad_type[scale + 7] = 3; // no such parameter type
  EXPECT_NE(error_of(bad_type).find("parameter type 3"), std::string::npos);

  C3dSpec no_rate = three_markers(84, -0.1);
  no_rate.rate = 0;
  EXPECT_NE(error_of(C3dBuilder(84).build(no_rate)).find("rate"), std::string::npos);

  // A fuzzer found this one: 65535 points and no frame took seconds to make 65535 empty tracks.
  C3dSpec empty = three_markers(84, -0.1);
  empty.frames.clear();
  EXPECT_NE(error_of(C3dBuilder(84).build(empty)).find("holds no frames"), std::string::npos);

  EXPECT_NE(error_of(std::string(1, '\x02')).find("byte 1"), std::string::npos);
  EXPECT_NE(error_of("").find("header"), std::string::npos);
}

TEST(C3dLoader, FuzzerFindingsStayFixed) {
  // Kept in tests/fuzz/seeds/c3d; see tests/fuzz/README.md for what each one did.
  const auto error_of_file = [](const std::string& name) {
    std::ifstream in(std::string(ODEMOCAP_FUZZ_SEEDS_DIR) + "/c3d/" + name, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    EXPECT_FALSE(bytes.str().empty()) << name;
    return error_of(bytes.str());
  };
  EXPECT_NE(error_of_file("regression_65535_points_no_frames.c3d").find("holds no frames"),
            std::string::npos);
  EXPECT_NE(error_of_file("regression_negative_float_count.c3d")
                .find("POINT:USED must be a whole number from 0, got -1"),
            std::string::npos);
  EXPECT_EQ(error_of_file("regression_rotation_label_clash.c3d"), "(no error)");
  // A ROTATION:RATIO of billions puts sub-samples picoseconds apart: the track refused a gap
  // there with its own error type, which left the loader.
  EXPECT_NE(error_of_file("regression_rotation_gap_too_close.c3d")
                .find("byte 2116: C3D: rotation 'r' sample 1: track 'r', sample 1: time "
                      "3.880510727564494e-12 s is less than 1e-9 s after the previous sample's"),
            std::string::npos);
}

TEST(C3dLoader, FormatIsDetectedFromTheBytesNotTheName) {
  const std::string good = C3dBuilder(84).build(three_markers(84, -0.1));
  EXPECT_EQ(detect_format(good, "take.dat"), Format::C3d);
  const Capture c = load_capture_from_memory(good, "take.dat");
  EXPECT_EQ(c.tracks().size(), 3u);
  // A text file whose second character is 'P' is not taken for a C3D file.
  EXPECT_EQ(detect_format("tPos,x\n1,2\n", "t.csv"), Format::RigidBodyCsv);
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool same_samples(const Track& a, const Track& b) {
  if (a.name() != b.name() || a.size() != b.size() || a.position_only() != b.position_only()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Pose p = a.pose(i), q = b.pose(i);
    if (a.time(i) != b.time(i) || a.valid(i) != b.valid(i) || p.p.x != q.p.x || p.p.y != q.p.y ||
        p.p.z != q.p.z || p.q.w != q.q.w || p.q.x != q.q.x || p.q.y != q.q.y || p.q.z != q.q.z) {
      return false;
    }
  }
  return true;
}

TEST(C3dLoader, AFileReadAWindowAtATimeLoadsAsTheSameBytesInMemory) {
  // load_capture reads a C3D's data section 1 MiB at a time (Vicon.c3d: 3 windows; sgi_real is
  // big-endian, Eb015vi DEC, pc_real with a ROTATION-free Intel layout); parse_c3d has it all.
  for (const std::string& path :
       {test::shared_data("ezc3d/Vicon.c3d"), test::shared_data("ezc3d/Qualisys.c3d"),
        test::test_data("c3d/sgi_real.c3d"), test::test_data("c3d/Eb015vi.c3d"),
        test::test_data("c3d/Eb015pi.c3d"), test::test_data("c3d/pc_real.c3d"),
        test::test_data("c3d/phasespace_sample.c3d")}) {
    if (!std::filesystem::exists(path)) {
      continue;
    }
    SCOPED_TRACE(path);
    const Capture streamed = load_capture(path);
    const Capture whole = parse_c3d(file_bytes(path), path);
    ASSERT_EQ(streamed.tracks().size(), whole.tracks().size());
    for (std::size_t k = 0; k < whole.tracks().size(); ++k) {
      EXPECT_TRUE(same_samples(streamed.tracks()[k], whole.tracks()[k]))
          << whole.tracks()[k].name();
    }
    EXPECT_EQ(streamed.info().notes, whole.info().notes);
  }
}

TEST(C3dLoader, RotationsAndMarkersOverManyWindowsLoadFromDiskAsFromMemory) {
  // 10000 frames of three markers and two rigid bodies (1.4 MB of ROTATION data after 0.5 MB
  // of points): the windows move through both sections, and back for the second body.
  C3dSpec spec;
  spec.processor = 84;
  spec.scale = -0.1;
  spec.rate = 100;
  spec.labels = {"a", "b", "c"};
  spec.rotation_labels = {"tool", "plate"};
  test::Random random(11);
  for (int f = 0; f < 10000; ++f) {
    spec.frames.push_back({{1.0 * f, 20, 30, 1}, {-100, 0.5 * f, 0, f % 7 == 0 ? -1.0 : 2.0},
                           {1, 2, 3, 0}});
    std::vector<test::C3dRotation> frame(2);
    for (int b = 0; b < 2; ++b) {
      const Mat3 r = to_matrix(random.rotation());
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          frame[b].m[i][j] = r.m[i][j];
        }
        frame[b].m[i][3] = 10.0 * f + i;
      }
      frame[b].reliability = (f + b) % 13 == 0 ? -1 : 0;
    }
    spec.rotations.push_back(frame);
  }
  const std::string bytes = C3dBuilder(84).build(spec);
  ASSERT_GT(bytes.size(), std::size_t{3} << 20 >> 1);
  const std::string path = ::testing::TempDir() + "many_windows.c3d";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const Capture streamed = load_capture(path);
  const Capture whole = parse_c3d(bytes, path);
  ASSERT_EQ(streamed.tracks().size(), 5u);
  for (std::size_t k = 0; k < whole.tracks().size(); ++k) {
    EXPECT_TRUE(same_samples(streamed.tracks()[k], whole.tracks()[k]))
        << whole.tracks()[k].name();
  }
  EXPECT_EQ(streamed.track("plate").size(), 10000u);
  EXPECT_FALSE(streamed.track("b").valid(7));
  std::remove(path.c_str());
}

TEST(C3dLoader, AFileCutShortLoadsFromDiskAsFromMemory) {
  // The window reads stop at the end of the file: a truncated copy of Vicon.c3d keeps its
  // complete frames with the same note either way, and strict loading refuses it either way.
  const std::string path = test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const std::string bytes = file_bytes(path);
  const std::string cut = ::testing::TempDir() + "vicon_cut.c3d";
  {
    std::ofstream out(cut, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 2 / 3));
  }
  const Capture streamed = load_capture(cut);
  const Capture whole = parse_c3d(bytes.substr(0, bytes.size() * 2 / 3), cut);
  ASSERT_EQ(streamed.tracks().size(), 51u);
  EXPECT_LT(streamed.tracks()[0].size(), 580u);
  for (std::size_t k = 0; k < whole.tracks().size(); ++k) {
    EXPECT_TRUE(same_samples(streamed.tracks()[k], whole.tracks()[k]));
  }
  EXPECT_EQ(streamed.info().tolerated, whole.info().tolerated);
  LoadOptions strict;
  strict.strict = true;
  EXPECT_THROW(load_capture(cut, strict), LoadError);
  std::remove(cut.c_str());
}

} // namespace
} // namespace odemocap
