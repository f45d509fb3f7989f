// odemocap: command-line tool for capture files.
#include "commands.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using odemocap::LoadOptions;

constexpr const char* k_format_list =
    "BVH, ASF/AMC, Xsens MVNX, C3D, OptiTrack Motive CSV, Qualisys TSV (6D, 3D), Vicon Nexus CSV, "
    "OpenSim TRC, rigid-body CSV";

/// A finite number greater than `above` (CLI11's PositiveNumber lets NaN through and words 0
/// badly).
CLI::Validator number_above(double above, const char* name) {
  return CLI::Validator(
      [above](std::string& text) -> std::string {
        double v = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (error != std::errc() || end != text.data() + text.size() || !(v > above) ||
            !std::isfinite(v)) {
          return "must be a finite number > " + std::to_string(static_cast<int>(above)) +
                 ", got '" + text + "'";
        }
        return {};
      },
      name);
}

const CLI::Validator k_positive = number_above(0.0, "NUMBER>0");
const CLI::Validator k_factor = number_above(1.0, "NUMBER>1");

/// A whole number >= 1 (an unsigned option would wrap -1 to 2^64 - 1).
const CLI::Validator k_count(
    [](std::string& text) -> std::string {
      unsigned long long v = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (error != std::errc() || end != text.data() + text.size() || v < 1) {
        return "must be a whole number >= 1, got '" + text + "'";
      }
      return {};
    },
    "COUNT>=1");

const CLI::Validator k_unit(
    [](std::string& text) -> std::string {
      return odemocap::parse_length_unit(text)
                 ? std::string()
                 : "must be m, dm, cm, mm, in, ft, cmu or metres per unit (> 0), got '" + text +
                       "'";
    },
    "UNIT");

/// "x", "y" or "z" in either case (CLI11 has checked it is one of them).
odemocap::Axis axis_of(const std::string& name) {
  const char a = static_cast<char>(name[0] | 0x20);
  return a == 'x' ? odemocap::Axis::X : a == 'y' ? odemocap::Axis::Y : odemocap::Axis::Z;
}

/// Loading options every command takes; captures are in metres unless --file-units.
/// The input formats by the names to_string(Format) gives them.
const std::vector<odemocap::Format> k_formats{
    odemocap::Format::Bvh,         odemocap::Format::AsfAmc,    odemocap::Format::Mvnx,
    odemocap::Format::C3d,         odemocap::Format::MotiveCsv, odemocap::Format::QualisysTsv,
    odemocap::Format::ViconCsv,    odemocap::Format::Trc,       odemocap::Format::RigidBodyCsv};

std::vector<std::string> format_names() {
  std::vector<std::string> names{"auto"};
  for (odemocap::Format f : k_formats) {
    names.emplace_back(odemocap::to_string(f));
  }
  return names;
}

struct LoadFlags {
  std::string unit;
  std::string up;
  std::string format = "auto";
  bool file_units = false;

  void add_to(CLI::App* command, LoadOptions& load) {
    command
        ->add_option("--input-format", format,
                     "read the files as this format instead of recognising it from their "
                     "content: auto (default), bvh, asf-amc, mvnx, c3d, motive-csv, qualisys-tsv, "
                     "vicon-csv, trc or rigid-body-csv")
        ->check(CLI::IsMember(format_names()));
    command
        ->add_option("--unit", unit,
                     "length unit of the file's numbers when it declares none or a wrong one: m, "
                     "dm, cm, mm, in, ft, cmu (CMU BVH, 1/0.45 in) or metres per unit; default: "
                     "declared by the file, else inferred (see the notes)")
        ->check(k_unit);
    command->add_flag("--file-units", file_units,
                      "keep the numbers of files that declare no unit (BVH, generic CSV) "
                      "instead of converting them to metres");
    command
        ->add_option("--scale", load.length_scale,
                     "extra factor on positions after conversion to metres (default 1)")
        ->check(k_positive);
    command->add_option("--up", up, "rotate the capture so this axis is up (x, y or z)")
        ->check(CLI::IsMember({"x", "y", "z"}, CLI::ignore_case));
  }

  void apply(LoadOptions& load) const {
    load.to_metres = !file_units;
    for (odemocap::Format f : k_formats) {
      if (format == odemocap::to_string(f)) {
        load.format = f;
      }
    }
    if (!unit.empty()) {
      load.unit_in_metres = *odemocap::parse_length_unit(unit);
    }
    if (!up.empty()) {
      load.up_axis = axis_of(up);
    }
  }
};

/// The protocol, ports and up axis that serve (the server's side) and record (the client's)
/// both take.
struct LiveFlags {
  explicit LiveFlags(bool serving_side) : serving(serving_side) {}

