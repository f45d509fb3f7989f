// Xsens MVNX (XML, read with pugixml): <mvnx><subject frameRate=...><segments><segment
// label=... id=...>, then <frames> of which those with type="normal" carry per segment an
// orientation (quaternion w x y z, the MVN convention) in <orientation> and a position (m)
// in <position>, space-separated, segments in the order of <segments>. Frame times are the
// "time" attribute (ms). Xsens's world is Z up. The hierarchy, when the file has one, is in
// <joints><joint label=...><connector1>Parent/point</connector1><connector2>Child/point
// </connector2>: the child hangs from the parent at the parent's point, whose position in the
// parent segment's frame is that point's <pos_b> (m; MVN 2018 and later, MVNX version 4) or
// <pos_s> (the same, as Xsens's MVNX 3 schema names it) among the segment's <points>. The
// reference frames before the motion (type "identity", "tpose", "tpose-isb", "npose") are not
// motion; the "identity" one, every segment frame turned to the world's, is the rest pose.

#include "checks.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <pugixml.hpp>

#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace odemocap {
namespace {

/// The space-separated numbers of `text` into `out`; false on anything else.
bool numbers(const char* text, std::vector<double>& out) {
  out.clear();
  const std::string_view s(text);
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    }
    if (i == s.size()) {
      break;
    }
    std::size_t end = i;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) {
      ++end;
    }
    double v = 0.0;
    if (!detail::parse_double(s.substr(i, end - i), v)) {
      return false;
    }
    out.push_back(v);
    i = end;
  }
  return true;
}

using Fail = std::function<void(std::size_t, const std::string&)>;

/// A connector's segment and point ("Pelvis/jL5S1").
std::pair<std::string, std::string> connector(const pugi::xml_node& node, const Fail& fail,
                                              std::size_t offset) {
  const std::string text = node.child_value();
  const auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0) {
    fail(offset, "a joint's <" + std::string(node.name()) + "> must read segment/point, got '" +
                     text + "'");
  }
  return {text.substr(0, slash), text.substr(slash + 1)};
}

/// The position (m, segment frame) of each segment's points, by segment and point label.
std::map<std::string, std::map<std::string, Vec3>>
points(const pugi::xml_node& segments, const Fail& fail,
       const std::function<std::size_t(const pugi::xml_node&)>& offset_of) {
  std::map<std::string, std::map<std::string, Vec3>> out;
  std::vector<double> v;
  for (const pugi::xml_node& segment : segments.children("segment")) {
    auto& of_segment = out[segment.attribute("label").as_string()];
    for (const pugi::xml_node& point : segment.child("points").children("point")) {
      pugi::xml_node pos = point.child("pos_b");
      if (!pos) {
        pos = point.child("pos_s");
      }
      if (!pos) {
        continue;
      }
      if (!numbers(pos.child_value(), v) || v.size() != 3) {
        fail(offset_of(pos), "a point's <" + std::string(pos.name()) + "> must hold 3 numbers (m)");
      }
      of_segment[point.attribute("label").as_string()] = {v[0], v[1], v[2]};
    }
  }
  return out;
}

/// A frame's pose of every segment, as the file writes it (world frame, m).
struct FramePoses {
  std::vector<double> q, p; // w x y z and x y z per segment
};

/// The poses of `frame` (an "identity" reference frame or a normal one), checked: every number
/// there and finite; the error names the frame's type.
FramePoses frame_poses(const pugi::xml_node& frame, std::size_t segments, const Fail& fail,
                       const std::function<std::size_t(const pugi::xml_node&)>& offset_of) {
  FramePoses out;
  const bool read = numbers(frame.child("orientation").child_value(), out.q) &&
                    numbers(frame.child("position").child_value(), out.p);
  bool finite = read && out.q.size() == 4 * segments && out.p.size() == 3 * segments;
  for (std::size_t i = 0; finite && i < out.q.size(); ++i) {
    finite = std::isfinite(out.q[i]) && (i >= out.p.size() || std::isfinite(out.p[i]));
  }
  if (!finite) {
    fail(offset_of(frame), "the " + std::string(frame.attribute("type").as_string()) +
                               " frame must hold a finite orientation (w x y z) and position "
                               "for each of the " +
                               std::to_string(segments) + " segments");
  }
  return out;
}

