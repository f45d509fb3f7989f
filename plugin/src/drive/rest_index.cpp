#include "drive/rest_index.hpp"

#include "geom_bits.hpp"

#include <algorithm>
#include <cmath>

namespace odemocap::detail {
namespace {

/// Adds the dynamic, enabled geoms of `space` and of the spaces in it.
void gather(dSpaceID space, std::vector<dGeomID>& out) {
  const int n = dSpaceGetNumGeoms(space);
  for (int i = 0; i < n; ++i) {
    const dGeomID g = dSpaceGetGeom(space, i);
    if (dGeomIsSpace(g)) {
      gather(reinterpret_cast<dSpaceID>(g), out);
      continue;
    }
    const dBodyID b = dGeomGetBody(g);
    if (b != nullptr && !dBodyIsKinematic(b) && dGeomIsEnabled(g)) {
      out.push_back(g);
    }
  }
}

/// Whether `theirs` rests on `mine`: a contact that `theirs` leaves within 60 degrees of up.
/// dCollide's normal is the way its first geom leaves the contact (ODE's convention: the first
/// geom moved along it by the depth separates them), so the other leaves it the opposite way.
bool rests_on(dGeomID mine, dGeomID theirs, const Vec3& up) {
  dContactGeom contacts[8];
  const int n = dCollide(mine, theirs, 8, contacts, sizeof(dContactGeom));
  for (int i = 0; i < n; ++i) {
    const dReal* normal = contacts[i].normal;
    if (-(normal[0] * up.x + normal[1] * up.y + normal[2] * up.z) >= 0.5) {
      return true;
    }
  }
  return false;
}

/// The grid coordinate of x for cells `cell` wide, clamped where a box lies absurdly far out.
std::int64_t cell_of(dReal x, dReal cell) {
  const dReal c = std::floor(x / cell);
  return static_cast<std::int64_t>(std::clamp<dReal>(c, -1e9, 1e9));
}

} // namespace

std::uint32_t RestIndex::SpaceIndex::bucket(std::int64_t ix, std::int64_t iy) const {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(ix)) << 32) |
                            static_cast<std::uint32_t>(iy);
  return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - bucket_bits));
}

const RestIndex::SpaceIndex& RestIndex::index_of(dSpaceID top) {
  for (const SpaceIndex& s : spaces_) {
    if (s.space == top) {
      return s;
    }
  }
  SpaceIndex& index = spaces_.emplace_back();
  index.space = top;
  std::vector<dGeomID> geoms;
  gather(top, geoms);
  index.entries.reserve(geoms.size());
  std::vector<dReal> extents;
  for (const dGeomID g : geoms) {
    Entry e{{}, g, dGeomGetBody(g)};
    dGeomGetAABB(g, e.box.data());
    const dReal extent = std::max(e.box[1] - e.box[0], e.box[3] - e.box[2]);
    if (!(extent < dInfinity) || !(e.box[4] <= e.box[5])) {
      continue; // unbounded (or NaN): no box to index
    }
    index.entries.push_back(e);
    extents.push_back(extent);
  }
  if (extents.empty()) {
    return index;
  }
  const auto tenth = extents.begin() + static_cast<std::ptrdiff_t>(extents.size() * 9 / 10);
  std::nth_element(extents.begin(), tenth, extents.end());
  index.cell = std::max<dReal>(*tenth, 0.01);
  while ((std::size_t{1} << index.bucket_bits) < 2 * index.entries.size()) {
    ++index.bucket_bits;
  }
  // A counting sort of the boxes by bucket.
  const std::size_t buckets = std::size_t{1} << index.bucket_bits;
  constexpr std::uint32_t k_wide = ~std::uint32_t{0}; // in `wide`, in no bucket
  std::vector<std::uint32_t> bucket_of(index.entries.size(), k_wide);
  index.start.assign(buckets + 1, 0);
  for (std::uint32_t i = 0; i < index.entries.size(); ++i) {
    const Entry& e = index.entries[i];
    if (std::max(e.box[1] - e.box[0], e.box[3] - e.box[2]) > index.cell) {
      index.wide.push_back(i);
      continue;
    }
    bucket_of[i] = index.bucket(cell_of(e.box[0], index.cell), cell_of(e.box[2], index.cell));
    ++index.start[bucket_of[i] + 1];
  }
  for (std::size_t b = 0; b < buckets; ++b) {
    index.start[b + 1] += index.start[b];
  }
  index.order.resize(index.start[buckets]);
  std::vector<std::uint32_t> filled(index.start.begin(), index.start.end() - 1);
  for (std::uint32_t i = 0; i < index.entries.size(); ++i) {
    if (bucket_of[i] != k_wide) {
      index.order[filled[bucket_of[i]]++] = i;
    }
  }
  return index;
}

