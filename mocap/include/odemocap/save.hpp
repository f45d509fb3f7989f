#pragma once
/// Writing captures: the generic rigid-body CSV that parse_rigid_body_csv reads.

#include <odemocap/capture.hpp>

#include <ostream>
#include <string>

namespace odemocap {

/// Writes `capture` as rigid-body CSV: a metadata line, then `time`, then per track
/// `<name>.x .y .z .qw .qx .qy .qz` (markers: x, y, z only); gaps are empty cells; numbers in
/// the shortest form that reads back as the same double. The metadata line is a comment that
/// other tools skip and parse_rigid_body_csv reads back:
///   # odemocap rigid-body-csv: unit=1; up=y; rate=120; format=bvh; source=walk.bvh
/// (metres per stored unit when known, the stored up axis, the nominal rate in Hz, the format
/// and file the capture was loaded from), so loading the output gives the same capture with
/// the same unit, up axis and rate. The tracks must share one time base and have names without
/// a comma, quote or line break; throws MocapError otherwise, or when the stream fails.
void write_rigid_body_csv(const Capture& capture, std::ostream& out);

/// The same into a file, written whole or not at all (through `<path>.partial`, renamed once
/// complete): a refusal leaves no file and an existing one untouched; throws MocapError naming
/// the path when it cannot be written.
void save_rigid_body_csv(const Capture& capture, const std::string& path);

} // namespace odemocap
