// Character: one call builds a body and geom per bone of a real capture, with segment-table
// masses and self-collision filtered, and binds them all to the driver.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"
#include "support/motive_person.hpp"
#include "support/mvnx_leg.hpp"
#include "support/ode_scene.hpp"
#include "support/reference_math.hpp"

#include <odemocap/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace odemocap {
namespace {

using test::k_pi;
using test::OdeScene;

constexpr double k_cmu_scale = 0.0254 / 0.45; // CMU units to metres

Capture cmu_hop() {
  LoadOptions load;
  load.length_scale = k_cmu_scale;
  load.up_axis = Axis::Z;
  return load_capture(test::repo_data("cmu/131_03.bvh"), load);
}

TEST(Character, OneBodyPerJointOfTheCmuSkeletonOnItsCapturedPose) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  const Character character(scene.world, scene.space, capture);
  const Skeleton& skeleton = *capture.skeleton();
  std::size_t joints = 0;
  for (const Joint& j : skeleton.joints) {
    joints += j.end_site ? 0 : 1;
  }
  ASSERT_EQ(character.bones().size(), joints); // 31: every joint, no End Site
  EXPECT_EQ(character.bones().size(), 31u);
  const double t0 = capture.track("Hips").start_time();
  for (const Bone& bone : character.bones()) {
    // The body sits at the bone's middle, turned like the joint.
    const Pose joint = capture.track(bone.name).sample(t0);
    const Pose body = body_pose(bone.body);
    EXPECT_TRUE(test::near_vec(body.p, joint.p + rotate(joint.q, 0.5 * bone.vector), 1e-12))
        << bone.name;
    EXPECT_TRUE(test::same_rotation(body.q, joint.q, 1e-12)) << bone.name;
    EXPECT_EQ(character.body(bone.name), bone.body);
    EXPECT_EQ(character.geom(bone.name), bone.geom);
    EXPECT_TRUE(character.owns(bone.geom));
  }
  // The bone vector is the child's OFFSET in the file, scaled: an independent reading.
  const Bone& thigh = *character.find("LeftHip");
  const Joint& knee = *std::find_if(skeleton.joints.begin(), skeleton.joints.end(),
                                    [](const Joint& j) { return j.name == "LeftKnee"; });
  EXPECT_TRUE(test::near_vec(thigh.vector, knee.offset * k_cmu_scale, 1e-9));
  EXPECT_EQ(character.bones()[static_cast<std::size_t>(thigh.parent)].name, "LHipJoint");
  EXPECT_EQ(character.find("Hips")->parent, -1);
  EXPECT_EQ(character.find("LeftToe_End"), nullptr);
  // A capsule spans the bone, caps included.
  dReal radius = 0;
  dReal length = 0;
  dGeomCapsuleGetParams(thigh.geom, &radius, &length);
  EXPECT_NEAR(length + 2 * radius, norm(thigh.vector), 1e-12);
  EXPECT_DOUBLE_EQ(radius, 0.04);
}

TEST(Character, EveryBoneEndsOnItsChildJointInAsfAmcToo) {
  // ASF offsets are in world-aligned rest frames, not the joints' frames: the bones must still
  // end where the child tracks are, frame after frame.
  LoadOptions load;
  load.length_scale = k_cmu_scale;
  load.up_axis = Axis::Z;
  const Capture capture = load_capture(test::repo_data("cmu/131_03_first3.amc"), load);
  OdeScene scene;
  const Character character(scene.world, scene.space, capture);
  EXPECT_GT(character.bones().size(), 25u);
  int checked = 0;
  for (const Bone& child : character.bones()) {
    if (child.parent < 0) {
      continue;
    }
    const Bone& parent = character.bones()[static_cast<std::size_t>(child.parent)];
    const Track& parent_track = capture.track(parent.name);
    const Track& child_track = capture.track(child.name);
    if (norm(parent.vector) == 0.0) {
      continue;
    }
    // A parent's bone ends at one of its children: the one it was measured to.
    bool ends_here = true;
    for (std::size_t f = 0; f < parent_track.size(); ++f) {
      const Pose p = parent_track.pose(f);
      ends_here =
          ends_here && norm(p.p + rotate(p.q, parent.vector) - child_track.position(f)) < 1e-6;
    }
    checked += ends_here ? 1 : 0;
  }
  EXPECT_GT(checked, 20);
}

