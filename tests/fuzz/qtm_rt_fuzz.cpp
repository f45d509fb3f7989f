// QTM RT packets from the wire: a header, a data frame, a string or a 6D parameters XML decodes
// or raises MocapError, a discover packet decodes or is ignored; what decodes feeds
// LiveSources whose poses stay finite, and encodes again with every component the server
// writes.
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
    // What the server writes of a decoded frame decodes again (one 6D and one 3D component a
    // packet, as the decoder takes them).
    for (const auto& components :
         {std::vector<QtmComponent>{QtmComponent::Body6dResidual, QtmComponent::Marker3dResidual},
          std::vector<QtmComponent>{QtmComponent::Body6dEulerResidual,
                                    QtmComponent::Marker3dNoLabelsResidual}}) {
      const auto again = encode_qtm_frame(frame, components);
      decode_qtm_frame(again.data(), again.size());
    }
  } catch (const MocapError&) {
  }
  parse_qtm_component(std::string(reinterpret_cast<const char*>(data), size));
  decode_qtm_discover(data, size); // any datagram on the discovery port: never throws
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
