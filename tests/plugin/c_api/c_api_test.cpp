// The C API: the same driver behind handles, every failure a NULL or -1 with a message.
#include "support/data_paths.hpp"

#include <odemocap/odemocap.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

class CApi : public ::testing::Test {
protected:
  void SetUp() override {
    dInitODE2(0);
    world_ = dWorldCreate();
  }
  void TearDown() override {
    dWorldDestroy(world_);
    dCloseODE();
  }
  dWorldID world_ = nullptr;
};

/// CMU 131_01 loaded in metres, Z up, and its hips track bound to `body`, looping.
struct LoopedHips {
  odmCaptureID capture = nullptr;
  odmDriverID driver = nullptr;
  int hips = -1;
};

LoopedHips bind_looped_hips(dWorldID world, dBodyID body) {
  LoopedHips h;
  h.capture = odmCaptureLoad(odemocap::test::repo_data("cmu/131_01.bvh").c_str(), 0.0254 / 0.45, 1);
  EXPECT_NE(h.capture, nullptr) << odmLastError();
  if (h.capture == nullptr) {
    return h;
  }
  h.hips = odmCaptureFindTrack(h.capture, "Hips");
  h.driver = odmDriverCreate(world);
  odmBindOptions options;
  odmBindOptionsSetDefault(&options);
  options.at_end = odmEndLoop;
  EXPECT_EQ(odmDriverBind(h.driver, body, h.capture, h.hips, &options), 0) << odmLastError();
  return h;
}

TEST_F(CApi, LoadBindAndStepLandOnTheTrack) {
  odmCaptureID capture =
      odmCaptureLoad(odemocap::test::repo_data("cmu/131_01.bvh").c_str(), 0.0254 / 0.45, 1);
  ASSERT_NE(capture, nullptr) << odmLastError();
  EXPECT_EQ(odmCaptureGetTrackCount(capture), 31);
  EXPECT_STREQ(odmCaptureGetTrackName(capture, 0), "Hips");
  const int head = odmCaptureFindTrack(capture, "Head");
  ASSERT_GE(head, 0);
  EXPECT_NEAR(odmCaptureGetTrackDuration(capture, head), 993 * 0.0083333, 1e-9);
  odmDriverID driver = odmDriverCreate(world_);
  dBodyID body = dBodyCreate(world_);
  odmBindOptions options;
  odmBindOptionsSetDefault(&options);
  options.offset_position[2] = 0.1; // 10 cm above the head joint, in its frame
  ASSERT_EQ(odmDriverBind(driver, body, capture, head, &options), 0) << odmLastError();
  for (int i = 0; i < 120; ++i) {
    ASSERT_EQ(odmDriverPrestep(driver, 1.0 / 120), 0);
    dWorldStep(world_, 1.0 / 120);
  }
  EXPECT_NEAR(odmDriverGetTime(driver), 1.0, 1e-12);
  EXPECT_TRUE(dBodyIsKinematic(body));
  EXPECT_GT(dBodyGetPosition(body)[2], 1.3); // a head, in metres, Z up
  odmDriverDestroy(driver);
  odmCaptureDestroy(capture);
}