  bool serving;
  std::string protocol_name = "natnet";
  std::string up;

  void add_to(CLI::App* command, int& port, int& data_port, std::string& multicast,
              std::string& multicast_interface) {
    command->add_option("--protocol", protocol_name, "natnet or qtm (default natnet)")
        ->check(CLI::IsMember({"natnet", "qtm"}));
    command
        ->add_option("--port", port,
                     serving ? "command port (default NatNet 1510, QTM 22223; 0: any free port)"
                             : "the server's command port (default NatNet 1510, QTM 22223)")
        ->check(CLI::Range(serving ? 0 : 1, 65535));
    command
        ->add_option("--data-port", data_port,
                     serving ? "NatNet: port frames go to at the client's address (default: "
                               "the socket the client connected from, as Motive's unicast; with "
                               "--multicast the group's port, default 1511)"
                             : "local port frames arrive on (NatNet default 1511; 0: the command "
                               "socket; QTM: any free port)")
        ->check(CLI::Range(0, 65535));
    command->add_option("--multicast", multicast,
                        std::string("NatNet: ") + (serving ? "send frames to" : "join") +
                            " this multicast group (Motive's: 239.255.42.99)");
    command->add_option(
        "--interface", multicast_interface,
        serving ? "NatNet multicast: IPv4 address of the interface frames leave by (Motive's "
                  "Local Interface; default: loopback, for clients on this machine, and the "
                  "interface the system routes the group through)"
                : "NatNet multicast: IPv4 address of the interface to join the group on (e.g. "
                  "127.0.0.1 for a server on this machine sending by loopback; default: the "
                  "interface the system routes the group through)");
    command
        ->add_option(serving ? "--stream-up" : "--server-up", up,
                     serving ? "up axis of the frames sent (x, y or z; default NatNet y, as "
                               "Motive sends, QTM z)"
                             : "up axis of the server's frames (x, y or z; default NatNet y, "
                               "Motive's default, QTM z); the CSV is written Z up")
        ->check(CLI::IsMember({"x", "y", "z"}, CLI::ignore_case));
  }
  odemocap::LiveProtocol protocol() const { return odemocap::parse_live_protocol(protocol_name); }
  std::optional<odemocap::Axis> up_axis() const {
    return up.empty() ? std::nullopt : std::optional<odemocap::Axis>(axis_of(up));
  }
};

odemocap::cli::OutputFormat output_format(const std::string& name) {
  using odemocap::cli::OutputFormat;
  return name == "json"    ? OutputFormat::Json
         : name == "jsonl" ? OutputFormat::JsonLines
                           : OutputFormat::Text;
}

} // namespace

