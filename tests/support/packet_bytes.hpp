#pragma once
// Little-endian packet bytes written field by field, independently of the library's writers,
// for the network codec tests.

#include <cstdint>
#include <cstring>
#include <vector>

namespace odemocap::test {

struct PacketBytes {
  std::vector<std::uint8_t> b;
  template <class T> void put(T v) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T)); // the test machine is little-endian (x86-64, arm64)
    b.insert(b.end(), raw, raw + sizeof(T));
  }
  /// Overwrites the 4 bytes at `at` (a size field written before its contents were known).
  void set_u32(std::size_t at, std::uint32_t v) { std::memcpy(&b[at], &v, 4); }
  /// Sets a NatNet packet's payload size (bytes 2-3) to what follows the 4-byte header.
  void set_natnet_payload_size() {
    const auto payload = static_cast<std::uint16_t>(b.size() - 4);
    std::memcpy(&b[2], &payload, 2);
  }
};

} // namespace odemocap::test
