#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace odemocap::detail {

TextScanner::TextScanner(std::string_view text, std::string_view source)
    : text_(text), source_(source) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") {
    pos_ = 3;
    line_start_ = 3;
  }
}

TextScanner::TextScanner(std::string_view text, std::string_view source, std::size_t line,
                         std::size_t offset)
    : text_(text), source_(source), pos_(offset), line_(line) {}

void TextScanner::skip_spaces() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
    ++pos_;
  }
}

void TextScanner::skip_blank() {
  for (;;) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == '\n') {
      next_line();
    } else {
      return;
    }
  }
}

bool TextScanner::at_line_end() {
  skip_spaces();
  return pos_ >= text_.size() || text_[pos_] == '\n';
}

void TextScanner::next_line() {
  const std::size_t nl = text_.find('\n', pos_);
  if (nl == std::string_view::npos) {
    pos_ = text_.size();
    return;
  }
  pos_ = nl + 1;
  ++line_;
  line_start_ = pos_;
}

std::string_view TextScanner::word() {
  skip_spaces();
  const std::size_t start = pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      break;
    }
    ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

std::string_view TextScanner::rest_of_line() {
  skip_spaces();
  const std::size_t start = pos_;
  std::size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) {
    end = text_.size();
  }
  pos_ = end;
  std::size_t last = end;
  while (last > start &&
         (text_[last - 1] == ' ' || text_[last - 1] == '\t' || text_[last - 1] == '\r')) {
    --last;
  }
  return text_.substr(start, last - start);
}

double TextScanner::number(const char* what) {
  skip_spaces();
  double fast = 0.0;
  const char* const begin = text_.data() + pos_;
  const char* const end = text_.data() + text_.size();
  if (const char* p = short_decimal(begin, end, fast);
      p != nullptr && (p == end || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
    pos_ += static_cast<std::size_t>(p - begin);
    return fast;
  }
  const std::size_t column_before = column();
  const std::string_view token = word();
  double value = 0.0;
  if (token.empty()) {
    fail_at(line_, column_before, std::string("expected ") + what + ", found the end of the line");
  }
  if (!parse_double(token, value)) {
    fail_at(line_, column_before, std::string("expected ") + what + ", found " + quote(token));
  }
  return value;
}

[[gnu::aligned(64)]] std::size_t TextScanner::numbers_on_line(double* out, std::size_t count,
                                                              const char* what) {
  const char* const begin = text_.data();
  const char* const end = begin + text_.size();
  for (std::size_t i = 0; i < count; ++i) {
    const char* p = begin + pos_;
    while (p != end && (*p == ' ' || *p == '\t' || *p == '\r')) {
      ++p;
    }
    pos_ = static_cast<std::size_t>(p - begin);
    if (p == end || *p == '\n') {
      return i;
    }
    const char* q = short_decimal(p, end, out[i]);
    if (q != nullptr && (q == end || *q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')) {
      pos_ = static_cast<std::size_t>(q - begin);
    } else {
      out[i] = number(what); // the general reading, and its error
    }
  }
  return count;
}

void TextScanner::fail(const std::string& message) const {
  fail_at(line_, column(), message);
}

void TextScanner::fail_at(std::size_t line, std::size_t column, const std::string& message) const {
  throw LoadError(std::string(source_), line, column, message);
}

namespace {

constexpr double k_powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                               1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};

/// `magnitude` negated when `negative`, by its sign bit: a branch here mispredicts on every
/// other number of a capture (a quarter of the reading's time in a profile).
double with_sign(double magnitude, bool negative) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &magnitude, sizeof bits);
  bits |= static_cast<std::uint64_t>(negative) << 63;
  std::memcpy(&magnitude, &bits, sizeof bits);
  return magnitude;
}

struct DigitRun {
  int count;           ///< leading digits among the 8 bytes (0 to 8)
  std::uint64_t value; ///< their value
};

