// The C API: thin wrappers that turn every C++ exception into a -1/NULL and a message.
#include <odemocap/odemocap.h>

#include <odemocap/plugin.hpp>

#include <limits>
#include <memory>
#include <new>
#include <string>

struct odmCapture {
  odemocap::Capture capture;
};

struct odmDriver {
  explicit odmDriver(dWorldID world) : driver(world) {}
  odemocap::KinematicDriver driver;
};

namespace {

thread_local std::string last_error;

/// Runs `f`; on any exception records its message and returns `failed`. A call that succeeds
/// leaves the message alone: it stays the last failed call's (as errno does), so a program that
/// makes two calls before checking both still reads why the first one failed.
template <class R, class F> R guarded(R failed, F f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return failed;
}

template <class T> T* require(T* handle, const char* what) {
  if (handle == nullptr) {
    throw std::invalid_argument(std::string(what) + " is NULL");
  }
  return handle;
}

const odemocap::Track& track_at(odmCaptureID capture, int index) {
  const auto& tracks = require(capture, "capture")->capture.tracks();
  if (index < 0 || static_cast<std::size_t>(index) >= tracks.size()) {
    throw std::out_of_range("no track " + std::to_string(index) + " (the capture has " +
                            std::to_string(tracks.size()) + ")");
  }
  return tracks[static_cast<std::size_t>(index)];
}

/// The counters of binding `binding`; throws for a null driver or a bad index.
const odemocap::BindingStats& stats_of(odmDriverID driver, int binding) {
  if (binding < 0) {
    throw std::out_of_range("binding must be >= 0");
  }
  return require(driver, "driver")->driver.stats(static_cast<std::size_t>(binding));
}

/// The C options as C++ ones; throws for an invalid at_end.
odemocap::BindOptions bind_options(const odmBindOptions* options) {
  odemocap::BindOptions o;
  if (options == nullptr) {
    return o;
  }
  o.offset = {
      {options->offset_position[0], options->offset_position[1], options->offset_position[2]},
      {options->offset_quaternion[0], options->offset_quaternion[1], options->offset_quaternion[2],
       options->offset_quaternion[3]}};
  o.time_offset = options->time_offset;
  o.playback_rate = options->playback_rate;
  if (options->at_end < odmEndHold || options->at_end > odmEndRelease) {
    throw std::invalid_argument("at_end must be odmEndHold, odmEndLoop or odmEndRelease, got " +
                                std::to_string(options->at_end));
  }
  o.at_end = static_cast<odemocap::TrackEnd>(options->at_end);
  o.interp = options->cubic != 0 ? odemocap::Interp::Cubic : odemocap::Interp::Linear;
  o.max_linear_speed = options->max_linear_speed;
  o.max_angular_speed = options->max_angular_speed;
  return o;
}

} // namespace

