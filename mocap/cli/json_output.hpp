#pragma once
// JSON output of the odemocap tool: every string made valid UTF-8 before it is printed, so one
// Latin-1 name or binary file never aborts a report.

#include <nlohmann/json.hpp>

#include <string>

namespace odemocap::cli {

/// `value` with every string (keys included) passed through odemocap::printable: invalid UTF-8
/// and control bytes become \xNN, valid text is kept.
nlohmann::json printable_json(const nlohmann::json& value);

/// printable_json(value) dumped with `indent` (-1: one line) and a newline, to stdout.
void print_json(const nlohmann::json& value, int indent);

/// A time (s) rounded to the microsecond for display: 728.42, not 728.4200000000001.
double display_time(double seconds);

} // namespace odemocap::cli
