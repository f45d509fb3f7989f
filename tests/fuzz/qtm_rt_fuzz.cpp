// QTM RT packets from the wire: a header, a data frame, a string or a 6D parameters XML decodes
// or raises MocapError; what decodes feeds LiveSources whose poses stay finite.
#include <odemocap/mocap.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace odemocap;
  try {
    decode_qtm_header(data, size);
    const QtmFrame frame = decode_qtm_frame(data, size);
    LiveSourceSettings settings;
    settings.clock = [] { return 0.0; };
    LiveSource source("fuzz", settings);
    const double t = static_cast<double>(frame.timestamp) * 1e-6;
    for (const LiveSample& sample : qtm_samples(frame, t)) {
      source.push(sample);
    }
    Pose p;
    if (source.pose_at_local(t + 0.01, p) && !(is_finite(p.p) && is_finite(p.q))) {
      std::abort();
    }
  } catch (const MocapError&) {
  }
  try {
    decode_qtm_string(data, size);
  } catch (const MocapError&) {
  }
  try {
    qtm_body_names(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const MocapError&) {
  }
  return 0;
}
