#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return odemocap::fuzz::run(data, size, [](std::string_view text) {
    return odemocap::parse_mvnx(text, "fuzz");
  });
}
