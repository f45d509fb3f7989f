// Peak memory and time of load_capture on real captures tiled to 1x, 10x and 100x their length
// (issue 30): the peak is the resident memory the load adds (VmHWM after, reset just before,
// minus VmRSS before), in a child process per load so that nothing earlier is counted or
// reused; the baseline is the file's size. Time per byte at 10x and 100x against 1x shows
// whether loading stays linear. The peak of a load that a load of the 1x file preceded in the
// same process (data_peak_over_file) leaves out what is paid once: the loader's code pages
// (the kernel maps them 64 kB around each first touch) and the runtime's first-use set-up.
//
// The files, written once into the temporary directory: Vicon.c3d from ../shared/data/ezc3d
// (51 markers, analog data, 2.25 MB) with its data section repeated and its header's frame
// count raised; the pathviewr Motive CSV from ../shared/data (3 rigid bodies) with its rows
// repeated and their frame numbers and times continued; the same capture saved as rigid-body
// CSV by this library and tiled likewise; CMU 131_03.bvh with its motion repeated.
#include <odemocap/mocap.hpp>

#include <benchmark/benchmark.h>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace odemocap;
namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string work_dir() {
  const fs::path dir = fs::temp_directory_path() / "odemocap_memory_bench";
  fs::create_directories(dir);
  return dir.string();
}

unsigned u16(const std::string& b, std::size_t at) {
  return static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8;
}

void put_u16(std::string& b, std::size_t at, unsigned v) {
  b[at] = static_cast<char>(v & 0xFF);
  b[at + 1] = static_cast<char>(v >> 8);
}

/// An Intel C3D with its frames repeated `factor` times: the header's last frame and, when
/// present, TRIAL:ACTUAL_END_FIELD raised to match.
std::string tile_c3d(const std::string& file, int factor) {
  const std::size_t first = u16(file, 6), last = u16(file, 8);
  const std::size_t frames = last - first + 1;
  const std::size_t data_start = (u16(file, 16) - 1) * 512;
  float scale = 0;
  std::memcpy(&scale, file.data() + 12, 4);
  const std::size_t frame_bytes = (4 * u16(file, 2) + u16(file, 4)) * (scale < 0 ? 4 : 2);
  std::string out = file.substr(0, data_start);
  const std::string data = file.substr(data_start, frames * frame_bytes);
  for (int k = 0; k < factor; ++k) {
    out += data;
  }
  const std::size_t new_last = first + frames * static_cast<std::size_t>(factor) - 1;
  if (new_last > 0xFFFF) {
    std::fprintf(stderr, "tile_c3d: %zu frames do not fit the header\n", new_last);
    std::abort();
  }
  put_u16(out, 8, static_cast<unsigned>(new_last));
  const std::size_t name = out.find("ACTUAL_END_FIELD");
  if (name != std::string::npos && name < data_start) {
    // name, then offset (2), type (1), dimension count (1), dimensions, data (2 words)
    const std::size_t dims = static_cast<unsigned char>(out[name + 16 + 3]);
    const std::size_t value = name + 16 + 4 + dims;
    put_u16(out, value, static_cast<unsigned>(new_last & 0xFFFF));
    put_u16(out, value + 2, static_cast<unsigned>(new_last >> 16));
  }
  return out;
}

/// Text with `header` lines kept and the rest repeated `factor` times; `shift(line, k)` gives
/// copy k of a data line (its frame number and time continued).
std::string tile_lines(const std::string& text, std::size_t header, int factor,
                       const std::function<std::string(const std::string&, int)>& shift) {
  std::istringstream in(text);
  std::string line, head, out;
  std::vector<std::string> rows;
  for (std::size_t n = 0; std::getline(in, line); ++n) {
    if (n < header) {
      head += line + "\n";
    } else if (!line.empty() && line != "\r") {
      rows.push_back(line);
    }
  }
  out = head;
  for (int k = 0; k < factor; ++k) {
    for (const std::string& row : rows) {
      out += shift(row, k) + "\n";
    }
  }
  return out;
}

