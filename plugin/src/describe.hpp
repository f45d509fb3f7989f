#pragma once
// Numbers in the plugin's error messages.

#include <cstdio>
#include <string>

namespace odemocap::detail {

/// `v` as printf's %g writes it.
inline std::string describe(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

} // namespace odemocap::detail
