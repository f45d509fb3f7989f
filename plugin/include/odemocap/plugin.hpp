#pragma once
/// Umbrella header of odemocap's ODE layer; includes the mocap layer too.

#include <odemocap/character.hpp>
#include <odemocap/kinematic_driver.hpp>
#include <odemocap/mocap.hpp>
#include <odemocap/ode_math.hpp>
#include <odemocap/plugin_error.hpp>
#include <odemocap/quat_hinge_joint.hpp>
#include <odemocap/quat_joint.hpp>
#include <odemocap/quat_lock_joint.hpp>
#include <odemocap/soft_follower.hpp>
#include <odemocap/sweep_guard.hpp>
