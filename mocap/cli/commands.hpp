#pragma once
// The odemocap command-line tool's commands. Each returns the process exit status:
// 0 success, 1 problems found, 2 usage error or nothing readable.

#include <odemocap/load.hpp>
#include <odemocap/velocity.hpp>

#include <string>

namespace odemocap::cli {

enum class OutputFormat { Text, Json };

/// `odemocap info FILE`: tracks, frames, rate, duration, units, ranges, top speeds.
int run_info(const std::string& path, const LoadOptions& load, OutputFormat format);

/// `odemocap velocities FILE -o OUT`: per-sample linear and angular velocities as CSV.
int run_velocities(const std::string& path, const LoadOptions& load, const std::string& out_path,
                   DiffScheme scheme, RotationEstimator estimator);

} // namespace odemocap::cli
