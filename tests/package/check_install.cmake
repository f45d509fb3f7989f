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
foreach(example analytic_track c_driver)
  set(build "${WORK_DIR}/${example}")
  run("${CMAKE_COMMAND}" -S "${EXAMPLES_DIR}/${example}" -B "${build}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_C_FLAGS=${flags}")
  run("${CMAKE_COMMAND}" --build "${build}")
endforeach()
run("${WORK_DIR}/analytic_track/odemocap-analytic-track")
if(NOT last_output MATCHES "slerp derivative: [0-9.e+-]+ rad")
  message(FATAL_ERROR "analytic_track ran but printed no replay summary:\n${last_output}")
endif()
run("${WORK_DIR}/c_driver/odemocap-c-driver" "${CAPTURE}")
if(NOT last_output MATCHES "teleports: 0")
  message(FATAL_ERROR "c_driver ran but printed no summary:\n${last_output}")
endif()
message(STATUS "outside projects built and ran against ${prefix}")
