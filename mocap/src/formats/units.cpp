#include "units.hpp"

#include "checks.hpp"
#include "model/kinematics_block.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace odemocap {
namespace {

struct NamedUnit {
  const char* key;  ///< what a user types
  const char* name; ///< how it is shown
  double metres;
};

constexpr double k_cmu_unit = 0.0254 / 0.45;

constexpr NamedUnit k_units[] = {
    {"m", "m", 1.0},
    {"dm", "dm", 0.1},
    {"cm", "cm", 0.01},
    {"mm", "mm", 0.001},
    {"in", "in", 0.0254},
    {"ft", "ft", 0.3048},
    {"cmu", "CMU unit (1/0.45 in)", k_cmu_unit},
};

const NamedUnit& unit(const char* key) {
  for (const NamedUnit& u : k_units) {
    if (std::string_view(u.key) == key) {
      return u;
    }
  }
  return k_units[0];
}

/// Of `candidates`, the unit whose `size` in metres lies closest to `target` (on a log scale).
const NamedUnit& closest(double size, double target,
                         std::initializer_list<const char*> candidates) {
  const NamedUnit* best = &unit(*candidates.begin());
  for (const char* key : candidates) {
    const NamedUnit& u = unit(key);
    if (std::fabs(std::log(size * u.metres / target)) <
        std::fabs(std::log(size * best->metres / target))) {
      best = &u;
    }
  }
  return *best;
}

std::string figure(double v) {
  return detail::describe(std::round(v * 1000.0) / 1000.0);
}

} // namespace

std::optional<double> parse_length_unit(std::string_view text) {
  for (const NamedUnit& u : k_units) {
    if (text == u.key) {
      return u.metres;
    }
  }
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value > 0.0) ||
      !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

namespace detail {

std::optional<double> declared_unit(std::string_view name) {
  // Writers pad fixed-width fields with spaces or NUL bytes ("m\0\0\0").
  const std::string_view padding(" \t\r\n\0", 5);
  const std::size_t first = name.find_first_not_of(padding);
  name = first == std::string_view::npos
             ? std::string_view()
             : name.substr(first, name.find_last_not_of(padding) - first + 1);
  std::string u(name);
  for (char& c : u) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  static const std::pair<const char*, double> names[] = {{"mm", 0.001},
                                                         {"millimeter", 0.001},
                                                         {"millimeters", 0.001},
                                                         {"millimetre", 0.001},
                                                         {"millimetres", 0.001},
                                                         {"cm", 0.01},
                                                         {"centimeter", 0.01},
                                                         {"centimeters", 0.01},
                                                         {"centimetre", 0.01},
                                                         {"centimetres", 0.01},
                                                         {"m", 1.0},
                                                         {"meter", 1.0},
                                                         {"meters", 1.0},
                                                         {"metre", 1.0},
                                                         {"metres", 1.0},
                                                         {"in", 0.0254},
                                                         {"inch", 0.0254},
                                                         {"inches", 0.0254}};
  for (const auto& [key, metres] : names) {
    if (u == key) {
      return metres;
    }
  }
  return std::nullopt;
}

UnitGuess infer_skeleton_unit(const Skeleton& skeleton) {
  std::vector<Vec3> rest(skeleton.joints.size());
  Vec3 low{INFINITY, INFINITY, INFINITY}, high{-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    // Roots are placed at the origin: their OFFSET is where the file puts the skeleton, not
    // part of its size.
    rest[j] =
        joint.parent < 0 ? Vec3{} : rest[static_cast<std::size_t>(joint.parent)] + joint.offset;
    low = {std::fmin(low.x, rest[j].x), std::fmin(low.y, rest[j].y), std::fmin(low.z, rest[j].z)};
    high = {std::fmax(high.x, rest[j].x), std::fmax(high.y, rest[j].y),
            std::fmax(high.z, rest[j].z)};
  }
  const double size = std::fmax(high.x - low.x, std::fmax(high.y - low.y, high.z - low.z));
  UnitGuess guess;
  if (!(size > 0.0) || !std::isfinite(size)) {
    guess.note = "length unit not declared and the skeleton has no size to infer it from: "
                 "positions kept as they are (taken as metres)";
    guess.name = "m";
    return guess;
  }
  const NamedUnit& u = closest(size, 1.7, {"m", "cm", "mm", "in", "cmu"});
  guess.metres = u.metres;
  guess.name = u.name;
  guess.note = "length unit not declared: inferred " + std::string(u.name) +
               " from the skeleton's rest-pose size, " + figure(size) +
               " file units = " + figure(size * u.metres) +
               " m, the size of a person (1.7 m) in no other of m, "
               "cm, mm, in, CMU units; set the unit to override";
  return guess;
}

bool infer_skeleton_up(const Skeleton& skeleton, Axis& axis, bool& negative, std::string& note) {
  std::vector<Vec3> rest(skeleton.joints.size());
  int head = -1;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    rest[j] =
        joint.parent < 0 ? Vec3{} : rest[static_cast<std::size_t>(joint.parent)] + joint.offset;
    std::string name = joint.name;
    for (char& c : name) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (head < 0 && !joint.end_site && name.find("head") != std::string::npos) {
      head = static_cast<int>(j);
    }
  }
  if (head < 0) {
    return false;
  }
  // The head's root, for skeletons with several roots.
  int root = head;
  while (skeleton.joints[static_cast<std::size_t>(root)].parent >= 0) {
    root = skeleton.joints[static_cast<std::size_t>(root)].parent;
  }
  const Vec3 up = rest[static_cast<std::size_t>(head)] - rest[static_cast<std::size_t>(root)];
  const double ax = std::fabs(up.x), ay = std::fabs(up.y), az = std::fabs(up.z);
  if (!(std::fmax(ax, std::fmax(ay, az)) > 0.0)) {
    return false;
  }
  axis = ax >= ay && ax >= az ? Axis::X : ay >= az ? Axis::Y : Axis::Z;
  const double along = axis == Axis::X ? up.x : axis == Axis::Y ? up.y : up.z;
  negative = along < 0.0;
  const char* name = axis == Axis::X ? "X" : axis == Axis::Y ? "Y" : "Z";
  note = std::string("up axis inferred: ") + (negative ? "-" : "+") + name + ", from joint '" +
         skeleton.joints[static_cast<std::size_t>(head)].name + "' " + describe(up) +
         " from the root in the rest pose";
  return true;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

double along(const Vec3& v, Axis axis) {
  return axis == Axis::X ? v.x : axis == Axis::Y ? v.y : v.z;
}

} // namespace

