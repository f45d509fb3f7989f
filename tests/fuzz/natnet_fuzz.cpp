// NatNet packets from the wire: a frame decodes or raises MocapError, for every version; what
// decodes feeds a LiveSource whose poses stay finite. Server info and model definitions
// likewise.
#include <odemocap/mocap.hpp>

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace odemocap;
  const NatNetVersion versions[] = {{2, 0}, {2, 5}, {2, 9}, {2, 11},
                                    {3, 0}, {4, 0}, {4, 1}, {4, 2}};
  for (const NatNetVersion v : versions) {
    try {
      const NatNetFrame frame = decode_natnet_frame(data, size, v);
      LiveSourceSettings settings;
      settings.clock = [] { return 0.0; };
      LiveSource source("fuzz", settings);
      for (const auto& [id, sample] : natnet_samples(frame, frame.timestamp)) {
        source.push(sample);
      }
      Pose p;
      if (source.pose_at_local(frame.timestamp + 0.01, p) && !(is_finite(p.p) && is_finite(p.q))) {
        std::abort();
      }
    } catch (const MocapError&) {
    }
  }
  try {
    decode_natnet_server_info(data, size);
  } catch (const MocapError&) {
  }
  for (const NatNetVersion v : versions) {
    try {
      decode_natnet_model_definitions(data, size, v);
    } catch (const MocapError&) {
    }
  }
  return 0;
}
