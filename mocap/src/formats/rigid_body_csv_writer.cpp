#include <odemocap/error.hpp>
#include <odemocap/save.hpp>

#include <charconv>
#include <fstream>

namespace odemocap {
namespace {

void number(std::ostream& out, double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.write(buffer, result.ptr - buffer);
}

} // namespace

void write_rigid_body_csv(const Capture& capture, std::ostream& out) {
  const auto& tracks = capture.tracks();
  if (tracks.empty()) {
    throw MocapError("write_rigid_body_csv: the capture has no tracks");
  }
  for (const Track& t : tracks) {
    if (t.times() != tracks.front().times()) {
      throw MocapError("write_rigid_body_csv: tracks '" + tracks.front().name() + "' and '" +
                       t.name() + "' have different sample times (resample them first)");
    }
    if (t.name().find_first_of(",\"\n") != std::string::npos) {
      throw MocapError("write_rigid_body_csv: track name '" + t.name() +
                       "' contains a comma, quote or newline");
    }
  }
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
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    throw MocapError("cannot write " + path);
  }
  write_rigid_body_csv(capture, out);
  out.flush();
  if (!out) {
    throw MocapError("writing " + path + " failed");
  }
}

} // namespace odemocap