TEST(Character, AnXsensMvnxSkeletonGivesBonesEndingAtTheNextSegment) {
  const Capture capture = parse_mvnx(test::mvnx_leg(), "leg.mvnx");
  OdeScene scene;
  const Character character(scene.world, scene.space, capture);
  ASSERT_EQ(character.bones().size(), 3u);
  const Bone& pelvis = *character.find("Pelvis");
  const Bone& thigh = *character.find("RightUpperLeg");
  const Bone& shank = *character.find("RightLowerLeg");
  EXPECT_EQ(thigh.parent, 0);
  EXPECT_EQ(shank.parent, 1);
  // From the segment's origin (its hip) to the next segment's (the knee), by hand: 0.42 m down.
  EXPECT_TRUE(test::near_vec(thigh.vector, {0, 0, -0.42}, 1e-12));
  EXPECT_TRUE(test::near_vec(pelvis.vector, {0, -0.08, 0}, 1e-12));
  EXPECT_EQ(norm(shank.vector), 0.0); // nothing below it in this file: a sphere
  EXPECT_EQ(dGeomGetClass(shank.geom), dSphereClass);
  // Only trunk, thigh and shank are present: their fractions share all 75 kg.
  const double present = 0.4346 + 2 * 0.1416 + 2 * 0.0433;
  EXPECT_NEAR(pelvis.mass, 75 * 0.4346 / present, 1e-9);
  EXPECT_NEAR(thigh.mass, 75 * 2 * 0.1416 / present, 1e-9);
  EXPECT_NEAR(shank.mass, 75 * 2 * 0.0433 / present, 1e-9);
}

// A Motive skeleton take (its CSV export's Bone columns): the bones' hierarchy comes from
// Motive's bone names, so the character has parents, each bone ends at its child's origin, and
// de Leva's fractions find Motive's segments (LFArm a forearm, LShin a shank).
TEST(Character, AMotiveSkeletonTakeGivesBonesEndingAtTheirChildren) {
  test::Random random(7301);
  const test::MotivePerson person(random);
  const Capture capture =
      parse_motive_csv(person.file(from_to({0, 0, 1}, {0, 1, 0})), "skeleton.csv");
  OdeScene scene;
  const Character character(scene.world, scene.space, capture);
  const auto bone = [&](const char* name) -> const Bone& {
    return *character.find(std::string("Skeleton 001:") + name);
  };
  const auto index_of = [&](const char* name) {
    return static_cast<int>(&bone(name) - character.bones().data());
  };
  EXPECT_EQ(bone("LFArm").parent, index_of("LUArm"));
  EXPECT_EQ(bone("LUArm").parent, index_of("LShoulder"));
  EXPECT_EQ(bone("RToe").parent, index_of("RFoot"));
  EXPECT_EQ(bone("Hip").parent, -1);
  // A bone ends at its first child's origin (the others hang elsewhere from its joint).
  for (const char* name : {"LUArm", "LFArm", "RThigh", "RShin", "Chest"}) {
    const Track& track = capture.track(std::string("Skeleton 001:") + name);
    const Bone& b = bone(name);
    const auto child = std::find_if(character.bones().begin(), character.bones().end(),
                                    [&](const Bone& c) { return c.parent == index_of(name); });
    ASSERT_NE(child, character.bones().end()) << name;
    const Track& child_track = capture.track(child->name);
    for (std::size_t f = 0; f < track.size(); f += 7) {
      const Pose p = track.pose(f);
      EXPECT_LT(norm(p.p + rotate(p.q, b.vector) - child_track.position(f)), 1e-9)
          << name << " frame " << f;
    }
  }
  // Every de Leva segment is present: each forearm carries its side's 1.62% of 75 kg, each
  // shank 4.33%.
  EXPECT_NEAR(bone("LFArm").mass, 75 * 0.0162, 1e-9);
  EXPECT_NEAR(bone("RFArm").mass, 75 * 0.0162, 1e-9);
  EXPECT_NEAR(bone("LShin").mass, 75 * 0.0433, 1e-9);
  EXPECT_NEAR(character.mass(), 75.0, 1e-9);
}

