// The walk/run blend's feet, held to the captures it comes from (CMU subject 35's walk 35_07 and
// run 35_24, played at 120 Hz) with a stance measure written apart from the library's
// (support/gait_measure.hpp): the loop cut, the foot lock, the floor, the speed law, and the
// blend's phase, footfalls, bones and seams as a user reads them.
#include "support/data_paths.hpp"
#include "support/gait_measure.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace odemocap {
namespace {

constexpr double k_rate = 120.0; // Hz, as a driver steps the blend
const char* const k_joints[] = {"LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase"};
constexpr int k_joint_count = 4;

Capture load_cmu(const std::string& file) {
  LoadOptions options;
  options.up_axis = Axis::Z;
  options.to_metres = true;
  return load_capture(test::repo_data("cmu/" + file), options);
}

/// A capture, its foot joints' grounds (their lowest, the rest-pose frame aside) and its own
/// sliding over the whole take.
struct Source {
  Capture capture;
  double ground[k_joint_count] = {};
  test::GaitFigures own;
};

Source measure_source(const std::string& file) {
  Source s{load_cmu(file), {}, {}};
  test::GaitMeter meter;
  for (int j = 0; j < k_joint_count; ++j) {
    const Track& track = s.capture.track(k_joints[j]);
    test::JointPath path;
    for (std::size_t i = 1; i < track.size(); ++i) { // frame 0 is CMU's rest pose
      path.p.push_back(track.position(i));
    }
    s.ground[j] = test::lowest(path);
    meter.add(path, track.median_interval(), s.ground[j]);
  }
  s.own = meter.finish();
  return s;
}

struct Sources {
  Source walk = measure_source("35_07.bvh");
  Source run = measure_source("35_24.bvh");
  /// The clips as a user cuts them: every option at its default.
  LoopClip walk_clip{walk.capture};
  LoopClip run_clip{run.capture};
  double ground[k_joint_count] = {};
  test::GaitFigures worse; ///< per figure, the worse of the two captures
  Sources() {
    for (int j = 0; j < k_joint_count; ++j) {
      ground[j] = std::min(walk.ground[j], run.ground[j]);
    }
    worse.mean_slide = std::max(walk.own.mean_slide, run.own.mean_slide);
    worse.max_slide = std::max(walk.own.max_slide, run.own.max_slide);
  }
};

const Sources& sources() {
  static const Sources s;
  return s;
}

/// Plays `seconds` of a blend at k_rate with b from `weight(t)` and measures its feet.
test::GaitFigures play(ClipBlend& blend, const std::function<double(double)>& weight,
                       double seconds) {
  std::vector<test::JointPath> paths(k_joint_count);
  int bones[k_joint_count];
  for (int j = 0; j < k_joint_count; ++j) {
    bones[j] = blend.find(k_joints[j]);
  }
  for (int k = 1; k <= static_cast<int>(seconds * k_rate); ++k) {
    const double t = k / k_rate;
    blend.set_weight(weight(t));
    const std::vector<Pose>& poses = blend.advance_to(t);
    for (int j = 0; j < k_joint_count; ++j) {
      paths[j].p.push_back(poses[static_cast<std::size_t>(bones[j])].p);
    }
  }
  test::GaitMeter meter;
  for (int j = 0; j < k_joint_count; ++j) {
    meter.add(paths[j], 1.0 / k_rate, sources().ground[j]);
  }
  return meter.finish();
}

ClipBlend make_blend(FootLock mode) {
  const Sources& s = sources();
  ClipBlend blend({s.walk_clip, s.run_clip});
  FootLockOptions lock;
  lock.mode = mode;
  blend.set_foot_lock(lock);
  return blend;
}

void report(const char* what, const test::GaitFigures& f) {
  std::printf("  %-30s slide mean %5.1f mm  max %5.1f mm  (%2zu stances)  deepest %4.1f mm\n", what,
              1e3 * f.mean_slide, 1e3 * f.max_slide, f.stances, 1e3 * f.deepest);
}

/// Every b the issue names held for 10 s, then b ramping from 0 to 1 over 10 s.
struct Played {
  const char* label;
  std::function<double(double)> weight;
};
std::vector<Played> schedules() {
  return {{"b = 0", [](double) { return 0.0; }},
          {"b = 0.25", [](double) { return 0.25; }},
          {"b = 0.5", [](double) { return 0.5; }},
          {"b = 0.75", [](double) { return 0.75; }},
          {"b = 1", [](double) { return 1.0; }},
          {"b from 0 to 1 over 10 s", [](double t) { return std::min(1.0, t / 10.0); }}};
}

TEST(ClipBlendFeet, TheLockedBlendSlidesNoMoreThanTheCaptures) {
  const Sources& s = sources();
  report("walk capture (whole take)", s.walk.own);
  report("run capture (whole take)", s.run.own);
  for (FootLock mode : {FootLock::Blended, FootLock::Always}) {
    std::printf(" foot lock %s:\n", mode == FootLock::Blended ? "Blended (default)" : "Always");
    for (const Played& p : schedules()) {
      ClipBlend blend = make_blend(mode);
      const test::GaitFigures f = play(blend, p.weight, 10.0);
      report(p.label, f);
      EXPECT_GT(f.stances, 30u) << p.label;
      EXPECT_LE(f.mean_slide, s.worse.mean_slide) << p.label;
      EXPECT_LE(f.max_slide, s.worse.max_slide) << p.label;
      EXPECT_EQ(blend.unreached(), 0u) << p.label;
    }
  }
  // Unlocked, the walk's planted foot is dragged by a quarter of the run's swinging one.
  ClipBlend off = make_blend(FootLock::Off);
  const test::GaitFigures dragged = play(off, [](double) { return 0.25; }, 10.0);
  report("unlocked, b = 0.25", dragged);
  EXPECT_GT(dragged.mean_slide, 1.5 * s.worse.mean_slide);
}

TEST(ClipBlendFeet, FeetNeverGoBelowTheirGround) {
  double unlocked = 0.0;
  for (const Played& p : schedules()) {
    ClipBlend blend = make_blend(FootLock::Blended);
    EXPECT_LE(play(blend, p.weight, 10.0).deepest, 0.005) << p.label;
    ClipBlend off = make_blend(FootLock::Off);
    unlocked = std::max(unlocked, play(off, p.weight, 10.0).deepest);
  }
  std::printf("  deepest below the ground unlocked: %.1f mm\n", 1e3 * unlocked);
  EXPECT_GT(unlocked, 0.005); // blending the clips' leg angles takes feet through the floor
}

TEST(ClipBlendFeet, TheClipsThemselvesAreLeftAsCaptured) {
  // The default lock leaves b = 0 and b = 1 alone: the loop clips, exactly.
  const Sources& s = sources();
  for (int end = 0; end < 2; ++end) {
    const LoopClip& clip = end == 0 ? s.walk_clip : s.run_clip;
    ClipBlend blend({s.walk_clip, s.run_clip}, clip.start_ground());
    blend.set_weight(end);
    std::vector<Pose> want;
    double worst = 0.0;
    for (int k = 1; k <= 3 * 120; ++k) {
      const std::vector<Pose>& got = blend.advance_to(k / k_rate);
      clip.poses(k / k_rate, want);
      for (std::size_t b = 0; b < want.size(); ++b) {
        worst = std::max({worst, norm(got[b].p - want[b].p), angle_between(got[b].q, want[b].q)});
      }
    }
    EXPECT_LT(worst, 1e-12) << clip.name();
  }
}

TEST(ClipBlendFeet, LockedLegsKeepTheirBonesAndPinnedToesStay) {
  const Sources& s = sources();
  ClipBlend blend = make_blend(FootLock::Always);
  blend.set_weight(0.25);
  const LoopClip& clip = s.walk_clip;
  // Bone lengths from the capture's first frame: the solver must not stretch a leg.
  const auto length = [&](const char* a, const char* b) {
    return norm(s.walk.capture.track(a).position(1) - s.walk.capture.track(b).position(1));
  };
  const double thigh = length("LeftUpLeg", "LeftLeg");
  const double shin = length("LeftLeg", "LeftFoot");
  const auto bone = [&](const char* name) { return static_cast<std::size_t>(clip.find(name)); };
  double stretch = 0.0;
  double toe_travel = 0.0;
  Vec3 pinned;
  bool on_toe = false;
  int toe_frames = 0;
  for (int k = 1; k <= 10 * 120; ++k) {
    const std::vector<Pose>& p = blend.advance_to(k / k_rate);
    stretch = std::max({stretch, std::fabs(norm(p[bone("LeftLeg")].p - p[bone("LeftUpLeg")].p) - thigh),
                        std::fabs(norm(p[bone("LeftFoot")].p - p[bone("LeftLeg")].p) - shin)});
    const Vec3 toe = p[bone("LeftToeBase")].p;
    const bool now_on_toe = blend.foot_state(0) == FootState::Toe;
    if (now_on_toe && !on_toe) {
      pinned = toe;
    }
    if (now_on_toe) {
      toe_travel = std::max(toe_travel, std::hypot(toe.x - pinned.x, toe.y - pinned.y));
      ++toe_frames;
    }
    on_toe = now_on_toe;
  }
  std::printf("  leg bones stretched by at most %.1e m; a pinned toe travels %.1e m (%d frames)\n",
              stretch, toe_travel, toe_frames);
  EXPECT_LT(stretch, 1e-9);
  EXPECT_GT(toe_frames, 50);
  EXPECT_LT(toe_travel, 1e-9);
}

TEST(ClipBlendFeet, FootLockSettingsAreValidated) {
  ClipBlend blend = make_blend(FootLock::Blended);
  for (int field = 0; field < 3; ++field) {
    FootLockOptions bad;
    (field == 0 ? bad.ease_in : field == 1 ? bad.ease_out : bad.fade) = -1.0;
    EXPECT_THROW(blend.set_foot_lock(bad), MocapError) << field;
    (field == 0 ? bad.ease_in : field == 1 ? bad.ease_out : bad.fade) = NAN;
    EXPECT_THROW(blend.set_foot_lock(bad), MocapError) << field;
  }
  FootLockOptions no_fade;
  no_fade.fade = 0.0;
  EXPECT_THROW(blend.set_foot_lock(no_fade), MocapError);
  EXPECT_TRUE(blend.lockable(0));
  EXPECT_TRUE(blend.lockable(1));
}

/// The walk loop as cut before: every bone's seam spread linearly over the whole cycle, stance
/// phases included (the root relative to its ground frame, the heading's mismatch too). Built
/// here from the capture, on the cycle `clip` cut, so the two differ only in how they close the
/// seam.
class LinearSeamLoop {
public:
  LinearSeamLoop(const Capture& capture, const LoopClip& clip) : clip_(clip) {
    const Vec3 up{0.0, 0.0, 1.0};
    const std::size_t n = clip.bones().size();
    const Track& hips = capture.track(clip.bones()[0]);
    std::size_t a = 0;
    while (hips.time(a) < clip.capture_start() - 1e-9) {
      ++a;
    }
    frames_ = clip.frame_count();
    rows_.assign((frames_ + 1) * n, Pose{});
    grounds_.resize(frames_ + 1);
    for (std::size_t f = 0; f <= frames_; ++f) {
      std::vector<Pose> world(n);
      for (std::size_t b = 0; b < n; ++b) {
        world[b] = capture.track(clip.bones()[b]).pose(a + f);
      }
      grounds_[f] = ground_of(world[0], up);
      if (f > 0) { // unwrap the heading
        grounds_[f].yaw = grounds_[f - 1].yaw +
                          std::remainder(grounds_[f].yaw - grounds_[f - 1].yaw, 2.0 * M_PI);
      }
      for (std::size_t b = 0; b < n; ++b) {
        const int p = clip.parents()[b];
        Pose& l = rows_[f * n + b];
        if (p < 0) {
          l = place(inverse(grounds_[f], up), world[b], up);
        } else {
          const Pose& w = world[static_cast<std::size_t>(p)];
          l = {rotate(conj(w.q), world[b].p - w.p), conj(w.q) * world[b].q};
        }
      }
    }
    travel_ = grounds_[frames_].p - grounds_[0].p;
    const double yaw_error = grounds_[frames_].yaw - grounds_[0].yaw;
    for (std::size_t f = 0; f <= frames_; ++f) {
      const double u = static_cast<double>(f) / static_cast<double>(frames_);
      for (std::size_t b = 0; b < n; ++b) {
        const Pose& first = rows_[b];
        const Pose& last = rows_[frames_ * n + b];
        Pose& l = rows_[f * n + b];
        const Quat error = last.q * conj(same_hemisphere(first.q, last.q));
        l.q = normalized(slerp({1.0, 0.0, 0.0, 0.0}, conj(error), u) * l.q);
        l.p = l.p - u * (last.p - first.p);
      }
      grounds_[f].yaw -= u * yaw_error;
    }
  }
  /// World poses at frame k of the loop played on (k >= 0).
  void poses(std::size_t k, std::vector<Pose>& out) const {
    const std::size_t n = clip_.bones().size();
    const std::size_t cycle = k / frames_;
    const std::size_t f = k % frames_;
    GroundFrame g = grounds_[f];
    g.p = g.p + static_cast<double>(cycle) * travel_;
    const std::vector<Pose> row(rows_.begin() + static_cast<std::ptrdiff_t>(f * n),
                                rows_.begin() + static_cast<std::ptrdiff_t>((f + 1) * n));
    clip_.forward(g, row, out);
  }

private:
  const LoopClip& clip_;
  std::size_t frames_ = 0;
  std::vector<Pose> rows_;
  std::vector<GroundFrame> grounds_;
  Vec3 travel_;
};

/// The capture's own sliding over the frames of a clip's cycle (a tenth of a second either
/// side, so stances at its ends are whole).
test::GaitFigures capture_cycle(const Source& source, const LoopClip& clip) {
  test::GaitMeter meter;
  for (int j = 0; j < k_joint_count; ++j) {
    const Track& track = source.capture.track(k_joints[j]);
    test::JointPath path;
    for (std::size_t i = 1; i < track.size(); ++i) {
      if (track.time(i) >= clip.capture_start() - 0.1 && track.time(i) <= clip.capture_end() + 0.1) {
        path.p.push_back(track.position(i));
      }
    }
    meter.add(path, track.median_interval(), source.ground[j]);
  }
  return meter.finish();
}

template <typename Poses>
test::GaitFigures loop_figures(const LoopClip& clip, const Source& source, Poses poses) {
  std::vector<test::JointPath> paths(k_joint_count);
  std::vector<Pose> frame;
  for (std::size_t k = 0; k < 10 * clip.frame_count(); ++k) {
    poses(k, frame);
    for (int j = 0; j < k_joint_count; ++j) {
      paths[static_cast<std::size_t>(j)].p.push_back(
          frame[static_cast<std::size_t>(clip.find(k_joints[j]))].p);
    }
  }
  test::GaitMeter meter;
  for (int j = 0; j < k_joint_count; ++j) {
    meter.add(paths[static_cast<std::size_t>(j)], clip.frame_time(), source.ground[j]);
  }
  return meter.finish();
}

TEST(ClipBlendFeet, TheDefaultLoopCutSlidesAsItsCaptureCycle) {
  const Sources& s = sources();
  for (const Source* source : {&s.walk, &s.run}) {
    const LoopClip& clip = source == &s.walk ? s.walk_clip : s.run_clip;
    const test::GaitFigures captured = capture_cycle(*source, clip);
    const test::GaitFigures looped = loop_figures(clip, *source, [&](std::size_t k, auto& out) {
      clip.poses(static_cast<double>(k) * clip.frame_time(), out);
    });
    std::printf(" %s: cycle %zu of %zu, seam %.1f deg, stance drift %.1f mm, %zu warning(s)\n",
                clip.name().c_str(), clip.cycle(), clip.cycles(), clip.seam_rotation() * 180 / M_PI,
                1e3 * clip.stance_drift(), clip.warnings().size());
    report("the capture's cycle", captured);
    report("the loop, 10 cycles", looped);
    EXPECT_TRUE(clip.rest_pose_skipped());
    EXPECT_TRUE(clip.warnings().empty()) << clip.warnings().front();
    EXPECT_LE(looped.mean_slide, 1.1 * captured.mean_slide) << clip.name();
    EXPECT_LE(looped.max_slide, 1.1 * captured.max_slide) << clip.name();
    EXPECT_LE(looped.deepest, 0.005) << clip.name();
  }
  // The walk's first cycle (the subject still speeding up) cannot be closed cleanly, and says so;
  // the default took the second.
  LoopClipOptions first;
  first.cycle = 0;
  const LoopClip rough(s.walk.capture, first);
  EXPECT_EQ(s.walk_clip.cycle(), 1u);
  EXPECT_FALSE(rough.warnings().empty());
  for (const std::string& w : rough.warnings()) {
    std::printf("  cycle 0 warns: %s\n", w.c_str());
  }
  // Spreading the seam linearly over the cycle, stance phases included, drags the planted feet.
  const LinearSeamLoop linear(s.walk.capture, s.walk_clip);
  const test::GaitFigures dragged = loop_figures(
      s.walk_clip, s.walk, [&](std::size_t k, auto& out) { linear.poses(k, out); });
  report("walk, seam spread linearly", dragged);
  EXPECT_GT(dragged.max_slide, 1.1 * capture_cycle(s.walk, s.walk_clip).max_slide);
}

TEST(ClipBlendFeet, AnotherConversionsAnkleNamedFeetLoopAsCaptured) {
  // CMU 131_01 in the cgspeed conversion (start, walk, stop; joints LeftAnkle, LeftToe, ...):
  // the feet are found by name, the cleanest cycle taken, and the loop slides as its cycle.
  const Capture capture = load_cmu("131_01.bvh");
  const LoopClip clip(capture);
  EXPECT_EQ(clip.feet(), (std::vector<std::string>{"LeftAnkle", "RightAnkle"}));
  EXPECT_TRUE(clip.warnings().empty()) << clip.warnings().front();
  const char* const joints[] = {"LeftAnkle", "LeftToe", "RightAnkle", "RightToe"};
  test::GaitMeter captured, looped;
  std::vector<Pose> frame;
  for (const char* joint : joints) {
    const Track& track = capture.track(joint);
    test::JointPath whole, cycle, loop;
    for (std::size_t i = 0; i < track.size(); ++i) {
      whole.p.push_back(track.position(i));
      if (track.time(i) >= clip.capture_start() - 0.1 && track.time(i) <= clip.capture_end() + 0.1) {
        cycle.p.push_back(track.position(i));
      }
    }
    for (std::size_t k = 0; k < 10 * clip.frame_count(); ++k) {
      clip.poses(static_cast<double>(k) * clip.frame_time(), frame);
      loop.p.push_back(frame[static_cast<std::size_t>(clip.find(joint))].p);
    }
    const double ground = test::lowest(whole);
    captured.add(cycle, clip.frame_time(), ground);
    looped.add(loop, clip.frame_time(), ground);
  }
  const test::GaitFigures c = captured.finish(), l = looped.finish();
  std::printf(" %s: cycle %zu of %zu\n", clip.name().c_str(), clip.cycle(), clip.cycles());
  report("the capture's cycle", c);
  report("the loop, 10 cycles", l);
  EXPECT_LE(l.mean_slide, 1.1 * c.mean_slide);
  EXPECT_LE(l.max_slide, 1.1 * c.max_slide);
  EXPECT_LE(l.deepest, 0.005);
}

TEST(ClipBlendFeet, SetSpeedPlaysTheSpeedAsked) {
  const Sources& s = sources();
  const double vw = s.walk_clip.speed(), vr = s.run_clip.speed();
  double worst = 0.0, worst_linear = 0.0;
  for (int i = 0; i <= 20; ++i) {
    const double v = vw + (vr - vw) * i / 20.0;
    ClipBlend blend({s.walk_clip, s.run_clip});
    blend.set_speed(v);
    EXPECT_NEAR(blend.speed(), v, 1e-9 * v);
    // Four blended cycles played; the hips' travel along the ground over the time.
    const double cycle = (1.0 - blend.weight()) * s.walk_clip.duration() +
                         blend.weight() * s.run_clip.duration();
    const Vec3 start = blend.poses()[0].p;
    const int steps = static_cast<int>(std::round(4.0 * cycle * k_rate));
    for (int k = 1; k <= steps; ++k) {
      blend.advance_to(k / k_rate);
    }
    const Vec3 d = blend.poses()[0].p - start;
    const double played = std::hypot(d.x, d.y) / (steps / k_rate);
    worst = std::max(worst, std::fabs(played / v - 1.0));
    // The linear law set b in proportion to the speed.
    ClipBlend linear({s.walk_clip, s.run_clip});
    linear.set_weight((v - vw) / (vr - vw));
    worst_linear = std::max(worst_linear, std::fabs(linear.speed() / v - 1.0));
  }
  std::printf("  played speed off the asked by at most %.2f%% (linear in b: %.1f%%)\n",
              100.0 * worst, 100.0 * worst_linear);
  EXPECT_LT(worst, 0.01);
  EXPECT_GT(worst_linear, 0.05);
  // Half-way between the clips' speeds, the case.
  ClipBlend blend({s.walk_clip, s.run_clip});
  blend.set_speed(0.5 * (vw + vr));
  EXPECT_GT(blend.weight(), 0.55);
  // Outside the clips' range: refused, or clamped and flagged.
  EXPECT_THROW(blend.set_speed(0.9 * vw), MocapError);
  EXPECT_THROW(blend.set_speed(1.1 * vr), MocapError);
  EXPECT_THROW(blend.set_speed(NAN), MocapError);
  EXPECT_TRUE(blend.set_speed_clamped(1.1 * vr));
  EXPECT_DOUBLE_EQ(blend.weight(), 1.0);
  EXPECT_TRUE(blend.set_speed_clamped(0.5 * vw));
  EXPECT_DOUBLE_EQ(blend.weight(), 0.0);
  EXPECT_FALSE(blend.set_speed_clamped(0.5 * (vw + vr)));
  EXPECT_THROW(blend.speed_for_weight(1.5), MocapError);
}

TEST(ClipBlendFeet, PhaseAndFootfallsOfTheBlend) {
  const Sources& s = sources();
  ClipBlend blend({s.walk_clip, s.run_clip});
  blend.set_weight(0.5);
  const double cycle = 0.5 * (s.walk_clip.duration() + s.run_clip.duration());
  // The first of the cycle's two segments (first foot down to the other's footfall), blended.
  const double first_segment = 0.5 * (s.walk_clip.events()[1] + s.run_clip.events()[1]);
  std::vector<BlendFootfall> all;
  double previous_phase = blend.phase();
  EXPECT_EQ(previous_phase, 0.0);
  for (int k = 1; k <= 5 * 120; ++k) {
    const double t = k / k_rate;
    blend.advance_to(t);
    const double phase = blend.phase();
    EXPECT_GE(phase, 0.0);
    EXPECT_LT(phase, 1.0);
    for (const BlendFootfall& f : blend.footfalls()) {
      EXPECT_GT(f.time, t - 1.0 / k_rate);
      EXPECT_LE(f.time, t + 1e-12);
      all.push_back(f);
      // A footfall is where its foot lands in the lock's eyes too.
      EXPECT_EQ(blend.foot_state(f.foot), FootState::Heel);
    }
    if (phase < previous_phase) { // the first foot landed in this step
      ASSERT_FALSE(blend.footfalls().empty());
      EXPECT_EQ(blend.footfalls().back().foot, 0u);
      // The phase then is the time since that footfall over the first segment, which is the
      // first half of the phase.
      EXPECT_NEAR(phase, 0.5 * (t - blend.footfalls().back().time) / first_segment, 1e-9);
    }
    previous_phase = phase;
  }
  ASSERT_GE(all.size(), 8u);
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_NE(all[i].foot, all[i - 1].foot); // left, right, left, ...
    if (i >= 2) {
      EXPECT_NEAR(all[i].time - all[i - 2].time, cycle, 1e-9); // a cycle per foot
    }
  }
}

