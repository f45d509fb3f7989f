// Horn's rotation and marker-cluster fitting against known poses: exact without noise, to the
// noise level with it, gaps and swaps reported; and the real Vicon box of ../shared/data.
#include "support/data_paths.hpp"
#include "support/reference_math.hpp"

#include <odemocap/mocap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace odemocap {
namespace {

using test::Random;

TEST(BestRotation, RecoversRandomRotationsExactly) {
  Random random(11);
  double worst = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const Quat q = random.rotation();
    std::vector<Vec3> a;
    std::vector<Vec3> b;
    for (int i = 0; i < 4; ++i) {
      a.push_back(random.unit_vector() * random.uniform(0.05, 0.2));
    }
    Vec3 centre;
    for (const Vec3& p : a) {
      centre += p / 4.0;
    }
    for (Vec3& p : a) {
      p -= centre;
      b.push_back(test::apply(test::rodrigues(to_axis_angle(q).axis, to_axis_angle(q).angle), p));
    }
    worst = std::fmax(worst, test::quat_distance(best_rotation(a, b), q));
  }
  EXPECT_LT(worst, 1e-12);
}

TEST(BestRotation, NaiveFrameFromThreeMarkersIsWorseUnderNoise) {
  // The least-squares rotation against building axes from markers 0->1 and the normal of the
  // 0,1,2 plane (what hand-written code often does): with 1 mm noise on a 10 cm cluster the
  // naive frame errs more, as it trusts two markers for the main axis.
  Random random(5);
  std::normal_distribution<double> noise(0.0, 0.001);
  std::mt19937 engine(9);
  const std::vector<Vec3> layout = {
      {0.1, 0, 0}, {-0.05, 0.08, 0}, {-0.05, -0.08, 0.02}, {0, 0, 0.1}};
  double horn_sum = 0;
  double naive_sum = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Quat q = random.rotation();
    std::vector<Vec3> b;
    Vec3 cb;
    for (const Vec3& p : layout) {
      b.push_back(rotate(q, p) + Vec3{noise(engine), noise(engine), noise(engine)});
      cb += b.back() / 4.0;
    }
    std::vector<Vec3> a = layout;
    Vec3 ca;
    for (const Vec3& p : a) {
      ca += p / 4.0;
    }
    std::vector<Vec3> bc = b;
    for (std::size_t i = 0; i < 4; ++i) {
      a[i] -= ca;
      bc[i] -= cb;
    }
    horn_sum += angle_between(best_rotation(a, bc), q);
    const auto frame = [](const Vec3& p0, const Vec3& p1, const Vec3& p2) {
      const Vec3 x = (p1 - p0) / norm(p1 - p0);
      Vec3 z = cross(x, p2 - p0);
      z = z / norm(z);
      Mat3 m;
      const Vec3 y = cross(z, x);
      for (int r = 0; r < 3; ++r) {
        m.m[r][0] = r == 0 ? x.x : r == 1 ? x.y : x.z;
        m.m[r][1] = r == 0 ? y.x : r == 1 ? y.y : y.z;
        m.m[r][2] = r == 0 ? z.x : r == 1 ? z.y : z.z;
      }
      return from_matrix(m);
    };
    const Quat naive = frame(b[0], b[1], b[2]) * conj(frame(layout[0], layout[1], layout[2]));
    naive_sum += angle_between(naive, q);
  }
  std::printf("[ metric ] 1 mm noise, 10 cm cluster: mean rotation error Horn %.4f rad, "
              "three-marker frame %.4f rad\n",
              horn_sum / 400, naive_sum / 400);
  EXPECT_LT(horn_sum, 0.9 * naive_sum);
}

