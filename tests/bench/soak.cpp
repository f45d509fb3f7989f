// Soak run (a tool, not a test): replays a CMU capture in a loop among props for a long
// simulated time and reports drift from the tracks, non-finite values and memory.
// Usage: odemocap_soak [simulated seconds, default 3600] [capture, default data/cmu/131_03.bvh]
#include "capture_scene.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

/// Resident set size in MiB (Linux /proc/self/statm; 0 elsewhere).
double rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

} // namespace

int main(int argc, char** argv) {
  using namespace odemocap;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3600.0;
  const std::string path =
      argc > 2 ? argv[2] : std::string(ODEMOCAP_REPO_DATA_DIR) + "/cmu/131_03.bvh";
  try {
    bench::CaptureScene scene(path, 20);
    const double h = 1.0 / 120;
    const auto steps = static_cast<long>(seconds / h);
    double worst_p = 0, worst_a = 0;
    long non_finite = 0;
    const double rss_start = rss_mib();
    double rss_tenth = 0;
    const auto wall = std::chrono::steady_clock::now();
    for (long i = 0; i < steps; ++i) {
      scene.driver->prestep(h);
      scene.collide_and_step(h);
      for (auto id : scene.bindings) {
        const Pose actual = body_pose(scene.driver->body(id));
        if (!is_finite(actual.p) || !is_finite(actual.q)) {
          ++non_finite;
          continue;
        }
        const Pose expected = scene.driver->target(id, scene.driver->time());
        worst_p = std::fmax(worst_p, norm(actual.p - expected.p));
        worst_a = std::fmax(worst_a, angle_between(normalized(actual.q), expected.q));
      }
      for (dBodyID prop : scene.props) {
        non_finite += is_finite(body_pose(prop).p) ? 0 : 1;
      }
      if (i == steps / 10) {
        rss_tenth = rss_mib();
      }
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    std::size_t teleports = 0;
    std::size_t seams = 0;
    for (auto id : scene.bindings) {
      teleports += scene.driver->stats(id).teleports;
      seams += scene.driver->stats(id).seams;
    }
    std::printf("soak: %.0f s simulated (%ld steps of 1/120 s, %zu captured bodies, %zu props) in "
                "%.1f s\n",
                seconds, steps, scene.bindings.size(), scene.props.size(), elapsed);
    std::printf("  worst distance from track: %.2e m, %.2e rad\n", worst_p, worst_a);
    std::printf("  non-finite poses: %ld\n", non_finite);
    std::printf("  loop seams crossed: %zu; teleports (data glitches): %zu\n", seams, teleports);
    std::printf("  resident memory: %.1f MiB at start, %.1f MiB at 10%%, %.1f MiB at the end\n",
                rss_start, rss_tenth, rss_mib());
    return non_finite == 0 && worst_p < 1e-6 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "odemocap_soak: %s\n", e.what());
    return 2;
  }
}
