#pragma once
/// Error type of the mocap layer.

#include <stdexcept>
#include <string>
#include <string_view>

namespace odemocap {

/// Raised by everything in the mocap layer for invalid input: the message names the function,
/// the offending argument or sample and its value, so a user can act on it.
class MocapError : public std::runtime_error {
public:
  explicit MocapError(const std::string& message) : std::runtime_error(message) {}
};

/// Text from a file made fit for messages, terminals and JSON: valid UTF-8 is kept; control
/// characters and bytes that are not valid UTF-8 (a Latin-1 name, binary data) become the four
/// characters \xNN, so the original bytes stay visible.
std::string printable(std::string_view text);

} // namespace odemocap
