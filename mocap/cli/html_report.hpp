#pragma once
// `odemocap validate --html`: one self-contained page (inline style, script and SVG; nothing
// fetched) for looking over a batch: a sortable summary, and per file a timeline per track
// marking where each finding lies.

#include "batch.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace odemocap::cli {

/// Writes the page for `reports`; `strict` as for the exit status (warnings fail too).
void write_html_report(std::ostream& out, const std::vector<FileReport>& reports, bool strict);

/// The same into a file; throws std::runtime_error naming the path when it cannot be written.
void save_html_report(const std::string& path, const std::vector<FileReport>& reports,
                      bool strict);

} // namespace odemocap::cli