/// The segments as a skeleton, from <joints>: parents before children, each child's offset the
/// parent's connecting point less the child's (the rest pose lines their frames up). Where the
/// file gives no position for the parent's point, the offset is measured in `rest` (the
/// "identity" frame, else the first normal one): the child's point, seen from the parent.
/// Empty when the file has no <joints>.
std::optional<Skeleton>
hierarchy(const pugi::xml_node& subject, const std::vector<std::string>& names,
          const pugi::xml_node& rest, const Fail& fail,
          const std::function<std::size_t(const pugi::xml_node&)>& offset_of,
          std::vector<std::string>& notes) {
  const pugi::xml_node joints = subject.child("joints");
  if (!joints || !joints.child("joint")) {
    return std::nullopt;
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) {
    index[names[i]] = i;
  }
  const auto at = points(subject.child("segments"), fail, offset_of);
  const auto point_at = [&](const std::string& segment, const std::string& label) {
    const auto of_segment = at.find(segment);
    const Vec3* found = nullptr;
    if (of_segment != at.end()) {
      const auto p = of_segment->second.find(label);
      found = p != of_segment->second.end() ? &p->second : nullptr;
    }
    return found;
  };
  std::optional<FramePoses> rest_poses;
  std::string measured; // the children whose offset was measured in `rest`
  std::vector<int> parent(names.size(), -1);
  std::vector<Vec3> offset(names.size());
  for (const pugi::xml_node& joint : joints.children("joint")) {
    const auto [from, point] = connector(joint.child("connector1"), fail, offset_of(joint));
    const auto [to, child_point] = connector(joint.child("connector2"), fail, offset_of(joint));
    if (index.count(from) == 0 || index.count(to) == 0) {
      fail(offset_of(joint), "joint '" + std::string(joint.attribute("label").as_string()) +
                                 "' connects '" + from + "' and '" + to +
                                 "', which are not both segments");
    }
    const std::size_t child = index[to];
    if (parent[child] >= 0 || from == to) {
      fail(offset_of(joint),
           "segment '" + to + "' is connected to a second parent ('" + from + "')");
    }
    parent[child] = static_cast<int>(index[from]);
    const Vec3* in_parent = point_at(from, point);
    const Vec3* found_in_child = point_at(to, child_point);
    const Vec3 in_child = found_in_child != nullptr ? *found_in_child : Vec3{};
    if (in_parent != nullptr) {
      offset[child] = *in_parent - in_child;
      continue;
    }
    if (!rest_poses) {
      rest_poses = frame_poses(rest, names.size(), fail, offset_of);
    }
    const auto pose = [&](std::size_t i) {
      const double* q = &rest_poses->q[4 * i];
      const double* p = &rest_poses->p[3 * i];
      const Quat raw{q[0], q[1], q[2], q[3]};
      if (!(std::fabs(norm(raw) - 1.0) <= Track::k_unit_tolerance)) {
        fail(offset_of(rest), "the " + std::string(rest.attribute("type").as_string()) +
                                  " frame's orientation of '" + names[i] +
                                  "' is not a unit quaternion");
      }
      return Pose{{p[0], p[1], p[2]}, normalized(raw)};
    };
    const Pose a = pose(index[from]), c = pose(child);
    offset[child] = rotate(conj(a.q), c.p + rotate(c.q, in_child) - a.p) - in_child;
    measured += (measured.empty() ? "" : ", ") + to;
  }
  if (!measured.empty()) {
    notes.push_back("the joints of " + measured +
                    " name points their parents do not list: their offsets are measured in the " +
                    (std::string_view(rest.attribute("type").as_string()) == "identity"
                         ? "identity (rest) frame"
                         : "first normal frame"));
  }
  // Parents before children: roots in file order, then breadth first. A segment never reached
  // sits on a cycle.
  Skeleton skeleton;
  std::vector<int> joint_of(names.size(), -1);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (parent[i] < 0) {
      order.push_back(i);
    }
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (parent[i] == static_cast<int>(order[k])) {
        order.push_back(i);
      }
    }
  }
  if (order.size() != names.size()) {
    fail(offset_of(joints), "the joints connect segments in a cycle");
  }
  for (std::size_t i : order) {
    Joint j;
    j.name = names[i];
    j.parent = parent[i] < 0 ? -1 : joint_of[static_cast<std::size_t>(parent[i])];
    j.offset = offset[i];
    joint_of[i] = static_cast<int>(skeleton.joints.size());
    skeleton.joints.push_back(j);
  }
  return skeleton;
}

} // namespace

