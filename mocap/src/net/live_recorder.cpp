#include <odemocap/error.hpp>
#include <odemocap/live_stream.hpp>
#include <odemocap/quat.hpp>

#include <algorithm>
#include <cmath>
#include <map>

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

Capture LiveRecorder::capture(CaptureInfo info) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (samples_.empty()) {
    throw MocapError("nothing was received: no capture to write");
  }
  std::map<std::string, std::vector<LiveSample>> by_body;
  for (const auto& [body, sample] : samples_) {
    by_body[body].push_back(sample);
  }
  Capture capture(std::move(info));
  for (const std::string& name : order_) {
    std::vector<LiveSample>& samples = by_body[name];
    std::stable_sort(samples.begin(), samples.end(),
                     [](const LiveSample& a, const LiveSample& b) { return a.frame < b.frame; });
    samples.erase(
        std::unique(samples.begin(), samples.end(),
                    [](const LiveSample& a, const LiveSample& b) { return a.frame == b.frame; }),
        samples.end());
    Track track(name);
    for (const LiveSample& s : samples) {
      if (!std::isfinite(s.capture_time) ||
          (!track.empty() && s.capture_time <= track.time(track.size() - 1))) {
        continue; // a server clock that went back (a restarted take): keep time increasing
      }
      if (s.valid && is_finite(s.pose.p) && is_finite(s.pose.q)) {
        track.append(s.capture_time, s.pose);
      } else {
        track.append_gap(s.capture_time);
      }
    }
    capture.add_track(std::move(track));
  }
  if (!(capture.info().frame_rate > 0.0)) {
    const double interval = capture.tracks().front().median_interval();
    capture.info().frame_rate = interval > 0.0 ? 1.0 / interval : 0.0;
  }
  return capture;
}

} // namespace odemocap
