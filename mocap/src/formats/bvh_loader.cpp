// BVH (Biovision hierarchy) loader: HIERARCHY with one or more ROOTs, JOINTs and End Sites,
// then MOTION with a frame count, a frame time and one row of channel values per frame.
#include "checks.hpp"
#include "load_common.hpp"
#include "model/kinematics_block.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <unordered_set>

namespace odemocap {
namespace {

constexpr std::size_t k_max_depth = 512; // nesting; real skeletons stay under 30
constexpr std::size_t k_max_joints = 20000;
constexpr std::size_t k_max_channels = 6; // per joint: three positions, three rotations

using detail::quote;
using detail::TextScanner;

bool parse_channel(std::string_view word, Channel& out) {
  if (word.size() != 9) {
    return false;
  }
  const char axis = static_cast<char>(word[0] | 0x20); // ASCII lower case
  const std::string_view kind = word.substr(1);
  const bool position = kind == "position" || kind == "POSITION" || kind == "Position";
  const bool rotation = kind == "rotation" || kind == "ROTATION" || kind == "Rotation";
  if ((!position && !rotation) || axis < 'x' || axis > 'z') {
    return false;
  }
  const int index = axis - 'x';
  out = static_cast<Channel>((rotation ? 3 : 0) + index);
  return true;
}

/// Parses a non-negative integer word; false if it is anything else.
bool parse_count(std::string_view word, std::size_t& out) {
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), out);
  return !word.empty() && error == std::errc() && end == word.data() + word.size();
}

/// The name after ROOT/JOINT; a '{' on the same line opens the block.
std::string_view joint_name(TextScanner& scanner, bool& brace_on_line) {
  std::string_view name = scanner.rest_of_line();
  brace_on_line = !name.empty() && name.back() == '{';
  if (brace_on_line) {
    name.remove_suffix(1);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) {
      name.remove_suffix(1);
    }
  }
  return name;
}

void expect_word(TextScanner& scanner, std::string_view expected, const char* context) {
  scanner.skip_blank();
  const std::size_t line = scanner.line(), column = scanner.column();
  const std::string_view word = scanner.word();
  if (word != expected) {
    scanner.fail_at(line, column,
                    std::string("expected '") + std::string(expected) + "' " + context +
                        ", found " +
                        (word.empty() ? std::string("the end of the file") : quote(word)));
  }
}

void parse_offset(TextScanner& scanner, Joint& joint) {
  expect_word(scanner, "OFFSET", ("in '" + joint.name + "'").c_str());
  joint.offset.x = scanner.number("the OFFSET's x");
  joint.offset.y = scanner.number("the OFFSET's y");
  joint.offset.z = scanner.number("the OFFSET's z");
}

void parse_channels(TextScanner& scanner, Joint& joint, std::size_t& channel_total) {
  expect_word(scanner, "CHANNELS", ("after the OFFSET of '" + joint.name + "'").c_str());
  const std::size_t column = (scanner.skip_spaces(), scanner.column());
  const std::string_view count_word = scanner.word();
  std::size_t count = 0;
  if (!parse_count(count_word, count) || count > k_max_channels) {
    scanner.fail_at(scanner.line(), column,
                    "CHANNELS count must be a whole number from 0 to 6, found " +
                        quote(count_word));
  }
  joint.first_channel = channel_total;
  for (std::size_t k = 0; k < count; ++k) {
    if (scanner.at_line_end()) {
      scanner.fail("CHANNELS " + std::to_string(count) + " lists only " + std::to_string(k) +
                   " channel names");
    }
    const std::size_t name_column = scanner.column();
    const std::string_view name = scanner.word();
    Channel channel;
    if (!parse_channel(name, channel)) {
      scanner.fail_at(scanner.line(), name_column,
                      "unknown channel " + quote(name) +
                          "; expected Xposition, Yposition, Zposition, Xrotation, Yrotation or "
                          "Zrotation");
    }
    joint.channels.push_back(channel);
  }
  if (!scanner.at_line_end()) {
    const std::size_t extra = scanner.column();
    scanner.fail_at(scanner.line(), extra,
                    "CHANNELS " + std::to_string(count) +
                        " is followed by more names: " + quote(scanner.word()));
  }
  channel_total += count;
}