Capture parse_mvnx(std::string_view text, std::string_view source, const LoadOptions& options) {
  detail::check_options(options, source);
  const std::string path(source);
  const auto fail = [&](std::size_t offset, const std::string& message) -> void {
    throw LoadError::at_byte(path, offset, "MVNX: " + message);
  };
  pugi::xml_document document;
  // parse_default without parse_escapes' cost would not matter: the numbers need no escapes.
  const pugi::xml_parse_result parsed =
      document.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    fail(static_cast<std::size_t>(parsed.offset),
         std::string("not well-formed XML: ") + parsed.description());
  }
  const pugi::xml_node subject = document.child("mvnx").child("subject");
  if (!subject) {
    fail(0, "no <mvnx><subject> element");
  }
  const auto offset_of = [&](const pugi::xml_node& node) {
    return static_cast<std::size_t>(std::max<std::ptrdiff_t>(node.offset_debug(), 0));
  };
  const double rate = subject.attribute("frameRate").as_double(0.0);
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    fail(offset_of(subject), "the subject's frameRate must be a positive number");
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const pugi::xml_node& segment : subject.child("segments").children("segment")) {
    std::string label = segment.attribute("label").as_string();
    if (label.empty() || !seen.insert(label).second) {
      fail(offset_of(segment), label.empty() ? "a segment without a label"
                                             : "a second segment labelled '" + label + "'");
    }
    names.push_back(std::move(label));
  }
  if (names.empty()) {
    fail(offset_of(subject), "no <segments><segment> in the subject");
  }
  CaptureInfo info;
  info.source = path;
  info.format = to_string(Format::Mvnx);
  info.frame_rate = rate;
  info.length_unit = "m";
  const detail::PoseConversion conversion = detail::make_conversion(options, Axis::Z, 1.0, info);
  const detail::TrackSelection selection(options.tracks);
  selection.check_found(names, source);
  std::vector<Track> tracks;
  for (const std::string& name : names) {
    tracks.emplace_back(name);
  }
  std::vector<double> q, p;
  double previous = -INFINITY;
  std::size_t frames = 0;
  double time_resolution = INFINITY; // the finest the times are printed to (s; MVN: whole ms)
  pugi::xml_node identity, first_normal; // the rest pose, and the frame that stands in for it
  for (const pugi::xml_node& frame : subject.child("frames").children("frame")) {
    const std::string_view type = frame.attribute("type").as_string();
    if (type == "identity" && !identity) {
      identity = frame;
    }
    if (type != "normal") {
      continue; // identity, tpose, tpose-isb and npose reference frames
    }
    if (!first_normal) {
      first_normal = frame;
    }
    const double t = frame.attribute("time").as_double(NAN) / 1000.0;
    if (!(t > previous) || !std::isfinite(t)) {
      fail(offset_of(frame), "frame time " + std::string(frame.attribute("time").as_string()) +
                                 " ms is not a number after the previous frame's");
    }
    previous = t;
    time_resolution = std::fmin(
        time_resolution, detail::printed_resolution(frame.attribute("time").as_string()) / 1000.0);
    const pugi::xml_node orientation = frame.child("orientation");
    const pugi::xml_node position = frame.child("position");
    if (!numbers(orientation.child_value(), q) || q.size() != 4 * names.size()) {
      fail(offset_of(orientation ? orientation : frame),
           "<orientation> must hold 4 numbers (w x y z) for each of the " +
               std::to_string(names.size()) + " segments");
    }
    if (!numbers(position.child_value(), p) || p.size() != 3 * names.size()) {
      fail(offset_of(position ? position : frame),
           "<position> must hold 3 numbers for each of the " + std::to_string(names.size()) +
               " segments");
    }
    for (std::size_t s = 0; s < names.size(); ++s) {
      try {
        tracks[s].append(
            t, conversion.apply({{p[3 * s], p[3 * s + 1], p[3 * s + 2]},
                                 Quat{q[4 * s], q[4 * s + 1], q[4 * s + 2], q[4 * s + 3]}}));
      } catch (const MocapError& e) {
        fail(offset_of(frame), "segment '" + names[s] + "': " + e.what());
      }
    }
    ++frames;
  }
  if (frames == 0) {
    fail(offset_of(subject), "no <frame type=\"normal\"> (only reference poses)");
  }
  detail::use_rate_grid(tracks, rate, time_resolution, info);
  std::optional<Skeleton> skeleton =
      hierarchy(subject, names, identity ? identity : first_normal, fail, offset_of, info.notes);
  Capture capture(std::move(info));
  for (Track& track : tracks) {
    if (selection.keep(track.name())) {
      track.make_continuous();
      capture.add_track(std::move(track));
    }
  }
  if (skeleton) {
    skeleton->frame_count = frames;
    skeleton->frame_time = 1.0 / rate;
    capture.set_skeleton(std::move(*skeleton));
  }
  return capture;
}

} // namespace odemocap
