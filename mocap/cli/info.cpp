#include "batch.hpp"
#include "commands.hpp"
#include "json_output.hpp"

#include <odemocap/footfall.hpp>
#include <odemocap/plausibility.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace odemocap::cli {
namespace {

struct TrackSummary {
  const Track* track = nullptr;
  std::string name; ///< printable
  Vec3 low{INFINITY, INFINITY, INFINITY};
  Vec3 high{-INFINITY, -INFINITY, -INFINITY};
  double max_linear_speed = 0.0;  ///< stored length units per second, central differences
  double max_angular_speed = 0.0; ///< rad/s
};

TrackSummary summarise(const Track& track) {
  TrackSummary s;
  s.track = &track;
  s.name = printable(track.name());
  for (std::size_t i : track.valid_indices()) {
    const Vec3& p = track.position(i);
    s.low = {std::fmin(s.low.x, p.x), std::fmin(s.low.y, p.y), std::fmin(s.low.z, p.z)};
    s.high = {std::fmax(s.high.x, p.x), std::fmax(s.high.y, p.y), std::fmax(s.high.z, p.z)};
  }
  const TrackVelocities v = estimate_velocities(track, DiffScheme::Central);
  for (std::size_t i = 0; i < v.valid.size(); ++i) {
    if (v.valid[i]) {
      s.max_linear_speed = std::fmax(s.max_linear_speed, norm(v.linear[i]));
      s.max_angular_speed = std::fmax(s.max_angular_speed, norm(v.angular[i]));
    }
  }
  return s;
}

const char* axis_name(Axis a) {
  return a == Axis::X ? "X" : a == Axis::Y ? "Y" : "Z";
}

const char* kind_of(const Track& t) {
  return t.position_only() ? "marker" : "rigid-body";
}

nlohmann::json vec(const Vec3& v) {
  return nlohmann::json::array({v.x, v.y, v.z});
}

/// The stance phases of each foot track, by name (empty when the capture has no foot track
/// or its unit is not known: the thresholds are in metres).
std::vector<std::pair<std::string, std::vector<Stance>>> footfalls(const Capture& capture) {
  std::vector<std::pair<std::string, std::vector<Stance>>> out;
  FootfallOptions options;
  options.metres_per_unit = capture.info().metres_per_unit();
  if (!(options.metres_per_unit > 0.0)) {
    return out;
  }
  for (const std::string& name : foot_tracks(capture)) {
    out.emplace_back(name, detect_stances(capture.track(name), capture.info().up_axis, options));
  }
  return out;
}

/// The plausibility check's messages (odemocap validate reports the same as warnings).
std::vector<std::string> plausibility_warnings(const Capture& capture) {
  std::vector<std::string> out;
  for (const Finding& f : check_plausibility(capture)) {
    out.push_back(f.message);
  }
  return out;
}

/// What the stored positions are, in words: "m (file unit mm, declared)".
std::string units_text(const CaptureInfo& info) {
  std::string file_unit = info.unit_source.empty()
                              ? "file unit not known"
                              : "file unit " + info.length_unit + ", " + info.unit_source;
  if (info.in_metres()) {
    return "positions in m (" + file_unit + ")";
  }
  char factor[64];
  std::snprintf(factor, sizeof factor, "%g", info.length_scale);
  return std::string("positions in length units = the file's numbers x ") + factor + " (" +
         file_unit + (info.unit_source.empty() ? "; --unit sets it" : "") + ")";
}

nlohmann::json file_json(const std::string& path, const Capture& capture,
                         const std::vector<TrackSummary>& tracks) {
  const CaptureInfo& info = capture.info();
  nlohmann::json out{{"file", path},
                     {"status", "read"},
                     {"format", info.format},
                     {"frame_rate", info.frame_rate},
                     {"length_unit", info.length_unit},
                     {"unit_source", info.unit_source},
                     {"unit_in_metres", info.unit_in_metres},
                     {"length_scale", info.length_scale},
                     {"positions_in_metres", info.in_metres()},
                     {"up_axis", axis_name(info.up_axis)},
                     {"file_up_axis", axis_name(info.file_up_axis)},
                     {"up_axis_source", info.up_axis_source},
                     {"notes", info.notes},
                     {"tolerated", info.tolerated},
                     {"warnings", plausibility_warnings(capture)},
                     {"tracks", nlohmann::json::array()}};
  for (const TrackSummary& s : tracks) {
    const Track& t = *s.track;
    const bool any = t.valid_count() > 0;
    nlohmann::json track{{"name", t.name()},
                         {"kind", kind_of(t)},
                         {"samples", t.size()},
                         {"valid", t.valid_count()},
                         {"start_time", t.empty() ? 0.0 : display_time(t.start_time())},
                         {"end_time", t.empty() ? 0.0 : display_time(t.end_time())},
                         {"position_only", t.position_only()}};
    // null: nothing to measure (no valid sample; markers have no orientation).
    track["max_linear_speed"] = any ? nlohmann::json(s.max_linear_speed) : nlohmann::json();
    track["max_angular_speed"] =
        any && !t.position_only() ? nlohmann::json(s.max_angular_speed) : nlohmann::json();
    track["position_min"] = any ? vec(s.low) : nlohmann::json();
    track["position_max"] = any ? vec(s.high) : nlohmann::json();
    out["tracks"].push_back(std::move(track));
  }
  // Stance phases of the foot tracks: {"name": [[start, end], ...]}; null when the unit is not
  // known (the thresholds are in metres).
  nlohmann::json feet = nlohmann::json::object();
  for (const auto& [name, stances] : footfalls(capture)) {
    nlohmann::json list = nlohmann::json::array();
    for (const Stance& s : stances) {
      list.push_back({display_time(s.start), display_time(s.end)});
    }
    feet[name] = std::move(list);
  }
  out["footfalls"] = info.metres_per_unit() > 0.0 ? feet : nlohmann::json();
  return out;
}

void print_text(const std::string& path, const Capture& capture,
                const std::vector<TrackSummary>& tracks) {
  const CaptureInfo& info = capture.info();
  double start = INFINITY, end = -INFINITY;
  std::size_t frames = 0;
  std::size_t width = 20;
  for (const TrackSummary& s : tracks) {
    width = std::max(width, s.name.size());
    if (!s.track->empty()) {
      start = std::fmin(start, s.track->start_time());
      end = std::fmax(end, s.track->end_time());
      frames = std::max(frames, s.track->size());
    }
  }
  std::printf("%s: %s, %zu tracks, %zu frames", printable(path).c_str(), info.format.c_str(),
              tracks.size(), frames);
  if (info.frame_rate > 0) {
    std::printf(" at %g Hz", info.frame_rate);
  }
  if (frames > 0) {
    // One precision for the three: "9.175 s (0 to 9.17496 s)" looked like two durations.
    std::printf(", %g s (%g to %g s)", display_time(end - start), display_time(start),
                display_time(end));
  }
  std::printf("\n  %s; up axis %s (the file's %s, %s)\n", units_text(info).c_str(),
              axis_name(info.up_axis), axis_name(info.file_up_axis), info.up_axis_source.c_str());
  for (const std::string& note : info.notes) {
    std::printf("  note: %s\n", printable(note).c_str());
  }
  for (const std::string& warning : plausibility_warnings(capture)) {
    std::printf("  warning: %s\n", printable(warning).c_str());
  }
  const int w = static_cast<int>(width);
  char speed_header[32];
  std::snprintf(speed_header, sizeof speed_header, "max %s/s", info.in_metres() ? "m" : "units");
  std::printf("  %-*s %-10s %8s %8s  %-44s %10s %10s\n", w, "track", "kind", "samples", "valid",
              "position range x / y / z", speed_header, "max rad/s");
  for (const TrackSummary& s : tracks) {
    const Track& t = *s.track;
    if (t.valid_count() == 0) {
      std::printf("  %-*s %-10s %8zu %8zu  %-44s %10s %10s\n", w, s.name.c_str(), kind_of(t),
                  t.size(), std::size_t{0}, "(no valid sample)", "-", "-");
      continue;
    }
    char spin[32] = "(marker)"; // markers have no orientation
    if (!t.position_only()) {
      std::snprintf(spin, sizeof spin, "%.3f", s.max_angular_speed);
    }
    std::printf("  %-*s %-10s %8zu %8zu  [%7.3f %7.3f] [%7.3f %7.3f] [%7.3f %7.3f] %10.3f %10s\n",
                w, s.name.c_str(), kind_of(t), t.size(), t.valid_count(), s.low.x, s.high.x,
                s.low.y, s.high.y, s.low.z, s.high.z, s.max_linear_speed, spin);
  }
  const auto feet = footfalls(capture);
  if (!feet.empty()) {
    std::printf("  footfalls (stance start-end, s; foot low and slow):\n");
  }
  for (const auto& [name, stances] : feet) {
    std::printf("  %-*s", w, printable(name).c_str());
    for (const Stance& st : stances) {
      std::printf(" %.3f-%.3f", display_time(st.start), display_time(st.end));
    }
    std::printf("%s\n", stances.empty() ? " (none)" : "");
  }
  if (feet.empty() && !foot_tracks(capture).empty()) {
    std::printf("  footfalls: not detected, the length unit is not known (--unit sets it)\n");
  }
}

} // namespace

