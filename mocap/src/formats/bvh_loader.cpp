// BVH (Biovision hierarchy) loader: HIERARCHY with one or more ROOTs, JOINTs and End Sites,
// then MOTION with a frame count, a frame time and one row of channel values per frame.
#include "checks.hpp"
#include "load_common.hpp"
#include "model/kinematics_block.hpp"
#include "text_scanner.hpp"
#include "units.hpp"

#include <odemocap/load.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
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

/// What MOTION claims: the frame count and the line it is on.
struct MotionHeader {
  std::size_t claimed = 0;
  std::size_t line = 0;
  std::size_t room = 0; ///< the rows the bytes after the header can hold at most
};

/// MOTION's frame count and frame time (into the skeleton), up to the frame time. `text_size` is
/// the size of the whole text (the file's, when the scanner reads its beginning only). A count
/// the bytes after it cannot hold is refused when `strict`; nothing is allocated for more rows
/// than `room`.
MotionHeader parse_motion_header(TextScanner& scanner, Skeleton& skeleton, std::size_t text_size,
                                 bool strict) {
  MotionHeader header;
  scanner.skip_blank();
  header.line = scanner.line();
  std::size_t line = header.line, column = scanner.column();
  std::string_view word = scanner.word();
  if (word == "Frames") {
    expect_word(scanner, ":", "after 'Frames'");
  } else if (word != "Frames:") {
    scanner.fail_at(line, column, "expected 'Frames:' after MOTION, found " + quote(word));
  }
  scanner.skip_spaces();
  column = scanner.column();
  word = scanner.word();
  if (!parse_count(word, header.claimed)) {
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
  const std::size_t remaining = text_size - std::min(text_size, scanner.offset());
  const std::size_t per_row = skeleton.channel_count == 0 ? 1 : 2 * skeleton.channel_count;
  header.room = (remaining + 1) / per_row;
  if (strict && header.claimed > header.room) {
    scanner.fail_at(header.line, 1,
                    "Frames: " + std::to_string(header.claimed) + " claims rows of " +
                        std::to_string(skeleton.channel_count) + " values, but only " +
                        std::to_string(remaining) +
                        " bytes follow (the file is cut short or the count is wrong)");
  }
  return header;
}

/// The motion's rows one at a time, from where the scanner that read MOTION's header stopped:
/// from the text it reads, or, when that is only the beginning of a file, on from the file a
/// piece of whole lines at a time (so that the motion, most of a file, is never in memory whole).
/// A count of rows that disagrees with the header's claim is refused when `strict`.
class MotionRows {
public:
  /// The rows of the text `scanner` reads.
  MotionRows(const TextScanner& scanner, const Skeleton& skeleton, const MotionHeader& header,
             bool strict)
      : scanner_(scanner), channels_(skeleton.channel_count), claimed_(header.claimed),
        strict_(strict) {}

  /// The rows of a file: `scanner` reads `head`, its first bytes up to the end of a line, and
  /// `rest` (the bytes of a line cut short there) and then `in` go on from them.
  MotionRows(const TextScanner& scanner, std::string head, std::string rest, std::istream& in,
             const Skeleton& skeleton, const MotionHeader& header, bool strict)
      : scanner_(scanner), channels_(skeleton.channel_count), claimed_(header.claimed),
        strict_(strict), in_(&in), carry_(std::move(rest)) {
    // The cursor's line and what follows it are kept; what came before is let go.
    head.erase(0, scanner.line_start());
    buffer_ = std::move(head);
    scanner_ = TextScanner(buffer_, scanner.source(), scanner.line(),
                           scanner.offset() - scanner.line_start());
  }

  MotionRows(const MotionRows&) = delete;
  MotionRows& operator=(const MotionRows&) = delete;

  /// Reads the next row into `row` (the CHANNELS total of values) and gives its line; false
  /// after the last row.
  bool next(double* row, std::size_t& line) {
    for (;;) {
      scanner_.skip_blank();
      if (!scanner_.at_end()) {
        break;
      }
      if (!read_piece()) {
        return false;
      }
    }
    if (strict_ && count_ == claimed_) {
      scanner_.fail("data continues after the " + std::to_string(claimed_) +
                    " frames that 'Frames:' announced");
    }
    line = scanner_.line();
    const std::size_t found = scanner_.numbers_on_line(row, channels_, "a channel value");
    if (found < channels_) {
      scanner_.fail("expected " + std::to_string(channels_) +
                    " values (the CHANNELS total), found " + std::to_string(found));
    }
    if (!scanner_.at_line_end()) {
      const std::size_t extra = scanner_.column();
      scanner_.fail_at(scanner_.line(), extra,
                       "more than " + std::to_string(channels_) +
                           " values (the CHANNELS total) on this line: " + quote(scanner_.word()));
    }
    scanner_.next_line();
    ++count_;
    return true;
  }

  /// The rows read so far.
  std::size_t count() const { return count_; }
  /// The scanner, at the end of the text once next() has returned false.
  const TextScanner& scanner() const { return scanner_; }

private:
  static constexpr std::size_t k_piece = std::size_t{256} << 10;

  /// The file's next piece, from the line the last one cut short to the end of the last line
  /// read whole (or of the file); false at the file's end.
  bool read_piece() {
    if (in_ == nullptr || ended_) {
      return false;
    }
    const std::size_t line = scanner_.line();
    std::string piece = std::move(carry_);
    carry_.clear();
    for (;;) {
      const std::size_t before = piece.size();
      piece.resize(before + k_piece);
      in_->read(piece.data() + before, static_cast<std::streamsize>(k_piece));
      const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in_->gcount(), 0));
      piece.resize(before + got);
      if (got < k_piece) {
        if (in_->bad()) {
          scanner_.fail("the file could not be read on from here");
        }
        ended_ = true;
        break;
      }
      const std::size_t end = piece.rfind('\n');
      if (end != std::string::npos) {
        carry_ = piece.substr(end + 1);
        piece.resize(end + 1);
        break;
      }
    }
    if (piece.empty()) {
      return false;
    }
    buffer_ = std::move(piece);
    scanner_ = TextScanner(buffer_, scanner_.source(), line, 0);
    return true;
  }

  TextScanner scanner_;
  std::size_t channels_;
  std::size_t claimed_;
  bool strict_;
  std::size_t count_ = 0;
  std::istream* in_ = nullptr;
  bool ended_ = false;
  std::string buffer_; ///< the piece of the file the scanner reads
  std::string carry_;  ///< the start of the line the piece cut short
};

