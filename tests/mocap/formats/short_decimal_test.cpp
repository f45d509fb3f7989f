// The loaders' number fast path (short_decimal, and through it parse_double and the BVH
// scanner) against std::from_chars, the correctly rounded reader it stands in for.
#include "formats/text_scanner.hpp"

#include <odemocap/load.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap::detail {
namespace {

double from_chars_value(const std::string& text) {
  double value = 0.0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_EQ(result.ec, std::errc()) << text;
  return value;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Random decimals of the shapes capture files hold: 1 to `most` integer digits, 0 to `most`
/// after the point.
std::string random_decimal(std::mt19937_64& random, int most = 12) {
  std::uniform_int_distribution<int> digit(0, 9), integer(1, most), fraction(0, most), coin(0, 1);
  std::string text = coin(random) ? "-" : "";
  for (int i = integer(random); i > 0; --i) {
    text += static_cast<char>('0' + digit(random));
  }
  if (const int f = fraction(random); f > 0) {
    text += '.';
    for (int i = 0; i < f; ++i) {
      text += static_cast<char>('0' + digit(random));
    }
  }
  return text;
}

TEST(ShortDecimal, ReadsRandomDecimalsBitForBitAsFromChars) {
  std::mt19937_64 random(20261124);
  int fast = 0;
  for (int n = 0; n < 200000; ++n) {
    const std::string text = random_decimal(random);
    double value = 0.0;
    const char* end = short_decimal(text.data(), text.data() + text.size(), value);
    if (end != nullptr) {
      ++fast;
      ASSERT_EQ(end, text.data() + text.size()) << text;
      ASSERT_TRUE(same_bits(value, from_chars_value(text))) << text;
    }
    double parsed = 0.0;
    ASSERT_TRUE(parse_double(text, parsed)) << text;
    ASSERT_TRUE(same_bits(parsed, from_chars_value(text))) << text;
  }
  // Up to 24 digits are drawn: the ones of at most 15 or so take the fast path.
  EXPECT_GT(fast, 100000);
}

TEST(ShortDecimal, ReadsDecimalsInsideTextAsFromChars) {
  // In a file the number is followed by more text: the word-at-a-time path reads 8 bytes at
  // once, past the number's end. Whatever follows (digits, points, exponents, bytes of 0xFA
  // and up whose carry crosses into the next byte), the value returned is the one from_chars
  // reads from the same bytes up to the end returned, and that end is where from_chars stops
  // when the next byte cannot continue a number.
  std::mt19937_64 random(7);
  const std::string pool = "0123456789.eE-+ \t\r\n,;x\xFA\xFB\xFE\xFF\x80";
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1), length(0, 24);
  int words = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string text = random_decimal(random, 9);
    for (std::size_t i = length(random); i > 0; --i) {
      text += pool[pick(random)];
    }
    double value = 0.0;
    const char* first = text.data();
    const char* end = short_decimal(first, first + text.size(), value);
    if (end == nullptr) {
      continue; // more than 19 digits (the suffix may add some), or "5." and the like
    }
    double reference = 0.0;
    const auto read = std::from_chars(first, end, reference);
    ASSERT_EQ(read.ptr, end) << text;
    ASSERT_TRUE(same_bits(value, reference)) << text;
    if (end < first + text.size() &&
        std::string_view(" \t\r\n,;x").find(*end) != std::string_view::npos) {
      const auto whole = std::from_chars(first, first + text.size(), reference);
      ASSERT_EQ(whole.ptr, end) << text;
    }
    // At most 7 digits each side of the point, 17 bytes readable: the word path's numbers.
    const std::size_t sign = text[0] == '-' ? 1 : 0;
    const std::string_view number(first + sign, static_cast<std::size_t>(end - first) - sign);
    const std::size_t point = std::min(number.find('.'), number.size());
    words += text.size() - sign >= 17 && point <= 7 && number.size() - point <= 8 ? 1 : 0;
  }
  EXPECT_GT(words, 40000); // the word path was taken, not only the byte loop
}

