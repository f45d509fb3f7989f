# cmake -P script: install BUILD_DIR into WORK_DIR/prefix and build the examples against it.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

# Only public headers are installed: no private source header may leak.
file(GLOB_RECURSE installed_headers RELATIVE "${prefix}/include" "${prefix}/include/*")
foreach(h IN LISTS installed_headers)
  if(NOT h MATCHES "^odemocap/[a-z0-9_]+\\.(hpp|h)$")
    message(FATAL_ERROR "unexpected installed header: ${h}")
  endif()
endforeach()

set(flags "${CXX_FLAGS}")
if(SANITIZE)
  string(APPEND flags " -fsanitize=address,undefined")
endif()
# Each example is configured and built on its own, against the installed package only.
foreach(example analytic_track c_driver live_tool)
  set(build "${WORK_DIR}/${example}")
  run("${CMAKE_COMMAND}" -S "${EXAMPLES_DIR}/${example}" -B "${build}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_C_COMPILER=${C_COMPILER}"
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_C_FLAGS=${flags}")
  run("${CMAKE_COMMAND}" --build "${build}")
endforeach()
run("${WORK_DIR}/analytic_track/odemocap-analytic-track")
if(NOT last_output MATCHES "slerp derivative: [0-9.e+-]+ rad")
  message(FATAL_ERROR "analytic_track ran but printed no replay summary:\n${last_output}")
endif()
run("${WORK_DIR}/live_tool/odemocap-live-tool" "${CAPTURE}" RightWrist 1)
if(NOT last_output MATCHES "0 without a pose" OR NOT last_output MATCHES "received [1-9]")
  message(FATAL_ERROR "live_tool ran but did not follow the stream:\n${last_output}")
endif()
run("${WORK_DIR}/c_driver/odemocap-c-driver" "${CAPTURE}")
if(NOT last_output MATCHES "teleports: 0")
  message(FATAL_ERROR "c_driver ran but printed no summary:\n${last_output}")
endif()
# Given a missing file it fails and says why (odmLastError survives the calls after the load).
execute_process(COMMAND "${WORK_DIR}/c_driver/odemocap-c-driver" "${WORK_DIR}/no-such.bvh"
                RESULT_VARIABLE result ERROR_VARIABLE err OUTPUT_QUIET)
if(result EQUAL 0 OR NOT err MATCHES "odemocap-c-driver: .*no-such\\.bvh")
  message(FATAL_ERROR "c_driver on a missing file: exit ${result}, said:\n${err}")
endif()

# A Makefile project: pkg-config alone gives the flags (odemocap-plugin.pc brings ODE and the
# C++ runtime), built with the C compiler driver.
run("${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig"
    make -f "${EXAMPLES_DIR}/c_driver/Makefile" "OUT=${WORK_DIR}/" "CC=${C_COMPILER}"
    "CFLAGS=${flags}" "LDFLAGS=${flags}")
run("${WORK_DIR}/odemocap-c-driver-pc" "${CAPTURE}")
if(NOT last_output MATCHES "teleports: 0")
  message(FATAL_ERROR "the pkg-config build ran but printed no summary:\n${last_output}")
endif()

# The installed demo finds its bundled capture under the prefix, also after the tree moves.
file(COPY "${prefix}/" DESTINATION "${WORK_DIR}/moved")
foreach(root "${prefix}" "${WORK_DIR}/moved")
  run("${root}/bin/odemocap-replay" --headless --seconds 0.25)
  string(FIND "${last_output}" "capture: ${root}/share/odemocap/data/cmu/131_03.bvh" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the installed demo did not use ${root}/share:\n${last_output}")
  endif()
  run("${root}/bin/odemocap-replay" --scene blend --headless --seconds 0.25)
  string(FIND "${last_output}" "${root}/share/odemocap/data/cmu/35_24.bvh runs" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the installed blend scene did not use ${root}/share:\n${last_output}")
  endif()
endforeach()
message(STATUS "outside projects built and ran against ${prefix}")