const char* axis_letter(Axis axis) {
  return axis == Axis::X ? "X" : axis == Axis::Y ? "Y" : "Z";
}

MotionUp::MotionUp(const Skeleton& skeleton) {
  int head = -1;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    if (joint.end_site) {
      continue;
    }
    const std::string name = lower(joint.name);
    if (head < 0 && name.find("head") != std::string::npos) {
      head = static_cast<int>(j);
    } else if (name.find("foot") != std::string::npos || name.find("toe") != std::string::npos ||
               name.find("ankle") != std::string::npos) {
      feet_.push_back(j);
    }
  }
  if (head < 0) {
    needed_.assign(skeleton.joints.size(), false);
    return;
  }
  head_ = static_cast<std::size_t>(head);
  head_name_ = skeleton.joints[head_].name;
  if (feet_.empty()) {
    int root = head;
    while (skeleton.joints[static_cast<std::size_t>(root)].parent >= 0) {
      root = skeleton.joints[static_cast<std::size_t>(root)].parent;
    }
    feet_.push_back(static_cast<std::size_t>(root));
  }
  std::vector<std::size_t> ends = feet_;
  ends.push_back(head_);
  needed_ = with_ancestors(skeleton, ends);
}

void MotionUp::add(const KinematicsBlock& block, std::size_t count) {
  if (head_name_.empty()) {
    return;
  }
  for (std::size_t f = 0; f < count; ++f) {
    Vec3 low;
    for (std::size_t foot : feet_) {
      low = low + block.pose(foot, f).p * (1.0 / static_cast<double>(feet_.size()));
    }
    ups_.push_back(block.pose(head_, f).p - low);
  }
}

