# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Component e2e_dev: what a GPU node needs to build the end-to-end suite against its own libtorch
# (PyTorch's, CUDA) without this source tree or any Debian -dev package. Only what includes ATen
# is compiled there (lib/torch_model and the suite's main and adapter, ~20 s a file); everything
# else is linked prebuilt:
#   lib/canzona/*.a            every library those link, static and position independent
#   lib/cmake/Canzona/         the CMake package: targets canzona::<name> (CanzonaTargets.cmake),
#                              their dependencies recreated inside the install prefix
#                              (CanzonaDependencies.cmake, CanzonaConfig.cmake)
#   include/                   the libraries' headers, canzona/config.hpp, the suites' headers in
#                              include/canzona_suites/
#   deps/include/              the headers of fmt, nlohmann/json, CLI11, Google Benchmark and MPI
#                              that the libraries' public headers include
#   e2e/                       the sources compiled on the node, with their standalone
#                              CMakeLists.txt (suites/e2e_iteration/standalone/)
# The dependencies' shared libraries are not installed here: the GPU bundle carries them in lib/
# already (ci/gpu-bundle.sh), and CanzonaConfig.cmake finds them there. So the component is
# only for the bundle: a plain `cmake --install` leaves it out (EXCLUDE_FROM_ALL), and
# `--component e2e_dev` installs it.

# Header paths carried for a dependency whose headers the exported interfaces include, relative
# to one of its include directories. A dependency not listed is only linked (LINK_ONLY).
set(canzona_export_headers_fmt__fmt fmt)
set(canzona_export_headers_nlohmann_json__nlohmann_json nlohmann)
set(canzona_export_headers_CLI11__CLI11 CLI)
set(canzona_export_headers_benchmark__benchmark benchmark)
set(canzona_export_headers_MPI__MPI_C mpi.h mpi_portable_platform.h mpi-ext.h)

# The canzona libraries reachable from `roots` through link dependencies, and the imported
# (external) targets they link. Libraries built on the node (canzona_torch_model) and shared or
# object libraries (the CUDA device module and its parts) are not followed.
function(canzona_export_closure roots out_targets out_external)
  set(todo "")
  foreach(root IN LISTS roots)
    if(TARGET "${root}")
      get_target_property(aliased ${root} ALIASED_TARGET)
      if(aliased)
        set(root ${aliased})
      endif()
      if(root MATCHES "^canzona_")
        list(APPEND todo ${root})
      endif()
    endif()
  endforeach()
  set(seen "")
  set(external "")
  while(todo)
    list(POP_FRONT todo target)
    if(target IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${target})
    get_target_property(type ${target} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links ${target} LINK_LIBRARIES)
    endif()
    get_target_property(interface_links ${target} INTERFACE_LINK_LIBRARIES)
    foreach(item IN LISTS links interface_links)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
      if(item MATCHES "^::@")
        continue()  # CMake's marker around links made from another directory
      elseif(item MATCHES "::" AND NOT TARGET "${item}")
        # An imported target of a subdirectory: the export would name a target it cannot see.
        message(FATAL_ERROR "canzona: ${target} links ${item}, which is not visible at the top "
                            "level; make it IMPORTED_GLOBAL where it is found")
      elseif(NOT item OR item MATCHES "-NOTFOUND$" OR NOT TARGET "${item}")
        continue()  # plain libraries (dl) pass into the export as they are
      endif()
      get_target_property(aliased ${item} ALIASED_TARGET)
      if(aliased)
        set(item ${aliased})
      endif()
      get_target_property(imported ${item} IMPORTED)
      get_target_property(item_type ${item} TYPE)
      if(imported)
        list(APPEND external ${item})
      elseif(item MATCHES "^canzona_" AND NOT item STREQUAL "canzona_torch_model"
             AND item_type MATCHES "^(STATIC|INTERFACE)_LIBRARY$")
        list(APPEND todo ${item})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES external)
  set(${out_targets} ${seen} PARENT_SCOPE)
  set(${out_external} ${external} PARENT_SCOPE)
endfunction()

