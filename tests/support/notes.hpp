#pragma once
// Whether a loaded capture said something: one of its notes contains a phrase.

#include <odemocap/capture.hpp>

#include <string>

namespace odemocap::test {

inline bool has_note(const CaptureInfo& info, const std::string& phrase) {
  for (const std::string& note : info.notes) {
    if (note.find(phrase) != std::string::npos) {
      return true;
    }
  }
  return false;
}

} // namespace odemocap::test