int main(int argc, char** argv) {
  using namespace odemocap;
  CLI::App app{std::string("odemocap: inspect, validate, convert, serve and record captures (") +
               k_format_list +
               "). Positions are in metres: a file's declared unit is used, otherwise one is "
               "inferred and said in a note.\nExit status: 0 success, 1 problems found (see each "
               "command), 2 usage error or nothing readable."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "odemocap 0.1.0");

  LoadOptions load;
  LoadFlags load_flags;

  cli::InfoCommand info_command;
  std::string info_format = "text";
  CLI::App* info = app.add_subcommand(
      "info", "per file: format, frames, rate, duration, units and their source, notes; per "
              "track: samples, kind, position ranges, largest speeds (exit 1 when a file is "
              "unreadable)");
  info->add_option("PATH", info_command.paths,
                   "capture files (formats: odemocap --help), directories (searched for .bvh, .csv, .c3d, .tsv, .trc, .amc, .mvnx), "
                   "glob patterns")
      ->required();
  info->add_option("--format", info_format, "text or json (default text)")
      ->check(CLI::IsMember({"text", "json"}));
  load_flags.add_to(info, load);

  std::string path;
  std::string out_path;
  std::string scheme_name = "central";
  std::string estimator_name = "geodesic";
  CLI::App* velocities = app.add_subcommand(
      "velocities", "per-sample linear (m/s; length units/s with --file-units) and angular "
                    "(rad/s, world frame) velocities of every track, as CSV");
  velocities->add_option("FILE", path, "capture file")->required();
  velocities->add_option("-o,--output", out_path, "CSV file to write")->required();
  velocities->add_option("--scheme", scheme_name, "forward, backward or central (default central)")
      ->check(CLI::IsMember({"forward", "backward", "central"}));
  velocities
      ->add_option("--estimator", estimator_name,
                   "geodesic (Slerp derivative, default) or linear (naive baseline)")
      ->check(CLI::IsMember({"geodesic", "linear"}));
  load_flags.add_to(velocities, load);

  cli::ValidateCommand validate_command;
  validate_command.threads = std::max(1u, std::thread::hardware_concurrency());
  ValidateOptions checks;
  std::string validate_format = "text";
  std::string shard_text;
  CLI::App* validate = app.add_subcommand(
      "validate", "check capture files and report what is wrong where. Exit 0: no file fails "
                  "(warnings and infos do not fail unless --strict); 1: a file is unreadable or "
                  "has an error (with --strict: a warning); 2: usage error or nothing readable");
  validate
      ->add_option("PATH", validate_command.paths,
                   "capture files (formats: odemocap --help), directories (searched for .bvh, .csv, .c3d, .tsv, .trc, .amc and "
                   ".mvnx), glob patterns")
      ->required();
  validate->add_option("-j,--jobs", validate_command.threads, "worker threads (default: all cores)")
      ->check(k_count);
  validate->add_option("--format", validate_format, "text, json or jsonl (one object per file)")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  validate->add_flag("--strict", validate_command.strict, "warnings fail too");
  validate->add_option("--html", validate_command.html,
                       "also write one self-contained HTML page: a sortable summary and, per "
                       "file, a timeline per track showing where each finding lies");
  std::string report_level = "checks";
  validate
      ->add_option("--report", report_level,
                   "text detail per file: checks (a line per check, default), tracks (a line per "
                   "track and check) or findings (every finding)")
      ->check(CLI::IsMember({"checks", "tracks", "findings"}));
  validate
      ->add_option("--max-findings", validate_command.max_findings,
                   "lines printed per file in text; the rest are counted")
      ->check(k_count)
      ->capture_default_str();
  validate->add_option("--shard", shard_text,
                       "I/N: validate only shard I (0-based) of N, chosen by a hash of each path");
  validate
      ->add_option("--max-angular-speed", checks.max_angular_speed,
                   "rad/s between samples (spike above)")
      ->check(k_positive)
      ->capture_default_str();
  validate
      ->add_option("--max-linear-speed", checks.max_linear_speed,
                   "m/s (length units/s with --file-units) between samples (spike above)")
      ->check(k_positive)
      ->capture_default_str();
  validate
      ->add_option("--max-acceleration", checks.max_linear_acceleration,
                   "m/s^2 (length units/s^2 with --file-units) (spike above)")
      ->check(k_positive)
      ->capture_default_str();
  validate
      ->add_option("--max-frozen", checks.max_frozen_samples,
                   "identical consecutive samples allowed")
      ->check(k_count)
      ->capture_default_str();
  validate
      ->add_option("--max-bone-length", checks.max_bone_length,
                   "m (length units with --file-units): longer BVH bones are absurd")
      ->check(k_positive)
      ->capture_default_str();
  validate
      ->add_option("--dropped-frame-factor", checks.dropped_frame_factor,
                   "an interval this many times the median means dropped frames")
      ->check(k_factor)
      ->capture_default_str();
  load_flags.add_to(validate, load);

  cli::ConvertCommand convert_command;
  bool cubic = false;
  CLI::App* convert = app.add_subcommand(
      "convert", "write a capture as rigid-body CSV in metres (readable by every odemocap "
                 "loader; markers stay position-only), optionally repaired");
  convert->add_option("IN", convert_command.input, "capture file")->required();
  convert->add_option("-o,--output", convert_command.output, "CSV file to write")->required();
  convert->add_flag("--renormalize", load.renormalize,
                    "scale quaternions to unit length instead of refusing those that are not");
  convert
      ->add_option("--fill-gaps", convert_command.fill_gaps,
                   "fill gaps of up to N samples by interpolation (slerp and lerp)")
      ->check(k_count);
  convert
      ->add_option("--resample", convert_command.rate,
                   "resample to this rate (Hz) within each recorded stretch: never across a "
                   "gap, dropped frames or a frame-number jump")
      ->check(k_positive);
  convert->add_flag("--cubic", cubic, "cubic instead of linear interpolation for the repairs");
  convert->add_option("--cluster", convert_command.clusters,
                      "fit a rigid body to markers: 'NAME=M1,M2,M3[,...]' (repeatable); the output "
                      "then holds the fitted bodies");
  convert
      ->add_option("--clusters", convert_command.cluster_file,
                   "file of cluster definitions, one 'NAME = M1, M2, M3' per line")
      ->check(CLI::ExistingFile);
  convert
      ->add_option("--max-rms", convert_command.max_rms,
                   "cluster fit residual (m) above which samples are flagged")
      ->check(k_positive)
      ->capture_default_str();
  load_flags.add_to(convert, load);

  cli::ServeCommand serve_command;
  LiveFlags serve_flags{true};
  CLI::App* serve = app.add_subcommand(
      "serve", "stream a capture's rigid bodies and markers as OptiTrack Motive (NatNet) or Qualisys QTM "
               "(QTM RT) would, in real time, for clients such as odemocap record or "
               "odemocap-replay --live");
  serve->add_option("FILE", serve_command.input, "capture file")->required();
  serve->add_option("--rate", serve_command.server.rate, "frames per second (default: the file's)")
      ->check(k_positive);
  serve->add_option("--loss", serve_command.server.loss, "probability a frame is not sent")
      ->check(CLI::Range(0.0, 0.99));
  serve
      ->add_option("--jitter", serve_command.jitter_ms,
                   "ms: each frame leaves up to this late (uniform), so frames may overtake")
      ->check(CLI::Range(0.0, 10000.0));
  serve->add_option("--seed", serve_command.server.seed, "of the loss and jitter draws");
  serve->add_flag("--loop", serve_command.server.loop, "start over at the end");
  std::string natnet_version = "3.1";
  serve
      ->add_option("--natnet-version", natnet_version,
                   "NatNet version served to clients that do not ask for one (2.0 to 4.1, "
                   "default 3.1; clients of NatNet 2.x SDKs need 2.x)")
      ->check(CLI::IsMember({"2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9",
                             "2.10", "2.11", "3.0", "3.1", "4.0", "4.1"}));
  serve_flags.add_to(serve, serve_command.server.command_port, serve_command.server.data_port,
                     serve_command.server.multicast, serve_command.server.multicast_interface);
  load_flags.add_to(serve, load);

  cli::RecordCommand record_command;
  LiveFlags record_flags{false};
  CLI::App* record = app.add_subcommand(
      "record", "receive a NatNet or QTM RT stream for a while and write it as rigid-body CSV "
                "(exit 1 when nothing arrived, 2 when no server answered)");
  record->add_option("--server", record_command.stream.server, "address of Motive or QTM")
      ->capture_default_str();
  record_flags.add_to(record, record_command.stream.command_port, record_command.stream.data_port,
                      record_command.stream.multicast, record_command.stream.multicast_interface);
  record->add_option("--duration", record_command.duration, "seconds to record")
      ->check(k_positive)
      ->capture_default_str();
  record->add_option("-o,--output", record_command.output, "CSV file to write")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2; // usage errors are status 2
  }
  load_flags.apply(load);
  const auto dispatch = [&]() -> int {
    if (validate->parsed()) {
      if (!shard_text.empty()) {
        std::size_t index = 0, count = 0;
        char slash = 0;
        std::istringstream in(shard_text);
        if (!(in >> index >> slash >> count) || slash != '/' || count == 0 || index >= count ||
            !in.eof()) {
          std::fprintf(stderr, "odemocap validate: --shard wants I/N with 0 <= I < N, got '%s'\n",
                       shard_text.c_str());
          return 2;
        }
        validate_command.shard_index = index;
        validate_command.shard_count = count;
      }
      validate_command.format = output_format(validate_format);
      validate_command.report = report_level == "tracks"     ? cli::ReportLevel::Tracks
                                : report_level == "findings" ? cli::ReportLevel::Findings
                                                             : cli::ReportLevel::Checks;
      return cli::run_validate(validate_command, load, checks);
    }
    if (serve->parsed()) {
      serve_command.server.protocol = serve_flags.protocol();
      serve_command.server.natnet_version = {std::stoi(natnet_version),
                                             std::stoi(natnet_version.substr(2))};
      serve_command.server.up_axis = serve_flags.up_axis();
      return cli::run_serve(serve_command, load);
    }
    if (record->parsed()) {
      record_command.stream.protocol = record_flags.protocol();
      record_command.stream.server_up_axis = record_flags.up_axis();
      return cli::run_record(record_command);
    }
    if (convert->parsed()) {
      convert_command.interp = cubic ? Interp::Cubic : Interp::Linear;
      return cli::run_convert(convert_command, load);
    }
    if (info->parsed()) {
      info_command.format = output_format(info_format);
      return cli::run_info(info_command, load);
    }
    const std::map<std::string, DiffScheme> schemes{{"forward", DiffScheme::Forward},
                                                    {"backward", DiffScheme::Backward},
                                                    {"central", DiffScheme::Central}};
    return cli::run_velocities(path, load, out_path, schemes.at(scheme_name),
                               estimator_name == "linear" ? RotationEstimator::LinearApprox
                                                          : RotationEstimator::Geodesic);
  };
  const int status = dispatch();
  // A report that did not reach its reader (a full disk, a closed pipe, > /dev/full) is a
  // failure, whatever the files said.
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    std::fprintf(stderr, "odemocap: writing to standard output failed: %s\n", std::strerror(errno));
    return status == 0 ? 1 : status;
  }
  return status;
}
