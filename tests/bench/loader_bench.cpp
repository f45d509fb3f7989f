// Loader throughput against a floor measured in the same run: tokenising the same bytes and
// converting every number with std::from_chars, which any text loader has to do at least.
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#ifdef ODEMOCAP_HAVE_BVH11
#include <bvh11.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <malloc.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace odemocap;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& cmu_text() {
  static const std::string text = read(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh");
  return text;
}

const std::string& motive_text() {
  static const std::string text =
      read(std::string(ODEMOCAP_SHARED_DATA_DIR) + "/pathviewr/pathviewr_motive_example_data.csv");
  return text;
}

/// The floor: split on white space (and `extra` separators), from_chars every token.
double floor_sum(const std::string& text, char extra) {
  double sum = 0.0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == extra)) {
      ++p;
    }
    const char* start = p;
    while (p < end && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == extra)) {
      ++p;
    }
    double v = 0.0;
    if (std::from_chars(start, p, v).ec == std::errc()) {
      sum += v;
    }
  }
  return sum;
}

template <const std::string& (*Text)(), char Extra> void floor_from_chars(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(floor_sum(text, Extra));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// Text to hierarchy and raw channels: the parsing the floor is compared with.
void bvh_parse(benchmark::State& state) {
  const std::string& text = cmu_text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_bvh_skeleton(text, "131_03.bvh"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// The whole load: parsing, forward kinematics, tracks, continuity pass.
void bvh_load(benchmark::State& state) {
  const std::string& text = cmu_text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_bvh(text, "131_03.bvh"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// The outside comparison (bvh11, when built with ODEMOCAP_BVH11_DIR) and our side of it, both
/// from the file: read, parse, and every joint's world pose in every frame. bvh11's side
/// composes each joint's transform relative to its parent with its parent's world transform,
/// once per joint-frame in hierarchy order (GetTransformation would walk to the root for each
/// joint: slower, and not what a careful user would write).
const std::string& cmu_path() {
  static const std::string path = std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh";
  return path;
}

void bvh_load_file(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(load_capture(cmu_path()));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(cmu_text().size()));
}

#ifdef ODEMOCAP_HAVE_BVH11
void bvh11_load_file(benchmark::State& state) {
  for (auto _ : state) {
    const bvh11::BvhObject bvh(cmu_path());
    const auto joints = bvh.GetJointList(); // parents before children
    std::map<const bvh11::Joint*, std::size_t> index;
    for (std::size_t j = 0; j < joints.size(); ++j) {
      index[joints[j].get()] = j;
    }
    std::vector<std::vector<Eigen::Affine3d>> world(
        joints.size(), std::vector<Eigen::Affine3d>(static_cast<std::size_t>(bvh.frames())));
    for (int f = 0; f < bvh.frames(); ++f) {
      for (std::size_t j = 0; j < joints.size(); ++j) {
        const Eigen::Affine3d local = bvh.GetTransformationRelativeToParent(joints[j], f);
        const auto parent = joints[j]->parent();
        world[j][static_cast<std::size_t>(f)] =
            parent ? world[index.at(parent.get())][static_cast<std::size_t>(f)] * local : local;
      }
    }
    benchmark::DoNotOptimize(world.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(cmu_text().size()));
}
#endif

void motive_parse(benchmark::State& state) {
  const std::string& text = motive_text();
  if (text.empty()) {
    state.SkipWithError("../shared/data/pathviewr is not beside the checkout");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_motive_csv(text, "pathviewr.csv"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

void bvh_forward_kinematics(benchmark::State& state) {
  const Skeleton skeleton = parse_bvh_skeleton(cmu_text(), "131_03.bvh");
  std::vector<Pose> world;
  for (auto _ : state) {
    for (std::size_t f = 0; f < skeleton.frame_count; ++f) {
      forward_kinematics(skeleton, f, world);
      benchmark::DoNotOptimize(world.data());
    }
  }
  // Items are joint-frames: the time per item is ns per joint-frame.
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(skeleton.frame_count * skeleton.joints.size()));
}

const std::string& vicon_c3d() {
  static const std::string bytes = read(std::string(ODEMOCAP_SHARED_DATA_DIR) + "/ezc3d/Vicon.c3d");
  return bytes;
}

/// The C3D floor: what any reader of this Intel float file must do at least. Take the layout
/// from the header, then for every frame and point copy the four floats out, convert them to
/// double and store position and validity in preallocated arrays; step over the analog block.
void floor_c3d_read_convert(benchmark::State& state) {
  const std::string& bytes = vicon_c3d();
  if (bytes.empty()) {
    state.SkipWithError("../shared/data/ezc3d is not beside the checkout");
    return;
  }
  const auto word = [&](std::size_t at) {
    return static_cast<std::size_t>(static_cast<unsigned char>(bytes[at]) |
                                    static_cast<unsigned char>(bytes[at + 1]) << 8);
  };
  const std::size_t points = word(2);
  const std::size_t analog = word(4);
  const std::size_t frames = word(8) - word(6) + 1;
  const std::size_t start = (word(16) - 1) * 512;
  const std::size_t frame_bytes = (4 * points + analog) * 4;
  std::vector<double> xyz(points * frames * 3);
  std::vector<unsigned char> valid(points * frames);
  for (auto _ : state) {
    for (std::size_t f = 0; f < frames; ++f) {
      const char* frame = bytes.data() + start + f * frame_bytes;
      for (std::size_t p = 0; p < points; ++p) {
        float v[4];
        std::memcpy(v, frame + 16 * p, sizeof v);
        const std::size_t i = p * frames + f;
        xyz[3 * i] = v[0];
        xyz[3 * i + 1] = v[1];
        xyz[3 * i + 2] = v[2];
        valid[i] = v[3] >= 0.0f;
      }
    }
    benchmark::DoNotOptimize(xyz.data());
    benchmark::DoNotOptimize(valid.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.size()));
}

/// The whole C3D load: parameters, checks, 51 marker tracks with their gaps, units to metres.
void c3d_load(benchmark::State& state) {
  const std::string& bytes = vicon_c3d();
  if (bytes.empty()) {
    state.SkipWithError("../shared/data/ezc3d is not beside the checkout");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(parse_c3d(bytes, "Vicon.c3d"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.size()));
}

// ---- the marker and segment formats: real marker data (the Vicon trial's 51 markers x 580
// frames, in mm with 6 significant digits, gaps left empty) written in each format's layout,
// so every loader reads the same numbers; AMC from CMU 131_03's first frames repeated to 1100
// frames; MVNX from 23 segments x 1000 frames of changing poses.

std::string six(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

const Capture& vicon_markers() {
  static const Capture capture = [] {
    LoadOptions mm;
    mm.unit_in_metres = 1.0; // the file's numbers
    const std::string& bytes = vicon_c3d();
    return bytes.empty() ? Capture() : parse_c3d(bytes, "Vicon.c3d", mm);
  }();
  return capture;
}

/// Rows of the markers: `lead(i)` starts row i, `sep` between cells, gaps as empty cells.
std::string marker_rows(const std::function<std::string(std::size_t)>& lead, char sep) {
  const Capture& c = vicon_markers();
  std::string out;
  for (std::size_t i = 0; !c.tracks().empty() && i < c.tracks()[0].size(); ++i) {
    out += lead(i);
    for (const Track& t : c.tracks()) {
      for (int k = 0; k < 3; ++k) {
        out += sep;
        if (t.valid(i)) {
          const Vec3& p = t.position(i);
          out += six(k == 0 ? p.x : k == 1 ? p.y : p.z);
        }
      }
    }
    out += '\n';
  }
  return out;
}

const std::string& vicon_csv_text() {
  static const std::string text = [] {
    const Capture& c = vicon_markers();
    std::string out = "Trajectories\n100\n,";
    std::string axes = "Frame,Sub Frame", units = ",";
    for (const Track& t : c.tracks()) {
      out += "," + t.name() + ",,";
      axes += ",X,Y,Z";
      units += ",mm,mm,mm";
    }
    return out + "\n" + axes + "\n" + units + "\n" +
           marker_rows([](std::size_t i) { return std::to_string(i + 1) + ",0"; }, ',');
  }();
  return text;
}

const std::string& trc_text() {
  static const std::string text = [] {
    const Capture& c = vicon_markers();
    std::string out = "PathFileType\t4\t(X/Y/Z)\tVicon.trc\nDataRate\tCameraRate\tNumFrames\t"
                      "NumMarkers\tUnits\n100\t100\t580\t" +
                      std::to_string(c.tracks().size()) + "\tmm\nFrame#\tTime";
    std::string axes = "\t";
    for (std::size_t m = 0; m < c.tracks().size(); ++m) {
      out += "\t" + c.tracks()[m].name() + "\t\t";
      const std::string n = std::to_string(m + 1);
      axes += "\tX" + n + "\tY" + n + "\tZ" + n;
    }
    return out + "\n" + axes + "\n\n" +
           marker_rows(
               [](std::size_t i) {
                 return std::to_string(i + 1) + "\t" + six(0.01 * static_cast<double>(i));
               },
               '\t');
  }();
  return text;
}

const std::string& qtm_3d_text() {
  static const std::string text = [] {
    const Capture& c = vicon_markers();
    std::string out = "NO_OF_FRAMES\t580\nNO_OF_CAMERAS\t8\nNO_OF_MARKERS\t" +
                      std::to_string(c.tracks().size()) +
                      "\nFREQUENCY\t100\nDATA_INCLUDED\t3D\nMARKER_NAMES";
    std::string names = "Frame\tTime";
    for (const Track& t : c.tracks()) {
      out += "\t" + t.name();
      names += "\t" + t.name() + " X\t" + t.name() + " Y\t" + t.name() + " Z";
    }
    return out + "\n" + names + "\n" +
           marker_rows(
               [](std::size_t i) {
                 return std::to_string(i + 1) + "\t" + six(0.01 * static_cast<double>(i));
               },
               '\t');
  }();
  return text;
}

const std::string& asf_text() {
  static const std::string text = read(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131.asf");
  return text;
}

const std::string& amc_text() {
  static const std::string text = [] {
    const std::string first3 = read(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03_first3.amc");
    std::vector<std::string> frames; // the bone lines of frames 1, 2, 3
    std::istringstream in(first3);
    std::string out, line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
        frames.emplace_back();
      } else if (frames.empty()) {
        out += line + "\n";
      } else {
        frames.back() += line + "\n";
      }
    }
    for (std::size_t f = 0; f < 1100; ++f) {
      out += std::to_string(f + 1) + "\n" + frames[f % frames.size()];
    }
    return out;
  }();
  return text;
}

const std::string& mvnx_text() {
  static const std::string text = [] {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mvnx version=\"4\">\n"
                      "<subject label=\"s\" frameRate=\"60\" segmentCount=\"23\">\n<segments>\n";
    for (int s = 0; s < 23; ++s) {
      out += "<segment label=\"Segment" + std::to_string(s) + "\" id=\"" + std::to_string(s + 1) +
             "\"/>\n";
    }
    out += "</segments>\n<frames segmentCount=\"23\">\n";
    for (int f = 0; f < 1000; ++f) {
      out += "<frame time=\"" + std::to_string(f * 17) + "\" type=\"normal\"><orientation>";
      for (int s = 0; s < 23; ++s) {
        const double a = 0.001 * f + 0.1 * s;
        out += six(std::cos(a)) + " " + six(std::sin(a)) + " 0 0 ";
      }
      out += "</orientation><position>";
      for (int s = 0; s < 23; ++s) {
        out += six(0.01 * f) + " " + six(0.1 * s) + " " + six(1.0 + 0.01 * s) + " ";
      }
      out += "</position></frame>\n";
    }
    return out + "</frames>\n</subject>\n</mvnx>\n";
  }();
  return text;
}

template <const std::string& (*Text)(),
          Capture (*Parse)(std::string_view, std::string_view, const LoadOptions&)>
void parse_text(benchmark::State& state) {
  const std::string& text = Text();
  if (text.size() < 200) {
    state.SkipWithError("../shared/data/ezc3d is not beside the checkout");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(Parse(text, "bench", LoadOptions{}));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

Capture parse_amc(std::string_view text, std::string_view source, const LoadOptions& options) {
  return parse_asf_amc(asf_text(), text, source, options);
}

BENCHMARK_TEMPLATE(floor_from_chars, vicon_csv_text, ',')->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(parse_text, vicon_csv_text, parse_vicon_csv)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, trc_text, '\t')->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(parse_text, trc_text, parse_trc)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, qtm_3d_text, '\t')->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(parse_text, qtm_3d_text, parse_qualisys_tsv)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, amc_text, ' ')->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(parse_text, amc_text, parse_amc)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, mvnx_text, '<')->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(parse_text, mvnx_text, parse_mvnx)->Unit(benchmark::kMillisecond);

BENCHMARK_TEMPLATE(floor_from_chars, cmu_text, ' ')->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_load)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_forward_kinematics)->Unit(benchmark::kMillisecond);
// The fastest repetition beside the median: this machine's page faults (a load maps its file
// and vectors afresh) cost up to 3x more at times, whichever reader runs.
double fastest(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
BENCHMARK(bvh_load_file)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);
#ifdef ODEMOCAP_HAVE_BVH11
BENCHMARK(bvh11_load_file)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);
#endif
BENCHMARK_TEMPLATE(floor_from_chars, motive_text, ',')->Unit(benchmark::kMillisecond);
BENCHMARK(motive_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(floor_c3d_read_convert)->Unit(benchmark::kMillisecond);
BENCHMARK(c3d_load)->Unit(benchmark::kMillisecond);

} // namespace

// The heap kept between iterations, for every reader alike: glibc's default thresholds move
// with the sizes freed before, and after some benchmarks it hands the heap back to the kernel
// on every iteration, so each load faulted its 10 MB in afresh (1100 page faults, 3x the
// load's time on this VM, whichever reader ran). A program loads a file once; what these
// benchmarks compare is the reading, not the kernel's page faults.
int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
