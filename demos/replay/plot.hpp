#pragma once
// `odemocap-replay --plot FILE.svg`: the summary's per-step figures over time, one panel per
// figure (hand lock gap, chain joint gap, track error), one line per drive.

#include "replay_scene.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace odemocap::replay {

/// One drive's series.
struct PlotRun {
  std::string name;
  std::vector<StepFigures> series;
};

/// Writes a self-contained SVG (no fonts or scripts fetched).
void write_plot(std::ostream& out, const std::string& title, const std::vector<PlotRun>& runs);

} // namespace odemocap::replay
