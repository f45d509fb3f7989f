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
  out << "time";
  for (const Track& t : tracks) {
    for (const char* c : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"}) {
      out << ',' << t.name() << c;
    }
  }
  out << '\n';
  for (std::size_t i = 0; i < tracks.front().size(); ++i) {
    number(out, tracks.front().time(i));
    for (const Track& t : tracks) {
      if (!t.valid(i)) {
        out << ",,,,,,,";
        continue;
      }
      const Pose p = t.pose(i);
      for (double v : {p.p.x, p.p.y, p.p.z, p.q.w, p.q.x, p.q.y, p.q.z}) {
        out << ',';
        number(out, v);
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
