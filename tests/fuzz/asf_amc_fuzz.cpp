#include "fuzz_common.hpp"

// Input: the ASF skeleton, a NUL byte, the AMC motion.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return odemocap::fuzz::run(data, size, [](std::string_view text) {
    const std::size_t split = text.find('\0');
    const std::string_view asf = text.substr(0, split);
    const std::string_view amc = split == std::string_view::npos ? std::string_view()
                                                                 : text.substr(split + 1);
    return odemocap::parse_asf_amc(asf, amc, "fuzz");
  });
}
