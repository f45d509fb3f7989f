#include "report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <ostream>

namespace odemocap::replay {
namespace {

using Row = TableRow<Metrics>;

std::string yes_no(bool v) {
  return v ? "yes" : "no";
}

/// A chain figure, or "-" when the scene has no chain (the reason is printed below the table).
std::function<std::string(const Metrics&)> chain(const char* pattern, double Metrics::*field,
                                                 double factor) {
  return [=](const Metrics& m) { return m.chain ? format(pattern, factor * (m.*field)) : "-"; };
}

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {"steps", [](const Metrics& m) { return std::to_string(m.steps); }},
      {"simulated (s)", [](const Metrics& m) { return format("%.3f", m.simulated_s); }},
      {"bodies kinematic / dynamic",
       [](const Metrics& m) {
         return std::to_string(m.kinematic_bodies) + " / " + std::to_string(m.dynamic_bodies);
       }},
      {"contacts (total, max per step)",
       [](const Metrics& m) {
         return std::to_string(m.contacts_total) + ", " + std::to_string(m.contacts_max_per_step);
       }},
      {"NaN values", [](const Metrics& m) { return std::to_string(m.nan_values); }},
      {"teleports (data glitches)", [](const Metrics& m) { return std::to_string(m.teleports); }},
      {"servo steps at joint speed limit",
       [](const Metrics& m) { return std::to_string(m.rate_limited); }},
      {"track error max (m)", [](const Metrics& m) { return format("%.2e", m.track_error_max_m); }},
      {"track error max (rad)",
       [](const Metrics& m) { return format("%.2e", m.track_error_max_rad); }},
      {"track error RMS / median (deg)",
       [](const Metrics& m) {
         return format("%.3f", m.track_error_rms_deg) + " / " +
                format("%.3f", m.track_error_median_deg);
       }},
      {"hand lock gap max (mm)", chain("%.2f", &Metrics::hand_lock_gap_max_m, 1000)},
      {"hand lock gap RMS (mm)", chain("%.2f", &Metrics::hand_lock_gap_rms_m, 1000)},
      {"chain joint gap max (mm)", chain("%.2f", &Metrics::chain_gap_max_m, 1000)},
      {"chain joint gap RMS (mm)", chain("%.2f", &Metrics::chain_gap_rms_m, 1000)},
      {"hand lock angle max (deg)", chain("%.3f", &Metrics::hand_lock_angle_max_deg, 1)},
      {"hand lock angle RMS (deg)", chain("%.3f", &Metrics::hand_lock_angle_rms_deg, 1)},
      {"props moved",
       [](const Metrics& m) {
         return std::to_string(m.props_moved) + " of " + std::to_string(m.props);
       }},
      {"props that left the scene", [](const Metrics& m) { return std::to_string(m.props_left); }},
      {"stack boxes moved", [](const Metrics& m) { return std::to_string(m.stack_boxes_moved); }},
      {"prop and stack displacement max (m)",
       [](const Metrics& m) { return format("%.2f", m.prop_displacement_max_m); }},
      {"rider slip on tray max (mm)",
       [](const Metrics& m) { return format("%.1f", 1000 * m.rider_slip_max_m); }},
      {"rider still on tray", [](const Metrics& m) { return yes_no(m.rider_carried); }},
      {"step time mean (us)", [](const Metrics& m) { return format("%.1f", m.step_time_mean_us); }},
      {"step time max (us)", [](const Metrics& m) { return format("%.1f", m.step_time_max_us); }},
  };
  return table;
}

} // namespace

std::string format(const char* pattern, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, v);
  return buffer;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void print_summary(std::ostream& out, const RunInfo& info, const std::vector<Metrics>& runs) {
  out << "capture: " << info.capture << " (" << info.format << ", " << info.tracks << " tracks, "
      << format("%.3f", info.capture_seconds) << " s at " << format("%g", info.capture_rate)
      << " Hz); simulation at " << format("%g", info.sim_rate) << " Hz, dWorldQuickStep\n"
      << "units: " << info.units << "\n";
  if (!runs.empty()) {
    const Metrics& m = runs.front();
    out << "roles: the tray follows '" << m.root_track << "'; ";
    if (m.chain) {
      out << "the chain hangs from '" << m.hand_track << "'\n";
    } else {
      out << "no chain: " << m.no_chain_reason << " (hand lock and chain figures omitted)\n";
    }
  }
  print_table(
      out, "drive", runs, [](const Metrics& m) { return m.mode; }, rows(), 40, 14);
}

std::string to_json(const RunInfo& info, const std::vector<Metrics>& runs) {
  nlohmann::json j;
  j["capture"] = {{"path", info.capture},         {"format", info.format},
                  {"tracks", info.tracks},        {"seconds", info.capture_seconds},
                  {"rate_hz", info.capture_rate}, {"sim_rate_hz", info.sim_rate},
                  {"units", info.units}};
  j["runs"] = nlohmann::json::array();
  for (const Metrics& m : runs) {
    nlohmann::json run = {
        {"root_track", m.root_track},
        {"hand_track", m.chain ? nlohmann::json(m.hand_track) : nlohmann::json()},
        {"omitted",
         m.chain ? nlohmann::json::object()
                 : nlohmann::json{{"hand_lock", m.no_chain_reason}, {"chain", m.no_chain_reason}}},
        {"props_left", m.props_left},
        {"mode", m.mode},
        {"steps", m.steps},
        {"simulated_s", m.simulated_s},
        {"kinematic_bodies", m.kinematic_bodies},
        {"dynamic_bodies", m.dynamic_bodies},
        {"joints", m.joints},
        {"contacts_total", m.contacts_total},
        {"contacts_max_per_step", m.contacts_max_per_step},
        {"nan_values", m.nan_values},
        {"teleports", m.teleports},
        {"rate_limited_servo_steps", m.rate_limited},
        {"track_error_rms_deg", m.track_error_rms_deg},
        {"track_error_median_deg", m.track_error_median_deg},
        {"track_error_max_m", m.track_error_max_m},
        {"track_error_max_rad", m.track_error_max_rad},
        {"chain_gap_max_m", m.chain_gap_max_m},
        {"chain_gap_rms_m", m.chain_gap_rms_m},
        {"hand_lock_gap_max_m", m.hand_lock_gap_max_m},
        {"hand_lock_gap_rms_m", m.hand_lock_gap_rms_m},
        {"hand_lock_angle_max_deg", m.hand_lock_angle_max_deg},
        {"hand_lock_angle_rms_deg", m.hand_lock_angle_rms_deg},
        {"props", m.props},
        {"props_moved", m.props_moved},
        {"prop_displacement_max_m", m.prop_displacement_max_m},
        {"stack_boxes_moved", m.stack_boxes_moved},
        {"rider_slip_max_m", m.rider_slip_max_m},
        {"rider_carried", m.rider_carried},
        {"step_time_mean_us", m.step_time_mean_us},
        {"step_time_max_us", m.step_time_max_us},
    };
    if (!m.chain) { // not measured: null, with the reason under "omitted"
      for (const char* key :
           {"chain_gap_max_m", "chain_gap_rms_m", "hand_lock_gap_max_m", "hand_lock_gap_rms_m",
            "hand_lock_angle_max_deg", "hand_lock_angle_rms_deg"}) {
        run[key] = nullptr;
      }
    }
    j["runs"].push_back(std::move(run));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace odemocap::replay
