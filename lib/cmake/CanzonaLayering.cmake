# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The floors of the project and which may link which, checked on the real target graph:
#   lib/        the library: links nothing of baselines/, suites/ or harness/, nor lib's tests
#   lib tests   the tests under lib/*/tests (floor "libtests"): lib only, never baselines/,
#               suites/ or harness/
#   baselines/  the strategy registry, and its tests that run every strategy through the
#               library (executor, projector, libtorch iteration): links lib/ only
#   suites/     the benchmark suites: never harness/ (both speak through lib/bench)
#   harness/    the command line and tools: never suites/ (it launches them as programs)
# canzona_write_target_graph() writes every project target's floor and the project targets it
# links, directly or through other targets, to a file; check_layering.cmake reads that file and
# fails on a link that goes against the rules above (the test canzona_layering).

# The floor of a folder of the project: lib, libtests, baselines, suites or harness ("" for
# others).
function(_canzona_floor dir out)
  file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${dir}")
  string(REGEX MATCH "^[^/]+" top "${rel}")
  if(top STREQUAL "lib" AND rel MATCHES "/tests(/|$)")
    set(${out} "libtests" PARENT_SCOPE)
  elseif(top MATCHES "^(lib|baselines|suites|harness)$")
    set(${out} "${top}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Every target defined in `dir` and below.
function(_canzona_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _canzona_targets_below("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The project targets `target` links directly (aliases resolved, $<LINK_ONLY:...> unwrapped,
# imported and other generator-expression entries left out).
function(_canzona_direct_links target out)
  set(links "")
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(entries ${target} ${property})
    if(NOT entries)
      continue()
    endif()
    foreach(entry IN LISTS entries)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" entry "${entry}")
      if(entry MATCHES "^\\$<" OR NOT TARGET "${entry}")
        continue()
      endif()
      get_target_property(aliased "${entry}" ALIASED_TARGET)
      if(aliased)
        set(entry "${aliased}")
      endif()
      get_target_property(imported "${entry}" IMPORTED)
      if(NOT imported)
        list(APPEND links "${entry}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES links)
  set(${out} ${links} PARENT_SCOPE)
endfunction()

# Writes `file`: one line per project target, "<target> <floor> <linked target>:<its floor>,...",
# the linked targets being every project target reachable through links.
function(canzona_write_target_graph file)
  _canzona_targets_below("${PROJECT_SOURCE_DIR}" targets)
  set(lines "")
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(dir ${target} SOURCE_DIR)
    _canzona_floor("${dir}" floor)
    # Breadth-first closure over links.
    _canzona_direct_links(${target} queue)
    set(seen "")
    while(queue)
      list(POP_FRONT queue next)
      if(next IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${next})
      _canzona_direct_links(${next} more)
      list(APPEND queue ${more})
    endwhile()
    set(deps "")
    foreach(dep IN LISTS seen)
      get_target_property(dep_dir ${dep} SOURCE_DIR)
      _canzona_floor("${dep_dir}" dep_floor)
      list(APPEND deps "${dep}:${dep_floor}")
    endforeach()
    list(JOIN deps "," deps)
    string(APPEND lines "${target} ${floor} ${deps}\n")
  endforeach()
  file(WRITE "${file}" "${lines}")
endfunction()
