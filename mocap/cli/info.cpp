#include "commands.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace odemocap::cli {
namespace {

struct TrackSummary {
  const Track* track = nullptr;
  Vec3 low{INFINITY, INFINITY, INFINITY};
  Vec3 high{-INFINITY, -INFINITY, -INFINITY};
  double max_linear_speed = 0.0;  ///< m/s (file units after scaling), central differences
  double max_angular_speed = 0.0; ///< rad/s
};

TrackSummary summarise(const Track& track) {
  TrackSummary s;
  s.track = &track;
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

nlohmann::json vec(const Vec3& v) {
  return nlohmann::json::array({v.x, v.y, v.z});
}

void print_json(const std::string& path, const Capture& capture,
                const std::vector<TrackSummary>& tracks) {
  const CaptureInfo& info = capture.info();
  nlohmann::json out{{"file", path},
                     {"format", info.format},
                     {"frame_rate", info.frame_rate},
                     {"length_unit", info.length_unit},
                     {"length_scale", info.length_scale},
                     {"up_axis", axis_name(info.up_axis)},
                     {"notes", info.notes},
                     {"tracks", nlohmann::json::array()}};
  for (const TrackSummary& s : tracks) {
    const Track& t = *s.track;
    nlohmann::json track{{"name", t.name()},
                         {"samples", t.size()},
                         {"valid", t.valid_count()},
                         {"start_time", t.empty() ? 0.0 : t.start_time()},
                         {"end_time", t.empty() ? 0.0 : t.end_time()},
                         {"max_linear_speed", s.max_linear_speed},
                         {"position_only", t.position_only()}};
    if (t.position_only()) {
      track["max_angular_speed"] = nullptr; // markers have no orientation
    } else {
      track["max_angular_speed"] = s.max_angular_speed;
    }
    if (t.valid_count() > 0) {
      track["position_min"] = vec(s.low);
      track["position_max"] = vec(s.high);
    }
    out["tracks"].push_back(std::move(track));
  }
  std::cout << out.dump(2) << "\n";
}

void print_text(const std::string& path, const Capture& capture,
                const std::vector<TrackSummary>& tracks) {
  const CaptureInfo& info = capture.info();
  double start = INFINITY, end = -INFINITY;
  std::size_t frames = 0;
  for (const TrackSummary& s : tracks) {
    if (!s.track->empty()) {
      start = std::fmin(start, s.track->start_time());
      end = std::fmax(end, s.track->end_time());
      frames = std::max(frames, s.track->size());
    }
  }
  std::printf("%s: %s, %zu tracks, %zu frames", path.c_str(), info.format.c_str(), tracks.size(),
              frames);
  if (info.frame_rate > 0) {
    std::printf(" at %g Hz", info.frame_rate);
  }
  if (frames > 0) {
    std::printf(", %.3f s (%g to %g)", end - start, start, end);
  }
  std::printf("\n  length unit: %s, scale applied: %g, up axis: %s (speeds in length units/s)\n",
              info.length_unit.empty() ? "(not declared)" : info.length_unit.c_str(),
              info.length_scale, axis_name(info.up_axis));
  for (const std::string& note : info.notes) {
    std::printf("  note: %s\n", note.c_str());
  }
  std::printf("  %-20s %8s %8s  %-44s %10s %10s\n", "track", "samples", "valid",
              "position range x / y / z", "max |v|", "max rad/s");
  for (const TrackSummary& s : tracks) {
    char spin[32] = "-"; // markers have no orientation
    if (!s.track->position_only()) {
      std::snprintf(spin, sizeof spin, "%.3f", s.max_angular_speed);
    }
    if (s.track->valid_count() == 0) {
      std::printf("  %-20s %8zu %8zu  %-44s %10s %10s\n", s.track->name().c_str(), s.track->size(),
                  std::size_t{0}, "(no valid sample)", "-", "-");
      continue;
    }
    std::printf("  %-20s %8zu %8zu  [%7.3f %7.3f] [%7.3f %7.3f] [%7.3f %7.3f] %10.3f %10s\n",
                s.track->name().c_str(), s.track->size(), s.track->valid_count(), s.low.x, s.high.x,
                s.low.y, s.high.y, s.low.z, s.high.z, s.max_linear_speed, spin);
  }
}

} // namespace

int run_info(const std::string& path, const LoadOptions& load, OutputFormat format) {
  try {
    const Capture capture = load_capture(path, load);
    std::vector<TrackSummary> tracks;
    for (const Track& t : capture.tracks()) {
      tracks.push_back(summarise(t));
    }
    if (format == OutputFormat::Json) {
      print_json(path, capture, tracks);
    } else {
      print_text(path, capture, tracks);
    }
    return 0;
  } catch (const MocapError& e) {
    std::cerr << "odemocap info: " << e.what() << "\n";
    return 2;
  }
}

} // namespace odemocap::cli
