#include "csv_reader.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cctype>

namespace odemocap::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string_view trim(std::string_view s, char delimiter) {
  // A tab delimiter is never trimmed away as white space.
  const auto space = [delimiter](char c) { return is_space(c) && c != delimiter; };
  while (!s.empty() && space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

} // namespace

CsvReader::CsvReader(std::string_view text, std::string_view source, char delimiter)
    : text_(text), source_(source), delimiter_(delimiter) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") {
    pos_ = 3;
  }
}

CsvReader::CsvReader(std::istream& in, std::string_view source, char delimiter)
    : in_(&in), source_(source), delimiter_(delimiter) {
  refill();
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") {
    pos_ = 3;
  }
}

bool CsvReader::refill() {
  if (in_ == nullptr || !*in_) {
    return false;
  }
  constexpr std::size_t k_chunk = std::size_t{1} << 16;
  buffer_.erase(0, pos_);
  pos_ = 0;
  // The unread part of a row is kept and the chunk filled up behind it, so the buffer stays
  // one allocation of a chunk: a whole chunk read behind it would move the text to a buffer
  // twice the size, both in memory at the move (with 256 KiB chunks, 768 KiB of the peak of a
  // 2 MB file's load). Only a row longer than half a chunk grows the buffer.
  const std::size_t kept = buffer_.size();
  const std::size_t wanted = kept < k_chunk / 2 ? k_chunk - kept : k_chunk;
  buffer_.resize(kept + wanted);
  in_->read(buffer_.data() + kept, static_cast<std::streamsize>(wanted));
  const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in_->gcount(), 0));
  buffer_.resize(kept + got);
  text_ = buffer_;
  if (in_->bad()) {
    throw LoadError(std::string(source_), next_line_, 0, "reading the file failed");
  }
  return got > 0;
}

bool CsvReader::next_row(std::vector<CsvCell>& cells) {
  cells.clear();
  if (pos_ >= text_.size() && !refill()) {
    return false;
  }
  line_ = next_line_++;
  std::size_t end = text_.find('\n', pos_);
  while (end == std::string_view::npos && refill()) { // a line across the chunk's end
    end = text_.find('\n', pos_);
  }
  terminated_ = end != std::string_view::npos;
  if (!terminated_) {
    end = text_.size();
  }
  const std::string_view row = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  std::size_t i = 0;
  for (;;) {
    std::size_t start = i;
    while (start < row.size() && is_space(row[start]) && row[start] != delimiter_) {
      ++start;
    }
    if (start < row.size() && row[start] == '"') {
      // Quoted cell: up to the closing quote that is not a doubled one.
      std::size_t close = start + 1;
      for (;;) {
        close = row.find('"', close);
        if (close == std::string_view::npos) {
          fail(start + 1, "unterminated quote in this cell");
        }
        if (close + 1 < row.size() && row[close + 1] == '"') {
          close += 2;
          continue;
        }
        break;
      }
      cells.push_back({row.substr(start + 1, close - start - 1), start + 1});
      i = close + 1;
      while (i < row.size() && is_space(row[i]) && row[i] != delimiter_) {
        ++i;
      }
      if (i < row.size() && row[i] != delimiter_) {
        fail(i + 1, "unexpected " + quote(row.substr(i, 1)) + " after a quoted cell");
      }
    } else {
      i = row.find(delimiter_, start);
      if (i == std::string_view::npos) {
        i = row.size();
      }
      cells.push_back({trim(row.substr(start, i - start), delimiter_), start + 1});
    }
    if (i >= row.size()) {
      break;
    }
    ++i; // past the delimiter
  }
  return true;
}

void CsvReader::fail(std::size_t column, const std::string& message) const {
  throw LoadError(std::string(source_), line_, column, message);
}

bool is_blank(const std::vector<CsvCell>& cells) {
  for (const CsvCell& c : cells) {
    if (!c.text.empty()) {
      return false;
    }
  }
  return true;
}

char detect_delimiter(std::string_view line) {
  std::size_t comma = 0, semicolon = 0, tab = 0;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted) {
      comma += c == ',';
      semicolon += c == ';';
      tab += c == '\t';
    }
  }
  if (tab > comma && tab >= semicolon) {
    return '\t';
  }
  return semicolon > comma ? ';' : ',';
}

std::string_view first_line(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
  }
  std::string_view line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

CellKind read_number(const CsvCell& cell, bool decimal_comma, double& out) {
  const std::string_view text = cell.text;
  if (text.empty()) {
    return CellKind::Empty;
  }
  if (text.size() == 3 && lower(text) == "nan") {
    return CellKind::NotANumber;
  }
  if (!decimal_comma || text.find(',') == std::string_view::npos) {
    return parse_double(text, out) ? CellKind::Number : CellKind::Invalid;
  }
  char buffer[64];
  if (text.size() >= sizeof buffer) {
    return CellKind::Invalid;
  }
  std::replace_copy(text.begin(), text.end(), buffer, ',', '.');
  return parse_double(std::string_view(buffer, text.size()), out) ? CellKind::Number
                                                                  : CellKind::Invalid;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

} // namespace odemocap::detail
