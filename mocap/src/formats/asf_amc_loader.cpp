// Acclaim ASF/AMC (CMU's native skeleton and motion). ASF: :units (mass, length, angle),
// :root (order, axis, position, orientation), :bonedata (per bone: name, direction, length,
// axis + order, dof, limits) and :hierarchy. AMC: per frame its number, then "bone values"
// lines, root values in the :root order, bone values in its dof order.
//
// Forward kinematics (the Acclaim convention): every bone's rest frame is aligned with the
// world; its axis angles give C, the frame the dof rotations are about. With E the bone's
// rotation from its dof values, M_bone = M_parent C E C^-1 and the bone's end is
// start + length M_bone direction. Euler angles, for C and for E, compose in the order listed
// (C's axis order, E's dof or root order), each about the fixed axes: R(z) R(y) R(x) for "XYZ"
// or "rx ry rz" (x turns first), R(x) R(y) R(z) for "rz ry rx".
// A bone's track is at its start (the joint it turns about), oriented by M_bone, like a BVH
// joint's: the CMU BVH conversions name these joints LeftHip for lfemur and so on.

#include "checks.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace odemocap {
namespace {

using detail::quote;
using detail::trim;

constexpr double k_pi = 3.14159265358979323846;
constexpr std::size_t k_max_bones = 10000;

/// Lines of a text with their numbers; comments (#) and blank lines dropped.
struct Line {
  std::string_view text;
  std::size_t number;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (std::size_t number = 1; start <= text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(start, end - start);
    const std::size_t hash = line.find('#');
    line = trim(hash == std::string_view::npos ? line : line.substr(0, hash));
    if (!line.empty()) {
      out.push_back({line, number});
    }
    start = end + 1;
  }
  return out;
}

/// The words of `line` (separated by white space and parentheses) into `out`.
void split_words(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' ||
                               line[i] == '(' || line[i] == ')')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' ||
                                line[i] == '(' || line[i] == ')')) {
      ++i;
    }
    if (i > start) {
      out.push_back(line.substr(start, i - start));
    }
  }
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  split_words(line, out);
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

/// Rotation of Euler angles (radians) about x, y, z (a[0], a[1], a[2]) composed for `order`,
/// e.g. "XYZ": Rz Ry Rx.
Quat euler(const Vec3& a, std::string_view order) {
  Quat q;
  for (char axis : order) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(axis)));
    const Vec3 unit = c == 'X' ? Vec3{1, 0, 0} : c == 'Y' ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
    const double angle = c == 'X' ? a.x : c == 'Y' ? a.y : a.z;
    if (angle != 0.0) { // bones turn about one or two of their axes: skip the rest
      q = from_axis_angle(unit, angle) * q;
    }
  }
  return q;
}

/// `q` turned further by `angle` (radians) about the fixed `axis`; zero angles (a bone turns
/// about one or two of its axes in most frames) leave it as it is.
Quat turned(const Quat& q, const Vec3& axis, double angle) {
  return angle == 0.0 ? q : from_axis_angle(axis, angle) * q;
}

enum class Dof : std::uint8_t { Rx, Ry, Rz, Tx, Ty, Tz, L };

bool dof_of(std::string_view word, Dof& out) {
  const std::string w = lower(word);
  static const std::pair<const char*, Dof> names[] = {
      {"rx", Dof::Rx}, {"ry", Dof::Ry}, {"rz", Dof::Rz}, {"tx", Dof::Tx},
      {"ty", Dof::Ty}, {"tz", Dof::Tz}, {"l", Dof::L}};
  for (const auto& [name, dof] : names) {
    if (w == name) {
      out = dof;
      return true;
    }
  }
  return false;
}

struct Bone {
  std::string name;
  Vec3 direction;
  double length = 0.0;
  Quat c; ///< axis frame
  std::vector<Dof> dofs;
  int parent = -1; ///< index in bones, -1 for the root
  std::size_t line = 0;
};