TEST(Character, MassesFollowDeLevasSegmentFractions) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  CharacterSettings settings;
  settings.total_mass = 80.0;
  const Character character(scene.world, scene.space, capture, settings);
  EXPECT_NEAR(character.mass(), 80.0, 1e-9);
  // CMU bones by segment, written out by hand from the BVH: each body is named after the
  // joint it starts at (LeftHip spans hip to knee: the thigh).
  const std::map<std::string, std::vector<std::string>> segments = {
      {"thigh", {"LeftHip", "RightHip"}},
      {"shank", {"LeftKnee", "RightKnee"}},
      {"foot", {"LeftAnkle", "LeftToe", "RightAnkle", "RightToe"}},
      {"upper arm", {"LeftShoulder", "RightShoulder"}},
      {"forearm", {"LeftElbow", "RightElbow"}},
      {"hand",
       {"LeftWrist", "lhand", "LFingers", "LThumb", "RightWrist", "rhand", "RFingers", "RThumb"}},
      {"head", {"lowerneck", "Neck", "Head"}},
  };
  const std::map<std::string, double> percent = {
      {"thigh", 2 * 14.16},  {"shank", 2 * 4.33}, {"foot", 2 * 1.37}, {"upper arm", 2 * 2.71},
      {"forearm", 2 * 1.62}, {"hand", 2 * 0.61},  {"head", 6.94}};
  double limbs_and_head = 0;
  for (const auto& [segment, names] : segments) {
    double sum = 0;
    for (const std::string& name : names) {
      const Bone& bone = *character.find(name);
      sum += bone.mass;
      dMass m;
      dBodyGetMass(bone.body, &m);
      EXPECT_NEAR(m.mass, bone.mass, 1e-12) << name;
    }
    EXPECT_NEAR(sum, 80.0 * percent.at(segment) / 100, 1e-9) << segment;
    limbs_and_head += sum;
  }
  EXPECT_NEAR(80.0 - limbs_and_head, 80.0 * 0.4346, 1e-9); // the trunk: everything else
  // Within a segment, by volume: the thigh capsules are the legs' longest, so heaviest.
  EXPECT_GT(character.find("LeftHip")->mass, 10.0);
}

TEST(Character, OverridesAndDensityGiveTheMassesAsked) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  CharacterSettings settings;
  settings.bones["Head"].mass = 5.0;
  settings.bones["LeftWrist"].radius = 0.06;
  settings.bones["LeftWrist"].shape = BoneShape::Sphere;
  const Character character(scene.world, scene.space, capture, settings);
  EXPECT_DOUBLE_EQ(character.find("Head")->mass, 5.0);
  EXPECT_NEAR(character.mass(), 75.0, 1e-9);
  EXPECT_EQ(dGeomGetClass(character.geom("LeftWrist")), dSphereClass);
  EXPECT_DOUBLE_EQ(dGeomSphereGetRadius(character.geom("LeftWrist")), 0.06);

  OdeScene other;
  CharacterSettings dense;
  dense.density = 1100.0;
  const Character by_density(other.world, other.space, capture, dense);
  const Bone& thigh = *by_density.find("LeftHip");
  const double r = 0.04, l = norm(thigh.vector) - 2 * r;
  EXPECT_NEAR(thigh.mass, 1100.0 * (k_pi * r * r * l + 4.0 / 3.0 * k_pi * r * r * r), 1e-9);
}

TEST(Character, BadSettingsAreRefusedNamingWhatIsWrong) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  const auto message = [&](const CharacterSettings& s) {
    return test::error_message<PluginError>(
        [&] { Character(scene.world, scene.space, capture, s); });
  };
  CharacterSettings typo;
  typo.bones["LeftHnad"].mass = 1.0;
  EXPECT_NE(message(typo).find("'LeftHnad', which is not a bone"), std::string::npos);
  CharacterSettings radius;
  radius.radius = -0.01;
  EXPECT_NE(message(radius).find("radius"), std::string::npos);
  CharacterSettings heavy;
  heavy.bones["Hips"].mass = 80.0;
  EXPECT_NE(message(heavy).find("mass overrides add up"), std::string::npos);
  CharacterSettings nan_mass;
  nan_mass.total_mass = NAN;
  EXPECT_NE(message(nan_mass).find("total_mass"), std::string::npos);
  EXPECT_NE(test::error_message<PluginError>([&] {
              Character(scene.world, nullptr, capture);
            }).find("null"),
            std::string::npos);
  EXPECT_NE(test::error_message<PluginError>([&] {
              Character(scene.world, scene.space, Capture(CaptureInfo{}));
            }).find("no track"),
            std::string::npos);
  const Character character(scene.world, scene.space, capture);
  EXPECT_NE(test::error_message<PluginError>([&] { (void)character.body("Tail"); }).find("'Tail'"),
            std::string::npos);
}

