#pragma once
// The odemocap command-line tool's commands. Each returns the process exit status:
// 0 success, 1 problems found, 2 usage error or nothing readable.

#include <odemocap/live_stream.hpp>
#include <odemocap/load.hpp>
#include <odemocap/velocity.hpp>

#include <odemocap/validate.hpp>

#include <string>
#include <vector>

namespace odemocap::cli {

enum class OutputFormat { Text, Json, JsonLines };

/// How much `odemocap validate` prints per file in text: a line per check (the default, one
/// screen for a directory), a line per track and check, or every finding.
enum class ReportLevel { Checks, Tracks, Findings };

/// What `odemocap validate` was asked to do.
struct ValidateCommand {
  std::vector<std::string> paths; ///< files, directories, glob patterns
  unsigned threads = 1;
  OutputFormat format = OutputFormat::Text;
  bool strict = false;                      ///< warnings fail too
  ReportLevel report = ReportLevel::Checks; ///< text output per file
  std::size_t max_findings = 20; ///< lines printed per file in text; the rest are counted
  std::size_t shard_index = 0;   ///< this job's shard ...
  std::size_t shard_count = 1;   ///< ... of this many
  std::string html;              ///< also write the HTML report here ("" none)
};

/// What `odemocap info` was asked to do.
struct InfoCommand {
  std::vector<std::string> paths; ///< files, directories, glob patterns
  OutputFormat format = OutputFormat::Text;
};

/// What `odemocap convert` was asked to do.
struct ConvertCommand {
  std::string input;
  std::string output;
  std::size_t fill_gaps = 0; ///< fill gaps of up to this many samples (0: none)
  double rate = 0.0;         ///< resample to this rate in Hz (0: keep the samples)
  Interp interp = Interp::Linear;
  /// Rigid bodies to fit from marker clusters, as `NAME = M1, M2, M3`; with any, the output
  /// holds the fitted bodies instead of the input's tracks.
  std::vector<std::string> clusters;
  std::string cluster_file; ///< more definitions, one per line
  double max_rms = 0.005;   ///< fit residual above which a sample is flagged (m)
};

/// What `odemocap serve` was asked to do.
struct ServeCommand {
  std::string input;
  StreamServerSettings server; ///< protocol, rate, loss, jitter, ports
  double jitter_ms = 0.0;      ///< --jitter, converted into server.jitter
};

/// What `odemocap record` was asked to do.
struct RecordCommand {
  std::string output;
  LiveStreamSettings stream; ///< protocol, server, ports
  double duration = 10.0;    ///< s to record
};

/// `odemocap serve FILE --protocol natnet|qtm`: streams a capture as Motive or QTM would, in
/// real time, until it ends (or Ctrl-C); 2 when the file cannot be served.
int run_serve(const ServeCommand& command, const LoadOptions& load);

/// `odemocap record --protocol natnet|qtm -o OUT`: writes what a server streams for a while as
/// rigid-body CSV; 1 when nothing arrived, 2 when no server answered.
int run_record(const RecordCommand& command);

/// `odemocap convert IN -o OUT`: to rigid-body CSV, with optional repairs.
int run_convert(const ConvertCommand& command, const LoadOptions& load);

/// `odemocap validate PATH...`: loads and checks every file; 0 when nothing fails, 1 when a
/// file is unreadable or has an error (or, with strict, a warning), 2 when nothing was read.
int run_validate(const ValidateCommand& command, const LoadOptions& load,
                 const ValidateOptions& checks);

/// `odemocap info PATH...`: per file tracks, frames, rate, duration, units, ranges, top speeds;
/// 0 when every file was read, 1 when some were not, 2 when none was.
int run_info(const InfoCommand& command, const LoadOptions& load);

/// `odemocap velocities FILE -o OUT`: per-sample linear and angular velocities as CSV.
int run_velocities(const std::string& path, const LoadOptions& load, const std::string& out_path,
                   DiffScheme scheme, RotationEstimator estimator);

} // namespace odemocap::cli