/// Leading numeric cells of a row shifted: cell i gets `step[i] * k` added.
std::string shift_cells(const std::string& row, int k, const std::vector<double>& step) {
  std::string out = row;
  std::size_t at = 0;
  for (std::size_t i = 0; i < step.size(); ++i) {
    const std::size_t end = out.find(',', at);
    const double value = std::strtod(out.substr(at, end - at).c_str(), nullptr) + step[i] * k;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.10g", value);
    out.replace(at, end - at, buffer);
    at = out.find(',', at) + 1;
  }
  return out;
}

std::string make_c3d(int factor) {
  const std::string path = work_dir() + "/vicon_x" + std::to_string(factor) + ".c3d";
  if (!fs::exists(path)) {
    write(path, tile_c3d(read(std::string(ODEMOCAP_SHARED_DATA_DIR) + "/ezc3d/Vicon.c3d"), factor));
  }
  return path;
}

/// A table's data rows repeated `factor` times (first cells `frame, time` or `time`), written
/// to `name`_x`factor`.csv.
std::string make_table(const std::string& text, std::size_t header, const std::string& name,
                       bool frame_column, int factor) {
  std::istringstream in(text);
  std::string line;
  std::vector<double> first_cells, second_cells;
  for (std::size_t n = 0; std::getline(in, line); ++n) {
    if (n >= header && !line.empty()) {
      first_cells.push_back(std::strtod(line.c_str(), nullptr));
      second_cells.push_back(std::strtod(line.substr(line.find(',') + 1).c_str(), nullptr));
    }
  }
  // Each copy starts one mean interval after the last one's end (the pathviewr excerpt's
  // frames are not contiguous: 72210 to 105100 in 934 rows).
  const std::size_t rows = first_cells.size();
  const std::vector<double>& times = frame_column ? second_cells : first_cells;
  const double period =
      (times.back() - times.front()) * static_cast<double>(rows) / static_cast<double>(rows - 1);
  const std::vector<double> step =
      frame_column ? std::vector<double>{first_cells.back() - first_cells.front() + 1, period}
                   : std::vector<double>{period};
  const std::string path = work_dir() + "/" + name + "_x" + std::to_string(factor) + ".csv";
  write(path, tile_lines(text, header, factor, [&](const std::string& row, int k) {
          return k == 0 ? row : shift_cells(row, k, step);
        }));
  return path;
}

std::string make_motive(int factor) {
  const std::string path = work_dir() + "/pathviewr_motive_x" + std::to_string(factor) + ".csv";
  if (fs::exists(path)) {
    return path;
  }
  const std::string text =
      read(std::string(ODEMOCAP_SHARED_DATA_DIR) + "/pathviewr/pathviewr_motive_example_data.csv");
  return make_table(text, 7, "pathviewr_motive", true, factor);
}

std::string make_rigid_body(int factor) {
  const std::string path = work_dir() + "/pathviewr_rigid_body_x" + std::to_string(factor) + ".csv";
  if (fs::exists(path)) {
    return path;
  }
  const std::string source = work_dir() + "/pathviewr_rigid_body.csv";
  if (!fs::exists(source)) {
    save_rigid_body_csv(load_capture(std::string(ODEMOCAP_SHARED_DATA_DIR) +
                                     "/pathviewr/pathviewr_motive_example_data.csv"),
                        source);
  }
  return make_table(read(source), 2, "pathviewr_rigid_body", false, factor);
}

std::string make_bvh(int factor) {
  const std::string path = work_dir() + "/cmu_131_03_x" + std::to_string(factor) + ".bvh";
  if (fs::exists(path)) {
    return path;
  }
  const std::string text = read(std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh");
  const std::size_t motion = text.find("Frame Time:");
  const std::size_t body = text.find('\n', motion) + 1;
  const std::size_t frames_at = text.find("Frames:");
  const std::size_t frames = std::strtoul(text.c_str() + frames_at + 7, nullptr, 10);
  std::string out = text.substr(0, frames_at) +
                    "Frames: " + std::to_string(frames * static_cast<std::size_t>(factor)) +
                    text.substr(text.find('\n', frames_at), body - text.find('\n', frames_at));
  for (int k = 0; k < factor; ++k) {
    out += text.substr(body);
  }
  write(path, out);
  return path;
}

double status_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) {
      return std::strtod(line.c_str() + std::strlen(field), nullptr) * 1024.0;
    }
  }
  return -1.0;
}