// Counts the pairs of bone geoms ODE would make contacts for, by the geoms' bits alone (what
// dSpaceCollide tests before calling a near callback).
int touching_bone_pairs(dSpaceID space, const Character& character) {
  struct Count {
    const Character* character;
    int pairs = 0;
  } count{&character};
  dSpaceCollide(space, &count, [](void* data, dGeomID a, dGeomID b) {
    auto* c = static_cast<Count*>(data);
    dContactGeom contact[1];
    if (c->character->owns(a) && c->character->owns(b) &&
        dCollide(a, b, 1, contact, sizeof(dContactGeom)) > 0) {
      ++c->pairs;
    }
  });
  return count.pairs;
}

TEST(Character, ItsBonesNeverCollideWithEachOtherButTouchTheWorld) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  const Character character(scene.world, scene.space, capture);
  EXPECT_EQ(touching_bone_pairs(scene.space, character), 0);
  // A plain geom with ODE's default bits still meets the bones.
  dGeomID floor = dCreatePlane(scene.space, 0, 0, 1, 0.5);
  dContactGeom contact[4];
  EXPECT_GT(dCollide(floor, character.geom("LeftAnkle"), 4, contact, sizeof(dContactGeom)) +
                dCollide(floor, character.geom("Hips"), 4, contact, sizeof(dContactGeom)),
            0);
  EXPECT_NE(dGeomGetCollideBits(floor) & dGeomGetCategoryBits(character.geom("Hips")), 0u);
}

TEST(Character, NaiveDefaultBitsMakeNeighbouringBonesCollideAtEveryJoint) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  CharacterSettings naive;
  naive.category_bits = ~0ul;
  naive.collide_bits = ~0ul;
  const Character character(scene.world, scene.space, capture, naive);
  const int pairs = touching_bone_pairs(scene.space, character);
  std::printf("  bone pairs in contact with every bit set: %d\n", pairs);
  EXPECT_GE(pairs, 25); // at least the joints between bones that have a geom of length
}

TEST(Character, OneCallDrivesEveryBoneOnItsTrack) {
  const Capture capture = cmu_hop();
  OdeScene scene;
  scene.quick = true;
  Character character(scene.world, scene.space, capture);
  KinematicDriver driver(scene.world);
  BindOptions timing;
  timing.time_offset = capture.track("Hips").start_time();
  character.drive_kinematic(driver, timing);
  EXPECT_EQ(driver.size(), character.bones().size());
  const double h = 1.0 / 240;
  double worst_m = 0, worst_rad = 0;
  for (int i = 0; i < 480; ++i) {
    driver.prestep(h);
    scene.step(h);
    for (std::size_t b = 0; b < character.bones().size(); ++b) {
      const Bone& bone = character.bones()[b];
      EXPECT_TRUE(dBodyIsKinematic(bone.body));
      // Independent of Character::target: the track sampled here, the offset composed here.
      const Pose joint = capture.track(bone.name).sample(timing.time_offset + driver.time());
      const Pose body = body_pose(bone.body);
      if (driver.stats(*character.binding(b)).teleports == 0) {
        worst_m = std::fmax(worst_m, norm(body.p - (joint.p + rotate(joint.q, bone.offset.p))));
        worst_rad = std::fmax(worst_rad, angle_between(body.q, joint.q));
      }
    }
  }
  std::printf("  kinematic character, 2 s: off its tracks by %.1e m, %.1e rad\n", worst_m,
              worst_rad);
  EXPECT_LT(worst_m, 1e-9);
  EXPECT_LT(worst_rad, 1e-9);
  EXPECT_NE(test::error_message<PluginError>([&] {
              character.drive_kinematic(driver);
            }).find("already driven"),
            std::string::npos);
}

