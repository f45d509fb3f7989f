#include "commands.hpp"

#include <odemocap/cluster.hpp>
#include <odemocap/repair.hpp>
#include <odemocap/save.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

namespace odemocap::cli {
namespace {

std::vector<ClusterOptions> clusters_of(const ConvertCommand& command) {
  std::string text;
  for (const std::string& c : command.clusters) {
    text += c + "\n";
  }
  std::vector<ClusterOptions> out = parse_cluster_definitions(text, "--cluster");
  if (!command.cluster_file.empty()) {
    std::ifstream in(command.cluster_file, std::ios::binary);
    std::ostringstream file;
    file << in.rdbuf();
    for (ClusterOptions& c : parse_cluster_definitions(file.str(), command.cluster_file)) {
      out.push_back(std::move(c));
    }
  }
  for (ClusterOptions& c : out) {
    c.max_rms = command.max_rms;
  }
  return out;
}

/// One line per fitted body on stderr: what the fit says about the markers.
void report(const ClusterFit& fit) {
  std::vector<double> rms;
  for (double r : fit.rms) {
    if (!std::isnan(r)) {
      rms.push_back(r);
    }
  }
  std::sort(rms.begin(), rms.end());
  std::cerr << "odemocap convert: cluster '" << printable(fit.track.name()) << "': " << rms.size()
            << " of " << fit.rms.size() << " samples fitted (reference sample "
            << fit.reference_sample << ")";
  if (!rms.empty()) {
    std::cerr << ", fit RMS median " << rms[rms.size() / 2] * 1000.0 << " mm, max "
              << rms.back() * 1000.0 << " mm";
  }
  std::cerr << ", " << fit.flagged.size() << " flagged";
  for (std::size_t i = 0; i < fit.flagged.size() && i < 5; ++i) {
    std::cerr << (i == 0 ? " (samples " : ", ") << fit.flagged[i];
  }
  std::cerr << (fit.flagged.empty() ? "" : fit.flagged.size() > 5 ? ", ...)" : ")") << "\n";
}

} // namespace

int run_convert(const ConvertCommand& command, const LoadOptions& load) {
  try {
    const Capture loaded = load_capture(command.input, load);
    const std::vector<ClusterOptions> clusters = clusters_of(command);
    Capture fitted(loaded.info());
    for (const ClusterOptions& cluster : clusters) {
      ClusterFit fit = fit_cluster(loaded, cluster);
      report(fit);
      fitted.add_track(std::move(fit.track));
    }
    const Capture& in = clusters.empty() ? loaded : fitted;
    CaptureInfo info = in.info();
    if (command.rate > 0.0) {
      info.frame_rate = command.rate; // what the tracks are resampled to
    }
    Capture out(info);
    for (const Track& original : in.tracks()) {
      // Loaded tracks already lie in one hemisphere (every loader runs the continuity pass).
      Track track =
          command.fill_gaps > 0 ? fill_gaps(original, command.fill_gaps, command.interp) : original;
      if (command.rate > 0.0) {
        track = resample(track, command.rate, command.interp);
      }
      out.add_track(std::move(track));
    }
    save_rigid_body_csv(out, command.output);
    for (const std::string& note : in.info().notes) {
      std::cerr << "odemocap convert: note: " << printable(note) << "\n";
    }
    return 0;
  } catch (const MocapError& e) {
    std::cerr << "odemocap convert: " << printable(e.what()) << "\n";
    return 2;
  }
}

} // namespace odemocap::cli
