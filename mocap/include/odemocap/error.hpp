#pragma once
/// Error type of the mocap layer.

#include <stdexcept>
#include <string>

namespace odemocap {

/// Raised by everything in the mocap layer for invalid input: the message names the function,
/// the offending argument or sample and its value, so a user can act on it.
class MocapError : public std::runtime_error {
public:
  explicit MocapError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace odemocap