extern "C" {

const char* odmLastError(void) {
  return last_error.c_str();
}

namespace {

/// A capture loaded from `path` with `options`, Z up when asked; NULL and the error kept when
/// it cannot be.
odmCaptureID load(const char* path, odemocap::LoadOptions options, int z_up) {
  return guarded<odmCaptureID>(nullptr, [&] {
    if (z_up != 0) {
      options.up_axis = odemocap::Axis::Z;
    }
    auto capture = std::make_unique<odmCapture>();
    capture->capture = odemocap::load_capture(require(path, "path"), options);
    return capture.release();
  });
}

} // namespace

odmCaptureID odmCaptureLoad(const char* path, dReal length_scale, int z_up) {
  odemocap::LoadOptions options;
  options.length_scale = length_scale;
  return load(path, options, z_up);
}

odmCaptureID odmCaptureLoadMetres(const char* path, int z_up) {
  odemocap::LoadOptions options;
  options.to_metres = true;
  return load(path, options, z_up);
}

void odmCaptureDestroy(odmCaptureID capture) {
  delete capture;
}

int odmCaptureGetTrackCount(odmCaptureID capture) {
  return guarded(
      -1, [&] { return static_cast<int>(require(capture, "capture")->capture.tracks().size()); });
}

const char* odmCaptureGetTrackName(odmCaptureID capture, int index) {
  return guarded<const char*>(nullptr, [&] { return track_at(capture, index).name().c_str(); });
}

int odmCaptureFindTrack(odmCaptureID capture, const char* name) {
  return guarded(-1, [&] {
    const auto& tracks = require(capture, "capture")->capture.tracks();
    for (std::size_t i = 0; i < tracks.size(); ++i) {
      if (tracks[i].name() == require(name, "name")) {
        return static_cast<int>(i);
      }
    }
    last_error = std::string("no track named '") + name + "'";
    return -1;
  });
}

dReal odmCaptureGetTrackDuration(odmCaptureID capture, int index) {
  return guarded<dReal>(-1, [&] {
    const odemocap::Track& t = track_at(capture, index);
    return t.end_time() - t.start_time();
  });
}

odmDriverID odmDriverCreate(dWorldID world) {
  return guarded<odmDriverID>(nullptr, [&] { return new odmDriver(world); });
}

void odmDriverDestroy(odmDriverID driver) {
  delete driver;
}

void odmBindOptionsSetDefault(odmBindOptions* options) {
  if (options == nullptr) {
    return;
  }
  const odemocap::BindOptions d;
  *options = odmBindOptions{{d.offset.p.x, d.offset.p.y, d.offset.p.z},
                            {d.offset.q.w, d.offset.q.x, d.offset.q.y, d.offset.q.z},
                            d.time_offset,
                            d.playback_rate,
                            odmEndHold,
                            0,
                            d.max_linear_speed,
                            d.max_angular_speed};
}

int odmDriverBind(odmDriverID driver, dBodyID body, odmCaptureID capture, int track,
                  const odmBindOptions* options) {
  return guarded(-1, [&] {
    return static_cast<int>(
        require(driver, "driver")
            ->driver.bind(body, track_at(capture, track), bind_options(options)));
  });
}

int odmDriverBindCallback(odmDriverID driver, dBodyID body, odmPoseCallback callback,
                          void* user_data, const odmBindOptions* options) {
  return guarded(-1, [&] {
    if (callback == nullptr) {
      throw std::invalid_argument("callback is null");
    }
    auto source = std::make_shared<odemocap::FunctionSource>(
        "callback",
        [callback, user_data](double t, odemocap::Pose& out) {
          dReal p[7] = {0, 0, 0, 1, 0, 0, 0};
          if (callback(t, p, user_data) == 0) {
            return false;
          }
          out = {{p[0], p[1], p[2]}, {p[3], p[4], p[5], p[6]}};
          return true;
        },
        -std::numeric_limits<double>::infinity());
    return static_cast<int>(
        require(driver, "driver")->driver.bind(body, std::move(source), bind_options(options)));
  });
}

int odmDriverGetGapCount(odmDriverID driver, int binding) {
  return guarded(-1, [&] {
    const auto& stats = stats_of(driver, binding);
    return static_cast<int>(stats.gaps + stats.bad_poses);
  });
}

int odmDriverSetMode(odmDriverID driver, int mode) {
  return guarded(-1, [&] {
    if (mode < odmDriveGeodesic || mode > odmDriveTeleport) {
      throw std::invalid_argument("mode must be odmDriveGeodesic, odmDriveLinearApprox or "
                                  "odmDriveTeleport, got " +
                                  std::to_string(mode));
    }
    require(driver, "driver")->driver.set_mode(static_cast<odemocap::DriveMode>(mode));
    return 0;
  });
}

int odmDriverSetNeighbours(odmDriverID driver, int exact_rotation, dReal joint_erp) {
  return guarded(-1, [&] {
    odemocap::KinematicDriver& d = require(driver, "driver")->driver;
    odemocap::NeighbourSettings settings = d.neighbours();
    settings.exact_rotation = exact_rotation != 0;
    settings.joint_erp = joint_erp;
    d.set_neighbours(settings);
    return 0;
  });
}

int odmDriverSetCarryResting(odmDriverID driver, int carry) {
  return guarded(-1, [&] {
    odemocap::KinematicDriver& d = require(driver, "driver")->driver;
    odemocap::NeighbourSettings settings = d.neighbours();
    settings.carry_resting = carry != 0;
    d.set_neighbours(settings);
    return 0;
  });
}

int odmDriverPrestep(odmDriverID driver, dReal h) {
  return guarded(-1, [&] {
    require(driver, "driver")->driver.prestep(h);
    return 0;
  });
}

dReal odmDriverGetTime(odmDriverID driver) {
  return guarded<dReal>(-1, [&] { return require(driver, "driver")->driver.time(); });
}

int odmDriverGetTeleportCount(odmDriverID driver, int binding) {
  return guarded(-1, [&] { return static_cast<int>(stats_of(driver, binding).teleports); });
}

int odmDriverGetSeamCount(odmDriverID driver, int binding) {
  return guarded(-1, [&] { return static_cast<int>(stats_of(driver, binding).seams); });
}

} // extern "C"
