#pragma once
// Two doubles in one SSE2 register (GCC's and Clang's vector extension), for kernels written
// once for one value (T = double) and for two (T = Double2): the same operations in the same
// order, so both give the same bits.

#include <cstdint>
#include <cstring>

namespace odemocap::detail {

using Double2 = double __attribute__((vector_size(16)));
using Bits2 = std::uint64_t __attribute__((vector_size(16)));

/// `value` as a T: a double, or both lanes of a Double2.
template <class T> constexpr T splat(double value) {
  if constexpr (sizeof(T) == sizeof(double)) {
    return value;
  } else {
    return T{value, value};
  }
}

inline Bits2 bits(Double2 x) {
  Bits2 b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

inline Double2 from_bits(Bits2 b) {
  Double2 x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// Per lane: `mask` (all ones or all zeros, as a comparison gives) ? a : b.
inline Double2 select(Bits2 mask, Double2 a, Double2 b) {
  return from_bits((bits(a) & mask) | (bits(b) & ~mask));
}

inline constexpr std::uint64_t k_sign_bit = 0x8000000000000000ull;

/// |x| per lane, as std::fabs.
inline Double2 abs(Double2 x) {
  return from_bits(bits(x) & ~k_sign_bit);
}

/// |magnitude| with the sign of `sign` per lane, as std::copysign.
inline Double2 copysign(Double2 magnitude, Double2 sign) {
  return from_bits((bits(magnitude) & ~k_sign_bit) | (bits(sign) & k_sign_bit));
}

/// Whether any lane of a comparison's mask is set.
inline bool any(Bits2 mask) {
  return (mask[0] | mask[1]) != 0;
}

} // namespace odemocap::detail