TEST(ShortDecimal, NaiveDigitByDigitConversionIsNotCorrectlyRounded) {
  // What a hand-written reader often does: the fraction's digits scaled by 0.1 each. It
  // differs from the correctly rounded value in a good share of the same random decimals.
  std::mt19937_64 random(20261124);
  int differ = 0;
  for (int n = 0; n < 20000; ++n) {
    const std::string text = random_decimal(random);
    double naive = 0.0, scale = 1.0;
    bool fraction = false;
    for (const char c : text) {
      if (c == '.') {
        fraction = true;
      } else if (c != '-') {
        if (fraction) {
          scale *= 0.1;
          naive += (c - '0') * scale;
        } else {
          naive = naive * 10 + (c - '0');
        }
      }
    }
    naive = text[0] == '-' ? -naive : naive;
    differ += same_bits(naive, from_chars_value(text)) ? 0 : 1;
  }
  EXPECT_GT(differ, 2000);
}

TEST(ShortDecimal, TheLimitsOfExactness) {
  double value = 0.0;
  const auto read = [&](const std::string& text) {
    return short_decimal(text.data(), text.data() + text.size(), value);
  };
  // 2^53 is exact; 2^53 + 1 is not a double, so from_chars must round it.
  ASSERT_NE(read("9007199254740992"), nullptr);
  EXPECT_EQ(value, 9007199254740992.0);
  EXPECT_EQ(read("9007199254740993"), nullptr);
  // 18 digits after the point with one before: 19 digits, divided by the exact 10^18.
  ASSERT_NE(read("0.000000000000000001"), nullptr);
  EXPECT_TRUE(same_bits(value, 1e-18));
  EXPECT_EQ(read("0.0000000000000000001"), nullptr);
  // 19 digits do not wrap; 20 are left to from_chars whatever their value.
  EXPECT_EQ(read("00000000000000000001"), nullptr);
  ASSERT_NE(read("0000000000000000001"), nullptr);
  EXPECT_EQ(value, 1.0);
  // Negative zero keeps its sign.
  ASSERT_NE(read("-0.0"), nullptr);
  EXPECT_TRUE(std::signbit(value));
}

TEST(ShortDecimal, OtherShapesAreLeftToFromChars) {
  double value = 0.0;
  for (const std::string text : {"", "-", ".5", "-.5", "5.", "+5", "e5", "nan", "inf", "--1"}) {
    EXPECT_EQ(short_decimal(text.data(), text.data() + text.size(), value), nullptr) << text;
  }
  // The number ends where its shape does; the caller decides about what follows.
  const std::string exponent = "1.5e3";
  EXPECT_EQ(short_decimal(exponent.data(), exponent.data() + exponent.size(), value),
            exponent.data() + 3);
  ASSERT_TRUE(parse_double(exponent, value));
  EXPECT_EQ(value, 1500.0);
  EXPECT_TRUE(parse_double("+2.25", value));
  EXPECT_EQ(value, 2.25);
  EXPECT_FALSE(parse_double("1.5x", value));
  EXPECT_FALSE(parse_double("1e400", value)); // not finite
}

TEST(ShortDecimal, TheScannerReadsNumbersWithAnExponentAfterTheFastPathRefusesThem) {
  const std::string text = "1.25 -3 2.5e2\t7.125\r\n";
  TextScanner scanner(text, "numbers");
  EXPECT_EQ(scanner.number("a"), 1.25);
  EXPECT_EQ(scanner.number("b"), -3.0);
  EXPECT_EQ(scanner.number("c"), 250.0);
  EXPECT_EQ(scanner.number("d"), 7.125);
  EXPECT_TRUE(scanner.at_line_end());
}

/// A row of a motion section as a reader would take it: the words between spaces, tabs and
/// carriage returns up to the newline, each read whole by from_chars.
struct ExpectedRow {
  std::vector<double> values;
  std::size_t end = 0;    ///< offset the cursor must reach
  std::size_t bad = 0;    ///< index of the first word that is not a number, or the count asked for
  std::size_t bad_at = 0; ///< its offset
};

