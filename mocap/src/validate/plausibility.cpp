#include "formats/units.hpp" // infer_marker_up, name_tokens, is_model_output

#include <odemocap/plausibility.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace odemocap {
namespace {

constexpr std::size_t k_frames = 64;

/// Strips a side prefix (l, r, left, right) from a marker token: "lfhd" -> "fhd".
std::string unsided(const std::string& t) {
  for (const char* side : {"left", "right", "l", "r"}) {
    const std::string s(side);
    if (t.size() > s.size() && t.compare(0, s.size(), s) == 0) {
      return t.substr(s.size());
    }
  }
  return t;
}

/// Joint names (Head, LeftFoot, RightToeBase) and the usual marker labels: Plug-in Gait's
/// LFHD/RBHD and LTOE/LHEE/LANK, Qualisys' L_HDF and L_FM1/L_FCC.
bool is_head(const std::string& name) {
  for (const std::string& t : detail::name_tokens(name)) {
    const std::string u = unsided(t);
    if (t.find("head") != std::string::npos || u == "fhd" || u == "bhd" || u == "hdf" ||
        u == "hdb" || t == "hd") {
      return true;
    }
  }
  return false;
}

bool is_foot(const std::string& name) {
  for (const std::string& t : detail::name_tokens(name)) {
    const std::string u = unsided(t);
    if (t.find("foot") != std::string::npos || t.find("toe") != std::string::npos ||
        t.find("heel") != std::string::npos || t.find("ankle") != std::string::npos ||
        u == "hee" || u == "ank" || u == "fcc" || u == "fm1" || u == "fm2" || u == "fm5") {
      return true;
    }
  }
  return false;
}

/// A valid sample that is not exactly the origin (where writers put markers they lost).
bool placed(const Track& t, std::size_t i) {
  if (i >= t.size() || !t.valid(i)) {
    return false;
  }
  const Vec3& p = t.position(i);
  return p.x != 0.0 || p.y != 0.0 || p.z != 0.0;
}

double along(const Vec3& v, Axis axis) {
  return axis == Axis::X ? v.x : axis == Axis::Y ? v.y : v.z;
}

double median(std::vector<double> v) {
  if (v.empty()) {
    return 0.0;
  }
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string metres(double v) {
  char text[32];
  if (v < 0.1) {
    std::snprintf(text, sizeof text, "%.3g mm", v * 1000.0);
  } else {
    std::snprintf(text, sizeof text, "%.3g m", v);
  }
  return text;
}

/// Of the usual unit mix-ups, the factor that brings `size` closest to a person's 2 m.
double likely_factor(double size) {
  double best = 1.0;
  for (double k : {1000.0, 100.0, 10.0, 0.1, 0.01, 0.001}) {
    if (std::fabs(std::log(size * k / 2.0)) < std::fabs(std::log(size * best / 2.0))) {
      best = k;
    }
  }
  return best;
}

/// "1000 times too small" and what usually causes it, for a size that `factor` would make
/// plausible.
std::string unit_cause(double factor) {
  const double k = factor >= 1.0 ? factor : 1.0 / factor;
  char text[64];
  std::snprintf(text, sizeof text, "%g times too %s", std::round(k),
                factor >= 1.0 ? "small" : "large");
  std::string why = text;
  if (std::fabs(factor - 1000.0) < 1.0) {
    why += ": a length unit read as millimetres that is metres (check the file's declared unit)";
  } else if (std::fabs(factor - 0.001) < 1e-6) {
    why += ": millimetres read as metres (check the file's declared unit)";
  } else {
    why += ": the length unit is likely wrong (set it with the unit option)";
  }
  return why;
}

/// The tracks that are places on a body or object (model outputs left out).
std::vector<const Track*> places_of(const Capture& capture) {
  std::vector<const Track*> places;
  for (const Track& t : capture.tracks()) {
    if (!detail::is_model_output(t.name())) {
      places.push_back(&t);
    }
  }
  return places;
}

} // namespace

CaptureExtent measure_extent(const Capture& capture) {
  CaptureExtent out;
  const double m = capture.info().metres_per_unit();
  if (!(m > 0.0) || capture.tracks().empty()) {
    return out;
  }
  std::size_t n = 0;
  std::vector<const Track*> heads, feet;
  const std::vector<const Track*> places = places_of(capture);
  for (const Track* t : places) {
    n = std::max(n, t->size());
    if (is_head(t->name())) {
      heads.push_back(t);
    } else if (is_foot(t->name())) {
      feet.push_back(t);
    }
  }
  out.person = !heads.empty() && !feet.empty();
  const Axis up = capture.info().up_axis;
  std::vector<double> sizes, heights;
  std::size_t person_frames = 0, head_above = 0;
  const std::size_t samples = std::min(n, k_frames);
  for (std::size_t k = 0; k < samples; ++k) {
    const std::size_t i = samples == 1 ? 0 : k * (n - 1) / (samples - 1);
    Vec3 low{INFINITY, INFINITY, INFINITY}, high{-INFINITY, -INFINITY, -INFINITY};
    std::size_t points = 0;
    for (const Track* t : places) {
      if (!placed(*t, i)) {
        continue;
      }
      const Vec3 p = t->position(i) * m;
      low = {std::fmin(low.x, p.x), std::fmin(low.y, p.y), std::fmin(low.z, p.z)};
      high = {std::fmax(high.x, p.x), std::fmax(high.y, p.y), std::fmax(high.z, p.z)};
      ++points;
    }
    if (points < 3) {
      continue;
    }
    const Vec3 d = high - low;
    sizes.push_back(std::fmax(d.x, std::fmax(d.y, d.z)));
    heights.push_back(along(d, up));
    if (!out.person) {
      continue;
    }
    double head = 0.0, foot = 0.0;
    std::size_t h = 0, f = 0;
    for (const Track* t : heads) {
      if (placed(*t, i)) {
        head += along(t->position(i), up);
        ++h;
      }
    }
    for (const Track* t : feet) {
      if (placed(*t, i)) {
        foot += along(t->position(i), up);
        ++f;
      }
    }
    if (h > 0 && f > 0) {
      ++person_frames;
      head_above += head / static_cast<double>(h) > foot / static_cast<double>(f);
    }
  }
  out.frames = sizes.size();
  out.size = median(sizes);
  out.height = median(heights);
  out.head_above = person_frames == 0 ? 1.0
                                      : static_cast<double>(head_above) /
                                            static_cast<double>(person_frames);
  return out;
}

std::vector<Finding> check_plausibility(const Capture& capture) {
  std::vector<Finding> out;
  const CaptureExtent e = measure_extent(capture);
  if (e.frames == 0) {
    return out;
  }
  const auto warn = [&](const char* check, double value, const std::string& message) {
    out.push_back({check, Severity::Warning, "", 0, 0, value, message});
  };
  if (e.size < 0.02) {
    warn("implausible-size", e.size,
         "every position lies within " + metres(e.size) +
             ": no person or tracked object is that small; " + unit_cause(likely_factor(e.size)));
  } else if (e.size > 50.0) {
    warn("implausible-size", e.size,
         "the positions spread over " + metres(e.size) + ", more than any capture volume; " +
             unit_cause(likely_factor(e.size)));
  } else if (e.person && e.height > 2.5) {
    warn("implausible-size", e.height,
         "the subject is " + metres(e.height) +
             " tall along the up axis (a person is under 2.5 m): bones doubled (BVH joints whose "
             "position channels repeat their OFFSET, read as OFFSET + channels), or a wrong unit");
  } else if (e.person && e.size < 0.5) {
    warn("implausible-size", e.size,
         "the subject measures " + metres(e.size) +
             " across (a person is more than 0.5 m): a wrong length unit");
  }
  const bool upside_down = e.person && e.head_above < 0.5;
  if (upside_down) {
    char share[16];
    std::snprintf(share, sizeof share, "%.0f%%", 100.0 * (1.0 - e.head_above));
    const char* axis = detail::axis_letter(capture.info().up_axis);
    warn("upside-down", 1.0 - e.head_above,
         std::string("the head is below the feet along +") + axis + " in " + share +
             " of the frames: the up axis or its sign is wrong (check the file's declared up "
             "axis, or set one)");
  }
  // The positions themselves, named or not: a person upright spreads furthest along the up
  // axis, above a floor at the origin (infer_marker_up, which TRC files are loaded by). Where
  // the head-and-feet check fired it has said it already.
  Axis stands = Axis::Z;
  bool down = false;
  std::string evidence;
  const Axis up = capture.info().up_axis;
  if (!upside_down &&
      detail::infer_marker_up(places_of(capture), capture.info().metres_per_unit(), stands, down,
                              evidence) &&
      (stands != up || down)) {
    const std::string source = capture.info().up_axis_source;
    warn("up-axis", 1.0,
         std::string("the positions stand along ") + (down ? "-" : "+") +
             detail::axis_letter(stands) + ", not along the capture's up axis +" +
             detail::axis_letter(up) + (source.empty() ? std::string() : " (" + source + ")") +
             ": " + evidence.substr(evidence.find(", ") + 2) +
             "; the file's up axis is wrong (set the right one when loading)");
  }
  return out;
}

} // namespace odemocap