TEST(Character, ItFollowsAWalkRunBlendThroughPoseSources) {
  // CMU 35's walk and run as loops; the character is built from the walk and then driven by
  // the blend's bones, its speed ramping from the walk's to the run's.
  LoadOptions load;
  load.up_axis = Axis::Z;
  load.to_metres = true;
  const Capture walk = load_capture(test::repo_data("cmu/35_07.bvh"), load);
  const Capture run = load_capture(test::repo_data("cmu/35_24.bvh"), load);
  LoopClipOptions cut;
  cut.start_time = 0.005;
  auto blend =
      std::make_shared<ClipBlend>(std::vector<LoopClip>{LoopClip(walk, cut), LoopClip(run, cut)});
  OdeScene scene;
  scene.quick = true;
  Character character(scene.world, scene.space, walk);
  KinematicDriver driver(scene.world);
  std::vector<std::shared_ptr<const PoseSource>> sources;
  for (const Bone& bone : character.bones()) {
    const int b = blend->clips()[0].find(bone.name);
    ASSERT_GE(b, 0) << bone.name;
    sources.push_back(ClipBlend::bone_source(blend, static_cast<std::size_t>(b)));
  }
  EXPECT_NE(test::error_message<PluginError>([&] {
              character.drive_sources(driver, {sources.begin(), sources.end() - 1});
            }).find("one source per bone"),
            std::string::npos);
  auto with_null = sources;
  with_null[3] = nullptr;
  EXPECT_NE(test::error_message<PluginError>([&] {
              character.drive_sources(driver, with_null);
            }).find("is null"),
            std::string::npos);
  character.drive_sources(driver, sources);
  const double h = 1.0 / 240;
  const double walk_speed = blend->clips()[0].speed(), run_speed = blend->clips()[1].speed();
  double worst_m = 0, worst_rad = 0;
  const Vec3 start = body_pose(character.body("Hips")).p;
  for (int i = 0; i < 4 * 240; ++i) {
    const double u = std::fmin(driver.time() / 3.0, 1.0);
    blend->set_speed(walk_speed + u * (run_speed - walk_speed));
    driver.prestep(h);
    scene.step(h);
    for (std::size_t b = 0; b < character.bones().size(); ++b) {
      const Bone& bone = character.bones()[b];
      // Independent of Character::target: the blend asked here, the offset composed here.
      Pose joint;
      ASSERT_TRUE(blend->pose(static_cast<std::size_t>(blend->clips()[0].find(bone.name)),
                              driver.time(), joint));
      const Pose body = body_pose(bone.body);
      worst_m = std::fmax(worst_m, norm(body.p - (joint.p + rotate(joint.q, bone.offset.p))));
      worst_rad = std::fmax(worst_rad, angle_between(body.q, joint.q));
    }
  }
  const double travelled = norm(body_pose(character.body("Hips")).p - start);
  std::printf("  character on a walk/run blend, 4 s: off its sources by %.1e m, %.1e rad; "
              "travelled %.2f m\n",
              worst_m, worst_rad, travelled);
  EXPECT_LT(worst_m, 1e-9);
  EXPECT_LT(worst_rad, 1e-9);
  EXPECT_GT(travelled, 3.0 * walk_speed); // it sped up: 4 s at the walk's pace is less
  const Pose target = character.target(0, driver.time());
  EXPECT_LT(norm(target.p - body_pose(character.bones()[0].body).p), 1e-9);
}

// The character owns its bodies; the driver must not go on driving them once they are gone,
// whichever of the two is destroyed first (ASan runs these in CI).
TEST(Character, ItsBodiesLeaveTheDriverWithItAndADeadDriverIsNotTouched) {
  const Capture capture = cmu_hop();
  for (const bool soft : {false, true}) {
    OdeScene scene;
    KinematicDriver driver(scene.world);
    dBodyID other = dBodyCreate(scene.world);
    driver.bind(other, capture.track("Hips"));
    auto character = std::make_unique<Character>(scene.world, scene.space, capture);
    if (soft) {
      character->drive_soft(driver);
    } else {
      character->drive_kinematic(driver);
    }
    EXPECT_EQ(driver.joint_count(), 1u);
    for (int i = 0; i < 10; ++i) {
      driver.prestep(1.0 / 120);
      scene.step(1.0 / 120);
    }
    const std::size_t bound = driver.size();
    character.reset();
    EXPECT_EQ(driver.joint_count(), 0u);
    for (int i = 0; i < 10; ++i) { // only `other` is driven now
      driver.prestep(1.0 / 120);
      scene.step(1.0 / 120);
    }
    EXPECT_EQ(driver.stats(0).steps, 20u);
    EXPECT_EQ(driver.stats(bound - 1).steps, 10u) << soft; // the last bone's binding stopped
  }
  OdeScene scene;
  auto driver = std::make_unique<KinematicDriver>(scene.world);
  Character character(scene.world, scene.space, capture);
  character.drive_kinematic(*driver);
  driver.reset(); // then the character goes, at the end of the scope, without touching it
}

