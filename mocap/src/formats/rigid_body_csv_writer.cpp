#include <odemocap/error.hpp>
#include <odemocap/save.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace odemocap {
namespace {

void number(std::ostream& out, double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.write(buffer, result.ptr - buffer);
}

/// Refuses what the format cannot hold, before anything is written.
void check_writable(const Capture& capture) {
  const auto& tracks = capture.tracks();
  if (tracks.empty()) {
    throw MocapError("write_rigid_body_csv: the capture has no tracks");
  }
  for (const Track& t : tracks) {
    if (t.times() != tracks.front().times()) {
      throw MocapError("write_rigid_body_csv: tracks '" + tracks.front().name() + "' and '" +
                       t.name() + "' have different sample times (resample them first)");
    }
    // A '#' inside a name is kept: only a row that starts with one is a comment, and the
    // header starts with `time` (the C3D loader and live streams name a second 'a' 'a#2').
    if (t.name().find_first_of(",\"\n\r") != std::string::npos) {
      throw MocapError("write_rigid_body_csv: track name '" + t.name() +
                       "' contains a comma, quote or line break, which the rigid-body CSV "
                       "header cannot hold (rename the track)");
    }
  }
}

char axis_letter(Axis a) {
  return a == Axis::X ? 'x' : a == Axis::Y ? 'y' : 'z';
}

/// The metadata line (see save.hpp): what the numbers alone do not say.
void metadata(std::ostream& out, const CaptureInfo& info) {
  out << "# odemocap rigid-body-csv:";
  if (info.metres_per_unit() > 0.0) {
    out << " unit=";
    number(out, info.metres_per_unit());
    out << ';';
  }
  out << " up=" << axis_letter(info.up_axis) << ';';
  if (info.frame_rate > 0.0) {
    out << " rate=";
    number(out, info.frame_rate);
    out << ';';
  }
  const auto clean = [](std::string text) {
    for (char& c : text) {
      c = c == '\n' || c == '\r' || c == ';' ? ' ' : c;
    }
    return text;
  };
  if (!info.format.empty()) {
    out << " format=" << clean(info.format) << ';';
  }
  if (!info.source.empty()) {
    out << " source=" << clean(info.source); // last: the rest of the line
  }
  out << '\n';
}

} // namespace

void write_rigid_body_csv(const Capture& capture, std::ostream& out) {
  check_writable(capture);
  const auto& tracks = capture.tracks();
  metadata(out, capture.info());
  // Markers (position-only tracks) get x, y, z only: identity orientations would read back
  // as measured ones.
  out << "time";
  for (const Track& t : tracks) {
    for (const char* c : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"}) {
      if (t.position_only() && c[1] == 'q') {
        break;
      }
      out << ',' << t.name() << c;
    }
  }
  out << '\n';
  for (std::size_t i = 0; i < tracks.front().size(); ++i) {
    number(out, tracks.front().time(i));
    for (const Track& t : tracks) {
      const std::size_t columns = t.position_only() ? 3 : 7;
      if (!t.valid(i)) {
        out << std::string(columns, ',');
        continue;
      }
      const Pose p = t.pose(i);
      const double values[7] = {p.p.x, p.p.y, p.p.z, p.q.w, p.q.x, p.q.y, p.q.z};
      for (std::size_t c = 0; c < columns; ++c) {
        out << ',';
        number(out, values[c]);
      }
    }
    out << '\n';
  }
  if (!out) {
    throw MocapError("write_rigid_body_csv: writing failed");
  }
}

void save_rigid_body_csv(const Capture& capture, const std::string& path) {
  check_writable(capture); // refused before the file is touched: no empty file is left
  // Written beside the target and renamed over it once complete: a failure (a full disk)
  // leaves neither an empty nor a partial file, and an existing file stays as it was.
  const std::string partial = path + ".partial";
  try {
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      if (!out) {
        throw MocapError("cannot write " + path);
      }
      write_rigid_body_csv(capture, out);
      out.flush();
      if (!out) {
        throw MocapError("writing " + path + " failed");
      }
    }
    std::error_code error;
    std::filesystem::rename(partial, path, error);
    if (error) {
      throw MocapError("writing " + path + " failed: " + error.message());
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

} // namespace odemocap
