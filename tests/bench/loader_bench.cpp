// Loader throughput against a floor measured in the same run: tokenising the same bytes and
// converting every number with std::from_chars, which any text loader has to do at least.
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

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
  const Capture capture = parse_bvh(cmu_text(), "131_03.bvh");
  const Skeleton& skeleton = *capture.skeleton();
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

BENCHMARK_TEMPLATE(floor_from_chars, cmu_text, ' ')->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_load)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_forward_kinematics)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, motive_text, ',')->Unit(benchmark::kMillisecond);
BENCHMARK(motive_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(floor_c3d_read_convert)->Unit(benchmark::kMillisecond);
BENCHMARK(c3d_load)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
