#include "json_output.hpp"

#include <odemocap/error.hpp>

#include <cmath>
#include <iostream>

namespace odemocap::cli {

nlohmann::json printable_json(const nlohmann::json& value) {
  if (value.is_string()) {
    return printable(value.get_ref<const std::string&>());
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& item : value) {
      out.push_back(printable_json(item));
    }
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      out[printable(it.key())] = printable_json(it.value());
    }
    return out;
  }
  return value;
}

void print_json(const nlohmann::json& value, int indent) {
  std::cout << printable_json(value).dump(indent) << '\n';
}

double display_time(double seconds) {
  return std::round(seconds * 1e6) / 1e6;
}

} // namespace odemocap::cli
