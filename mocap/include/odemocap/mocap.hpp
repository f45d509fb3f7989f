#pragma once
/// Umbrella header of odemocap's mocap layer (no ODE dependency).

#include <odemocap/capture.hpp>
#include <odemocap/clip_blend.hpp>
#include <odemocap/cluster.hpp>
#include <odemocap/error.hpp>
#include <odemocap/euler.hpp>
#include <odemocap/footfall.hpp>
#include <odemocap/interpolation.hpp>
#include <odemocap/live_source.hpp>
#include <odemocap/live_stream.hpp>
#include <odemocap/load.hpp>
#include <odemocap/natnet.hpp>
#include <odemocap/plausibility.hpp>
#include <odemocap/pose.hpp>
#include <odemocap/pose_source.hpp>
#include <odemocap/qtm_rt.hpp>
#include <odemocap/quat.hpp>
#include <odemocap/repair.hpp>
#include <odemocap/save.hpp>
#include <odemocap/skeleton.hpp>
#include <odemocap/track.hpp>
#include <odemocap/validate.hpp>
#include <odemocap/vec3.hpp>
#include <odemocap/velocity.hpp>