void RestIndex::find_resting(dBodyID body, const Vec3& up, double gap,
                             std::vector<dBodyID>& found) {
  // The candidates: geoms whose boxes meet one of the body's grown by the gap.
  pairs_.clear();
  for (dGeomID g = dBodyGetFirstGeom(body); g != nullptr; g = dBodyGetNextGeom(g)) {
    const dSpaceID top = top_space(g);
    if (top == nullptr || !dGeomIsEnabled(g)) {
      continue; // in no space: nothing it could touch is known
    }
    std::array<dReal, 6> box;
    dGeomGetAABB(g, box.data());
    if (std::isnan(box[0] + box[1] + box[2] + box[3] + box[4] + box[5])) {
      continue; // a body somewhere not finite touches nothing
    }
    for (int k = 0; k < 6; ++k) {
      box[static_cast<std::size_t>(k)] += k % 2 == 0 ? -gap : gap;
    }
    const SpaceIndex& index = index_of(top);
    seen_.resize(std::max(seen_.size(), index.entries.size()), 0);
    if (++query_ == 0) { // wrapped: stamps from 2^32 queries ago would pass for this one's
      std::fill(seen_.begin(), seen_.end(), 0);
      query_ = 1;
    }
    const auto consider = [&](std::uint32_t i) {
      const Entry& e = index.entries[i];
      if (seen_[i] == query_ || e.body == body || e.box[1] < box[0] || e.box[0] > box[1] ||
          e.box[3] < box[2] || e.box[2] > box[3] || e.box[5] < box[4] || e.box[4] > box[5] ||
          !bits_allow(g, e.geom)) {
        return;
      }
      seen_[i] = query_;
      pairs_.emplace_back(g, e.geom);
    };
    for (const std::uint32_t i : index.wide) {
      consider(i);
    }
    // A box no wider than a cell that meets this one has its lower corner in a cell this one
    // meets or in the cell before it, along x and along y.
    const std::int64_t x0 = cell_of(box[0], index.cell) - 1, x1 = cell_of(box[1], index.cell);
    const std::int64_t y0 = cell_of(box[2], index.cell) - 1, y1 = cell_of(box[3], index.cell);
    if (static_cast<double>(x1 - x0 + 1) * static_cast<double>(y1 - y0 + 1) >
        static_cast<double>(index.entries.size())) {
      for (std::uint32_t i = 0; i < index.entries.size(); ++i) {
        consider(i); // a body wider than the crowd around it: every box is nearer than its cells
      }
      continue;
    }
    for (std::int64_t ix = x0; ix <= x1; ++ix) {
      for (std::int64_t iy = y0; iy <= y1; ++iy) {
        const std::uint32_t b = index.bucket(ix, iy);
        for (std::uint32_t k = index.start[b]; k < index.start[b + 1]; ++k) {
          consider(index.order[k]);
        }
      }
    }
  }
  // Where the body is, then raised by the gap for the pairs that found no rest.
  std::size_t left = 0;
  for (const auto& [mine, theirs] : pairs_) {
    if (rests_on(mine, theirs, up)) {
      found.push_back(dGeomGetBody(theirs));
    } else {
      pairs_[left++] = {mine, theirs};
    }
  }
  if (left == 0) {
    return;
  }
  const dReal* p = dBodyGetPosition(body);
  const dReal at[3] = {p[0], p[1], p[2]};
  dBodySetPosition(body, at[0] + gap * up.x, at[1] + gap * up.y, at[2] + gap * up.z);
  for (std::size_t i = 0; i < left; ++i) {
    if (rests_on(pairs_[i].first, pairs_[i].second, up)) {
      found.push_back(dGeomGetBody(pairs_[i].second));
    }
  }
  dBodySetPosition(body, at[0], at[1], at[2]);
}

} // namespace odemocap::detail
