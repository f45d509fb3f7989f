// Xsens MVNX (XML, read with pugixml): <mvnx><subject frameRate=...><segments><segment
// label=... id=...>, then <frames> of which those with type="normal" carry per segment an
// orientation (quaternion w x y z, the MVN convention) in <orientation> and a position (m)
// in <position>, space-separated, segments in the order of <segments>. Frame times are the
// "time" attribute (ms). Xsens's world is Z up.

#include "checks.hpp"
#include "load_common.hpp"
#include "text_scanner.hpp"

#include <odemocap/load.hpp>

#include <pugixml.hpp>

#include <charconv>
#include <cmath>
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
  for (const pugi::xml_node& frame : subject.child("frames").children("frame")) {
    if (std::string_view(frame.attribute("type").as_string()) != "normal") {
      continue; // identity, tpose and tpose-isb reference frames
    }
    const double t = frame.attribute("time").as_double(NAN) / 1000.0;
    if (!(t > previous) || !std::isfinite(t)) {
      fail(offset_of(frame), "frame time " + std::string(frame.attribute("time").as_string()) +
                                 " ms is not a number after the previous frame's");
    }
    previous = t;
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
  Capture capture(std::move(info));
  for (Track& track : tracks) {
    if (selection.keep(track.name())) {
      track.make_continuous();
      capture.add_track(std::move(track));
    }
  }
  return capture;
}

} // namespace odemocap