# Include directories and usage flags of an exported target as the build uses them
# (BUILD_INTERFACE) and as the install has them (INSTALL_INTERFACE), with install rules for the
# headers: <dir>/include and the generated folder into include/, the suites' folders (headers
# included by bare name) into include/canzona_suites/.
function(canzona_export_usage target)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(usage "")
    foreach(dir IN LISTS dirs)
      if(dir MATCHES "^\\$<")
        list(APPEND usage "${dir}")
        continue()
      endif()
      if(dir STREQUAL CANZONA_GENERATED_INCLUDE_DIR)
        set(destination include)
        install(FILES ${dir}/canzona/config.hpp DESTINATION include/canzona
                COMPONENT e2e_dev EXCLUDE_FROM_ALL)
      elseif(dir MATCHES "/include$")
        set(destination include)
        install(DIRECTORY ${dir}/ DESTINATION include COMPONENT e2e_dev EXCLUDE_FROM_ALL
                FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
      else()
        set(destination include/canzona_suites)
        install(DIRECTORY ${dir}/ DESTINATION include/canzona_suites
                COMPONENT e2e_dev EXCLUDE_FROM_ALL
                FILES_MATCHING PATTERN "*.hpp" PATTERN "tests" EXCLUDE PATTERN "standalone" EXCLUDE)
      endif()
      list(APPEND usage "$<BUILD_INTERFACE:${dir}>" "$<INSTALL_INTERFACE:${destination}>")
    endforeach()
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${usage}")
  endif()
  # Warnings, -Werror, sanitizers and the source path map are this build's: the node sets its own.
  foreach(property INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_OPTIONS)
    get_target_property(flags ${target} ${property})
    if(flags)
      set_target_properties(${target} PROPERTIES ${property} "$<BUILD_INTERFACE:${flags}>")
    endif()
  endforeach()
  string(REGEX REPLACE "^canzona_" "" name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
endfunction()

# One line of CanzonaDependencies.cmake: how CanzonaConfig.cmake recreates an external target
# inside the install prefix (its shared library by file name, its carried headers, its usage
# requirements), and install rules for those headers.
function(canzona_export_dependency target out_line)
  if(target STREQUAL "Threads::Threads")
    set(${out_line} "canzona_bundled_dependency(Threads::Threads FIND Threads)" PARENT_SCOPE)
    return()
  endif()
  # The shared libraries behind the target: its own file, else the paths it links.
  set(files "")
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    foreach(property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NONE IMPORTED_LOCATION)
      get_target_property(location ${target} ${property})
      if(location)
        list(APPEND files ${location})
        break()
      endif()
    endforeach()
  endif()
  get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
  foreach(item IN LISTS links)
    if(IS_ABSOLUTE "${item}")
      list(APPEND files ${item})
    endif()
  endforeach()
  set(libraries "")
  foreach(file IN LISTS files)
    get_filename_component(name ${file} NAME)
    string(REGEX REPLACE "\\.so.*$" "" name "${name}")
    list(APPEND libraries ${name})
  endforeach()
  # Carried headers, from the first include directory (the target's, else the compiler's) that
  # holds each.
  string(REPLACE "::" "__" key "${target}")
  set(headers ${canzona_export_headers_${key}})
  get_target_property(include_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT include_dirs)
    set(include_dirs "")
  endif()
  foreach(header IN LISTS headers)
    set(found "")
    foreach(dir IN LISTS include_dirs CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      if(EXISTS ${dir}/${header})
        set(found ${dir}/${header})
        break()
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "canzona: e2e_dev: no ${header} for ${target} in ${include_dirs}")
    elseif(IS_DIRECTORY ${found})
      install(DIRECTORY ${found} DESTINATION deps/include COMPONENT e2e_dev EXCLUDE_FROM_ALL)
    else()
      install(FILES ${found} DESTINATION deps/include COMPONENT e2e_dev EXCLUDE_FROM_ALL)
    endif()
  endforeach()
  get_target_property(definitions ${target} INTERFACE_COMPILE_DEFINITIONS)
  get_target_property(options ${target} INTERFACE_COMPILE_OPTIONS)
  set(line "canzona_bundled_dependency(${target}")
  foreach(field libraries headers definitions options)
    if(${field})
      string(TOUPPER ${field} keyword)
      string(APPEND line " ${keyword} \"${${field}}\"")
    endif()
  endforeach()
  set(${out_line} "${line})" PARENT_SCOPE)
endfunction()

# The suite and what the node's lib/torch_model links.
get_target_property(canzona_torch_model_links canzona_torch_model LINK_LIBRARIES)
canzona_export_closure("canzona_bench_e2e;${canzona_torch_model_links}" canzona_exported
                       canzona_exported_external)
foreach(target IN LISTS canzona_exported)
  canzona_export_usage(${target})
endforeach()
install(TARGETS ${canzona_exported} EXPORT CanzonaTargets
        ARCHIVE DESTINATION lib/canzona COMPONENT e2e_dev EXCLUDE_FROM_ALL)
install(EXPORT CanzonaTargets NAMESPACE canzona:: DESTINATION lib/cmake/Canzona
        COMPONENT e2e_dev EXCLUDE_FROM_ALL)

set(canzona_dependency_lines "")
foreach(target IN LISTS canzona_exported_external)
  canzona_export_dependency(${target} line)
  string(APPEND canzona_dependency_lines "${line}\n")
endforeach()
file(WRITE ${PROJECT_BINARY_DIR}/package/CanzonaDependencies.cmake
  "# Generated by lib/cmake/CanzonaExport.cmake: the external targets the exported libraries\n"
  "# link, recreated from the install prefix by CanzonaConfig.cmake.\n"
  "${canzona_dependency_lines}")
install(FILES ${PROJECT_SOURCE_DIR}/lib/cmake/package/CanzonaConfig.cmake
              ${PROJECT_BINARY_DIR}/package/CanzonaDependencies.cmake
        DESTINATION lib/cmake/Canzona COMPONENT e2e_dev EXCLUDE_FROM_ALL)

# The node's sources: lib/torch_model's sources and the suite's two translation units that are
# not in the prebuilt canzona_bench_e2e, and the standalone build of them.
get_target_property(canzona_torch_model_sources canzona_torch_model SOURCES)
list(TRANSFORM canzona_torch_model_sources PREPEND ${PROJECT_SOURCE_DIR}/lib/torch_model/
     REGEX "^src/")
install(FILES ${canzona_torch_model_sources}
              ${PROJECT_SOURCE_DIR}/lib/torch_model/src/device_collectives.cpp
              ${PROJECT_SOURCE_DIR}/lib/torch_model/src/device_collectives.hpp
        DESTINATION e2e/torch_model COMPONENT e2e_dev EXCLUDE_FROM_ALL)
get_target_property(canzona_e2e_sources canzona_bench_e2e_iteration SOURCES)
list(TRANSFORM canzona_e2e_sources PREPEND ${PROJECT_SOURCE_DIR}/suites/e2e_iteration/)
install(FILES ${canzona_e2e_sources} DESTINATION e2e/e2e_iteration
        COMPONENT e2e_dev EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/suites/e2e_iteration/standalone/CMakeLists.txt
        DESTINATION e2e COMPONENT e2e_dev EXCLUDE_FROM_ALL)