TEST(Character, ARigidBodyCaptureGivesFreeBodiesWithDensityMasses) {
  const std::string path = test::shared_data("optitrack-hmv-s16/sample_optitrack_take.csv");
  ODEMOCAP_REQUIRE_FILE(path);
  LoadOptions load;
  load.to_metres = true;
  const Capture capture = load_capture(path, load);
  OdeScene scene;
  CharacterSettings settings;
  settings.shape = BoneShape::Box;
  const Character character(scene.world, scene.space, capture, settings);
  ASSERT_FALSE(character.bones().empty());
  for (const Bone& bone : character.bones()) {
    EXPECT_EQ(bone.parent, -1);
    EXPECT_NEAR(bone.mass, 1000.0 * 0.08 * 0.08 * 0.08, 1e-12); // an 8 cm cube of water
  }
}

} // namespace
} // namespace odemocap

namespace odemocap {
namespace {

TEST(Character, ACrowdSharesOneCaptureAndMovesAsCopiesDo) {
  auto capture = std::make_shared<const Capture>(cmu_hop());
  OdeScene scene;
  KinematicDriver driver(scene.world);
  {
    // Two characters on the shared capture beside one built from a copy: the same bodies,
    // stepped the same, land on the same poses.
    Character copied(scene.world, scene.space, *capture);
    Character first(scene.world, scene.space, capture);
    Character second(scene.world, scene.space, capture);
    for (Character* c : {&copied, &first, &second}) {
      c->drive_kinematic(driver);
    }
    // Every bone's track and binding hold the capture; none holds a copy of it.
    EXPECT_GE(capture.use_count(), 1 + 2 * 2 * 31);
    for (int k = 0; k < 120; ++k) {
      driver.prestep(1.0 / 120);
      scene.step(1.0 / 120);
    }
    for (std::size_t b = 0; b < copied.bones().size(); ++b) {
      const Pose want = body_pose(copied.bones()[b].body);
      for (const Character* c : {&first, &second}) {
        const Pose got = body_pose(c->bones()[b].body);
        EXPECT_EQ(got.p.x, want.p.x);
        EXPECT_EQ(got.p.z, want.p.z);
        EXPECT_EQ(got.q.w, want.q.w);
        const Pose target = c->target(b, 0.5);
        EXPECT_EQ(target.p.y, copied.target(b, 0.5).p.y);
      }
    }
  }
  EXPECT_EQ(capture.use_count(), 1); // the characters and their bindings let go
  EXPECT_THROW(Character(scene.world, scene.space, std::shared_ptr<const Capture>()),
               PluginError);
}

TEST(KinematicDriverSharing, ASharedTrackIsBoundWithoutACopy) {
  auto capture = std::make_shared<const Capture>(cmu_hop());
  const std::shared_ptr<const Track> hips(capture, &capture->track("Hips"));
  OdeScene scene;
  KinematicDriver driver(scene.world);
  dBodyID shared_body = scene.box({0.1, 0.1, 0.1}, 1, {0, 0, 1});
  dBodyID copied_body = scene.box({0.1, 0.1, 0.1}, 1, {0, 0, 1});
  driver.bind(shared_body, hips);
  driver.bind(copied_body, *hips);
  EXPECT_EQ(hips.use_count(), 3); // here, the capture's owner through it, and the binding
  for (int k = 0; k < 60; ++k) {
    driver.prestep(1.0 / 120);
    scene.step(1.0 / 120);
  }
  const Pose a = body_pose(shared_body), b = body_pose(copied_body);
  EXPECT_EQ(a.p.x, b.p.x);
  EXPECT_EQ(a.p.y, b.p.y);
  EXPECT_EQ(a.q.z, b.q.z);
  EXPECT_THROW(driver.bind(scene.box({0.1, 0.1, 0.1}, 1, {}), std::shared_ptr<const Track>()),
               PluginError);
}

} // namespace
} // namespace odemocap
