// Loader throughput against a floor measured in the same run: tokenising the same bytes and
// converting every number with std::from_chars, which any text loader has to do at least.
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <charconv>
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
  static const std::string text = read(std::string(ODEMOCAP_SHARED_DATA_DIR) +
                                       "/pathviewr/pathviewr_motive_example_data.csv");
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

template <const std::string& (*Text)(), char Extra>
void floor_from_chars(benchmark::State& state) {
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

BENCHMARK_TEMPLATE(floor_from_chars, cmu_text, ' ')->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_parse)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_load)->Unit(benchmark::kMillisecond);
BENCHMARK(bvh_forward_kinematics)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(floor_from_chars, motive_text, ',')->Unit(benchmark::kMillisecond);
BENCHMARK(motive_parse)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
