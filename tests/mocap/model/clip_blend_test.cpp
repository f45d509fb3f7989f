// Walk/run blending on CMU subject 35's walk (35_07) and run (35_24): loops cut at detected
// footfalls, the blend's timing, exactness at the ends, foot sliding against the clips' own
// and against a naive blend, continuity while b ramps, and bad input.
#include "support/data_paths.hpp"
#include "support/error_message.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace odemocap {
namespace {

constexpr double k_h = 1.0 / 240.0; // blend step (s)
const char* const k_feet[] = {"LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase"};

Capture load_cmu(const std::string& file) {
  LoadOptions options;
  options.up_axis = Axis::Z;
  options.to_metres = true;
  return load_capture(test::repo_data("cmu/" + file), options);
}

/// CMU's conversions open with a rest-pose frame: cut after it. The walk's first cycle starts
/// from a stance broken by a glitch, so the second is taken.
LoopClip cut(const Capture& capture, std::size_t cycle) {
  LoopClipOptions options;
  options.start_time = 0.005;
  options.cycle = cycle;
  return LoopClip(capture, options);
}

struct Clips {
  Capture walk_capture = load_cmu("35_07.bvh");
  Capture run_capture = load_cmu("35_24.bvh");
  LoopClip walk = cut(walk_capture, 1);
  LoopClip run = cut(run_capture, 0);
};

const Clips& clips() {
  static const Clips c;
  return c;
}

Vec3 flat(const Vec3& v) {
  return {v.x, v.y, 0.0};
}

/// Whether a foot bone is planted at cycle time s of a clip: stances detected on the loop
/// played for three cycles (the middle one free of edge effects), mapped into the cycle.
class StanceMap {
public:
  StanceMap(const LoopClip& clip, int bone) : period_(clip.duration()) {
    Track track(clip.bones()[static_cast<std::size_t>(bone)]);
    std::vector<Pose> poses;
    const double dt = clip.frame_time();
    for (std::size_t i = 0; i <= 3 * clip.frame_count(); ++i) {
      clip.poses(static_cast<double>(i) * dt, poses);
      track.append(static_cast<double>(i) * dt, poses[static_cast<std::size_t>(bone)]);
    }
    for (const Stance& s : detect_stances(track, Axis::Z)) {
      stances_.push_back(s);
    }
  }
  bool planted(double s) const {
    for (int cycle = 0; cycle < 3; ++cycle) {
      const double t = s + cycle * period_;
      for (const Stance& st : stances_) {
        if (t >= st.start && t <= st.end) {
          return true;
        }
      }
    }
    return false;
  }

private:
  double period_;
  std::vector<Stance> stances_;
};

/// One step of a player: every bone's world pose, and each clip's cycle time and weight.
struct Frame {
  std::vector<Pose> poses;
  double times[2] = {0.0, 0.0};
  double weights[2] = {1.0, 0.0};
};

/// The naive blend: both clips at the same time (same frame index, both 120 Hz), no time
/// warp; each placed by its own travel from a common start, no origin sync.
class NaiveBlend {
public:
  NaiveBlend(const LoopClip& a, const LoopClip& b) : clips_{&a, &b} {}
  void frame(double t, double w, Frame& out) const {
    const Vec3 up{0.0, 0.0, 1.0};
    GroundFrame ground[2];
    std::vector<Pose> local[2];
    for (int x = 0; x < 2; ++x) {
      const LoopClip& c = *clips_[x];
      const double n = std::floor(t / c.duration());
      out.times[x] = t - n * c.duration();
      GroundFrame within;
      c.sample(out.times[x], local[x], within);
      const GroundFrame start = c.start_ground();
      within.p += n * rotate(from_axis_angle(up, -start.yaw), c.travel());
      ground[x] = compose(clips_[0]->start_ground(), within, up);
    }
    out.weights[0] = 1.0 - w;
    out.weights[1] = w;
    GroundFrame g{ground[0].yaw + w * (ground[1].yaw - ground[0].yaw),
                  (1.0 - w) * ground[0].p + w * ground[1].p};
    std::vector<Pose> l(local[0].size());
    for (std::size_t b = 0; b < l.size(); ++b) {
      l[b] = {local[0][b].p + w * (local[1][b].p - local[0][b].p),
              slerp(local[0][b].q, local[1][b].q, w)};
    }
    clips_[0]->forward(g, l, out.poses);
  }

private:
  const LoopClip* clips_[2];
};

struct Sliding {
  double mean = 0.0; ///< m/s, horizontal foot speed while planted
  double max = 0.0;
  long samples = 0;
};

/// Horizontal speed of the four foot bones over the blend's stance phases: those of the clip
/// with the larger weight at its own time (the pose it mostly shows), and where the weights are
/// equal, the phases in which both clips plant the foot.
Sliding sliding(const std::vector<Frame>& frames) {
  const Clips& c = clips();
  Sliding out;
  double sum = 0.0;
  for (const char* foot : k_feet) {
    const int bone = c.walk.find(foot);
    const StanceMap maps[2] = {StanceMap(c.walk, bone), StanceMap(c.run, bone)};
    const auto planted = [&](const Frame& f) {
      if (f.weights[0] != f.weights[1]) {
        const int x = f.weights[0] > f.weights[1] ? 0 : 1;
        return maps[x].planted(f.times[x]);
      }
      return maps[0].planted(f.times[0]) && maps[1].planted(f.times[1]);
    };
    for (std::size_t k = 0; k + 1 < frames.size(); ++k) {
      if (!planted(frames[k]) || !planted(frames[k + 1])) {
        continue;
      }
      const auto b = static_cast<std::size_t>(bone);
      const double v = norm(flat(frames[k + 1].poses[b].p - frames[k].poses[b].p)) / k_h;
      sum += v;
      out.max = std::max(out.max, v);
      ++out.samples;
    }
  }
  out.mean = out.samples > 0 ? sum / static_cast<double>(out.samples) : 0.0;
  return out;
}

/// The blend played for `seconds` with b from `weight(t)`, one frame per step.
std::vector<Frame> play(const std::function<double(double)>& weight, double seconds,
                        double skip = 0.0) {
  const Clips& c = clips();
  ClipBlend blend({c.walk, c.run});
  blend.set_weight(weight(0.0));
  std::vector<Frame> frames;
  for (int k = 1; k * k_h <= seconds + 1e-9; ++k) {
    const double t = k * k_h;
    blend.set_weight(weight(t));
    Frame f;
    f.poses = blend.advance_to(t);
    const double b = blend.weight();
    for (int x = 0; x < 2; ++x) {
      f.times[x] = blend.clip_time(static_cast<std::size_t>(x));
    }
    f.weights[0] = 1.0 - b;
    f.weights[1] = b;
    if (t >= skip) {
      frames.push_back(f);
    }
  }
  return frames;
}

std::vector<Frame> play_naive(double w, double seconds) {
  const Clips& c = clips();
  NaiveBlend naive(c.walk, c.run);
  std::vector<Frame> frames;
  for (int k = 1; k * k_h <= seconds + 1e-9; ++k) {
    Frame f;
    naive.frame(k * k_h, w, f);
    frames.push_back(f);
  }
  return frames;
}

double worst_angle_speed(const std::vector<Pose>& a, const std::vector<Pose>& b, std::size_t bone) {
  return angle_between(a[bone].q, b[bone].q) / k_h;
}

TEST(LoopClip, CutsAGaitCycleBetweenFootfallsOfTheSameFoot) {
  const Clips& c = clips();
  // Independent: the capture's own footfalls (stance starts of LeftFoot after the rest frame).
  Track left("LeftFoot");
  const Track& raw = c.walk_capture.track("LeftFoot");
  for (std::size_t i = 1; i < raw.size(); ++i) {
    left.append(raw.time(i), raw.pose(i));
  }
  const auto stances = detect_stances(left, Axis::Z);
  ASSERT_GE(stances.size(), 3u);
  EXPECT_NEAR(c.walk.capture_start(), stances[2].start, 0.5 / 120.0); // 1.408 s
  EXPECT_EQ(c.walk.frame_count(), 129u);                              // to 2.483 s
  ASSERT_EQ(c.walk.events().size(), 2u);
  EXPECT_EQ(c.walk.event_feet()[1], 1u); // RightFoot lands in between
  EXPECT_NEAR(c.walk.events()[1], 1.933 - 1.408, 1.5 / 120.0);
  EXPECT_EQ(c.run.frame_count(), 89u); // 0.367 to 1.108 s
  EXPECT_NEAR(c.run.events()[1], 0.367, 1.5 / 120.0);
  // Speed: the hips' ground travel over the cycle, from the capture directly.
  for (const LoopClip* clip : {&c.walk, &c.run}) {
    const Capture& capture = clip == &c.walk ? c.walk_capture : c.run_capture;
    const Track& hips = capture.track("Hips");
    std::size_t a = 0;
    while (hips.time(a) < clip->capture_start() - 1e-9) {
      ++a;
    }
    const Vec3 d = flat(hips.position(a + clip->frame_count()) - hips.position(a));
    EXPECT_NEAR(clip->speed(), norm(d) / clip->duration(), 1e-9) << clip->name();
  }
  EXPECT_NEAR(c.walk.speed(), 1.27, 0.01);
  EXPECT_NEAR(c.run.speed(), 3.56, 0.01);
}

TEST(LoopClip, StartsOnTheCapturesFrameAndLoopsWithoutASeam) {
  const Clips& c = clips();
  std::vector<Pose> poses;
  c.walk.poses(0.0, poses);
  std::size_t a = 0;
  const Track& hips = c.walk_capture.track("Hips");
  while (hips.time(a) < c.walk.capture_start() - 1e-9) {
    ++a;
  }
  for (std::size_t b = 0; b < poses.size(); ++b) {
    const Track& track = c.walk_capture.track(c.walk.bones()[b]);
    EXPECT_LT(norm(poses[b].p - track.position(a)), 1e-12) << c.walk.bones()[b];
    EXPECT_LT(angle_between(poses[b].q, track.orientation(a)), 1e-12) << c.walk.bones()[b];
  }
  // Across the seam the loop moves no more than in an ordinary frame of the cycle.
  for (const LoopClip* clip : {&c.walk, &c.run}) {
    std::vector<Pose> p0, p1;
    double normal = 0.0;
    const double dt = clip->frame_time();
    for (std::size_t i = 0; i + 1 < clip->frame_count(); ++i) {
      clip->poses(static_cast<double>(i) * dt, p0);
      clip->poses(static_cast<double>(i + 1) * dt, p1);
      normal = std::max(normal, norm(p1[0].p - p0[0].p));
    }
    clip->poses(clip->duration() - 0.5 * dt, p0);
    clip->poses(clip->duration() + 0.5 * dt, p1);
    EXPECT_LT(norm(p1[0].p - p0[0].p), 1.2 * normal) << clip->name();
    // The raw cut would not close: frame c differs from frame a moved by the travel.
    EXPECT_GT(clip->seam_rotation(), 0.1) << clip->name();
  }
}

TEST(LoopClip, FootfallsCanBeGivenAndBadOptionsAreRefused) {
  const Clips& c = clips();
  LoopClipOptions given;
  given.feet = {"LeftFoot", "RightFoot"};
  given.footfalls = {c.walk.capture_start(), c.walk.capture_start() + c.walk.events()[1],
                     c.walk.capture_end()};
  const LoopClip same(c.walk_capture, given);
  EXPECT_EQ(same.frame_count(), c.walk.frame_count());
  EXPECT_EQ(same.events(), c.walk.events());
  EXPECT_NEAR(same.speed(), c.walk.speed(), 1e-12);

  LoopClipOptions bad = given;
  bad.footfalls = {2.0, 1.5, 2.4};
  EXPECT_THROW(LoopClip(c.walk_capture, bad), MocapError);
  bad = given;
  bad.footfalls = {1.4, 1.9}; // ends on the second foot
  EXPECT_THROW(LoopClip(c.walk_capture, bad), MocapError);
  LoopClipOptions unknown;
  unknown.target_bone = "Tail";
  EXPECT_THROW(LoopClip(c.walk_capture, unknown), MocapError);
  unknown = {};
  unknown.feet = {"LeftPaw", "RightPaw"};
  EXPECT_THROW(LoopClip(c.walk_capture, unknown), MocapError);
  LoopClipOptions late;
  late.start_time = 0.005;
  late.cycle = 5;
  const std::string message =
      test::error_message<MocapError>([&] { LoopClip(c.run_capture, late); });
  EXPECT_NE(message.find("1 complete gait cycle"), std::string::npos) << message;
  EXPECT_NE(message.find("footfalls at"), std::string::npos) << message;
  Capture rigid;
  Track body("tool");
  body.append(0.0, Pose{});
  body.append(0.01, Pose{});
  rigid.add_track(body);
  EXPECT_THROW(LoopClip(rigid, {}), MocapError);
}

TEST(ClipBlend, ItsEndsReproduceTheClipsExactly) {
  const Clips& c = clips();
  for (int end = 0; end < 2; ++end) {
    const LoopClip& clip = end == 0 ? c.walk : c.run;
    ClipBlend blend({c.walk, c.run}, clip.start_ground());
    blend.set_weight(end);
    std::vector<Pose> want;
    double position = 0.0, angle = 0.0;
    for (int k = 0; k <= 3 * 240; ++k) {
      const double t = k * k_h;
      const std::vector<Pose>& got = k == 0 ? blend.poses() : blend.advance_to(t);
      clip.poses(t, want);
      for (std::size_t b = 0; b < want.size(); ++b) {
        position = std::max(position, norm(got[b].p - want[b].p));
        angle = std::max(angle, angle_between(got[b].q, want[b].q));
      }
    }
    EXPECT_LT(position, 1e-12) << clip.name();
    EXPECT_LT(angle, 1e-12) << clip.name();
    std::printf("b = %d reproduces %s: %.1e m, %.1e rad over 3 s\n", end, clip.name().c_str(),
                position, angle);
  }
}

TEST(ClipBlend, FootfallsOfTheClipsCoincide) {
  const Clips& c = clips();
  ClipBlend blend({c.walk, c.run});
  blend.set_weight(0.5);
  const double e0 = c.walk.events()[1], e1 = c.run.events()[1];
  int disagree = 0, naive_disagree = 0, steps = 0;
  double last_wrap = -1.0;
  std::vector<double> cycles;
  double previous = 0.0;
  for (int k = 1; k <= 4 * 240; ++k) {
    const double t = k * k_h;
    blend.advance_to(t);
    const double s0 = blend.clip_time(0), s1 = blend.clip_time(1);
    disagree += (s0 >= e0) != (s1 >= e1);
    // Naive: both clips at the same time, no warp.
    const double n0 = std::fmod(t, c.walk.duration()), n1 = std::fmod(t, c.run.duration());
    naive_disagree += (n0 >= e0) != (n1 >= e1);
    ++steps;
    if (s0 < previous) { // a new cycle began in this step
      if (last_wrap >= 0.0) {
        cycles.push_back(t - last_wrap);
      }
      last_wrap = t;
    }
    previous = s0;
  }
  EXPECT_EQ(disagree, 0);
  EXPECT_GT(naive_disagree, steps / 5);
  // Unified timing: a blended cycle lasts the blend of the clips' cycles.
  ASSERT_GE(cycles.size(), 2u);
  for (double cycle : cycles) {
    EXPECT_NEAR(cycle, 0.5 * (c.walk.duration() + c.run.duration()), k_h + 1e-9);
  }
}

TEST(ClipBlend, FeetStayPlantedAsInTheClipsAndNotInANaiveBlend) {
  const Clips& c = clips();
  (void)c;
  std::printf("foot sliding (m/s, horizontal speed of LeftFoot, LeftToeBase, RightFoot and "
              "RightToeBase in the blend's stance phases, 240 Hz)\n");
  const auto report = [](const char* what, const Sliding& s) {
    std::printf("  %-28s mean %.3f  max %.3f  (%ld samples)\n", what, s.mean, s.max, s.samples);
  };
  Sliding warped[5];
  const double bs[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
  char label[64];
  for (int i = 0; i < 5; ++i) {
    const double b = bs[i];
    warped[i] = sliding(play([b](double) { return b; }, 4.0));
    std::snprintf(label, sizeof label, "blend b = %.2f", b);
    report(label, warped[i]);
  }
  const auto ramp = [](double t) { return std::clamp((t - 1.0) / 3.0, 0.0, 1.0); };
  const Sliding ramped = sliding(play(ramp, 4.0, 1.0));
  report("blend, b from 0 to 1 in 3 s", ramped);
  const double worse_clip = std::max(warped[0].mean, warped[4].mean);
  for (int i = 1; i < 4; ++i) {
    EXPECT_LE(warped[i].mean, 2.0 * worse_clip) << bs[i];
  }
  EXPECT_LE(ramped.mean, 2.0 * worse_clip);
  Sliding naive[3];
  for (int i = 0; i < 3; ++i) {
    naive[i] = sliding(play_naive(bs[i + 1], 4.0));
    std::snprintf(label, sizeof label, "naive b = %.2f", bs[i + 1]);
    report(label, naive[i]);
  }
  // Where one clip dominates, the naive blend's planted foot drags along with the other
  // clip's swinging one.
  EXPECT_GT(naive[0].mean, 3.0 * worse_clip);
  EXPECT_GT(naive[0].mean, 2.0 * warped[1].mean);
  EXPECT_GT(naive[2].mean, 2.0 * warped[3].mean);
}

TEST(ClipBlend, NoBoneJumpsWhileTheWeightChanges) {
  const Clips& c = clips();
  // Each bone's fastest turn in the clips themselves, at the blend's step.
  const std::size_t bones = c.walk.bones().size();
  std::vector<double> own(bones, 0.0);
  for (const LoopClip* clip : {&c.walk, &c.run}) {
    std::vector<Pose> p0, p1;
    for (int k = 0; k < 3 * 240; ++k) {
      clip->poses(k * k_h, p0);
      clip->poses((k + 1) * k_h, p1);
      for (std::size_t b = 0; b < bones; ++b) {
        own[b] = std::max(own[b], worst_angle_speed(p0, p1, b));
      }
    }
  }
  const auto turns = [&](const std::function<double(double)>& weight) {
    ClipBlend blend({c.walk, c.run});
    std::vector<double> fastest(bones, 0.0);
    std::vector<Pose> previous = blend.poses();
    for (int k = 1; k <= 5 * 240; ++k) {
      blend.set_weight(weight(k * k_h));
      const std::vector<Pose>& now = blend.advance_to(k * k_h);
      for (std::size_t b = 0; b < bones; ++b) {
        fastest[b] = std::max(fastest[b], worst_angle_speed(previous, now, b));
      }
      previous = now;
    }
    double ratio = 0.0;
    std::size_t worst = 0;
    for (std::size_t b = 0; b < bones; ++b) {
      if (fastest[b] / own[b] > ratio) {
        ratio = fastest[b] / own[b];
        worst = b;
      }
    }
    std::printf("  fastest turn / the clips' own: %.2f (%s)\n", ratio,
                c.walk.bones()[worst].c_str());
    return ratio;
  };
  EXPECT_LE(turns([](double t) { return std::clamp((t - 1.0) / 3.0, 0.0, 1.0); }), 1.5);
  // Switching clips instead of blending them: bones jump.
  EXPECT_GT(turns([](double t) { return t < 2.0 ? 0.0 : 1.0; }), 3.0);
}

TEST(ClipBlend, SpeedChoosesTheWeight) {
  const Clips& c = clips();
  ClipBlend blend({c.walk, c.run});
  const double vw = c.walk.speed(), vr = c.run.speed();
  EXPECT_NEAR(blend.weight_for_speed(vw), 0.0, 1e-12);
  EXPECT_NEAR(blend.weight_for_speed(vr), 1.0, 1e-12);
  EXPECT_THROW(blend.weight_for_speed(0.5 * vw), MocapError);
  EXPECT_THROW(blend.weight_for_speed(vr + 0.1), MocapError);
  EXPECT_THROW(blend.set_weight(-0.01), MocapError);
  EXPECT_THROW(blend.set_weight(1.01), MocapError);
  // Played at b = 0.5 the character covers the blend of the clips' cycle travel (each in its
  // own first ground frame) per blended cycle: |D_w + D_r| / (T_w + T_r); set_speed of that
  // speed chooses b = 0.5.
  const auto local_travel = [](const LoopClip& clip) {
    return rotate(from_axis_angle({0.0, 0.0, 1.0}, -clip.start_ground().yaw), clip.travel());
  };
  const double want =
      norm(local_travel(c.walk) + local_travel(c.run)) / (c.walk.duration() + c.run.duration());
  blend.set_speed(want);
  EXPECT_NEAR(blend.weight(), 0.5, 1e-12);
  EXPECT_NEAR(blend.speed(), want, 1e-12);
  const Vec3 start = blend.poses()[0].p;
  const double cycle = 0.5 * (c.walk.duration() + c.run.duration());
  const double seconds = 4.0 * cycle;
  blend.advance_to(seconds);
  EXPECT_NEAR(norm(flat(blend.poses()[0].p - start)) / seconds, want, 0.01 * want);
  EXPECT_THROW(blend.advance_to(seconds), MocapError);
}

TEST(ClipBlend, BonesArePoseSourcesThatRememberRecentFrames) {
  const Clips& c = clips();
  auto blend = std::make_shared<ClipBlend>(std::vector<LoopClip>{c.walk, c.run});
  const int foot = c.walk.find("LeftFoot");
  const auto source = ClipBlend::bone_source(blend, static_cast<std::size_t>(foot));
  EXPECT_EQ(source->name(), "LeftFoot");
  EXPECT_EQ(source->start_time(), 0.0);
  EXPECT_TRUE(std::isinf(source->end_time()));
  Pose p0, p1, half;
  ASSERT_TRUE(source->pose(0.0, p0));
  ASSERT_TRUE(source->pose(k_h, p1)); // plays one step
  EXPECT_DOUBLE_EQ(blend->time(), k_h);
  ASSERT_TRUE(source->pose(0.5 * k_h, half)); // between remembered frames
  EXPECT_LT(norm(half.p - 0.5 * (p0.p + p1.p)), 1e-12);
  EXPECT_LT(angle_between(half.q, slerp(p0.q, p1.q, 0.5)), 1e-7);
  for (int k = 2; k <= 10; ++k) {
    ASSERT_TRUE(source->pose(k * k_h, p1));
  }
  EXPECT_FALSE(source->pose(0.0, p0)); // forgotten
  EXPECT_THROW(ClipBlend::bone_source(blend, 99), MocapError);
}

TEST(ClipBlend, RefusesClipsThatCannotBeBlended) {
  const Clips& c = clips();
  EXPECT_THROW(ClipBlend(std::vector<LoopClip>{}), MocapError);
  EXPECT_THROW(ClipBlend({c.run, c.walk}), MocapError); // fastest first
  LoopClipOptions one;
  one.feet = {"LeftFoot"}; // footfalls of one foot only: one segment per cycle
  one.footfalls = {c.walk.capture_start(), c.walk.capture_end()};
  const std::string message = test::error_message<MocapError>([&] {
    ClipBlend({LoopClip(c.walk_capture, one), c.run});
  });
  EXPECT_NE(message.find("cannot be aligned"), std::string::npos) << message;
  LoopClipOptions other;
  other.start_time = 0.005;
  other.target_bone = "LeftFoot";
  EXPECT_THROW(ClipBlend({c.walk, LoopClip(c.run_capture, other)}), MocapError);
}
} // namespace
} // namespace odemocap
