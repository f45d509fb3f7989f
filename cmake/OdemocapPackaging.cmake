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