bool MotionUp::infer(Axis& axis, bool& negative, std::string& note) const {
  const std::size_t frames = ups_.size();
  const std::size_t samples = std::min<std::size_t>(frames, 32);
  std::vector<Vec3> ups;
  Vec3 sum;
  for (std::size_t k = 0; k < samples; ++k) {
    const Vec3 up = ups_[k * frames / samples];
    const double n = norm(up);
    if (!(n > 0.0) || !std::isfinite(n)) {
      continue;
    }
    ups.push_back(up * (1.0 / n));
    sum = sum + ups.back();
  }
  if (ups.empty()) {
    return false;
  }
  const double ax = std::fabs(sum.x), ay = std::fabs(sum.y), az = std::fabs(sum.z);
  axis = ax >= ay && ax >= az ? Axis::X : ay >= az ? Axis::Y : Axis::Z;
  negative = along(sum, axis) < 0.0;
  // The share of frames in which that axis is the head's dominant direction, with that sign.
  std::size_t agree = 0;
  for (const Vec3& u : ups) {
    const double a = along(u, axis) * (negative ? -1.0 : 1.0);
    agree += a > 0.0 && a >= std::fabs(u.x) && a >= std::fabs(u.y) && a >= std::fabs(u.z);
  }
  const double share = static_cast<double>(agree) / static_cast<double>(ups.size());
  if (share < 0.8) {
    return false;
  }
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * share);
  note = std::string("up axis inferred from the motion: ") + (negative ? "-" : "+") +
         axis_letter(axis) + ", the direction from the feet to '" + head_name_ + "' in " + percent +
         " of " + std::to_string(ups.size()) + " frames";
  return true;
}

std::vector<std::string> name_tokens(const std::string& name) {
  std::vector<std::string> out(1);
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.back().empty()) {
      out.emplace_back();
    }
  }
  return out;
}