int run_info(const InfoCommand& command, const LoadOptions& load) {
  std::vector<std::string> files;
  try {
    files = collect_files(command.paths);
  } catch (const std::exception& e) {
    std::cerr << "odemocap info: " << printable(e.what()) << "\n";
    return 2;
  }
  nlohmann::json all = nlohmann::json::array();
  std::size_t readable = 0;
  for (const std::string& path : files) {
    try {
      const Capture capture = load_capture(path, load);
      std::vector<TrackSummary> tracks;
      for (const Track& t : capture.tracks()) {
        tracks.push_back(summarise(t));
      }
      ++readable;
      if (command.format == OutputFormat::Text) {
        print_text(path, capture, tracks);
      } else {
        all.push_back(file_json(path, capture, tracks));
      }
    } catch (const MocapError& e) {
      const auto* located = dynamic_cast<const LoadError*>(&e);
      if (command.format == OutputFormat::Text) {
        std::cerr << "odemocap info: " << printable(e.what()) << "\n";
        continue;
      }
      nlohmann::json error{{"message", located ? located->message() : std::string(e.what())},
                           {"line", located ? located->line() : 0},
                           {"column", located ? located->column() : 0}};
      if (located != nullptr && located->byte() != LoadError::k_no_byte) {
        error["byte"] = located->byte();
      }
      all.push_back({{"file", path}, {"status", "unreadable"}, {"error", std::move(error)}});
    }
  }
  if (command.format != OutputFormat::Text) {
    print_json(
        {{"files", std::move(all)}, {"summary", {{"files", files.size()}, {"readable", readable}}}},
        2);
  }
  if (readable == 0) {
    std::cerr << "odemocap info: "
              << (files.empty() ? "no capture files found" : "no file could be read") << "\n";
    return 2;
  }
  return readable == files.size() ? 0 : 1;
}

} // namespace odemocap::cli
