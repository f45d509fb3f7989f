#pragma once
// A cursor over capture text that knows its line and column, for loaders that read tokens
// (BVH). Nothing here allocates per token.

#include <cstddef>
#include <string>
#include <string_view>

namespace odemocap::detail {

class TextScanner {
public:
  /// Skips a UTF-8 byte order mark at the start.
  TextScanner(std::string_view text, std::string_view source);
  /// Text that goes on from earlier text (the next piece of a file read a piece at a time):
  /// `text` starts a line, line number `line` of the source, and the cursor is `offset` bytes
  /// into it.
  TextScanner(std::string_view text, std::string_view source, std::size_t line, std::size_t offset);

  bool at_end() const { return pos_ >= text_.size(); }
  std::size_t offset() const { return pos_; }
  /// The text from offset `from` to the cursor.
  std::string_view since(std::size_t from) const { return text_.substr(from, pos_ - from); }
  std::size_t line() const { return line_; }
  /// Offset of the start of the cursor's line.
  std::size_t line_start() const { return line_start_; }
  /// 1-based byte column of the cursor.
  std::size_t column() const { return pos_ - line_start_ + 1; }
  std::string_view source() const { return source_; }

  /// Skips spaces, tabs and carriage returns, not newlines.
  void skip_spaces();
  /// Skips all white space, newlines included.
  void skip_blank();
  /// True at a newline or the end, after skip_spaces().
  bool at_line_end();
  /// Moves past the next newline (or to the end).
  void next_line();
  /// The next run of non-white-space bytes on this line (empty at the line's end).
  std::string_view word();
  /// The rest of the line, trimmed of white space.
  std::string_view rest_of_line();
  /// Parses a finite number at the cursor (from_chars; a leading '+' is accepted). `what`
  /// names the value in the error.
  double number(const char* what);

  /// Reads up to `count` numbers from this line into `out` (as number() each) and returns how
  /// many there were before the line's end. The BVH motion rows' loop.
  std::size_t numbers_on_line(double* out, std::size_t count, const char* what);

  /// Throws LoadError at the cursor.
  [[noreturn]] void fail(const std::string& message) const;
  /// Throws LoadError at a given line and column.
  [[noreturn]] void fail_at(std::size_t line, std::size_t column, const std::string& message) const;

private:
  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
};

/// `s` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string_view trim(std::string_view s);

/// `s` up to its first space or tab.
std::string_view first_word(std::string_view s);

/// Parses all of `token` as a finite double; false if it is not exactly one number.
bool parse_double(std::string_view token, double& out);

/// The numbers capture files are made of, [-]digits[.digits] with at most 19 digits and their
/// integer at most 2^53, read from `first` exactly as
/// std::from_chars reads them, faster: the integer and the power of ten are both exact doubles,
/// so one division rounds the value correctly (Clinger's fast path). Returns the end of the
/// number, or nullptr when the text does not start with one of that shape (a '+', an exponent
/// or more digits: from_chars decides those). The byte after the end is not looked at.
const char* short_decimal(const char* first, const char* last, double& out);

/// Printable form of a token for messages: quoted, cut to 40 bytes, control bytes escaped.
std::string quote(std::string_view token);

} // namespace odemocap::detail
