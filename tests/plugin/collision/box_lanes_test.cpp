// The guard's broad phase in single precision against the box test in doubles: every box that
// meets a query in doubles is reported, and a reported box that does not meet it misses by less
// than the rounding to floats. Random boxes and queries (fixed seeds), queries whose faces lie
// exactly on boxes' faces or a hair beyond them, and boxes that are not finite.
#include "support/reference_math.hpp"

#include "collision/box_lanes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace odemocap::detail {
namespace {

struct Box {
  dReal b[6]; // min x, max x, min y, max y, min z, max z
};

bool meets(const Box& box, const Vec3& low, const Vec3& high) {
  return box.b[0] <= high.x && box.b[1] >= low.x && box.b[2] <= high.y && box.b[3] >= low.y &&
         box.b[4] <= high.z && box.b[5] >= low.z;
}

/// The same test on both sides rounded to the nearest float: what a reported box must pass.
bool meets_in_floats(const Box& box, const Vec3& low, const Vec3& high) {
  const auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  return f(box.b[0]) <= f(high.x) && f(box.b[1]) >= f(low.x) && f(box.b[2]) <= f(high.y) &&
         f(box.b[3]) >= f(low.y) && f(box.b[4]) <= f(high.z) && f(box.b[5]) >= f(low.z);
}

std::vector<std::size_t> reported(const BoxLanes& lanes, const Vec3& low, const Vec3& high) {
  std::vector<std::size_t> out;
  lanes.each_meeting(low, high, [&](std::size_t i) { out.push_back(i); });
  return out;
}

TEST(BoxLanes, EveryBoxThatMeetsInDoublesIsReportedAndNoneThatMissesBeyondRounding) {
  test::Random random(71);
  int met = 0, near_misses = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Box> boxes(static_cast<std::size_t>(random.uniform(0.0, 24.0)));
    BoxLanes lanes;
    for (Box& box : boxes) {
      for (int k = 0; k < 3; ++k) {
        box.b[2 * k] = random.uniform(-1.0, 1.0);
        box.b[2 * k + 1] = box.b[2 * k] + random.uniform(0.0, 1.0);
      }
      lanes.add(box.b);
    }
    ASSERT_EQ(lanes.size(), boxes.size());
    Vec3 low{random.uniform(-1.0, 1.0), random.uniform(-1.0, 1.0), random.uniform(-1.0, 1.0)};
    Vec3 high =
        low + Vec3{random.uniform(0.0, 1.0), random.uniform(0.0, 1.0), random.uniform(0.0, 1.0)};
    if (!boxes.empty() && random.uniform(0.0, 1.0) < 0.5) {
      // A face of the query on a face of a box, exactly or a hair (under a float's rounding)
      // beyond it: where single precision decides differently from double.
      const Box& box = boxes[static_cast<std::size_t>(trial) % boxes.size()];
      const int k = static_cast<int>(random.uniform(0.0, 3.0));
      const double hair =
          random.uniform(0.0, 1.0) < 0.5 ? 0.0 : 1e-9 * (random.uniform(0.0, 1.0) - 0.5);
      (&high.x)[k] = box.b[2 * k] + hair;
      (&low.x)[k] = std::min((&low.x)[k], (&high.x)[k]);
    }
    const std::vector<std::size_t> got = reported(lanes, low, high);
    std::size_t next = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const bool is_reported = next < got.size() && got[next] == i;
      next += is_reported ? 1 : 0;
      if (meets(boxes[i], low, high)) {
        ++met;
        EXPECT_TRUE(is_reported) << "trial " << trial << " box " << i;
      } else if (is_reported) {
        ++near_misses;
        EXPECT_TRUE(meets_in_floats(boxes[i], low, high)) << "trial " << trial << " box " << i;
      }
    }
    EXPECT_EQ(next, got.size()) << "trial " << trial << ": reported out of order or past the end";
  }
  EXPECT_GT(met, 1000);
  EXPECT_GT(near_misses, 10); // the hairs beyond a face: reported, for the doubles to refuse
}

TEST(BoxLanes, BoxesNotFiniteAreReportedAsDoublesJudgeThem) {
  BoxLanes lanes;
  const Box nan_box{{NAN, 1, 0, 1, 0, 1}};
  const Box everywhere{{-INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY}};
  const Box huge{{-1e300, -1e299, 0, 1, 0, 1}}; // beyond the floats' range
  const Box unit_box{{0, 1, 0, 1, 0, 1}};
  for (const Box* b : {&nan_box, &everywhere, &huge, &unit_box, &unit_box}) {
    lanes.add(b->b);
  }
  EXPECT_EQ(reported(lanes, {0.5, 0.5, 0.5}, {0.6, 0.6, 0.6}), (std::vector<std::size_t>{1, 3, 4}));
  EXPECT_EQ(reported(lanes, {-1e300, 0.5, 0.5}, {-1e299, 0.6, 0.6}),
            (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(reported(lanes, {1e300, 0, 0}, {1e301, 1, 1}), (std::vector<std::size_t>{1}));
}

/// A group's unused lanes meet nothing, even a query of all space: padded as empty boxes (low
/// +infinity, high -infinity: the first version) they met that query, and boxes past the end were
/// reported.
TEST(BoxLanes, AGroupsUnusedLanesMeetNothingEvenAllOfSpace) {
  for (std::size_t n = 0; n <= 9; ++n) {
    BoxLanes lanes;
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < n; ++i) {
      const dReal box[6] = {0, 0, 0, 0, 0, 0};
      lanes.add(box);
      all.push_back(i);
    }
    EXPECT_EQ(reported(lanes, {-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}),
              all)
        << n << " boxes";
    lanes.clear();
    EXPECT_TRUE(reported(lanes, {-1, -1, -1}, {1, 1, 1}).empty());
  }
}

} // namespace
} // namespace odemocap::detail