ExpectedRow expected_row(const std::string& text, std::size_t from, std::size_t count) {
  ExpectedRow row;
  std::size_t i = from;
  const auto space = [&](std::size_t k) {
    return text[k] == ' ' || text[k] == '\t' || text[k] == '\r';
  };
  row.bad = count;
  for (std::size_t n = 0; n < count; ++n) {
    while (i < text.size() && space(i)) {
      ++i;
    }
    if (i == text.size() || text[i] == '\n') {
      row.end = i;
      return row;
    }
    const std::size_t start = i;
    while (i < text.size() && !space(i) && text[i] != '\n') {
      ++i;
    }
    double value = 0.0;
    const auto read = std::from_chars(text.data() + start, text.data() + i, value);
    if (row.bad == count && (read.ec != std::errc() || read.ptr != text.data() + i)) {
      row.bad = n;
      row.bad_at = start;
    }
    row.values.push_back(value);
  }
  row.end = i;
  return row;
}

TEST(TextScanner, NumbersOnLineReadEveryRowAsWordByWordFromChars) {
  // Rows of 0 to 40 random numbers (short and long, with exponents), separated by runs of
  // spaces, tabs and carriage returns, asked for fewer, as many or more numbers than they
  // hold, the last row with or without its newline; a few with a word that is not a number.
  // Truth: the words split by the loop above and read whole by from_chars.
  std::mt19937_64 random(1125);
  std::uniform_int_distribution<int> words(0, 40), gap(1, 3), kind(0, 9), separator(0, 5);
  const char separators[] = {' ', ' ', ' ', '\t', '\r', ' '};
  int rows = 0, refused = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string text;
    std::vector<std::size_t> counts;
    const int row_count = 1 + n % 4;
    for (int r = 0; r < row_count; ++r) {
      const int w = words(random);
      for (int k = gap(random) - 1; k > 0; --k) { // leading blanks, if any
        text += separators[separator(random)];
      }
      for (int k = 0; k < w; ++k) {
        const int shape = kind(random);
        text += shape == 0 ? random_decimal(random, 20) + "e-" + std::to_string(k % 30)
                : shape == 1 && n % 50 == 0 ? std::string("1.5x")
                                            : random_decimal(random, 7);
        for (int g = gap(random); g > 0; --g) {
          text += separators[separator(random)];
        }
      }
      if (r + 1 < row_count || n % 3 != 0) {
        text += '\n';
      }
      counts.push_back(static_cast<std::size_t>(std::max(0, w - 3 + static_cast<int>(n % 7))));
    }
    TextScanner scanner(text, "rows.bvh");
    for (int r = 0; r < row_count; ++r) {
      const std::size_t count = counts[static_cast<std::size_t>(r)];
      const ExpectedRow expected = expected_row(text, scanner.offset(), count);
      std::vector<double> values(count, -7.0);
      const std::size_t line = scanner.line();
      if (expected.bad < count) {
        try {
          scanner.numbers_on_line(values.data(), count, "a channel");
          FAIL() << "no error for " << text;
        } catch (const LoadError& e) {
          ++refused;
          const std::size_t line_start = text.rfind('\n', expected.bad_at - 1) + 1;
          EXPECT_EQ(e.line(), line);
          EXPECT_EQ(e.column(), expected.bad_at - (expected.bad_at == 0 ? 0 : line_start) + 1);
        }
        break;
      }
      ASSERT_EQ(scanner.numbers_on_line(values.data(), count, "a channel"), expected.values.size())
          << text;
      for (std::size_t k = 0; k < expected.values.size(); ++k) {
        ASSERT_TRUE(same_bits(values[k], expected.values[k])) << text << " word " << k;
      }
      ASSERT_EQ(scanner.offset(), expected.end) << text;
      ++rows;
      scanner.next_line();
    }
  }
  EXPECT_GT(rows, 5000);
  EXPECT_GT(refused, 10);
}

} // namespace
} // namespace odemocap::detail
