#include "commands.hpp"

#include <charconv>
#include <fstream>
#include <iostream>

namespace odemocap::cli {
namespace {

/// The tracks of a loaded capture share one time base; a capture built otherwise is refused.
void check_shared_times(const Capture& capture) {
  const Track& first = capture.tracks().front();
  for (const Track& t : capture.tracks()) {
    if (t.times() != first.times()) {
      throw MocapError("tracks '" + first.name() + "' and '" + t.name() +
                       "' have different sample times; velocities need one time base");
    }
  }
}

/// Shortest text that reads back as the same double.
void write_number(std::ostream& out, double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.write(buffer, result.ptr - buffer);
}

} // namespace

int run_velocities(const std::string& path, const LoadOptions& load, const std::string& out_path,
                   DiffScheme scheme, RotationEstimator estimator) {
  try {
    const Capture capture = load_capture(path, load);
    if (capture.tracks().empty()) {
      throw MocapError(path + " has no tracks");
    }
    check_shared_times(capture);
    std::vector<TrackVelocities> velocities;
    for (const Track& t : capture.tracks()) {
      velocities.push_back(estimate_velocities(t, scheme, estimator));
    }
    std::ofstream out(out_path, std::ios::binary);
    if (!out) {
      std::cerr << "odemocap velocities: cannot write " << out_path << "\n";
      return 2;
    }
    // Columns: time, then per track vx, vy, vz (m/s, or length units/s when the capture's unit
    // is not known) and wx, wy, wz (rad/s, world frame).
    // A sample without an estimate (a gap) has empty cells, never zeros; so have a marker's
    // angular velocities.
    out << "time";
    for (const Track& t : capture.tracks()) {
      for (const char* c : {"vx", "vy", "vz", "wx", "wy", "wz"}) {
        out << ',' << t.name() << '.' << c;
      }
    }
    out << '\n';
    const Track& first = capture.tracks().front();
    for (std::size_t i = 0; i < first.size(); ++i) {
      write_number(out, first.time(i));
      for (std::size_t k = 0; k < velocities.size(); ++k) {
        const TrackVelocities& v = velocities[k];
        if (!v.valid[i]) {
          out << ",,,,,,";
          continue;
        }
        for (double value : {v.linear[i].x, v.linear[i].y, v.linear[i].z}) {
          out << ',';
          write_number(out, value);
        }
        if (capture.tracks()[k].position_only()) {
          out << ",,,"; // a marker has no orientation, so no angular velocity
          continue;
        }
        for (double value : {v.angular[i].x, v.angular[i].y, v.angular[i].z}) {
          out << ',';
          write_number(out, value);
        }
      }
      out << '\n';
    }
    if (!out.flush()) {
      std::cerr << "odemocap velocities: writing " << out_path << " failed\n";
      return 2;
    }
    return 0;
  } catch (const MocapError& e) {
    std::cerr << "odemocap velocities: " << printable(e.what()) << "\n";
    return 2;
  }
}

} // namespace odemocap::cli