TEST(NearestRotation, RoundedMatricesAreAcceptedAndReflectionsRefused) {
  const Quat q = from_axis_angle({1, 2, 3}, 1.2);
  Mat3 m = to_matrix(q);
  for (auto& row : m.m) {
    for (double& v : row) {
      v = std::round(v * 1e5) / 1e5; // five decimals, as QTM prints them
    }
  }
  EXPECT_LT(angle_between(nearest_rotation(m), q), 2e-5);
  Mat3 reflection = to_matrix(q);
  for (double& v : reflection.m[2]) {
    v = -v;
  }
  EXPECT_THROW(nearest_rotation(reflection), MocapError);
  Mat3 scaled = to_matrix(q);
  scaled.m[0][0] *= 1.01;
  EXPECT_THROW(nearest_rotation(scaled), MocapError);
}

/// Four markers on a body moving along a known path, with optional noise (m).
Capture cluster_capture(double sigma, std::vector<Pose>& truth) {
  const std::vector<Vec3> layout = {
      {0.1, 0, 0}, {-0.05, 0.08, 0}, {-0.05, -0.08, 0.02}, {0, 0.01, 0.1}};
  std::normal_distribution<double> noise(0.0, sigma > 0 ? sigma : 1.0);
  std::mt19937 engine(4);
  Capture c;
  std::vector<Track> tracks;
  for (int m = 0; m < 4; ++m) {
    tracks.emplace_back("m" + std::to_string(m));
    tracks.back().set_position_only(true);
  }
  truth.clear();
  for (int f = 0; f < 200; ++f) {
    const double t = f / 100.0;
    const Pose pose{{0.3 * std::sin(t), 0.2 * t, 1.0},
                    from_axis_angle({std::cos(t), 1, 0.5}, 2.0 * t)};
    truth.push_back(pose);
    for (int m = 0; m < 4; ++m) {
      Vec3 p = pose.p + rotate(pose.q, layout[m]);
      if (sigma > 0) {
        p += Vec3{noise(engine), noise(engine), noise(engine)};
      }
      tracks[m].append(t, {p, Quat{}});
    }
  }
  for (Track& t : tracks) {
    c.add_track(std::move(t));
  }
  return c;
}

TEST(FitCluster, RecoversAKnownMotionExactlyWithoutNoise) {
  std::vector<Pose> truth;
  const Capture c = cluster_capture(0.0, truth);
  ClusterOptions o;
  o.name = "tool";
  o.markers = {"m0", "m1", "m2", "m3"};
  const ClusterFit fit = fit_cluster(c, o);
  EXPECT_EQ(fit.reference_sample, 0u);
  EXPECT_TRUE(fit.flagged.empty());
  // The body frame is the reference sample's: orientation truth(f) * conj(truth(0)).
  for (std::size_t f = 0; f < truth.size(); ++f) {
    const Quat expected = truth[f].q * conj(truth[0].q);
    ASSERT_LT(angle_between(fit.track.orientation(f), expected), 1e-12) << f;
    ASSERT_LT(fit.rms[f], 1e-12);
  }
}

TEST(FitCluster, NoiseGivesRotationErrorAtTheNoiseLevel) {
  std::vector<Pose> truth;
  const double sigma = 0.0005;
  Capture c = cluster_capture(sigma, truth);
  ClusterOptions o;
  o.markers = {"m0", "m1", "m2", "m3"};
  o.max_rms = 0.005;
  const ClusterFit fit = fit_cluster(c, o);
  double sum = 0;
  double rms_sum = 0;
  for (std::size_t f = 0; f < truth.size(); ++f) {
    sum += angle_between(fit.track.orientation(f), truth[f].q * conj(truth[0].q));
    rms_sum += fit.rms[f];
  }
  const double n = static_cast<double>(truth.size());
  const double mean_angle = sum / n;
  // sigma / spread (about 0.09 m) is 5.6 mrad; four markers average it down.
  std::printf("[ metric ] 0.5 mm noise: mean rotation error %.2f mrad, mean fit RMS %.2f mm\n",
              1000 * mean_angle, 1000 * rms_sum / n);
  EXPECT_LT(mean_angle, 0.01);
  EXPECT_GT(mean_angle, 0.0005);
  EXPECT_TRUE(fit.flagged.empty());
}

