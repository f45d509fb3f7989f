#pragma once
// Two doubles in one SSE2 register (Double2) or four in one AVX register (Double4), GCC's and
// Clang's vector extension, for kernels written once for one value (T = double) and for several:
// the same operations in the same order, so every lane gives the bits the one-value kernel gives.
//
// Double4 is for code compiled with AVX only (a source file built with -mavx, called after
// has_avx()): an inline function taking or returning a Double4 that a file without AVX also
// used could be emitted there and here, and the linker would keep either copy.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace odemocap::detail {

/// Whether this processor (and its operating system) runs AVX instructions: false where the
/// AVX files are not built (not x86-64).
bool has_avx();

using Double2 = double __attribute__((vector_size(16)));
using Bits2 = std::uint64_t __attribute__((vector_size(16)));
using Double4 = double __attribute__((vector_size(32)));
using Bits4 = std::uint64_t __attribute__((vector_size(32)));

/// The mask type and lane count of a vector of doubles.
template <class T> struct Lanes;
template <> struct Lanes<Double2> {
  using Bits = Bits2;
  static constexpr std::size_t count = 2;
};
template <> struct Lanes<Double4> {
  using Bits = Bits4;
  static constexpr std::size_t count = 4;
};

/// `value` as a T: a double, or every lane of a vector.
template <class T> constexpr T splat(double value) {
  if constexpr (sizeof(T) == sizeof(double)) {
    return value;
  } else if constexpr (Lanes<T>::count == 2) {
    return T{value, value};
  } else {
    return T{value, value, value, value};
  }
}

template <class T> inline typename Lanes<T>::Bits bits(T x) {
  typename Lanes<T>::Bits b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class T> inline T from_bits(typename Lanes<T>::Bits b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// Per lane: `mask` (all ones or all zeros, as a comparison gives) ? a : b.
template <class T> inline T select(typename Lanes<T>::Bits mask, T a, T b) {
  return from_bits<T>((bits(a) & mask) | (bits(b) & ~mask));
}

inline constexpr std::uint64_t k_sign_bit = 0x8000000000000000ull;

/// |x| per lane, as std::fabs.
template <class T> inline T abs(T x) {
  return from_bits<T>(bits(x) & ~k_sign_bit);
}

/// |magnitude| with the sign of `sign` per lane, as std::copysign.
template <class T> inline T copysign(T magnitude, T sign) {
  return from_bits<T>((bits(magnitude) & ~k_sign_bit) | (bits(sign) & k_sign_bit));
}

/// Whether any lane of a comparison's mask is set.
template <class B> inline bool any(B mask) {
  std::uint64_t set = 0;
  for (std::size_t k = 0; k < sizeof(B) / sizeof(std::uint64_t); ++k) {
    set |= mask[k];
  }
  return set != 0;
}

} // namespace odemocap::detail
