#pragma once
/// Writing captures: the generic rigid-body CSV that parse_rigid_body_csv reads.

#include <odemocap/capture.hpp>

#include <ostream>
#include <string>

namespace odemocap {

/// Writes `capture` as rigid-body CSV: `time`, then per track `<name>.x .y .z .qw .qx .qy .qz`;
/// gaps are empty cells; numbers in the shortest form that reads back as the same double, so
/// loading the output gives the same capture. The tracks must share one time base; throws
/// MocapError otherwise, or when the stream fails.
void write_rigid_body_csv(const Capture& capture, std::ostream& out);

/// The same into a file; throws MocapError naming the path when it cannot be written.
void save_rigid_body_csv(const Capture& capture, const std::string& path);

} // namespace odemocap