/// "<parent>_End", numbered when a parent has several End Sites or the name is taken.
std::string end_site_name(const Skeleton& skeleton, int parent,
                          const std::unordered_set<std::string>& taken) {
  const std::string base = skeleton.joints[static_cast<std::size_t>(parent)].name + "_End";
  std::string name = base;
  for (int n = 2; taken.count(name) != 0; ++n) {
    name = base + std::to_string(n);
  }
  return name;
}

/// HIERARCHY ... up to (and including) the word MOTION. Iterative: the open joints are an
/// explicit stack, so a deeply nested file cannot exhaust the call stack.
void parse_hierarchy(TextScanner& scanner, Skeleton& skeleton) {
  scanner.skip_blank();
  expect_word(scanner, "HIERARCHY", "at the start of a BVH file");
  std::vector<int> open;
  std::unordered_set<std::string> names;
  for (;;) {
    scanner.skip_blank();
    if (scanner.at_end()) {
      scanner.fail(open.empty() ? "the file ends before MOTION"
                                : "the file ends inside '" +
                                      skeleton.joints[static_cast<std::size_t>(open.back())].name +
                                      "' (missing '}')");
    }
    const std::size_t line = scanner.line(), column = scanner.column();
    const std::string_view word = scanner.word();
    if (word == "}") {
      if (open.empty()) {
        scanner.fail_at(line, column, "'}' without an open ROOT, JOINT or End Site");
      }
      open.pop_back();
      continue;
    }
    if (word == "MOTION") {
      if (!open.empty()) {
        scanner.fail_at(line, column,
                        "MOTION inside '" +
                            skeleton.joints[static_cast<std::size_t>(open.back())].name +
                            "' (missing '}')");
      }
      if (skeleton.joints.empty()) {
        scanner.fail_at(line, column, "MOTION before any ROOT");
      }
      return;
    }
    const bool root = word == "ROOT";
    const bool end_site = word == "End";
    if (!root && !end_site && word != "JOINT") {
      scanner.fail_at(line, column,
                      "expected ROOT, JOINT, End Site, '}' or MOTION, found " + quote(word));
    }
    if (root != open.empty()) {
      scanner.fail_at(line, column,
                      root ? "ROOT inside another joint (missing '}'?)"
                           : std::string(word) + " outside a ROOT");
    }
    if (open.size() >= k_max_depth || skeleton.joints.size() >= k_max_joints) {
      scanner.fail_at(line, column,
                      "hierarchy too large: more than " + std::to_string(k_max_depth) +
                          " levels or " + std::to_string(k_max_joints) + " joints");
    }
    if (!open.empty() && skeleton.joints[static_cast<std::size_t>(open.back())].end_site) {
      scanner.fail_at(line, column, "an End Site cannot have children");
    }
    Joint joint;
    joint.parent = open.empty() ? -1 : open.back();
    joint.end_site = end_site;
    bool brace_on_line = false;
    const std::string_view name = joint_name(scanner, brace_on_line);
    if (end_site) {
      if (name != "Site") {
        scanner.fail_at(line, column, "expected 'End Site', found 'End " + std::string(name) + "'");
      }
      joint.name = end_site_name(skeleton, joint.parent, names);
    } else if (name.empty()) {
      scanner.fail_at(line, column, std::string(word) + " needs a name");
    } else {
      joint.name = std::string(name);
      if (names.count(joint.name) != 0) {
        scanner.fail_at(line, column,
                        "a second joint named " + quote(name) + " (joint names must be unique)");
      }
    }
    names.insert(joint.name);
    if (!brace_on_line) {
      expect_word(scanner, "{",
                  ("after '" + std::string(word) + " " + std::string(name) + "'").c_str());
    }
    parse_offset(scanner, joint);
    if (!end_site) {
      parse_channels(scanner, joint, skeleton.channel_count);
    }
    open.push_back(static_cast<int>(skeleton.joints.size()));
    skeleton.joints.push_back(std::move(joint));
  }
}