TEST(ClipBlendFeet, BonesByNameAndSeamsPerBone) {
  const Sources& s = sources();
  ClipBlend blend({s.walk_clip, s.run_clip});
  EXPECT_EQ(blend.find("LeftFoot"), s.walk_clip.find("LeftFoot"));
  EXPECT_EQ(blend.find("Tail"), -1);
  const LoopClip& clip = s.walk_clip;
  ASSERT_EQ(clip.seams().size(), clip.bones().size());
  double largest = 0.0;
  for (const BoneSeam& seam : clip.seams()) {
    largest = std::max(largest, seam.rotation);
  }
  EXPECT_DOUBLE_EQ(largest, clip.seam_rotation());
  // The knee's seam by hand: the shin's turn relative to the thigh at the cycle's last frame
  // against its first, from the capture's tracks.
  const Track& thigh = s.walk.capture.track("LeftUpLeg");
  const Track& shin = s.walk.capture.track("LeftLeg");
  std::size_t a = 0;
  while (thigh.time(a) < clip.capture_start() - 1e-9) {
    ++a;
  }
  const std::size_t c = a + clip.frame_count();
  const Quat first = conj(thigh.orientation(a)) * shin.orientation(a);
  const Quat last = conj(thigh.orientation(c)) * shin.orientation(c);
  EXPECT_NEAR(clip.seams()[static_cast<std::size_t>(clip.find("LeftLeg"))].rotation,
              angle_between(first, last), 1e-12);
}

