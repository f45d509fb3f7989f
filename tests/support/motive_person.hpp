#pragma once
// A person as Motive's skeleton CSV export writes one, for the Motive loader's tests and the
// character's: 21 bones (Motive's Baseline names, heights of a person 1.7 m tall, poses in a
// world W whose +Z is up) walking along a random heading and turning as they go, and two
// markers on each bone, written once as "Bone Marker" (solved) and once as "Marker" (measured,
// the same names). The file's axes are W's turned by `c` (the export's axis convention): a
// position p is written as rotate(c, p), an orientation q as c q.

#include "support/reference_math.hpp"

#include <odemocap/pose.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace odemocap::test {

struct MotivePerson {
  struct Bone {
    const char* name;
    Vec3 at; // in the standing pose: (forward, left, height), m
  };
  static constexpr Bone k_bones[] = {
      {"Hip", {0, 0, 0.95}},           {"Ab", {0, 0, 1.05}},         {"Chest", {0, 0, 1.25}},
      {"Neck", {0, 0, 1.45}},          {"Head", {0.02, 0, 1.6}},     {"LShoulder", {0, 0.05, 1.42}},
      {"LUArm", {0, 0.18, 1.4}},       {"LFArm", {0, 0.2, 1.12}},    {"LHand", {0.02, 0.22, 0.85}},
      {"RShoulder", {0, -0.05, 1.42}}, {"RUArm", {0, -0.18, 1.4}},   {"RFArm", {0, -0.2, 1.12}},
      {"RHand", {0.02, -0.22, 0.85}},  {"LThigh", {0, 0.1, 0.9}},    {"LShin", {0, 0.1, 0.5}},
      {"LFoot", {0, 0.1, 0.08}},       {"LToe", {0.12, 0.12, 0.03}}, {"RThigh", {0, -0.1, 0.9}},
      {"RShin", {0, -0.1, 0.5}},       {"RFoot", {0, -0.1, 0.08}},   {"RToe", {0.12, -0.12, 0.03}}};
  static constexpr std::size_t k_count = sizeof k_bones / sizeof k_bones[0];
  static constexpr int k_frames = 40;

  std::vector<std::vector<Pose>> bones;   // [frame][bone], in W
  std::vector<std::vector<Vec3>> markers; // [frame][2 * bone + k], in W

  explicit MotivePerson(Random& random) {
    const double heading = random.uniform(-3.14, 3.14), speed = random.uniform(0.5, 1.5);
    const Vec3 start{random.uniform(-2, 2), random.uniform(-2, 2), 0};
    std::vector<Quat> tilt(k_count);
    std::vector<Vec3> offsets(2 * k_count);
    for (std::size_t b = 0; b < k_count; ++b) {
      tilt[b] = from_axis_angle(random.unit_vector(), random.uniform(0, 0.4));
      offsets[2 * b] = random.unit_vector() * 0.05;
      offsets[2 * b + 1] = random.unit_vector() * 0.05;
    }
    for (int f = 0; f < k_frames; ++f) {
      const double t = f / 120.0;
      const double yaw = heading + 0.5 * t; // turning as it walks
      const Quat turn = from_axis_angle({0, 0, 1}, yaw);
      const Vec3 walked = start + rotate(from_axis_angle({0, 0, 1}, heading), {speed * t, 0, 0});
      bones.emplace_back();
      markers.emplace_back();
      for (std::size_t b = 0; b < k_count; ++b) {
        const Pose pose{walked + rotate(turn, k_bones[b].at), turn * tilt[b]};
        bones.back().push_back(pose);
        for (int k = 0; k < 2; ++k) {
          markers.back().push_back(pose.p + rotate(pose.q, offsets[2 * b + k]));
        }
      }
    }
  }

  static std::string marker_name(std::size_t m) {
    return std::string("Skeleton 001:") + k_bones[m / 2].name + (m % 2 == 0 ? "Front" : "Back");
  }

  std::string file(const Quat& c, const std::string& space = "Global") const {
    std::string types, names, properties, axes;
    const auto column = [&](const std::string& type, const std::string& name,
                            const std::string& property, const std::string& axis) {
      types += "," + type;
      names += "," + name;
      properties += "," + property;
      axes += "," + axis;
    };
    for (std::size_t b = 0; b < k_count; ++b) {
      const std::string name = std::string("Skeleton 001:") + k_bones[b].name;
      for (const char* a : {"X", "Y", "Z", "W"}) {
        column("Bone", name, "Rotation", a);
      }
      for (const char* a : {"X", "Y", "Z"}) {
        column("Bone", name, "Position", a);
      }
    }
    for (const char* type : {"Bone Marker", "Marker"}) {
      for (std::size_t m = 0; m < 2 * k_count; ++m) {
        for (const char* a : {"X", "Y", "Z"}) {
          column(type, marker_name(m), "Position", a);
        }
        column(type, marker_name(m),
               type == std::string("Marker") ? "Mean Marker Error" : "Marker Quality", "");
      }
    }
    std::string out = "Format Version,1.23,Take Name,Take 2020-01-01 10.00.00 AM,Take Notes,,"
                      "Capture Frame Rate,120.000000,Export Frame Rate,120.000000,"
                      "Total Exported Frames," +
                      std::to_string(k_frames) +
                      ",Rotation Type,Quaternion,Length Units,Meters,Coordinate Space," + space +
                      "\n\n,Type" + types + "\n,Name" + names + "\n,ID" +
                      std::string(types.size() > 0 ? ",1" : "") + "\n," + properties +
                      "\nFrame,Time (Seconds)" + axes + "\n";
    char buffer[64];
    const auto number = [&](double v) {
      std::snprintf(buffer, sizeof buffer, ",%.17g", v);
      out += buffer;
    };
    for (int f = 0; f < k_frames; ++f) {
      std::snprintf(buffer, sizeof buffer, "%d,%.6f", f, f / 120.0);
      out += buffer;
      for (const Pose& pose : bones[static_cast<std::size_t>(f)]) {
        const Quat q = c * pose.q;
        const Vec3 p = rotate(c, pose.p);
        for (double v : {q.x, q.y, q.z, q.w, p.x, p.y, p.z}) {
          number(v);
        }
      }
      for (int copy = 0; copy < 2; ++copy) {
        for (const Vec3& m : markers[static_cast<std::size_t>(f)]) {
          const Vec3 p = rotate(c, m);
          for (double v : {p.x, p.y, p.z, 0.0001}) {
            number(v);
          }
        }
      }
      out += "\n";
    }
    return out;
  }
};

} // namespace odemocap::test