struct Measure {
  double seconds = -1.0;
  double peak_bytes = -1.0;
  std::size_t tracks = 0;
};

/// One load in a child process: its added peak resident memory and its time. With `first`,
/// that file is loaded (and let go) before: the code a load runs and what the runtime sets up
/// on first use are then resident already, and the peak is the load's data alone.
Measure measure_load(const std::string& path, const std::string& first = {}) {
  int fds[2];
  if (pipe(fds) != 0) {
    return {};
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (!first.empty()) {
      try {
        load_capture(first);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", first.c_str(), e.what());
        _exit(1);
      }
    }
    // Heap the parent freed (the tiled files it wrote) is handed back first, or the load
    // would reuse those resident pages unseen; then VmHWM := VmRSS.
    malloc_trim(0);
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    Measure m;
    const double before = status_bytes("VmRSS:");
    const auto start = std::chrono::steady_clock::now();
    try {
      const Capture capture = load_capture(path);
      m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      m.peak_bytes = status_bytes("VmHWM:") - before;
      m.tracks = capture.tracks().size();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
    }
    const ssize_t written = ::write(fds[1], &m, sizeof m);
    _exit(written == sizeof m ? 0 : 1);
  }
  close(fds[1]);
  Measure m;
  const ssize_t got = ::read(fds[0], &m, sizeof m);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got == sizeof m ? m : Measure{};
}

/// Loads the 1x file and the Arg()x file, reports peak over file size for both and the time
/// per byte of the larger against the 1x.
template <std::string (*Make)(int)> void load_memory(benchmark::State& state) {
  if (!fs::exists(std::string(ODEMOCAP_SHARED_DATA_DIR) + "/ezc3d/Vicon.c3d")) {
    state.SkipWithError("../shared/data is not beside the checkout");
    return;
  }
  const int factor = static_cast<int>(state.range(0));
  const std::string small_path = Make(1), large_path = Make(factor);
  const double small_size = static_cast<double>(fs::file_size(small_path));
  const double large_size = static_cast<double>(fs::file_size(large_path));
  Measure small, large, after_first;
  for (auto _ : state) {
    small = measure_load(small_path);
    large = measure_load(large_path);
    after_first = measure_load(large_path, small_path);
    state.SetIterationTime(large.seconds);
  }
  if (small.seconds < 0 || large.seconds < 0 || after_first.seconds < 0) {
    state.SkipWithError("a load failed (see stderr)");
    return;
  }
  state.counters["file_MB"] = large_size / 1e6;
  state.counters["peak_over_file_1x"] = small.peak_bytes / small_size;
  state.counters["peak_over_file"] = large.peak_bytes / large_size;
  state.counters["peak_MB"] = large.peak_bytes / 1e6;
  state.counters["data_peak_over_file"] = after_first.peak_bytes / large_size;
  state.counters["time_per_byte_vs_1x"] =
      (large.seconds / large_size) / (small.seconds / small_size);
  state.counters["MB_per_s"] = large_size / 1e6 / large.seconds;
}

BENCHMARK_TEMPLATE(load_memory, make_c3d)
    ->Name("c3d_vicon")
    ->Arg(10)
    ->Arg(100)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(load_memory, make_motive)
    ->Name("motive_csv_pathviewr")
    ->Arg(10)
    ->Arg(100)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(load_memory, make_rigid_body)
    ->Name("rigid_body_csv_pathviewr")
    ->Arg(10)
    ->Arg(100)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(load_memory, make_bvh)
    ->Name("bvh_cmu_131_03")
    ->Arg(10)
    ->Arg(100)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