TEST(FitCluster, FewerThanThreeMarkersIsAGapAndSwappedMarkersAreFlagged) {
  std::vector<Pose> truth;
  const Capture clean = cluster_capture(0.0, truth);
  // Rebuild with m2 and m3 missing in sample 50, m3 missing in 60, m0/m1 swapped in 70.
  Capture c;
  for (int m = 0; m < 4; ++m) {
    const Track& t = clean.track("m" + std::to_string(m));
    Track copy(t.name());
    for (std::size_t i = 0; i < t.size(); ++i) {
      const bool missing = (i == 50 && m >= 2) || (i == 60 && m == 3);
      if (missing) {
        copy.append_gap(t.time(i));
        continue;
      }
      const std::size_t source = i == 70 && m < 2 ? 1 - m : m;
      copy.append(t.time(i), {clean.track("m" + std::to_string(source)).position(i), Quat{}});
    }
    c.add_track(std::move(copy));
  }
  ClusterOptions o;
  o.markers = {"m0", "m1", "m2", "m3"};
  const ClusterFit fit = fit_cluster(c, o);
  EXPECT_FALSE(fit.track.valid(50));
  EXPECT_TRUE(std::isnan(fit.rms[50]));
  EXPECT_TRUE(fit.track.valid(60)); // three markers are enough
  EXPECT_LT(fit.rms[60], 1e-12);
  EXPECT_EQ(fit.flagged, std::vector<std::size_t>{70});
  EXPECT_GT(fit.rms[70], 0.05);
}

TEST(FitCluster, BadRequestsAreRefusedWithAReason) {
  std::vector<Pose> truth;
  const Capture c = cluster_capture(0.0, truth);
  ClusterOptions o;
  o.markers = {"m0", "m1"};
  EXPECT_THROW(fit_cluster(c, o), MocapError);
  o.markers = {"m0", "m1", "nope"};
  EXPECT_THROW(fit_cluster(c, o), MocapError);
  o.markers = {"m0", "m1", "m2"};
  o.reference_sample = 5000;
  EXPECT_THROW(fit_cluster(c, o), MocapError);
  // Three collinear markers leave the rotation about their line undetermined.
  Capture line;
  for (int m = 0; m < 3; ++m) {
    Track t("p" + std::to_string(m));
    t.append(0.0, {{0.1 * m, 0, 0}, Quat{}});
    t.append(0.01, {{0.1 * m, 0.01, 0}, Quat{}});
    line.add_track(std::move(t));
  }
  ClusterOptions l;
  l.markers = {"p0", "p1", "p2"};
  try {
    fit_cluster(line, l);
    ADD_FAILURE() << "collinear markers accepted";
  } catch (const MocapError& e) {
    EXPECT_NE(std::string(e.what()).find("collinear"), std::string::npos);
  }
}

TEST(FitCluster, ViconBoxMarkersFitARigidBody) {
  const std::string path = test::shared_data("ezc3d/Vicon.c3d");
  ODEMOCAP_REQUIRE_FILE(path);
  const Capture c = load_capture(path);
  ClusterOptions o;
  o.name = "boite";
  for (const Track& t : c.tracks()) {
    if (t.name().rfind("boite:", 0) == 0) {
      o.markers.push_back(t.name());
    }
  }
  ASSERT_EQ(o.markers.size(), 8u);
  const ClusterFit fit = fit_cluster(c, o);
  std::vector<double> rms;
  for (double r : fit.rms) {
    if (!std::isnan(r)) {
      rms.push_back(r);
    }
  }
  std::sort(rms.begin(), rms.end());
  std::printf("[ metric ] Vicon box, 8 markers, %zu samples: reference %zu, fit RMS median %.2f "
              "mm, max %.2f mm, %zu flagged above 5 mm\n",
              rms.size(), fit.reference_sample, 1000 * rms[rms.size() / 2], 1000 * rms.back(),
              fit.flagged.size());
  EXPECT_EQ(fit.track.valid_count(), 580u); // never fewer than 3 of the 8 markers
  EXPECT_LT(rms[rms.size() / 2], 0.002);    // a rigid box: millimetres
}

} // namespace
} // namespace odemocap
