#pragma once
/// Error type of the ODE layer.

#include <stdexcept>
#include <string>

namespace odemocap {

/// Raised by the ODE layer for invalid use (a body of another world, a bad step size, invalid
/// settings); the message names the function, the argument and its value.
class PluginError : public std::runtime_error {
public:
  explicit PluginError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace odemocap
