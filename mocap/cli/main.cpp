// odemocap: command-line tool for capture files.
#include "commands.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

int main(int argc, char** argv) {
  using namespace odemocap;
  CLI::App app{"odemocap: inspect capture files (BVH, rigid-body CSV, OptiTrack Motive CSV)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "odemocap 0.1.0");

  LoadOptions load;
  std::string up;
  const auto add_load_options = [&](CLI::App* command) {
    command
        ->add_option("--scale", load.length_scale,
                     "factor applied to positions, e.g. 0.01 for cm to m (default 1)")
        ->check(CLI::PositiveNumber);
    command->add_option("--up", up, "rotate the capture so this axis is up (x, y or z)")
        ->check(CLI::IsMember({"x", "y", "z"}, CLI::ignore_case));
  };

  std::string path;
  std::string format_name = "text";
  CLI::App* info = app.add_subcommand("info", "tracks, frames, rate, duration, units, ranges, "
                                              "largest linear and angular speeds");
  info->add_option("FILE", path, "capture file")->required();
  info->add_option("--format", format_name, "text or json (default text)")
      ->check(CLI::IsMember({"text", "json"}));
  add_load_options(info);

  std::string out_path;
  std::string scheme_name = "central";
  std::string estimator_name = "geodesic";
  CLI::App* velocities =
      app.add_subcommand("velocities", "per-sample linear (m/s) and angular (rad/s, world frame) "
                                       "velocities of every track, as CSV");
  velocities->add_option("FILE", path, "capture file")->required();
  velocities->add_option("-o,--output", out_path, "CSV file to write")->required();
  velocities->add_option("--scheme", scheme_name, "forward, backward or central (default central)")
      ->check(CLI::IsMember({"forward", "backward", "central"}));
  velocities
      ->add_option("--estimator", estimator_name,
                   "geodesic (Slerp derivative, default) or linear (naive baseline)")
      ->check(CLI::IsMember({"geodesic", "linear"}));
  add_load_options(velocities);

  cli::ValidateCommand validate_command;
  validate_command.threads = std::max(1u, std::thread::hardware_concurrency());
  ValidateOptions checks;
  std::string validate_format = "text";
  std::string shard_text;
  CLI::App* validate = app.add_subcommand(
      "validate", "check capture files and report what is wrong where (exit 0: nothing fails, "
                  "1: problems, 2: nothing readable)");
  validate
      ->add_option("PATH", validate_command.paths,
                   "files, directories (searched for .bvh, .csv, .c3d and .tsv), glob patterns")
      ->required();
  validate->add_option("-j,--jobs", validate_command.threads, "worker threads (default: all cores)")
      ->check(CLI::PositiveNumber);
  validate->add_option("--format", validate_format, "text, json or jsonl (one object per file)")
      ->check(CLI::IsMember({"text", "json", "jsonl"}));
  validate->add_flag("--strict", validate_command.strict, "warnings fail too");
  validate->add_option("--shard", shard_text,
                       "I/N: validate only shard I (0-based) of N, chosen by a hash of each path");
  validate
      ->add_option("--max-angular-speed", checks.max_angular_speed,
                   "rad/s between samples (spike above)")
      ->capture_default_str();
  validate
      ->add_option("--max-linear-speed", checks.max_linear_speed,
                   "length units/s (spike above; use --scale for metres)")
      ->capture_default_str();
  validate
      ->add_option("--max-acceleration", checks.max_linear_acceleration,
                   "length units/s^2 (spike above)")
      ->capture_default_str();
  validate
      ->add_option("--max-frozen", checks.max_frozen_samples,
                   "identical consecutive samples allowed")
      ->capture_default_str();
  validate->add_option("--max-bone-length", checks.max_bone_length, "BVH offsets (length units)")
      ->capture_default_str();
  validate
      ->add_option("--dropped-frame-factor", checks.dropped_frame_factor,
                   "an interval this many times the median means dropped frames")
      ->capture_default_str();
  add_load_options(validate);

  cli::ConvertCommand convert_command;
  bool cubic = false;
  CLI::App* convert = app.add_subcommand(
      "convert", "write a capture as rigid-body CSV (readable by every odemocap loader), "
                 "optionally repaired");
  convert->add_option("IN", convert_command.input, "capture file")->required();
  convert->add_option("-o,--output", convert_command.output, "CSV file to write")->required();
  convert->add_flag("--renormalize", load.renormalize,
                    "scale quaternions to unit length instead of refusing those that are not");
  convert->add_option("--fill-gaps", convert_command.fill_gaps,
                      "fill gaps of up to N samples by interpolation (slerp and lerp)");
  convert->add_option("--resample", convert_command.rate, "resample to this rate (Hz)")
      ->check(CLI::PositiveNumber);
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
                   "cluster fit residual (m, after --scale) above which samples are flagged")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_load_options(convert);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2; // usage errors are status 2
  }
  if (!up.empty()) {
    const char a = static_cast<char>(up[0] | 0x20);
    load.up_axis = a == 'x' ? Axis::X : a == 'y' ? Axis::Y : Axis::Z;
  }
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
    validate_command.format = validate_format == "json"    ? cli::OutputFormat::Json
                              : validate_format == "jsonl" ? cli::OutputFormat::JsonLines
                                                           : cli::OutputFormat::Text;
    return cli::run_validate(validate_command, load, checks);
  }
  if (convert->parsed()) {
    convert_command.interp = cubic ? Interp::Cubic : Interp::Linear;
    return cli::run_convert(convert_command, load);
  }
  if (info->parsed()) {
    return cli::run_info(path, load,
                         format_name == "json" ? cli::OutputFormat::Json : cli::OutputFormat::Text);
  }
  const std::map<std::string, DiffScheme> schemes{{"forward", DiffScheme::Forward},
                                                  {"backward", DiffScheme::Backward},
                                                  {"central", DiffScheme::Central}};
  return cli::run_velocities(path, load, out_path, schemes.at(scheme_name),
                             estimator_name == "linear" ? RotationEstimator::LinearApprox
                                                        : RotationEstimator::Geodesic);
}