/// MOTION's frame count, frame time and rows; returns the line of each frame's row. The rows
/// are read to the end of the file: a count that disagrees with them is refused when `strict`,
/// otherwise the rows win and `tolerated` says so. Nothing is allocated for the claimed count
/// beyond what the remaining bytes can hold.
std::vector<std::size_t> parse_motion(TextScanner& scanner, Skeleton& skeleton,
                                      std::size_t text_size, bool strict,
                                      std::vector<std::string>& tolerated) {
  scanner.skip_blank();
  const std::size_t frames_line = scanner.line();
  std::size_t line = frames_line, column = scanner.column();
  std::string_view word = scanner.word();
  if (word == "Frames") {
    expect_word(scanner, ":", "after 'Frames'");
  } else if (word != "Frames:") {
    scanner.fail_at(line, column, "expected 'Frames:' after MOTION, found " + quote(word));
  }
  scanner.skip_spaces();
  column = scanner.column();
  word = scanner.word();
  std::size_t claimed = 0;
  if (!parse_count(word, claimed)) {
    scanner.fail_at(line, column,
                    "the frame count must be a whole number >= 0, found " + quote(word));
  }
  scanner.skip_blank();
  line = scanner.line();
  column = scanner.column();
  if (scanner.word() != "Frame" || scanner.word() != "Time:") {
    scanner.fail_at(line, column, "expected 'Frame Time:' after the frame count");
  }
  scanner.skip_spaces();
  column = scanner.column();
  const std::size_t written_at = scanner.offset();
  skeleton.frame_time = scanner.number("the frame time (seconds)");
  const std::string_view written = scanner.since(written_at);
  const std::size_t point = written.find('.');
  if (point != std::string_view::npos && written.find_first_of("eE") == std::string_view::npos) {
    skeleton.frame_time_rounding =
        0.5 * std::pow(10.0, -static_cast<double>(written.size() - point - 1));
  }
  if (!(skeleton.frame_time > 0.0)) {
    scanner.fail_at(line, column, "the frame time must be positive");
  }
  // Each value needs a digit and a separator: a claim the remaining bytes cannot hold is wrong.
  const std::size_t remaining = text_size - scanner.offset();
  const std::size_t per_row = skeleton.channel_count == 0 ? 1 : 2 * skeleton.channel_count;
  const std::size_t room = (remaining + 1) / per_row;
  if (strict && claimed > room) {
    scanner.fail_at(frames_line, 1,
                    "Frames: " + std::to_string(claimed) + " claims rows of " +
                        std::to_string(skeleton.channel_count) + " values, but only " +
                        std::to_string(remaining) +
                        " bytes follow (the file is cut short or the count is wrong)");
  }
  skeleton.motion.reserve(std::min(claimed, room) * skeleton.channel_count);
  std::vector<std::size_t> lines;
  lines.reserve(std::min(claimed, room));
  for (std::size_t frame = 0;; ++frame) {
    scanner.skip_blank();
    if (scanner.at_end()) {
      break;
    }
    if (strict && frame == claimed) {
      scanner.fail("data continues after the " + std::to_string(claimed) +
                   " frames that 'Frames:' announced");
    }
    lines.push_back(scanner.line());
    const std::size_t row = skeleton.motion.size();
    skeleton.motion.resize(row + skeleton.channel_count);
    const std::size_t found = scanner.numbers_on_line(skeleton.motion.data() + row,
                                                      skeleton.channel_count, "a channel value");
    if (found < skeleton.channel_count) {
      scanner.fail("expected " + std::to_string(skeleton.channel_count) +
                   " values (the CHANNELS total), found " + std::to_string(found));
    }
    if (!scanner.at_line_end()) {
      const std::size_t extra = scanner.column();
      scanner.fail_at(scanner.line(), extra,
                      "more than " + std::to_string(skeleton.channel_count) +
                          " values (the CHANNELS total) on this line: " + quote(scanner.word()));
    }
    scanner.next_line();
  }
  skeleton.frame_count = lines.size();
  if (skeleton.frame_count < claimed && strict) {
    scanner.fail("the file ends after " + std::to_string(skeleton.frame_count) + " of the " +
                 std::to_string(claimed) + " frames that 'Frames:' announced");
  }
  if (skeleton.frame_count != claimed) {
    tolerated.push_back("'Frames: " + std::to_string(claimed) + "' (line " +
                        std::to_string(frames_line) + ") disagrees with the " +
                        std::to_string(skeleton.frame_count) +
                        " data rows; the rows were loaded (LoadOptions::strict refuses this)");
  }
  if (skeleton.frame_count == 0) {
    scanner.fail("MOTION has no data rows");
  }
  return lines;
}

