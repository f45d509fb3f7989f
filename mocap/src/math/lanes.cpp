#include "math/lanes.hpp"

namespace odemocap::detail {

bool has_avx() {
#ifdef ODEMOCAP_AVX
  static const bool avx = __builtin_cpu_supports("avx");
  return avx;
#else
  return false; // not x86-64: the files compiled with AVX are not built
#endif
}

} // namespace odemocap::detail
