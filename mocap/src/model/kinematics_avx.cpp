// Compiled with AVX (mocap/CMakeLists.txt): forward kinematics four frames to a register. As
// for math/step_velocities_avx.cpp, it defines nothing with external linkage that another
// file may also define but its entry point and four-lane instantiations.

#include "model/kinematics_block.hpp"
#include "model/kinematics_lanes.hpp"

namespace odemocap::detail {

void compute_kinematics_avx(const KinematicsJoint* joints, std::size_t joint_count,
                            const double* rows, std::size_t row_size, std::size_t count,
                            double* data, std::size_t stride) {
  compute_kinematics<Double4>(joints, joint_count, rows, row_size, count, data, stride);
}

} // namespace odemocap::detail
