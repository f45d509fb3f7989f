#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace odemocap::detail {

TextScanner::TextScanner(std::string_view text, std::string_view source)
    : text_(text), source_(source) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") {
    pos_ = 3;
    line_start_ = 3;
  }
}

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
  const std::size_t column_before = (skip_spaces(), column());
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

void TextScanner::fail(const std::string& message) const {
  fail_at(line_, column(), message);
}

void TextScanner::fail_at(std::size_t line, std::size_t column, const std::string& message) const {
  throw LoadError(std::string(source_), line, column, message);
}

bool parse_double(std::string_view token, double& out) {
  const char* first = token.data();
  const char* last = token.data() + token.size();
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

} // namespace odemocap::detail