TEST_F(CApi, ALoopedCaptureCrossesItsSeamWithoutATeleport) {
  // CMU 131_01's hips end 2.6 m from where they start: looped, each seam is a jump the body is
  // carried by, not a velocity (or a teleport, as it was before the twenty-second session).
  dBodyID body = dBodyCreate(world_);
  const auto [capture, driver, hips] = bind_looped_hips(world_, body);
  ASSERT_NE(driver, nullptr);
  const double duration = odmCaptureGetTrackDuration(capture, hips);
  double fastest = 0.0;
  for (int i = 0; i < static_cast<int>(2.5 * duration * 120); ++i) {
    ASSERT_EQ(odmDriverPrestep(driver, 1.0 / 120), 0);
    const dReal* v = dBodyGetLinearVel(body);
    fastest = std::fmax(fastest, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    dWorldStep(world_, 1.0 / 120);
  }
  EXPECT_EQ(odmDriverGetSeamCount(driver, 0), 2);
  EXPECT_EQ(odmDriverGetTeleportCount(driver, 0), 0);
  EXPECT_LT(fastest, 5.0); // a walk's hips; the seam's jump in one step would be 311 m/s
  EXPECT_EQ(odmDriverGetSeamCount(driver, 1), -1);
  odmDriverDestroy(driver);
  odmCaptureDestroy(capture);
}

TEST_F(CApi, ALoopsSeamCarriesWhatRestsOnTheLoopingBodyUnlessAskedNotTo) {
  // Two balls (free; no contacts are made) put against the looping hips' sphere just before
  // the seam, gravity along -z: one on top, 1 cm into it, is carried back with the hips by the
  // loop's jump (2.6 m); one against its side is not (it only touches). Asked not to, the
  // driver leaves both where they were put.
  dWorldSetGravity(world_, 0, 0, -9.81);
  for (int carry : {1, 0}) {
    dSpaceID space = dSimpleSpaceCreate(nullptr);
    dBodyID body = dBodyCreate(world_);
    dGeomSetBody(dCreateSphere(space, 0.15), body);
    const auto [capture, driver, hips] = bind_looped_hips(world_, body);
    ASSERT_NE(driver, nullptr);
    ASSERT_EQ(odmDriverSetCarryResting(driver, carry), 0) << odmLastError();
    ASSERT_EQ(odmDriverSetNeighbours(driver, 1, 0.8), 0); // keeps carry_resting as it is
    const double duration = odmCaptureGetTrackDuration(capture, hips);
    const double h = 1.0 / 120;
    while (odmDriverGetTime(driver) + h < duration) {
      ASSERT_EQ(odmDriverPrestep(driver, h), 0);
      dWorldStep(world_, h);
    }
    const dReal* at = dBodyGetPosition(body);
    const double on_top[3] = {at[0], at[1], at[2] + 0.19};
    const double beside[3] = {at[0] + 0.19, at[1], at[2]};
    const auto ball_at = [&](const double p[3]) {
      dBodyID ball = dBodyCreate(world_);
      dGeomSetBody(dCreateSphere(space, 0.05), ball);
      dBodySetPosition(ball, p[0], p[1], p[2]);
      return ball;
    };
    const auto moved = [](dBodyID ball, const double p[3]) {
      const dReal* b = dBodyGetPosition(ball);
      return std::sqrt((b[0] - p[0]) * (b[0] - p[0]) + (b[1] - p[1]) * (b[1] - p[1]) +
                       (b[2] - p[2]) * (b[2] - p[2]));
    };
    dBodyID resting = ball_at(on_top);
    dBodyID touching = ball_at(beside);
    ASSERT_EQ(odmDriverPrestep(driver, h), 0); // crosses the seam
    EXPECT_EQ(odmDriverGetSeamCount(driver, 0), 1);
    if (carry) {
      EXPECT_GT(moved(resting, on_top), 2.0);
    } else {
      EXPECT_EQ(moved(resting, on_top), 0.0);
    }
    EXPECT_EQ(moved(touching, beside), 0.0) << carry;
    EXPECT_EQ(odmDriverSetCarryResting(nullptr, 1), -1);
    odmDriverDestroy(driver);
    odmCaptureDestroy(capture);
    dSpaceDestroy(space);
  }
}

/* A pose source in C: a circle of radius 1 m at 2 rad/s, turning with it; no pose before
 * 0.25 s (the count of calls comes back through user_data). */
extern "C" int circle(dReal t, dReal pose[7], void* user_data) {
  ++*static_cast<int*>(user_data);
  if (t < 0.25) {
    return 0;
  }
  pose[0] = std::cos(2 * t);
  pose[1] = std::sin(2 * t);
  pose[2] = 1;
  pose[3] = std::cos(t); // about z by 2t
  pose[4] = 0;
  pose[5] = 0;
  pose[6] = std::sin(t);
  return 1;
}

TEST_F(CApi, NeighbourSettingsReachTheJointedBodies) {
  // A payload on a ball joint under a driven body: by default the driver integrates it exactly
  // and gives the joint ERP 0.8; the C API can turn both off, or choose another ERP.
  odmDriverID driver = odmDriverCreate(world_);
  dBodyID hand = dBodyCreate(world_);
  dBodyID payload = dBodyCreate(world_);
  dBodySetPosition(payload, 0, 0, -0.3);
  dJointID joint = dJointCreateBall(world_, nullptr);
  dJointAttach(joint, hand, payload);
  dJointSetBallAnchor(joint, 0, 0, 0);
  const dReal untouched = dJointGetBallParam(joint, dParamERP);
  int calls = 0;
  ASSERT_EQ(odmDriverBindCallback(driver, hand, &circle, &calls, nullptr), 0) << odmLastError();
  EXPECT_EQ(odmDriverSetNeighbours(driver, 0, 0.0), 0) << odmLastError();
  ASSERT_EQ(odmDriverPrestep(driver, 0.01), 0);
  EXPECT_EQ(dBodyGetFiniteRotationMode(payload), 0);
  EXPECT_EQ(dJointGetBallParam(joint, dParamERP), untouched);
  EXPECT_EQ(odmDriverSetNeighbours(driver, 1, 0.6), 0) << odmLastError();
  ASSERT_EQ(odmDriverPrestep(driver, 0.01), 0);
  EXPECT_EQ(dBodyGetFiniteRotationMode(payload), 1);
  EXPECT_DOUBLE_EQ(dJointGetBallParam(joint, dParamERP), 0.6);
  EXPECT_EQ(odmDriverSetNeighbours(driver, 1, 1.5), -1);
  EXPECT_NE(std::string(odmLastError()).find("joint_erp"), std::string::npos);
  EXPECT_EQ(odmDriverSetNeighbours(driver, 1, NAN), -1);
  EXPECT_EQ(odmDriverSetNeighbours(nullptr, 1, 0.8), -1);
  odmDriverDestroy(driver);
}

TEST_F(CApi, ACallbackSourceIsFollowedExactlyAndItsGapsCounted) {
  odmDriverID driver = odmDriverCreate(world_);
  dBodyID body = dBodyCreate(world_);
  int calls = 0;
  const int binding = odmDriverBindCallback(driver, body, &circle, &calls, nullptr);
  ASSERT_EQ(binding, 0) << odmLastError();
  double worst = 0;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(odmDriverPrestep(driver, 0.01), 0);
    dWorldStep(world_, 0.01);
    const double t = odmDriverGetTime(driver);
    if (t > 0.255) {
      const dReal* p = dBodyGetPosition(body);
      worst = std::fmax(worst, std::hypot(p[0] - std::cos(2 * t), p[1] - std::sin(2 * t)));
    }
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_EQ(odmDriverGetGapCount(driver, binding), 25); // the steps aiming at 0.01 ... 0.25 s
  EXPECT_GE(calls, 100);
  EXPECT_EQ(odmDriverBindCallback(driver, dBodyCreate(world_), nullptr, nullptr, nullptr), -1);
  EXPECT_NE(std::string(odmLastError()).find("callback is null"), std::string::npos);
  EXPECT_EQ(odmDriverGetGapCount(driver, -1), -1);
  odmDriverDestroy(driver);
}

TEST_F(CApi, TheLastFailureSurvivesTheCallsThatSucceedAfterIt) {
  // What the c_driver example does: load, create the driver, then check both.
  odmCaptureID capture = odmCaptureLoadMetres("/no/such/capture.bvh", 1);
  odmDriverID driver = odmDriverCreate(world_);
  EXPECT_EQ(capture, nullptr);
  ASSERT_NE(driver, nullptr);
  EXPECT_NE(std::string(odmLastError()).find("/no/such/capture.bvh"), std::string::npos)
      << odmLastError();
  odmDriverDestroy(driver);
}

TEST_F(CApi, FailuresReturnMinusOneOrNullWithAMessage) {
  EXPECT_EQ(odmCaptureLoad("/no/such/file.bvh", 1, 0), nullptr);
  EXPECT_NE(std::string(odmLastError()).find("/no/such/file.bvh"), std::string::npos);
  EXPECT_EQ(odmCaptureLoad(nullptr, 1, 0), nullptr);
  EXPECT_EQ(odmCaptureLoad(odemocap::test::repo_data("cmu/131_01.bvh").c_str(), -1, 0), nullptr);
  EXPECT_NE(std::string(odmLastError()).find("length_scale"), std::string::npos);
  EXPECT_EQ(odmDriverCreate(nullptr), nullptr);
  EXPECT_EQ(odmCaptureGetTrackCount(nullptr), -1);
  EXPECT_EQ(odmCaptureGetTrackName(nullptr, 0), nullptr);

  odmCaptureID capture = odmCaptureLoad(odemocap::test::repo_data("cmu/131_01.bvh").c_str(), 1, 0);
  ASSERT_NE(capture, nullptr);
  EXPECT_EQ(odmCaptureGetTrackName(capture, 31), nullptr);
  EXPECT_EQ(odmCaptureFindTrack(capture, "Tail"), -1);
  odmDriverID driver = odmDriverCreate(world_);
  EXPECT_EQ(odmDriverBind(driver, nullptr, capture, 0, nullptr), -1);
  EXPECT_NE(std::string(odmLastError()).find("body is null"), std::string::npos);
  dBodyID body = dBodyCreate(world_);
  odmBindOptions options;
  odmBindOptionsSetDefault(&options);
  options.playback_rate = 0;
  EXPECT_EQ(odmDriverBind(driver, body, capture, 0, &options), -1);
  EXPECT_NE(std::string(odmLastError()).find("playback_rate"), std::string::npos);
  options.playback_rate = 1;
  options.at_end = 7;
  EXPECT_EQ(odmDriverBind(driver, body, capture, 0, &options), -1);
  EXPECT_EQ(odmDriverBind(driver, body, capture, 0, nullptr), 0);
  EXPECT_EQ(odmDriverBind(driver, body, capture, 1, nullptr), -1); // already bound
  EXPECT_EQ(odmDriverSetMode(driver, 3), -1);
  EXPECT_EQ(odmDriverSetMode(driver, odmDriveTeleport), 0);
  EXPECT_EQ(odmDriverPrestep(driver, 0), -1);
  EXPECT_NE(std::string(odmLastError()).find("h must be finite and positive"), std::string::npos);
  EXPECT_EQ(odmDriverPrestep(driver, 0.01), 0);
  // A success leaves the last failure's message: it is "the last failed call".
  EXPECT_NE(std::string(odmLastError()).find("h must be finite and positive"), std::string::npos);
  EXPECT_EQ(odmDriverGetTeleportCount(driver, 5), -1);
  odmDriverDestroy(driver);
  odmCaptureDestroy(capture);
}

} // namespace
