// Batch validation throughput with 1 and 2 threads on a directory of copies of the CMU
// captures, and the process's peak memory against the batch's size.
#include "batch.hpp"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <sys/resource.h>

namespace {

namespace fs = std::filesystem;

/// 150 copies of each CMU capture (about 225 MB) in a scratch directory, made once.
const std::vector<std::string>& batch_files() {
  static const std::vector<std::string> files = [] {
    const fs::path dir = fs::temp_directory_path() / "odemocap_validate_bench";
    fs::create_directories(dir);
    for (const char* name : {"131_01", "131_03"}) {
      const fs::path source =
          fs::path(ODEMOCAP_REPO_DATA_DIR) / "cmu" / (std::string(name) + ".bvh");
      for (int i = 0; i < 150; ++i) {
        const fs::path copy = dir / (std::string(name) + "_" + std::to_string(i) + ".bvh");
        if (!fs::exists(copy)) {
          fs::copy_file(source, copy);
        }
      }
    }
    return odemocap::cli::collect_files({dir.string()});
  }();
  return files;
}

void validate_batch(benchmark::State& state) {
  const auto& files = batch_files();
  odemocap::LoadOptions load;
  load.length_scale = 0.0254 / 0.45;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto reports =
        odemocap::cli::validate_files(files, load, {}, static_cast<unsigned>(state.range(0)));
    bytes = 0;
    for (const auto& r : reports) {
      bytes += r.bytes;
    }
    benchmark::DoNotOptimize(reports.data());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["files"] = static_cast<double>(files.size());
  state.counters["batch_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}
BENCHMARK(validate_batch)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
