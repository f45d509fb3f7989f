#include <odemocap/error.hpp>
#include <odemocap/live_stream.hpp>
#include <odemocap/quat.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>

namespace odemocap {

CaptureInfo live_recording_info(const LiveStreamSettings& settings) {
  const std::string protocol = protocol_name(settings.protocol);
  const Axis server_up = settings.server_up_axis.value_or(
      settings.protocol == LiveProtocol::NatNet ? Axis::Y : Axis::Z);
  CaptureInfo info;
  info.source = protocol + "://" + settings.server;
  info.format = protocol + "-live";
  info.length_unit = "m";
  info.unit_in_metres = 1.0;
  info.unit_source = "declared";
  info.up_axis = settings.up_axis.value_or(server_up);
  info.file_up_axis = server_up;
  info.up_axis_source = settings.server_up_axis ? "given" : "format";
  return info;
}

std::function<void(const std::string&, const LiveSample&)> LiveRecorder::on_sample() {
  return [this](const std::string& body, const LiveSample& sample) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(order_.begin(), order_.end(), body) == order_.end()) {
      order_.push_back(body);
    }
    samples_.emplace_back(body, sample);
  };
}

std::size_t LiveRecorder::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_.size();
}

namespace {

constexpr double k_unit_tolerance = 1e-3;

bool holds_pose(const LiveSample& s) {
  return s.valid && is_finite(s.pose.p) && is_finite(s.pose.q) &&
         std::fabs(norm(s.pose.q) - 1.0) <= k_unit_tolerance;
}

/// The frames any body was received in, in frame order, each at the capture time first seen for
/// it; frames whose time does not increase with their number (a restarted server clock, a
/// corrupted datagram) are left out.
std::map<std::uint64_t, double> frame_times(
    const std::vector<std::pair<std::string, LiveSample>>& samples) {
  std::map<std::uint64_t, double> times;
  for (const auto& [body, s] : samples) {
    if (std::isfinite(s.capture_time)) {
      times.emplace(s.frame, s.capture_time);
    }
  }
  double last = -INFINITY;
  for (auto it = times.begin(); it != times.end();) {
    if (!(it->second > last)) {
      it = times.erase(it);
      continue;
    }
    last = it->second;
    ++it;
  }
  return times;
}

void number(std::ostream& out, double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.write(buffer, result.ptr - buffer);
}

} // namespace

Capture LiveRecorder::capture(CaptureInfo info) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (samples_.empty()) {
    throw MocapError("nothing was received: no capture to write");
  }
  const std::map<std::uint64_t, double> times = frame_times(samples_);
  std::map<std::string, std::map<std::uint64_t, const LiveSample*>> by_body;
  for (const auto& [body, sample] : samples_) {
    by_body[body].emplace(sample.frame, &sample); // a duplicate frame: the first copy
  }
  Capture capture(std::move(info));
  for (const std::string& name : order_) {
    const std::map<std::uint64_t, const LiveSample*>& mine = by_body[name];
    Track track(name);
    track.reserve(times.size());
    for (const auto& [frame, time] : times) {
      const auto it = mine.find(frame);
      if (it != mine.end() && holds_pose(*it->second)) {
        track.append(time, {it->second->pose.p, normalized(it->second->pose.q)});
      } else {
        track.append_gap(time);
      }
    }
    track.make_continuous();
    capture.add_track(std::move(track));
  }
  if (!(capture.info().frame_rate > 0.0) && !capture.tracks().empty()) {
    const double interval = capture.tracks().front().median_interval();
    capture.info().frame_rate = interval > 0.0 ? 1.0 / interval : 0.0;
  }
  return capture;
}

std::vector<std::pair<std::string, std::size_t>> LiveRecorder::invalid() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::size_t> count;
  for (const auto& [body, s] : samples_) {
    if (s.valid && !holds_pose(s)) {
      ++count[body];
    }
  }
  return {count.begin(), count.end()};
}

std::size_t LiveRecorder::append_settled(std::ostream& out, double settle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (samples_.empty()) {
    return 0;
  }
  const std::map<std::uint64_t, double> times = frame_times(samples_);
  if (times.empty()) {
    return 0;
  }
  const double newest = times.rbegin()->second;
  if (!header_written_) {
    columns_ = order_;
    out << "time";
    for (const std::string& c : columns_) {
      for (const char* axis : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"}) {
        out << ',' << c << axis;
      }
    }
    out << '\n';
    header_written_ = true;
  }
  std::map<std::uint64_t, std::map<std::string, const LiveSample*>> rows;
  for (const auto& [body, s] : samples_) {
    if (s.frame >= appended_until_) {
      rows[s.frame].emplace(body, &s);
    }
  }
  std::size_t written = 0;
  for (auto it = times.lower_bound(appended_until_); it != times.end(); ++it) {
    if (it->second > newest - settle) {
      break;
    }
    number(out, it->second);
    const std::map<std::string, const LiveSample*>& row = rows[it->first];
    for (const std::string& c : columns_) {
      const auto s = row.find(c);
      if (s == row.end() || !holds_pose(*s->second)) {
        out << ",,,,,,,";
        continue;
      }
      const Pose& p = s->second->pose;
      const Quat q = normalized(p.q);
      for (double v : {p.p.x, p.p.y, p.p.z, q.w, q.x, q.y, q.z}) {
        out << ',';
        number(out, v);
      }
    }
    out << '\n';
    appended_until_ = it->first + 1;
    ++written;
  }
  out.flush();
  return written;
}

} // namespace odemocap
