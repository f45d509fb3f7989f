// The only source compiled with AVX (mocap/CMakeLists.txt): step_lanes() four bodies to a
// register. It uses nothing with external linkage that another file may also emit but the
// Double4 instantiations of math/rates.hpp, which only this file makes, so no AVX instruction
// can reach a processor without it except through step_four_avx(), called after has_avx().

#include "math/step_lanes.hpp"
#include "math/step_velocities.hpp"

namespace odemocap::detail {

bool step_four_avx(BodyStepBatch& batch, std::size_t k, double inv_dt) {
  return step_lanes<Double4>(batch, k, inv_dt);
}

} // namespace odemocap::detail