/// After the last row: the count against the claim (refused when `strict`, else a note in
/// `tolerated`), and a motion without rows refused.
void check_row_count(const MotionRows& rows, const MotionHeader& header, bool strict,
                     std::vector<std::string>& tolerated) {
  const std::size_t count = rows.count();
  const TextScanner& scanner = rows.scanner();
  if (count < header.claimed && strict) {
    scanner.fail("the file ends after " + std::to_string(count) + " of the " +
                 std::to_string(header.claimed) + " frames that 'Frames:' announced");
  }
  if (count != header.claimed) {
    tolerated.push_back("'Frames: " + std::to_string(header.claimed) + "' (line " +
                        std::to_string(header.line) + ") disagrees with the " +
                        std::to_string(count) +
                        " data rows; the rows were loaded (LoadOptions::strict refuses this)");
  }
  if (count == 0) {
    scanner.fail("MOTION has no data rows");
  }
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
  TextScanner scanner(text, source);
  Skeleton skeleton;
  parse_hierarchy(scanner, skeleton);
  const MotionHeader header = parse_motion_header(scanner, skeleton, text.size(), false);
  MotionRows rows(scanner, skeleton, header, false);
  skeleton.motion.reserve(std::min(header.claimed, header.room) * skeleton.channel_count);
  std::vector<double> row(skeleton.channel_count);
  std::size_t line = 0;
  while (rows.next(row.data(), line)) {
    skeleton.motion.insert(skeleton.motion.end(), row.begin(), row.end());
  }
  std::vector<std::string> tolerated;
  check_row_count(rows, header, false, tolerated);
  skeleton.frame_count = rows.count();
  return skeleton;
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

/// The capture from the rows that follow MOTION's header, read a block of frames at a time:
/// each block's forward kinematics fills every track, and then it is let go, so that the rows
/// of the motion are never all in memory. `row_of(line)` gives a line of the text again, for an
/// error found in kinematics.
template <class RowOf>
Capture build_capture(Skeleton skeleton, const MotionHeader& header, MotionRows& rows,
                      std::string_view source, const LoadOptions& options, const RowOf& row_of) {
  // The skeleton's motion holds the block's rows only (its frame_count their number), which
  // the kinematics and the rules that look at the first frame read.
  constexpr std::size_t k_block_frames = 32;
  std::vector<std::size_t> lines(k_block_frames);
  const auto read_block = [&]() {
    skeleton.motion.resize(k_block_frames * skeleton.channel_count);
    std::size_t count = 0;
    while (count < k_block_frames &&
           rows.next(skeleton.motion.data() + count * skeleton.channel_count, lines[count])) {
      ++count;
    }
    skeleton.frame_count = count;
    return count;
  };
  CaptureInfo info;
  std::size_t count = read_block();
  if (count == 0) {
    check_row_count(rows, header, options.strict, info.tolerated); // refuses
  }
  std::vector<std::string> notes = resolve_root_positions(skeleton, options.bvh_root_positions);

  info.source = std::string(source);
  info.format = "bvh";
  info.frame_rate = nominal_rate(skeleton, notes);
  double inferred = 0.0; // BVH declares no unit
  if (options.to_metres && options.unit_in_metres == 0.0) {
    const detail::UnitGuess guess = detail::infer_skeleton_unit(skeleton);
    inferred = guess.metres;
    info.length_unit = guess.name;
    notes.push_back(guess.note);
  }
  // The up axis comes from the motion, known once every row is read: the tracks are filled in
  // the file's axes, scaled only, and turned at the end (up_conversion() below).
  const detail::PoseConversion conversion{
      detail::make_conversion(options, Axis::Y, 0.0, info, inferred).scale, Quat{}};
  detail::MotionUp motion_up(skeleton);

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
      tracks.back().reserve(std::min(header.claimed, header.room));
    }
  }
  selection.check_found(names, source);

  // Only the kept tracks' joints, the joints the up axis is told from and their ancestors are
  // computed (not End Sites and unselected leaves).
  std::vector<bool> needed = detail::with_ancestors(skeleton, joint_of_track);
  for (std::size_t j = 0; j < needed.size(); ++j) {
    needed[j] = needed[j] || motion_up.needed()[j];
  }
  detail::KinematicsBlock block;
  std::vector<double> times(k_block_frames);
  // Every track's poses of a block, track after track (Track::append_together()'s layout): the
  // times are stored once for all the tracks.
  std::vector<Vec3> positions(k_block_frames * tracks.size());
  std::vector<Quat> orientations(k_block_frames * tracks.size());
  for (std::size_t first = 0; count > 0; first += count, count = read_block()) {
    block.compute(skeleton, 0, count, needed);
    motion_up.add(block, count);
    for (std::size_t f = 0; f < count; ++f) {
      times[f] = static_cast<double>(first + f) * skeleton.frame_time;
    }
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      Vec3* const p = positions.data() + k * count;
      Quat* const q = orientations.data() + k * count;
      block.copy(joint_of_track[k], p, q);
      conversion.apply(p, q, count);
      // Each orientation in the hemisphere of the one before it (Track::make_continuous()
      // on the fly): Euler wrap-arounds must not become sign flips, and a BVH holds no
      // quaternions whose own flips a track should report.
      const Quat* previous = tracks[k].empty() ? &q[0] : &tracks[k].orientations().back();
      for (std::size_t f = 0; f < count; ++f) {
        if (dot(q[f], *previous) < 0.0) {
          q[f] = -q[f];
        }
        previous = &q[f];
      }
    }
    // The earliest frame any track refuses (the first track's at that frame) is reported.
    std::size_t refused = count; // the block's frame
    std::string refusal;
    try {
      Track::append_together(tracks, times.data(), positions.data(), orientations.data(), count);
    } catch (const MocapError& e) {
      refused = tracks.front().size() - first;
      refusal = e.what();
    }
    if (refused < count) {
      // Finite but absurd values (offsets near 1e308) overflow in forward kinematics, or give
      // positions beyond the plausible: point at the number in the file that did it.
      const std::size_t frame = first + refused;
      const Culprit c = culprit(skeleton, row_of(lines[refused]), refused);
      throw LoadError(std::string(source), lines[refused], c.column,
                      "frame " + std::to_string(frame) + ": " +
                          (c.text.empty() ? std::string()
                                          : "'" + c.text + "' (" + c.channel + " of '" + c.joint +
                                                "') gives ") +
                          refusal);
    }
  }
  check_row_count(rows, header, options.strict, info.tolerated);
  info.notes = info.tolerated;
  info.notes.insert(info.notes.end(), notes.begin(), notes.end());

  // The BVH convention is Y up; exporters from Z-up tools write Z up: the motion tells (the
  // head above the feet over the frames), else the rest pose.
  Axis up = Axis::Y;
  bool down = false;
  std::string up_note;
  if (motion_up.infer(up, down, up_note) ||
      detail::infer_skeleton_up(skeleton, up, down, up_note)) {
    info.up_axis_source = "inferred";
    if (up != Axis::Y || down) {
      info.notes.push_back(up_note + " (not the BVH convention, +Y)" +
                           (down ? "; the data is turned half a turn so it points up" : ""));
    }
  }
  const Quat turn = detail::up_conversion(options, up, down, info);
  // The capture keeps the hierarchy; its rows are in its tracks (parse_bvh_skeleton() gives
  // them as the file has them).
  skeleton.frame_count = rows.count();
  std::vector<double>().swap(skeleton.motion);
  Capture capture(std::move(info));
  for (Track& track : tracks) {
    capture.add_track(std::move(track));
  }
  if (turn.w != 1.0) {
    capture.turn(turn);
  }
  capture.set_skeleton(std::move(skeleton));
  return capture;
}