TEST(ClipBlendFeet, ARestPoseFirstFrameIsSkippedWithoutAStartTime) {
  const Sources& s = sources();
  // The default cut equals the one made with the old magic start time.
  LoopClipOptions magic;
  magic.start_time = 0.005;
  magic.skip_rest_pose = false;
  magic.cycle = s.walk_clip.cycle();
  const LoopClip old_way(s.walk.capture, magic);
  EXPECT_EQ(old_way.capture_start(), s.walk_clip.capture_start());
  EXPECT_EQ(old_way.frame_count(), s.walk_clip.frame_count());
  // A capture without the rest-pose frame has nothing to skip.
  Capture moving(s.walk.capture.info());
  for (const Track& t : s.walk.capture.tracks()) {
    Track rest_free(t.name());
    for (std::size_t i = 1; i < t.size(); ++i) {
      rest_free.append(t.time(i), t.pose(i));
    }
    moving.add_track(rest_free);
  }
  moving.set_skeleton(*s.walk.capture.skeleton());
  const LoopClip plain(moving);
  EXPECT_FALSE(plain.rest_pose_skipped());
  EXPECT_TRUE(s.walk_clip.rest_pose_skipped());
  EXPECT_TRUE(s.run_clip.rest_pose_skipped());
}

} // namespace
} // namespace odemocap