/// The run of decimal digits that starts the 8 bytes at p, found and converted without a
/// branch per byte (a loop's exit mispredicts on every number whose length differs from the
/// last one's). Bytes are taken in memory order: the first is the lowest of the word.
[[gnu::always_inline]] inline DigitRun digit_run(const char* p) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  word = __builtin_bswap64(word);
#endif
  constexpr std::uint64_t k_ones = 0x0101010101010101;
  // A byte is a digit when its high nibble is 3 and stays 3 once 6 is added (0x30 to 0x39).
  // A carry out of a byte of 0xFA or more can only make the next byte look like a non-digit:
  // the run ends early, the caller then sees a digit where the number should end and refuses.
  const std::uint64_t high = (word & (0xF0 * k_ones)) ^ (0x30 * k_ones);
  const std::uint64_t shifted = ((word + 0x06 * k_ones) & (0xF0 * k_ones)) ^ (0x30 * k_ones);
  const std::uint64_t other = high | shifted; // a nonzero high nibble: not a digit
  const std::uint64_t flags =
      (other | (other << 1) | (other << 2) | (other << 3)) & (0x80 * k_ones);
  const int count = flags == 0 ? 8 : __builtin_ctzll(flags) / 8;
  if (count == 0) {
    return {0, 0};
  }
  // Keep the run's bytes as the word's top ones (the bytes below are leading zeros), then
  // combine neighbours: pairs of digits, then of pairs, then of quadruples.
  std::uint64_t v = (word & (0x0F * k_ones)) << (8 * (8 - count));
  v = (v * (10 * 256 + 1)) >> 8 & 0x00FF00FF00FF00FF;
  v = (v * (100 * 65536 + 1)) >> 16 & 0x0000FFFF0000FFFF;
  v = (v * (10000 * (std::uint64_t{1} << 32) + 1)) >> 32;
  return {count, v};
}

/// short_decimal's common case in two word reads: at most 7 digits before the point and 1 to
/// 7 after it, with 17 bytes readable from p (after the sign). nullptr for anything else.
const char* short_decimal_by_words(const char* p, bool negative, double& out) {
  const DigitRun integer = digit_run(p);
  if (integer.count == 0 || integer.count == 8) {
    return nullptr;
  }
  const char* q = p + integer.count;
  std::uint64_t digits = integer.value;
  int fraction = 0;
  if (*q == '.') {
    const DigitRun after = digit_run(q + 1);
    if (after.count == 0 || after.count == 8) {
      return nullptr; // "5." is from_chars's to judge; 8 digits may go on
    }
    static constexpr std::uint64_t k_scale[] = {1,      10,      100,     1000,
                                                10000,  100000,  1000000, 10000000};
    digits = digits * k_scale[after.count] + after.value;
    fraction = after.count;
    q += 1 + after.count;
  }
  out = with_sign(static_cast<double>(digits) / k_powers[fraction], negative);
  return q;
}

} // namespace

[[gnu::aligned(64)]] const char* short_decimal(const char* first, const char* last, double& out) {
  const char* p = first;
  const bool negative = p != last && *p == '-';
  p += negative ? 1 : 0;
  // The common number in two word reads; anything longer, or near the end of the text, goes
  // digit by digit.
  if (last - p >= 17) {
    if (const char* end = short_decimal_by_words(p, negative, out)) {
      return end;
    }
  }
  std::uint64_t digits = 0;
  const char* const integer = p;
  for (; p != last && static_cast<unsigned>(*p - '0') < 10; ++p) {
    digits = digits * 10 + static_cast<unsigned>(*p - '0');
  }
  if (p == integer) {
    return nullptr;
  }
  std::ptrdiff_t fraction = 0;
  if (p != last && *p == '.') {
    const char* const point = ++p;
    for (; p != last && static_cast<unsigned>(*p - '0') < 10; ++p) {
      digits = digits * 10 + static_cast<unsigned>(*p - '0');
    }
    fraction = p - point;
    if (fraction == 0) {
      return nullptr;
    }
  }
  // 19 digits cannot wrap the integer (and leave at most 18 after the point: 10^18 is exact,
  // as every power of ten to 10^22 is); up to 2^53 the integer is exact.
  if ((p - integer) - (fraction > 0 ? 1 : 0) > 19 || digits > (std::uint64_t{1} << 53)) {
    return nullptr;
  }
  const double value = static_cast<double>(digits) / k_powers[fraction];
  out = negative ? -value : value;
  return p;
}

bool parse_double(std::string_view token, double& out) {
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (const char* end = short_decimal(first, last, out); end == last) {
    return true;
  }
  if (first != last && *first == '+') {
    ++first;
    if (first != last && *first == '-') {
      return false; // "+-1" is not a number
    }
  }
  if (first == last) {
    return false;
  }
  const auto [end, error] = std::from_chars(first, last, out);
  return error == std::errc() && end == last && std::isfinite(out);
}

std::string quote(std::string_view token) {
  const std::size_t limit = 40;
  return "'" + printable(token.substr(0, limit)) + (token.size() > limit ? "...'" : "'");
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string_view first_word(std::string_view s) {
  return s.substr(0, s.find_first_of(" \t"));
}

} // namespace odemocap::detail