/// The hierarchy and MOTION's header from `scanner`, which reads the file's beginning.
Skeleton parse_head(TextScanner& scanner, std::size_t size, const LoadOptions& options,
                    MotionHeader& header) {
  Skeleton skeleton;
  parse_hierarchy(scanner, skeleton);
  header = parse_motion_header(scanner, skeleton, size, options.strict);
  return skeleton;
}

} // namespace

Capture parse_bvh(std::string_view text, std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  TextScanner scanner(text, source);
  MotionHeader header;
  Skeleton skeleton = parse_head(scanner, text.size(), options, header);
  MotionRows rows(scanner, skeleton, header, options.strict);
  return build_capture(std::move(skeleton), header, rows, source, options,
                       [text](std::size_t line) { return line_of(text, line); });
}

namespace detail {

Capture load_bvh_file(std::string head, std::size_t size, const std::string& path,
                      const LoadOptions& options) {
  if (head.size() == size) {
    return parse_bvh(head, path, options);
  }
  // The hierarchy and the header are read from the file's beginning, cut at the end of its last
  // whole line; the rows from there on, a piece at a time.
  const std::size_t cut = head.rfind('\n');
  std::string rest = cut == std::string::npos ? std::string() : head.substr(cut + 1);
  bool whole = cut == std::string::npos;
  Skeleton skeleton;
  MotionHeader header;
  TextScanner scanner(std::string_view(head).substr(0, cut + 1), path);
  if (!whole) {
    detail::check_options(options, path);
    try {
      skeleton = parse_head(scanner, size, options, header);
    } catch (const LoadError&) {
      whole = true; // a hierarchy longer than the beginning (or broken: read whole, it says where)
    }
  }
  if (whole) {
    read_on(path, head, size);
    return parse_bvh(head, path, options);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw LoadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  in.seekg(static_cast<std::streamoff>(head.size()));
  head.resize(cut + 1);
  MotionRows rows(scanner, std::move(head), std::move(rest), in, skeleton, header, options.strict);
  std::string row; // an error's line, read from the file again
  return build_capture(std::move(skeleton), header, rows, path, options, [&](std::size_t line) {
    std::ifstream again(path, std::ios::binary);
    for (std::size_t l = 1; l <= line && std::getline(again, row); ++l) {
    }
    if (!again) {
      row.clear(); // changed since: the error names the frame and its line only
    }
    return std::string_view(row);
  });
}

} // namespace detail
} // namespace odemocap