/// The skeleton and the line of each frame's row (for errors found later, in kinematics).
Skeleton parse_skeleton(std::string_view text, std::string_view source, bool strict,
                        std::vector<std::size_t>& frame_lines,
                        std::vector<std::string>& tolerated) {
  TextScanner scanner(text, source);
  Skeleton skeleton;
  parse_hierarchy(scanner, skeleton);
  frame_lines = parse_motion(scanner, skeleton, text.size(), strict, tolerated);
  return skeleton;
}

/// Joints whose position channels hold absolute positions: their OFFSET, the rest position,
/// equals the first frame's channels (exporters that write the rest pose into both: Blender's
/// for the root, the Bandai Namco motion dataset for every joint, each with six channels).
/// Such channels replace the OFFSET, as Blender's importer reads them (the channel minus the
/// rest head, applied to the rest head) and three.js's loader does; the BVH description's
/// "OFFSET + channels" would lift a root off the floor by its own height and double every
/// bone below it. The rule is the same for a root and for any other joint, and it holds for the
/// whole file: once one joint shows that the file writes absolute positions, every joint's
/// position channels are read so, also those that had moved from their OFFSET by the first
/// frame (the Bandai Namco files' Hips, whose OFFSET is the rest pose's and whose first frame
/// is already walking: added, they lifted the whole body by its hip height, feet at 1 m).
/// Returns the notes (roots one each; other joints in one note).
std::vector<std::string> resolve_root_positions(Skeleton& skeleton, BvhRootPositions rule) {
  std::vector<std::string> notes;
  if (rule == BvhRootPositions::Additive || skeleton.frame_count == 0) {
    return notes;
  }
  // Component by component: norms of huge offsets overflow.
  const auto largest = [](const Vec3& v) {
    return std::fmax(std::fabs(v.x), std::fmax(std::fabs(v.y), std::fabs(v.z)));
  };
  struct Positioned {
    Joint* joint;
    bool equal; ///< its first frame's channels equal its (non-zero) OFFSET
  };
  std::vector<Positioned> positioned;
  bool evidence = false; // a joint shows that the file writes absolute positions
  for (Joint& joint : skeleton.joints) {
    Vec3 first = joint.offset; // the channels of frame 0, axis by axis
    bool has_position = false;
    for (std::size_t k = 0; k < joint.channels.size(); ++k) {
      const double v = skeleton.value(0, joint.first_channel + k);
      switch (joint.channels[k]) {
      case Channel::Xposition:
        first.x = v;
        has_position = true;
        break;
      case Channel::Yposition:
        first.y = v;
        has_position = true;
        break;
      case Channel::Zposition:
        first.z = v;
        has_position = true;
        break;
      default: break;
      }
    }
    if (!has_position) {
      continue;
    }
    const double size = largest(joint.offset);
    const bool equal = size > 0.0 && largest(first - joint.offset) <= 1e-3 * size;
    positioned.push_back({&joint, equal});
    evidence = evidence || equal;
  }
  std::vector<std::string> inner;
  std::vector<std::string> moved; // absolute by the file's evidence, not their own
  for (const Positioned& p : positioned) {
    Joint& joint = *p.joint;
    if (rule != BvhRootPositions::Absolute && !evidence) {
      continue;
    }
    joint.absolute_position = true;
    if (rule != BvhRootPositions::Absolute && !p.equal) {
      if (largest(joint.offset) > 0.0) { // with a zero OFFSET both readings agree
        moved.push_back(joint.name);
      }
      continue;
    }
    if (joint.parent >= 0) {
      inner.push_back(joint.name);
      continue;
    }
    notes.push_back("root '" + joint.name + "': its OFFSET " + detail::describe(joint.offset) +
                    (p.equal ? " equals the first frame's position channels" : "") +
                    ": the channels are absolute positions and replace it");
  }
  const auto listed = [](const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 6; ++i) {
      out += (i == 0 ? "'" : ", '") + names[i] + "'";
    }
    if (names.size() > 6) {
      out += " and " + std::to_string(names.size() - 6) + " more";
    }
    return out;
  };
  if (!inner.empty()) {
    notes.push_back(
        std::to_string(inner.size()) + " joint(s) below a root have position " + "channels " +
        (rule == BvhRootPositions::Absolute ? std::string("(read as absolute, as asked)")
                                            : "equal to their OFFSET in the first frame") +
        " (" + listed(inner) +
        "): the channels replace the OFFSET rather than add to it, "
        "which would double every such bone");
  }
  if (!moved.empty()) {
    notes.push_back(
        listed(moved) +
        ": position channels that differ from the OFFSET in the first frame, read as "
        "absolute too, since other joints show that the file writes absolute positions");
  }
  return notes;
}

} // namespace