struct Asf {
  double length_factor = 1.0; ///< :units length
  bool degrees = true;        ///< :units angle
  std::vector<Dof> root_order;
  Quat root_c;
  Vec3 root_position;
  std::vector<Bone> bones; ///< bones[0] is the root; parents before children after sorting
};

class Reader {
public:
  Reader(std::string path) : path_(std::move(path)) {}
  [[noreturn]] void fail(std::size_t line, const std::string& message) const {
    throw LoadError(path_, line, 0, message);
  }
  double number(std::string_view word, std::size_t line, const char* what) const {
    double v = 0.0;
    if (!detail::parse_double(word, v)) {
      fail(line, std::string(what) + ": not a number: " + quote(word));
    }
    return v;
  }
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

/// Refuses an axis order that is not X, Y and Z once each (any case): euler() would read any
/// other letter as Z.
void check_axis_order(std::string_view word, std::size_t line, const Reader& r) {
  const std::string w = lower(word);
  if (w.size() != 3 || std::count(w.begin(), w.end(), 'x') != 1 ||
      std::count(w.begin(), w.end(), 'y') != 1 || std::count(w.begin(), w.end(), 'z') != 1) {
    r.fail(line, "axis order must name x, y and z once each, found " + quote(word));
  }
}

/// Refuses a channel listed twice: its second value would silently replace or add to the first.
void check_new(const std::vector<Dof>& listed, Dof d, std::string_view word, std::size_t line,
               const Reader& r) {
  if (std::find(listed.begin(), listed.end(), d) != listed.end()) {
    r.fail(line, "channel " + quote(word) + " listed twice");
  }
}

Asf parse_asf(std::string_view text, const Reader& r) {
  Asf asf;
  asf.bones.push_back({"root", {}, 0.0, Quat{}, {}, -1, 0});
  const std::vector<Line> lines = lines_of(text);
  std::string section;
  Bone* bone = nullptr;
  std::map<std::string, std::size_t, std::less<>> index{{"root", 0}};
  std::vector<std::pair<Line, std::vector<std::string_view>>> hierarchy;
  double angle_unit = k_pi / 180.0;
  std::vector<std::string_view> axis_words, orientation_words;
  std::size_t orientation_line = 0;
  for (const Line& line : lines) {
    const std::vector<std::string_view> w = words(line.text);
    if (w.empty()) {
      continue; // only parentheses
    }
    if (w[0][0] == ':') {
      section = lower(w[0]);
      continue;
    }
    if (section == ":units" && w.size() >= 2) {
      if (lower(w[0]) == "length") {
        asf.length_factor = r.number(w[1], line.number, "units length");
        if (!(asf.length_factor > 0.0)) {
          r.fail(line.number, "units length must be positive");
        }
      } else if (lower(w[0]) == "angle") {
        const std::string unit = lower(w[1]);
        if (unit != "deg" && unit != "rad") {
          r.fail(line.number, "units angle must be deg or rad, found " + quote(w[1]));
        }
        asf.degrees = unit == "deg";
        angle_unit = asf.degrees ? k_pi / 180.0 : 1.0;
      }
    } else if (section == ":root") {
      const std::string key = lower(w[0]);
      if (key == "order") {
        for (std::size_t i = 1; i < w.size(); ++i) {
          Dof d;
          if (!dof_of(w[i], d)) {
            r.fail(line.number, "root order: unknown channel " + quote(w[i]));
          }
          check_new(asf.root_order, d, w[i], line.number, r);
          asf.root_order.push_back(d);
        }
      } else if (key == "axis" && w.size() == 2) {
        check_axis_order(w[1], line.number, r);
        axis_words = {w[1]};
      } else if (key == "position" && w.size() == 4) {
        asf.root_position = {r.number(w[1], line.number, "root position"),
                             r.number(w[2], line.number, "root position"),
                             r.number(w[3], line.number, "root position")};
      } else if (key == "orientation" && w.size() == 4) {
        orientation_words = {w[1], w[2], w[3]};
        orientation_line = line.number;
      }
    } else if (section == ":bonedata") {
      const std::string key = lower(w[0]);
      if (key == "begin") {
        if (asf.bones.size() > k_max_bones) {
          r.fail(line.number, "more than " + std::to_string(k_max_bones) + " bones");
        }
        asf.bones.push_back({});
        bone = &asf.bones.back();
        bone->line = line.number;
      } else if (key == "end") {
        bone = nullptr;
      } else if (bone == nullptr) {
        r.fail(line.number, "bone data outside begin ... end: " + quote(line.text));
      } else if (key == "name" && w.size() == 2) {
        bone->name = std::string(w[1]);
      } else if (key == "direction" && w.size() == 4) {
        bone->direction = {r.number(w[1], line.number, "direction"),
                           r.number(w[2], line.number, "direction"),
                           r.number(w[3], line.number, "direction")};
      } else if (key == "length" && w.size() == 2) {
        bone->length = r.number(w[1], line.number, "length");
      } else if (key == "axis" && w.size() == 5) {
        check_axis_order(w[4], line.number, r);
        const Vec3 a{r.number(w[1], line.number, "axis"), r.number(w[2], line.number, "axis"),
                     r.number(w[3], line.number, "axis")};
        bone->c = euler(a * angle_unit, w[4]);
      } else if (key == "dof") {
        for (std::size_t i = 1; i < w.size(); ++i) {
          Dof d;
          if (!dof_of(w[i], d)) {
            r.fail(line.number, "dof: unknown degree of freedom " + quote(w[i]));
          }
          check_new(bone->dofs, d, w[i], line.number, r);
          bone->dofs.push_back(d);
        }
      }
      // id, bodymass, cofmass and limits are not needed for kinematics.
    } else if (section == ":hierarchy") {
      const std::string key = lower(w[0]);
      if (key != "begin" && key != "end") {
        hierarchy.push_back({line, w});
      }
    }
  }
  if (!orientation_words.empty()) {
    const Vec3 o{r.number(orientation_words[0], orientation_line, "root orientation"),
                 r.number(orientation_words[1], orientation_line, "root orientation"),
                 r.number(orientation_words[2], orientation_line, "root orientation")};
    asf.root_c = euler(o * angle_unit, axis_words.empty() ? "XYZ" : axis_words[0]);
  }
  if (asf.root_order.empty()) {
    asf.root_order = {Dof::Tx, Dof::Ty, Dof::Tz, Dof::Rx, Dof::Ry, Dof::Rz};
  }
  for (std::size_t b = 1; b < asf.bones.size(); ++b) {
    Bone& x = asf.bones[b];
    if (x.name.empty()) {
      r.fail(x.line, "a bone without a name");
    }
    if (!index.emplace(x.name, b).second) {
      r.fail(x.line, "a second bone named " + quote(x.name));
    }
    const double n = norm(x.direction);
    if (!(n > 0.0) || !std::isfinite(n) || !std::isfinite(x.length) || x.length < 0.0) {
      r.fail(x.line, "bone " + quote(x.name) + " needs a direction and a length >= 0");
    }
    x.direction = x.direction / n;
  }
  for (const auto& [line, w] : hierarchy) {
    const auto parent = index.find(w[0]);
    if (parent == index.end()) {
      r.fail(line.number, "hierarchy: unknown bone " + quote(w[0]));
    }
    for (std::size_t i = 1; i < w.size(); ++i) {
      const auto child = index.find(w[i]);
      if (child == index.end() || child->second == 0) {
        r.fail(line.number, "hierarchy: unknown bone " + quote(w[i]));
      }
      Bone& c = asf.bones[child->second];
      if (c.parent >= 0) {
        r.fail(line.number, "hierarchy: bone " + quote(w[i]) + " has two parents");
      }
      c.parent = static_cast<int>(parent->second);
    }
  }
  for (std::size_t b = 1; b < asf.bones.size(); ++b) {
    if (asf.bones[b].parent < 0) {
      r.fail(asf.bones[b].line, "bone " + quote(asf.bones[b].name) + " is not in the hierarchy");
    }
  }
  return asf;
}

/// Bones in an order where every parent comes before its children (refuses cycles).
std::vector<std::size_t> parents_first(const Asf& asf, const Reader& r) {
  std::vector<std::size_t> order{0};
  std::vector<bool> placed(asf.bones.size(), false);
  placed[0] = true;
  for (std::size_t k = 0; k < order.size(); ++k) {
    for (std::size_t b = 1; b < asf.bones.size(); ++b) {
      if (!placed[b] && asf.bones[b].parent == static_cast<int>(order[k])) {
        placed[b] = true;
        order.push_back(b);
      }
    }
  }
  if (order.size() != asf.bones.size()) {
    r.fail(0, "the hierarchy has a cycle: not every bone hangs from the root");
  }
  return order;
}

/// The rest pose's largest extent in file units: the bones laid end to end from the root along
/// their directions.
double rest_size(const Asf& asf, const std::vector<std::size_t>& order) {
  std::vector<Vec3> end(asf.bones.size());
  Vec3 low, high;
  for (std::size_t b : order) {
    const Bone& bone = asf.bones[b];
    const Vec3 start = bone.parent < 0 ? Vec3{} : end[static_cast<std::size_t>(bone.parent)];
    end[b] = start + bone.direction * bone.length;
    low = {std::fmin(low.x, end[b].x), std::fmin(low.y, end[b].y), std::fmin(low.z, end[b].z)};
    high = {std::fmax(high.x, end[b].x), std::fmax(high.y, end[b].y), std::fmax(high.z, end[b].z)};
  }
  return std::fmax(high.x - low.x, std::fmax(high.y - low.y, high.z - low.z));
}

/// Metres per ASF length unit. CMU's files mean inches / :units length (0.45); other
/// exporters write metres, centimetres or millimetres under the same keyword. CMU's reading is
/// kept when it makes the rest pose the size of a person (1 to 2.4 m across: standing height or
/// arm span); otherwise the reading closest to 1.7 m, with a note giving both sizes.
double asf_unit(const Asf& asf, double size, std::string& name, std::vector<std::string>& notes) {
  const double cmu = 0.0254 / asf.length_factor;
  name = "in/" + detail::describe(asf.length_factor);
  if (!(size > 0.0) || !std::isfinite(size) || (size * cmu >= 1.0 && size * cmu <= 2.4)) {
    return cmu;
  }
  struct Reading {
    const char* name;
    double metres;
  };
  const Reading readings[] = {{"m", 1.0}, {"cm", 0.01}, {"mm", 0.001}, {"in", 0.0254}};
  const Reading* best = &readings[0];
  for (const Reading& r : readings) {
    if (std::fabs(std::log(size * r.metres / 1.7)) < std::fabs(std::log(size * best->metres / 1.7))) {
      best = &r;
    }
  }
  const auto metres = [](double v) { return detail::describe(std::round(v * 1000.0) / 1000.0); };
  notes.push_back(":units length " + detail::describe(asf.length_factor) +
                  " read as CMU's convention (inches / length) makes the skeleton " +
                  metres(size * cmu) + " m across, not a person's size; its numbers read as " +
                  best->name + " make it " + metres(size * best->metres) + " m: " + best->name +
                  " used (set the unit to override)");
  name = best->name;
  return best->metres;
}

} // namespace

