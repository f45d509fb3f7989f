// odemocap: command-line tool for capture files.
#include "commands.hpp"

#include <CLI/CLI.hpp>

#include <map>

int main(int argc, char** argv) {
  using namespace odemocap;
  CLI::App app{"odemocap: inspect capture files (BVH, rigid-body CSV, OptiTrack Motive CSV)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "odemocap 0.1.0");

  LoadOptions load;
  std::string up;
  const auto add_load_options = [&](CLI::App* command) {
    command->add_option("--scale", load.length_scale,
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
  velocities->add_option("--estimator", estimator_name,
                         "geodesic (Slerp derivative, default) or linear (naive baseline)")
      ->check(CLI::IsMember({"geodesic", "linear"}));
  add_load_options(velocities);

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
