#include "character/segment_table.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace odemocap::detail {
namespace {

bool contains_any(const std::string& name, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](const char* w) { return name.find(w) != std::string::npos; });
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

} // namespace

Segment segment_of(std::string_view bone_name, std::string_view child_name) {
  const std::string name = lower(bone_name);
  const std::string child = lower(child_name);
  if (contains_any(name, {"shoulder"}) && contains_any(child, {"elbow"})) {
    return Segment::UpperArm;
  }
  if (contains_any(name, {"hip"}) && contains_any(child, {"knee"})) {
    return Segment::Thigh;
  } // Order matters: "forearm" before "arm", "upleg" before "leg", hands before arms; "farm":
    // Motive's forearm bones (LFArm).
  if (contains_any(name, {"forearm", "lowerarm", "radius", "elbow", "ulna", "farm"})) {
    return Segment::Forearm;
  }
  if (contains_any(name, {"hand", "wrist", "finger", "thumb", "index", "palm", "carpal"})) {
    return Segment::Hand;
  }
  if (contains_any(name, {"upleg", "upperleg", "thigh", "femur"})) {
    return Segment::Thigh;
  }
  if (contains_any(name, {"foot", "toe", "ankle"})) {
    return Segment::Foot;
  }
  if (contains_any(name, {"leg", "shin", "tibia", "knee", "calf", "shank"})) {
    return Segment::Shank;
  }
  if (contains_any(name, {"arm", "humerus"})) {
    return Segment::UpperArm;
  }
  if (contains_any(name, {"head", "neck", "skull"})) {
    return Segment::Head;
  }
  return Segment::Trunk;
}

double segment_fraction(Segment segment) {
  switch (segment) { // de Leva 1996, Table 4, males: per-side values doubled for limbs
  case Segment::Head: return 0.0694;
  case Segment::Trunk: return 0.4346;
  case Segment::UpperArm: return 2 * 0.0271;
  case Segment::Forearm: return 2 * 0.0162;
  case Segment::Hand: return 2 * 0.0061;
  case Segment::Thigh: return 2 * 0.1416;
  case Segment::Shank: return 2 * 0.0433;
  case Segment::Foot: return 2 * 0.0137;
  }
  return 0.0;
}

const char* segment_name(Segment segment) {
  switch (segment) {
  case Segment::Head: return "head";
  case Segment::Trunk: return "trunk";
  case Segment::UpperArm: return "upper arm";
  case Segment::Forearm: return "forearm";
  case Segment::Hand: return "hand";
  case Segment::Thigh: return "thigh";
  case Segment::Shank: return "shank";
  case Segment::Foot: return "foot";
  }
  return "?";
}

} // namespace odemocap::detail