Skeleton parse_bvh_skeleton(std::string_view text, std::string_view source) {
  std::vector<std::size_t> frame_lines;
  std::vector<std::string> tolerated;
  return parse_skeleton(text, source, false, frame_lines, tolerated);
}

/// The number in a motion row most likely to have made a sample absurd: the channel value of
/// the largest magnitude, with its text and 1-based column in the file's line.
struct Culprit {
  std::size_t column = 1;
  std::string text;
  std::string channel;
  std::string joint;
};

Culprit culprit(const Skeleton& skeleton, std::string_view row, std::size_t frame) {
  Culprit c;
  std::size_t worst = 0;
  double largest = -1.0;
  for (std::size_t k = 0; k < skeleton.channel_count; ++k) {
    const double v = std::fabs(skeleton.value(frame, k));
    if (!(v <= largest)) {
      largest = v;
      worst = k;
    }
  }
  // Only a value beyond what any capture holds is named; otherwise the cause is elsewhere
  // (an absurd OFFSET in the hierarchy, the scale asked for) and the row is all we know.
  if (largest < 1e6) {
    return c;
  }
  for (const Joint& j : skeleton.joints) {
    if (worst >= j.first_channel && worst < j.first_channel + j.channels.size()) {
      c.joint = j.name;
      c.channel = to_string(j.channels[worst - j.first_channel]);
    }
  }
  std::size_t at = 0;
  for (std::size_t k = 0;; ++k) {
    while (at < row.size() && (row[at] == ' ' || row[at] == '\t')) {
      ++at;
    }
    const std::size_t end = row.find_first_of(" \t\r", at);
    const std::size_t stop = end == std::string_view::npos ? row.size() : end;
    if (at >= row.size()) {
      return c;
    }
    if (k == worst) {
      c.column = at + 1;
      c.text = std::string(row.substr(at, stop - at));
      return c;
    }
    at = stop;
  }
}

