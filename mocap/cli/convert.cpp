#include "commands.hpp"

#include <odemocap/repair.hpp>
#include <odemocap/save.hpp>

#include <iostream>

namespace odemocap::cli {

int run_convert(const ConvertCommand& command, const LoadOptions& load) {
  try {
    const Capture in = load_capture(command.input, load);
    Capture out(in.info());
    for (const Track& original : in.tracks()) {
      // Loaded tracks already lie in one hemisphere (every loader runs the continuity pass).
      Track track = command.fill_gaps > 0 ? fill_gaps(original, command.fill_gaps, command.interp)
                                          : original;
      if (command.rate > 0.0) {
        track = resample(track, command.rate, command.interp);
      }
      out.add_track(std::move(track));
    }
    save_rigid_body_csv(out, command.output);
    for (const std::string& note : in.info().notes) {
      std::cerr << "odemocap convert: note: " << note << "\n";
    }
    return 0;
  } catch (const MocapError& e) {
    std::cerr << "odemocap convert: " << e.what() << "\n";
    return 2;
  }
}

} // namespace odemocap::cli
