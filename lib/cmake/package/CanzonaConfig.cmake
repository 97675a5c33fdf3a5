# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# find_package(Canzona): the prebuilt libraries of an install's component e2e_dev (a GPU bundle)
# as targets canzona::<name>, for building what links libtorch on a machine that has none of the
# Debian -dev packages the project builds against. Their external dependencies (fmt, Google
# Benchmark, MPI, OpenBLAS, ...) are recreated from the same prefix: headers from deps/include/,
# shared libraries from lib/ (where the bundle carries them), never from the machine.
include(CMakeFindDependencyMacro)
get_filename_component(_canzona_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

# canzona_bundled_dependency(<target> [FIND <package>] [LIBRARIES <name>...] [HEADERS <path>...]
#                            [DEFINITIONS <d>...] [OPTIONS <o>...])
# FIND: the machine's own package (the C runtime's threads). Otherwise an imported target whose
# libraries are the prefix's lib/<name>.so* (one file each, by its soname) and whose headers are
# in deps/include/.
function(canzona_bundled_dependency target)
  cmake_parse_arguments(arg "" "FIND" "LIBRARIES;HEADERS;DEFINITIONS;OPTIONS" ${ARGN})
  if(TARGET ${target})
    return()
  endif()
  if(arg_FIND)
    find_dependency(${arg_FIND})
    return()
  endif()
  add_library(${target} INTERFACE IMPORTED)
  set(files "")
  foreach(name IN LISTS arg_LIBRARIES)
    file(GLOB candidates LIST_DIRECTORIES false "${_canzona_prefix}/lib/${name}.so*")
    if(NOT candidates)
      set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE PARENT_SCOPE)
      set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
          "${target} needs ${_canzona_prefix}/lib/${name}.so*, which is not there: use the "
          "package inside a GPU bundle (ci/gpu-bundle.sh), which carries the libraries"
          PARENT_SCOPE)
      return()
    endif()
    list(GET candidates 0 file)
    list(APPEND files ${file})
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${files}")
  if(arg_HEADERS)
    set_target_properties(${target} PROPERTIES
                          INTERFACE_INCLUDE_DIRECTORIES "${_canzona_prefix}/deps/include")
  endif()
  if(arg_DEFINITIONS)
    set_target_properties(${target} PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${arg_DEFINITIONS}")
  endif()
  if(arg_OPTIONS)
    set_target_properties(${target} PROPERTIES INTERFACE_COMPILE_OPTIONS "${arg_OPTIONS}")
  endif()
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/CanzonaDependencies.cmake")
if(DEFINED ${CMAKE_FIND_PACKAGE_NAME}_FOUND AND NOT ${CMAKE_FIND_PACKAGE_NAME}_FOUND)
  return()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/CanzonaTargets.cmake")
