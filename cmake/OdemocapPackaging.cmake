# Installs the libraries, public headers and a CMake package so that outside projects can
# `find_package(odemocap CONFIG REQUIRED)` and link odemocap::mocap / odemocap::plugin.
include(CMakePackageConfigHelpers)

set(odemocap_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/odemocap")

install(TARGETS odemocap_mocap odemocap_plugin
  EXPORT odemocapTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY mocap/include/odemocap plugin/include/odemocap
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT odemocapTargets NAMESPACE odemocap:: DESTINATION "${odemocap_cmake_dir}")

configure_package_config_file(cmake/odemocapConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/odemocapConfig.cmake"
  INSTALL_DESTINATION "${odemocap_cmake_dir}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/odemocapConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/odemocapConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/odemocapConfigVersion.cmake"
  DESTINATION "${odemocap_cmake_dir}")

# pkg-config files for builds without CMake (Makefiles): odemocap-mocap.pc (no ODE) and
# odemocap-plugin.pc (requires odemocap-mocap and ode). The libraries are static C++: -lstdc++
# and -lm let a C program link them with a C compiler driver.
set(pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH pc_to_prefix "/root/${pc_dir}" "/root")
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
foreach(component mocap plugin)
  if(component STREQUAL "mocap")
    set(pc_description "Motion-capture tracks, loaders and velocity estimation (no ODE)")
    set(pc_requires "pugixml")
    set(pc_libs "-lstdc++ -lm")
  else()
    set(pc_description "Motion-capture driven kinematic bodies for ODE")
    set(pc_requires "odemocap-mocap ode")
    set(pc_libs "")
  endif()
  configure_file(cmake/odemocap.pc.in "${CMAKE_CURRENT_BINARY_DIR}/odemocap-${component}.pc" @ONLY)
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/odemocap-${component}.pc" DESTINATION "${pc_dir}")
endforeach()
