# Helpers for the project's own targets.

# Warning flags for project code (never for consumers of the installed package).
function(odemocap_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion)
  if(ODEMOCAP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# odemocap_add_library(<component> <sources>...): library odemocap_<component>, exported and
# aliased as odemocap::<component>, with public headers in ./include.
function(odemocap_add_library component)
  set(target odemocap_${component})
  add_library(${target} ${ARGN})
  add_library(odemocap::${component} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component}
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC
    "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  target_compile_features(${target} PUBLIC cxx_std_17)
  # The libraries are static C++: a program linked by the C compiler driver (a C-only project)
  # needs the C++ runtime named, which the C++ driver adds by itself.
  target_link_libraries(${target} INTERFACE "$<$<LINK_LANGUAGE:C>:stdc++>"
    "$<$<LINK_LANGUAGE:C>:m>")
  odemocap_set_warnings(${target})
endfunction()