bool is_model_output(const std::string& name) {
  for (const std::string& t : name_tokens(name)) {
    for (const char* word : {"angle", "force", "moment", "power", "centreofmass", "centerofmass"}) {
      if (t.find(word) != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

bool infer_marker_up(const std::vector<const Track*>& tracks, double metres_per_unit, Axis& axis,
                     bool& negative, std::string& note) {
  if (!(metres_per_unit > 0.0) || !std::isfinite(metres_per_unit)) {
    return false; // no height to check the axis by
  }
  constexpr std::size_t k_frames = 64;
  constexpr std::size_t k_markers = 6;
  std::size_t n = 0;
  for (const Track* t : tracks) {
    n = std::max(n, t->size());
  }
  if (n == 0) {
    return false;
  }
  const std::size_t samples = std::min(n, k_frames);
  std::array<std::size_t, 3> votes{};
  std::array<std::size_t, 3> widest{}; // frames in which the axis spreads furthest, by any margin
  std::array<std::vector<double>, 3> spreads; // along each axis, every frame's spread
  std::size_t frames = 0;
  std::array<std::vector<double>, 3> coordinates; // along each axis, every frame's markers
  std::array<std::vector<double>, 3> frame;
  for (std::size_t k = 0; k < samples; ++k) {
    const std::size_t i = samples == 1 ? 0 : k * (n - 1) / (samples - 1);
    for (std::vector<double>& c : frame) {
      c.clear();
    }
    for (const Track* t : tracks) {
      if (i < t->size() && t->valid(i)) {
        const Vec3& p = t->position(i);
        if (p.x == 0.0 && p.y == 0.0 && p.z == 0.0) {
          continue; // some exporters write a marker they lost as 0 0 0
        }
        frame[0].push_back(p.x);
        frame[1].push_back(p.y);
        frame[2].push_back(p.z);
      }
    }
    if (frame[0].size() < k_markers) {
      continue;
    }
    ++frames;
    std::array<double, 3> spread{};
    for (int a = 0; a < 3; ++a) {
      std::vector<double>& c = frame[static_cast<std::size_t>(a)];
      const auto at = [&](double share) {
        const auto it = c.begin() + static_cast<std::ptrdiff_t>(
                                        share * static_cast<double>(c.size() - 1) + 0.5);
        std::nth_element(c.begin(), it, c.end());
        return *it;
      };
      spread[static_cast<std::size_t>(a)] = at(0.9) - at(0.1);
      spreads[static_cast<std::size_t>(a)].push_back(spread[static_cast<std::size_t>(a)]);
      coordinates[static_cast<std::size_t>(a)].insert(
          coordinates[static_cast<std::size_t>(a)].end(), c.begin(), c.end());
    }
    const std::size_t top =
        static_cast<std::size_t>(std::max_element(spread.begin(), spread.end()) - spread.begin());
    const double next = std::max(spread[(top + 1) % 3], spread[(top + 2) % 3]);
    if (spread[top] > next) {
      ++widest[top];
    }
    if (spread[top] >= 1.5 * next && spread[top] > 0.0) {
      ++votes[top];
    }
  }
  if (frames < 8) {
    return false;
  }
  std::size_t top =
      static_cast<std::size_t>(std::max_element(votes.begin(), votes.end()) - votes.begin());
  double share = static_cast<double>(votes[top]) / static_cast<double>(frames);
  std::string margin; // said in the note when the second test decided
  if (share < 0.8) {
    // A walk seen by few markers (a lower body's) spreads them along the walk by the stride,
    // in some frames nearly as far as up: the axis must then be the widest in 80% of the frames
    // and 1.5 times the next in the median frame.
    top = static_cast<std::size_t>(std::max_element(widest.begin(), widest.end()) - widest.begin());
    share = static_cast<double>(widest[top]) / static_cast<double>(frames);
    std::array<double, 3> median{};
    for (std::size_t a = 0; a < 3; ++a) {
      std::vector<double>& v = spreads[a];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      median[a] = v[v.size() / 2];
    }
    const double next = std::max(median[(top + 1) % 3], median[(top + 2) % 3]);
    if (share < 0.8 || !(median[top] >= 1.5 * next)) {
      return false;
    }
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", next > 0.0 ? median[top] / next : 0.0);
    margin = std::string(" (") + ratio + " times the next in the median frame)";
  }
  // Heights above a floor at the origin: the markers of a person lie between just below it and
  // a raised hand's reach. A horizontal axis of a lab with its origin in a corner has positive
  // coordinates too, but they run beyond that as the subject walks.
  const std::vector<double>& along_top = coordinates[top];
  const auto heights = [&](double sign) {
    return static_cast<double>(std::count_if(along_top.begin(), along_top.end(), [&](double c) {
      const double height = sign * c * metres_per_unit;
      return height >= -0.2 && height <= 2.5;
    }));
  };
  const double total = static_cast<double>(along_top.size());
  if (heights(1.0) >= 0.95 * total) {
    negative = false;
  } else if (heights(-1.0) >= 0.95 * total) {
    negative = true;
  } else {
    return false; // the origin is not on the floor: no sign to tell
  }
  axis = top == 0 ? Axis::X : top == 1 ? Axis::Y : Axis::Z;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * share);
  note = std::string("up axis inferred from the markers: ") + (negative ? "-" : "+") +
         axis_letter(axis) + ", the direction they spread furthest (a person upright) in " +
         percent + " of " + std::to_string(frames) + " frames" + margin +
         ", at heights of -0.2 to 2.5 m above the origin";
  return true;
}

bool infer_marker_up(const std::vector<Track>& tracks, double metres_per_unit, Axis& axis,
                     bool& negative, std::string& note) {
  std::vector<const Track*> all;
  all.reserve(tracks.size());
  for (const Track& t : tracks) {
    all.push_back(&t);
  }
  return infer_marker_up(all, metres_per_unit, axis, negative, note);
}

UnitGuess infer_coordinate_unit(const Capture& capture) {
  double largest = 0.0;
  for (const Track& t : capture.tracks()) {
    for (std::size_t i : t.valid_indices()) {
      const Vec3& p = t.position(i);
      largest =
          std::fmax(largest, std::fmax(std::fabs(p.x), std::fmax(std::fabs(p.y), std::fabs(p.z))));
    }
  }
  UnitGuess guess;
  guess.name = "m";
  if (!(largest > 0.0)) {
    guess.note = "length unit not declared and no position to infer it from: taken as metres";
    return guess;
  }
  const NamedUnit& u = closest(largest, 2.0, {"m", "cm", "mm"});
  guess.metres = u.metres;
  guess.name = u.name;
  guess.note = "length unit not declared: inferred " + std::string(u.name) +
               " from the largest coordinate, " + figure(largest) +
               " file units = " + figure(largest * u.metres) +
               " m (a capture volume reaches a few metres from "
               "its origin); set the unit to override";
  return guess;
}

} // namespace detail
} // namespace odemocap