Capture parse_asf_amc(std::string_view asf_text, std::string_view amc_text, std::string_view source,
                      const LoadOptions& options, std::string_view asf_source) {
  detail::check_options(options, source);
  const Reader asf_reader(asf_source.empty() ? std::string(source) + " (skeleton)"
                                             : std::string(asf_source));
  const Reader r{std::string(source)};
  const Asf asf = parse_asf(asf_text, asf_reader);
  const std::vector<std::size_t> order = parents_first(asf, asf_reader);
  const std::size_t n = asf.bones.size();

  // Frames: the number line, then one line per bone with its values.
  const std::vector<Line> lines = lines_of(amc_text);
  bool degrees = true;
  std::vector<std::size_t> frame_starts;
  std::map<std::string_view, std::size_t, std::less<>> index;
  for (std::size_t b = 0; b < n; ++b) {
    index.emplace(asf.bones[b].name, b);
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = lines[i].text;
    if (t[0] == ':') {
      const std::string key = lower(t);
      degrees = key == ":radians" ? false : key == ":degrees" ? true : degrees;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(t[0])) && t.find(' ') == std::string_view::npos &&
        t.find('\t') == std::string_view::npos) {
      frame_starts.push_back(i);
    } else if (frame_starts.empty()) {
      r.fail(lines[i].number, "expected a frame number before " + quote(t));
    }
  }
  if (frame_starts.empty()) {
    r.fail(0, "the motion (AMC) has no frames");
  }
  const double angle = degrees ? k_pi / 180.0 : 1.0;
  double rate = options.frame_rate > 0.0 ? options.frame_rate : 120.0;

  CaptureInfo info;
  info.source = std::string(source);
  info.format = to_string(Format::AsfAmc);
  info.frame_rate = rate;
  std::string unit_name;
  const double unit = asf_unit(asf, rest_size(asf, order), unit_name, info.notes);
  info.length_unit = unit_name;
  if (options.frame_rate == 0.0) {
    info.notes.push_back("AMC files do not state a frame rate: 120 Hz (CMU's) assumed "
                         "(LoadOptions::frame_rate sets it)");
  }
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Y, unit, info);
  if (unit != 0.0254 / asf.length_factor && options.unit_in_metres <= 0.0) {
    info.unit_source = "inferred"; // the note above gives the evidence
  }

  const detail::TrackSelection selection(options.tracks);
  std::vector<std::string> names;
  std::vector<Track> tracks;
  std::vector<int> track_of(n, -1);
  for (std::size_t b : order) {
    const std::string& name = asf.bones[b].name;
    names.push_back(name);
    if (selection.keep(name)) {
      track_of[b] = static_cast<int>(tracks.size());
      tracks.emplace_back(name);
      tracks.back().reserve(frame_starts.size());
    }
    if (options.end_sites && b != 0 && selection.keep(name + "_End")) {
      names.push_back(name + "_End");
    }
  }
  selection.check_found(names, source);
  std::vector<Track> ends;
  std::vector<int> end_of(n, -1);
  if (options.end_sites) {
    for (std::size_t b : order) {
      if (b != 0 && selection.keep(asf.bones[b].name + "_End")) {
        end_of[b] = static_cast<int>(ends.size());
        ends.emplace_back(asf.bones[b].name + "_End");
      }
    }
  }

  std::vector<std::vector<double>> values(n);
  std::vector<Quat> m(n);
  std::vector<Vec3> start(n), end(n);
  std::vector<std::string_view> w;
  std::vector<std::size_t> bone_of_line; // the previous frame's order: frames repeat it
  // A frame that leaves out a bone with degrees of freedom says nothing of where that bone and
  // everything below it are: gaps, not the rest pose (which shows as 200 rad/s spikes).
  std::vector<bool> known(n);
  std::size_t incomplete_frames = 0;
  std::string first_incomplete;
  for (std::size_t f = 0; f < frame_starts.size(); ++f) {
    for (auto& v : values) {
      v.clear();
    }
    const std::size_t first = frame_starts[f] + 1;
    const std::size_t last = f + 1 < frame_starts.size() ? frame_starts[f + 1] : lines.size();
    for (std::size_t i = first; i < last; ++i) {
      if (lines[i].text[0] == ':') {
        continue;
      }
      split_words(lines[i].text, w);
      if (w.empty()) {
        continue; // only parentheses
      }
      const std::size_t k = i - first;
      std::size_t b = k < bone_of_line.size() ? bone_of_line[k] : n;
      if (b == n || asf.bones[b].name != w[0]) {
        const auto it = index.find(w[0]);
        if (it == index.end()) {
          r.fail(lines[i].number, "frame " + std::string(lines[frame_starts[f]].text) +
                                      ": unknown bone " + quote(w[0]));
        }
        b = it->second;
        bone_of_line.resize(std::max(bone_of_line.size(), k + 1), n);
        bone_of_line[k] = b;
      }
      const std::size_t want = b == 0 ? asf.root_order.size() : asf.bones[b].dofs.size();
      if (w.size() - 1 != want) {
        r.fail(lines[i].number, "bone " + quote(w[0]) + " has " + std::to_string(want) +
                                    " degree(s) of freedom, found " + std::to_string(w.size() - 1) +
                                    " value(s)");
      }
      for (std::size_t v = 1; v < w.size(); ++v) {
        values[b].push_back(r.number(w[v], lines[i].number, "a motion value"));
      }
    }
    const double t = static_cast<double>(f) / rate;
    std::string missing;
    for (std::size_t b : order) {
      const Bone& bone = asf.bones[b];
      const std::vector<Dof>& dofs = b == 0 ? asf.root_order : bone.dofs;
      const bool given = dofs.empty() || !values[b].empty();
      if (!given) {
        missing += (missing.empty() ? "'" : ", '") + bone.name + "'";
      }
      known[b] = given && (b == 0 || known[static_cast<std::size_t>(bone.parent)]);
      if (!known[b]) {
        try {
          if (track_of[b] >= 0) {
            tracks[static_cast<std::size_t>(track_of[b])].append_gap(t);
          }
          if (end_of[b] >= 0) {
            ends[static_cast<std::size_t>(end_of[b])].append_gap(t);
          }
        } catch (const MocapError& e) {
          r.fail(lines[frame_starts[f]].number,
                 "frame " + std::string(lines[frame_starts[f]].text) + ": " + e.what());
        }
        continue;
      }
      // The rotations compose in the order the skeleton lists them, each about the fixed axes
      // of the bone's axis frame (the ASF definition's "order of transformation"): CMU's
      // "rx ry rz" gives Rz Ry Rx, the definition's own root example "rz ry rx" Rx Ry Rz.
      Quat turn;
      Vec3 translation;
      bool translated = false;
      double stretch = 0.0;
      for (std::size_t k = 0; k < dofs.size() && k < values[b].size(); ++k) {
        const double v = values[b][k];
        switch (dofs[k]) {
        case Dof::Rx: turn = turned(turn, {1, 0, 0}, v * angle); break;
        case Dof::Ry: turn = turned(turn, {0, 1, 0}, v * angle); break;
        case Dof::Rz: turn = turned(turn, {0, 0, 1}, v * angle); break;
        case Dof::Tx:
          translation.x = v;
          translated = true;
          break;
        case Dof::Ty:
          translation.y = v;
          translated = true;
          break;
        case Dof::Tz:
          translation.z = v;
          translated = true;
          break;
        case Dof::L: stretch = v; break;
        }
      }
      const Quat c = b == 0 ? asf.root_c : bone.c;
      if (b == 0) {
        m[0] = c * turn * conj(c);
        // The root's translation channels are its position (absolute, as CMU writes them).
        start[0] = translated ? translation : asf.root_position;
        end[0] = start[0];
      } else {
        const auto p = static_cast<std::size_t>(bone.parent);
        m[b] = m[p] * c * turn * conj(c);
        start[b] = end[p];
        end[b] = start[b] + rotate(m[b], bone.direction * (bone.length + stretch));
      }
      try {
        if (track_of[b] >= 0) {
          tracks[static_cast<std::size_t>(track_of[b])].append(
              t, conversion.apply({start[b], m[b]})); // append renormalises the product
        }
        if (end_of[b] >= 0) {
          ends[static_cast<std::size_t>(end_of[b])].append(t, conversion.apply({end[b], m[b]}));
        }
      } catch (const MocapError& e) {
        r.fail(lines[frame_starts[f]].number,
               "frame " + std::string(lines[frame_starts[f]].text) + ": " + e.what());
      }
    }
    if (!missing.empty()) {
      if (options.strict) {
        r.fail(lines[frame_starts[f]].number,
               "frame " + std::string(lines[frame_starts[f]].text) + " leaves out " + missing);
      }
      if (incomplete_frames++ == 0) {
        first_incomplete = "frame " + std::string(lines[frame_starts[f]].text) + " (line " +
                           std::to_string(lines[frame_starts[f]].number) + ") leaves out " +
                           missing;
      }
    }
  }
  if (incomplete_frames > 0) {
    info.tolerated.push_back(std::to_string(incomplete_frames) +
                             " frame(s) leave out bones, first " + first_incomplete +
                             ": those bones and the bones below them are gaps in those frames");
    info.notes.push_back(info.tolerated.back());
  }

  // The rest pose as a skeleton (offsets in the world-aligned rest frames, file units): a
  // joint per bone at its start, so a bone's offset is its parent bone's vector.
  Skeleton skeleton;
  std::vector<int> joint_of(n, -1);
  for (std::size_t b : order) {
    Joint joint;
    joint.name = asf.bones[b].name;
    if (b != 0) {
      const Bone& parent = asf.bones[static_cast<std::size_t>(asf.bones[b].parent)];
      joint.parent = joint_of[static_cast<std::size_t>(asf.bones[b].parent)];
      joint.offset = parent.direction * parent.length;
    }
    joint_of[b] = static_cast<int>(skeleton.joints.size());
    skeleton.joints.push_back(joint);
  }
  for (std::size_t b : order) { // bone ends without children become End Sites
    bool leaf = b != 0;
    for (std::size_t c = 1; c < n; ++c) {
      leaf = leaf && asf.bones[c].parent != static_cast<int>(b);
    }
    if (leaf) {
      Joint site;
      site.name = asf.bones[b].name + "_End";
      site.parent = joint_of[b];
      site.offset = asf.bones[b].direction * asf.bones[b].length;
      site.end_site = true;
      skeleton.joints.push_back(site);
    }
  }
  skeleton.frame_time = 1.0 / rate;

  Capture capture(std::move(info));
  for (Track& track : tracks) {
    track.make_continuous();
    capture.add_track(std::move(track));
  }
  for (Track& track : ends) {
    track.make_continuous();
    capture.add_track(std::move(track));
  }
  capture.set_skeleton(std::move(skeleton));
  return capture;
}