/// The capture rate a BVH's frame time stands for: 1 / frame time, or the whole number of Hz
/// that the written frame time rounds (0.008333 s is 1/120 s written to 6 decimals, not
/// 120.0048 Hz). The samples stay frame time apart: only the nominal rate is named.
double nominal_rate(const Skeleton& skeleton, std::vector<std::string>& notes) {
  const double rate = 1.0 / skeleton.frame_time;
  const double u = skeleton.frame_time_rounding;
  const double whole = std::round(rate);
  if (!(u > 0.0) || !(skeleton.frame_time > u) || whole < 1.0 || whole == rate) {
    return rate;
  }
  if (whole < 1.0 / (skeleton.frame_time + u) || whole > 1.0 / (skeleton.frame_time - u)) {
    return rate;
  }
  notes.push_back("frame time " + detail::describe(skeleton.frame_time) + " s is 1/" +
                  detail::describe(whole) + " s as written: nominal rate " +
                  detail::describe(whole) + " Hz (samples stay " +
                  detail::describe(skeleton.frame_time) + " s apart)");
  return whole;
}

namespace {

/// Line `line` (1-based) of `text`, without its end (only on an error path: a scan from the
/// start is fine).
std::string_view line_of(std::string_view text, std::size_t line) {
  std::size_t start = 0;
  for (std::size_t l = 1; l < line && start < text.size(); ++l) {
    const std::size_t next = text.find('\n', start);
    start = next == std::string_view::npos ? text.size() : next + 1;
  }
  return text.substr(start, text.find('\n', start) - start);
}

/// What the text gave: the skeleton with its channels, and the line of each frame's row.
struct ParsedBvh {
  Skeleton skeleton;
  std::vector<std::size_t> frame_lines;
  CaptureInfo info;
};

ParsedBvh parse_text(std::string_view text, std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  ParsedBvh parsed;
  parsed.skeleton =
      parse_skeleton(text, source, options.strict, parsed.frame_lines, parsed.info.tolerated);
  return parsed;
}

/// The capture from the parsed text (which need not be kept: forward kinematics reads the
/// channels). `row_of(line)` gives a line of the text again for an error found in kinematics.
template <class RowOf>
Capture build_capture(ParsedBvh parsed, std::string_view source, const LoadOptions& options,
                      const RowOf& row_of) {
  Skeleton& skeleton = parsed.skeleton;
  const std::vector<std::size_t>& frame_lines = parsed.frame_lines;
  CaptureInfo& info = parsed.info;
  info.notes = info.tolerated;
  for (std::string& note : resolve_root_positions(skeleton, options.bvh_root_positions)) {
    info.notes.push_back(std::move(note));
  }

  info.source = std::string(source);
  info.format = "bvh";
  info.frame_rate = nominal_rate(skeleton, info.notes);
  double inferred = 0.0; // BVH declares no unit
  if (options.to_metres && options.unit_in_metres == 0.0) {
    const detail::UnitGuess guess = detail::infer_skeleton_unit(skeleton);
    inferred = guess.metres;
    info.length_unit = guess.name;
    info.notes.push_back(guess.note);
  }
  // The BVH convention is Y up; exporters from Z-up tools write Z up: the motion tells (the
  // head above the feet over the frames), else the rest pose.
  Axis up = Axis::Y;
  bool down = false;
  std::string up_note;
  if (detail::infer_motion_up(skeleton, up, down, up_note) ||
      detail::infer_skeleton_up(skeleton, up, down, up_note)) {
    info.up_axis_source = "inferred";
    if (up != Axis::Y || down) {
      info.notes.push_back(up_note + " (not the BVH convention, +Y)" +
                           (down ? "; the data is turned half a turn so it points up" : ""));
    }
  }
  const detail::PoseConversion conversion =
      detail::make_conversion(options, up, 0.0, info, inferred, down);

  const detail::TrackSelection selection(options.tracks);
  std::vector<std::string> names;
  std::vector<std::size_t> joint_of_track;
  std::vector<Track> tracks;
  for (std::size_t j = 0; j < skeleton.joints.size(); ++j) {
    const Joint& joint = skeleton.joints[j];
    if (joint.end_site && !options.end_sites) {
      continue;
    }
    names.push_back(joint.name);
    if (selection.keep(joint.name)) {
      joint_of_track.push_back(j);
      tracks.emplace_back(joint.name);
      tracks.back().reserve(skeleton.frame_count);
    }
  }
  selection.check_found(names, source);

  // Only the kept tracks' joints and their ancestors are computed (not End Sites and
  // unselected leaves).
  const std::vector<bool> needed = detail::with_ancestors(skeleton, joint_of_track);
  // Forward kinematics a block of frames at a time, every track filled from each block.
  constexpr std::size_t k_block_frames = 32;
  detail::KinematicsBlock block;
  std::vector<double> times(k_block_frames);
  std::vector<Vec3> positions(k_block_frames);
  std::vector<Quat> orientations(k_block_frames);
  for (std::size_t first = 0; first < skeleton.frame_count; first += k_block_frames) {
    const std::size_t count = std::min(k_block_frames, skeleton.frame_count - first);
    block.compute(skeleton, first, count, needed);
    for (std::size_t f = 0; f < count; ++f) {
      times[f] = static_cast<double>(first + f) * skeleton.frame_time;
    }
    std::size_t refused_frame = skeleton.frame_count;
    std::string refusal;
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      block.copy(joint_of_track[k], positions.data(), orientations.data());
      conversion.apply(positions.data(), orientations.data(), count);
      // Each orientation in the hemisphere of the one before it (Track::make_continuous()
      // on the fly): Euler wrap-arounds must not become sign flips, and a BVH holds no
      // quaternions whose own flips a track should report.
      const Quat* previous =
          tracks[k].empty() ? &orientations[0] : &tracks[k].orientations().back();
      for (std::size_t f = 0; f < count; ++f) {
        if (dot(orientations[f], *previous) < 0.0) {
          orientations[f] = -orientations[f];
        }
        previous = &orientations[f];
      }
      try {
        tracks[k].append(times.data(), positions.data(), orientations.data(), count);
      } catch (const MocapError& e) {
        // The earliest frame any track refuses (the first track's at that frame) is reported.
        if (tracks[k].size() < refused_frame) {
          refused_frame = tracks[k].size();
          refusal = e.what();
        }
      }
    }
    if (refused_frame < skeleton.frame_count) {
      // Finite but absurd values (offsets near 1e308) overflow in forward kinematics, or give
      // positions beyond the plausible: point at the number in the file that did it.
      const std::size_t frame = refused_frame;
      const Culprit c = culprit(skeleton, row_of(frame_lines[frame]), frame);
      throw LoadError(std::string(source), frame_lines[frame], c.column,
                      "frame " + std::to_string(frame) + ": " +
                          (c.text.empty() ? std::string()
                                          : "'" + c.text + "' (" + c.channel + " of '" + c.joint +
                                                "') gives ") +
                          refusal);
    }
  }
  Capture capture(std::move(info));
  for (Track& track : tracks) {
    capture.add_track(std::move(track));
  }
  capture.set_skeleton(std::move(skeleton));
  return capture;
}

} // namespace

Capture parse_bvh(std::string_view text, std::string_view source, const LoadOptions& options) {
  return build_capture(parse_text(text, source, options), source, options,
                       [text](std::size_t line) { return line_of(text, line); });
}

namespace detail {

Capture load_bvh_file(std::string text, const std::string& path, const LoadOptions& options) {
  ParsedBvh parsed = parse_text(text, path, options);
  // The channels hold every number of the motion now: the text (as large as they are) is let
  // go before the tracks, about three times as large again, are filled.
  std::string().swap(text);
  std::string row; // an error's line, read from the file again
  return build_capture(std::move(parsed), path, options, [&](std::size_t line) {
    std::ifstream in(path, std::ios::binary);
    for (std::size_t l = 1; l <= line && std::getline(in, row); ++l) {
    }
    if (!in) {
      row.clear(); // changed since: the error names the frame and its line only
    }
    return std::string_view(row);
  });
}

} // namespace detail
} // namespace odemocap
