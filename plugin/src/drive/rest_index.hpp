#pragma once
// What rests on a body: the dynamic geoms of the spaces a body's geoms are in, indexed by their
// bounding boxes once per prestep, so that a seam crossed by many bodies at once (a crowd
// looping one capture) looks at each body's neighbourhood instead of every geom of the space.

#include <odemocap/quat.hpp>

#include <ode/ode.h>

#include <array>
#include <cstdint>
#include <vector>

namespace odemocap::detail {

class RestIndex {
public:
  /// Forgets the index: bodies may have moved since (called at every prestep).
  void clear() { spaces_.clear(); }

  /// Appends to `found` the dynamic bodies other than `body` (not kinematic, duplicates
  /// possible) with a geom that rests on one of `body`'s geoms now: dCollide finds a contact
  /// between the two, in one top space, that the other geom leaves within 60 degrees of `up`
  /// (unit, against gravity), with `body` where it is or raised by `gap` (m) along `up`. The
  /// body is put back exactly where it was.
  void find_resting(dBodyID body, const Vec3& up, double gap, std::vector<dBodyID>& found);

private:
  struct Entry {
    std::array<dReal, 6> box; ///< dGeomGetAABB's: min x, max x, min y, max y, min z, max z
    dGeomID geom;
    dBodyID body;
  };
  /// The dynamic, enabled geoms of one top space and the spaces in it, in a grid of square
  /// cells over x and y as wide as all boxes but the widest tenth: each box is listed under the
  /// cell of its lower corner, those wider than a cell in `wide`, looked at by every query. The
  /// cells are hashed into buckets (at least twice as many as boxes), a bucket's boxes together
  /// in `order`, from start[bucket] to start[bucket + 1]: a cell's boxes are found without a
  /// search (boxes of other cells in the same bucket are told apart by their boxes).
  struct SpaceIndex {
    dSpaceID space = nullptr;
    std::vector<Entry> entries;
    dReal cell = 1;
    int bucket_bits = 1;
    std::vector<std::uint32_t> start;
    std::vector<std::uint32_t> order;
    std::vector<std::uint32_t> wide;

    std::uint32_t bucket(std::int64_t ix, std::int64_t iy) const;
  };
  const SpaceIndex& index_of(dSpaceID top);

  std::vector<SpaceIndex> spaces_;
  std::vector<std::pair<dGeomID, dGeomID>> pairs_; ///< find_resting's candidates (scratch)
  std::vector<std::uint32_t> seen_;                ///< per entry, the query that last met it
  std::uint32_t query_ = 0;
};

} // namespace odemocap::detail