namespace detail {

std::string find_asf_for(const std::string& amc_path) {
  namespace fs = std::filesystem;
  const fs::path amc(amc_path);
  const std::string stem = amc.stem().string();
  const fs::path dir = amc.parent_path().empty() ? fs::path(".") : amc.parent_path();
  std::error_code ec;
  // CMU names trials <subject>_<trial>.amc beside <subject>.asf.
  const std::size_t underscore = stem.find('_');
  if (underscore != std::string::npos) {
    for (const char* ext : {".asf", ".ASF"}) {
      const fs::path candidate = dir / (stem.substr(0, underscore) + ext);
      if (fs::is_regular_file(candidate, ec)) {
        return candidate.string();
      }
    }
  }
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string ext = entry.path().extension().string();
    for (char& c : ext) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (ext == ".asf") {
      found.push_back(entry.path().string());
    }
  }
  if (found.size() == 1) {
    return found[0];
  }
  throw LoadError(amc_path, 0, 0,
                  found.empty()
                      ? "an AMC file needs its skeleton: no .asf beside it (set "
                        "LoadOptions::skeleton_file)"
                      : "an AMC file needs its skeleton: " + std::to_string(found.size()) +
                            " .asf files beside it and none named like it (set "
                            "LoadOptions::skeleton_file)");
}

} // namespace detail
} // namespace odemocap
