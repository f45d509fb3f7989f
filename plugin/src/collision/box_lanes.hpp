#pragma once
// Axis-aligned boxes held four to a register in single precision, for a broad phase that tests
// one query box against all of them: six comparisons cover four boxes (GCC's and Clang's vector
// extension; SSE2 on x86-64), where one box at a time in doubles takes six. Rounding to the
// nearest float keeps order (a <= b gives float(a) <= float(b)), so every box that meets the
// query in doubles is reported; a reported box may miss it by less than the rounding, so callers
// test the candidates in doubles again.

#include <odemocap/vec3.hpp>

#include <ode/ode.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace odemocap::detail {

class BoxLanes {
public:
  void clear() {
    lanes_.clear();
    size_ = 0;
  }
  std::size_t size() const { return size_; }

  /// Adds a box as dGeomGetAABB gives it: min x, max x, min y, max y, min z, max z.
  void add(const dReal (&box)[6]) {
    const std::size_t lane = size_ % 4;
    if (lane == 0) {
      lanes_.push_back(empty());
    }
    Group& g = lanes_.back();
    for (int k = 0; k < 3; ++k) {
      g.low[k][lane] = to_float(box[2 * k]);
      g.high[k][lane] = to_float(box[2 * k + 1]);
    }
    ++size_;
  }

  /// Calls f(i) for every box i, in order, that may meet the box from `low` to `high`.
  template <class F> void each_meeting(const Vec3& low, const Vec3& high, F&& f) const {
    const Float4 query_low[3] = {splat(to_float(low.x)), splat(to_float(low.y)),
                                 splat(to_float(low.z))};
    const Float4 query_high[3] = {splat(to_float(high.x)), splat(to_float(high.y)),
                                  splat(to_float(high.z))};
    for (std::size_t group = 0; group < lanes_.size(); ++group) {
      const Group& g = lanes_[group];
      const Int4 meets = (g.low[0] <= query_high[0]) & (g.high[0] >= query_low[0]) &
                         (g.low[1] <= query_high[1]) & (g.high[1] >= query_low[1]) &
                         (g.low[2] <= query_high[2]) & (g.high[2] >= query_low[2]);
      std::uint64_t halves[2];
      std::memcpy(halves, &meets, sizeof halves);
      if ((halves[0] | halves[1]) == 0) {
        continue;
      }
      for (int lane = 0; lane < 4; ++lane) {
        if (meets[lane] != 0) {
          f(4 * group + static_cast<std::size_t>(lane));
        }
      }
    }
  }

private:
  using Float4 = float __attribute__((vector_size(16)));
  using Int4 = std::int32_t __attribute__((vector_size(16)));
  struct Group {
    Float4 low[3];
    Float4 high[3];
  };

  static Float4 splat(float v) { return Float4{v, v, v, v}; }
  /// Unused lanes meet nothing, not even a query of all space: NaN fails every comparison (a
  /// box from +infinity to -infinity would meet that query).
  static Group empty() {
    Group g;
    for (int k = 0; k < 3; ++k) {
      g.low[k] = splat(NAN);
      g.high[k] = splat(NAN);
    }
    return g;
  }
  /// v rounded to the nearest float, beyond the floats' range their infinities (a conversion
  /// out of range is undefined), NaN kept: the order of any two values is kept.
  static float to_float(double v) {
    if (v > FLT_MAX) {
      return INFINITY;
    }
    if (v < -FLT_MAX) {
      return -INFINITY;
    }
    return static_cast<float>(v);
  }

  std::vector<Group> lanes_;
  std::size_t size_ = 0;
};

} // namespace odemocap::detail
