#pragma once
// Splits delimited text into rows of cells, with quoting ("..." with "" for a quote), and
// reports positions by line and column. Cells are views into the text: no allocation per cell
// once the row vector has grown.

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace odemocap::detail {

struct CsvCell {
  std::string_view text;  ///< inner text: unquoted, trimmed of spaces and tabs (unless quoted)
  std::size_t column = 0; ///< 1-based byte column where the cell starts
};

class CsvReader {
public:
  /// Skips a UTF-8 byte order mark at the start.
  CsvReader(std::string_view text, std::string_view source, char delimiter);
  /// The text of a stream read 64 KiB at a time into one buffer (a file never in memory whole;
  /// only a row longer than half of that grows it): the cells of a row are valid until the next
  /// call of next_row(). Throws LoadError when reading fails.
  CsvReader(std::istream& in, std::string_view source, char delimiter);

  /// Reads the next line's cells into `cells`; false when the text is exhausted.
  bool next_row(std::vector<CsvCell>& cells);
  /// Line number of the row last read.
  std::size_t line() const { return line_; }
  /// Whether the row last read ended with a line break (false for a last line without one:
  /// where a file cut short ends).
  bool row_terminated() const { return terminated_; }
  std::string_view source() const { return source_; }

  [[noreturn]] void fail(std::size_t column, const std::string& message) const;

private:
  /// Keeps the unread text and appends the stream's next chunk; false when it has no more.
  bool refill();

  std::istream* in_ = nullptr;
  std::string buffer_; ///< the stream's unread text (text_ views it)
  std::string_view text_;
  std::string_view source_;
  char delimiter_;
  std::size_t pos_ = 0;
  std::size_t next_line_ = 1;
  std::size_t line_ = 0;
  bool terminated_ = true;
};

/// Whether every cell of a row is empty (a blank line, or one of separators only).
bool is_blank(const std::vector<CsvCell>& cells);

/// The most frequent of ',', ';' and tab outside quotes in `line` (',' when none occurs).
char detect_delimiter(std::string_view line);

/// The first line of `text` (BOM and line ending removed).
std::string_view first_line(std::string_view text);

/// What a numeric cell holds.
enum class CellKind { Number, Empty, NotANumber, Invalid };

/// Reads a numeric cell. Empty cells and "NaN" are reported as such, never as 0. With
/// `decimal_comma`, a ',' is read as the decimal point (spreadsheets in many locales).
CellKind read_number(const CsvCell& cell, bool decimal_comma, double& out);

/// ASCII lower-case copy.
std::string lower(std::string_view text);

} // namespace odemocap::detail
