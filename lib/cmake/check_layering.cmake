# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# cmake -DGRAPH=<file written by canzona_write_target_graph> -P check_layering.cmake
# Fails, naming every offending link, when a target links a floor it must not
# (lib/cmake/CanzonaLayering.cmake states the rules).
cmake_minimum_required(VERSION 3.25)
if(NOT GRAPH OR NOT EXISTS "${GRAPH}")
  message(FATAL_ERROR "check_layering.cmake: -DGRAPH=<target graph file> is missing or absent")
endif()

# The floors each floor must not link.
set(forbidden_lib "libtests;baselines;suites;harness")
set(forbidden_libtests "baselines;suites;harness")
set(forbidden_baselines "suites;harness")
set(forbidden_suites "harness")
set(forbidden_harness "suites")

file(STRINGS "${GRAPH}" lines)
set(violations "")
set(checked 0)
foreach(line IN LISTS lines)
  # "<target> <floor> <deps>"; a target outside the floors has an empty floor field.
  string(REPLACE " " ";" fields "${line}")
  list(LENGTH fields n)
  if(n LESS 3)
    continue()
  endif()
  list(GET fields 0 target)
  list(GET fields 1 floor)
  if(floor STREQUAL "")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  list(GET fields 2 deps)
  string(REPLACE "," ";" deps "${deps}")
  foreach(dep IN LISTS deps)
    string(REPLACE ":" ";" parts "${dep}")
    list(LENGTH parts parts_n)
    if(parts_n LESS 2)
      continue()
    endif()
    list(GET parts 0 dep_target)
    list(GET parts 1 dep_floor)
    if(dep_floor IN_LIST forbidden_${floor})
      list(APPEND violations "  ${floor}/ target ${target} links ${dep_floor}/ target ${dep_target}")
    endif()
  endforeach()
endforeach()

if(violations)
  list(JOIN violations "\n" text)
  message(FATAL_ERROR "links that go against the floors (lib/cmake/CanzonaLayering.cmake):\n${text}")
endif()
if(checked EQUAL 0)
  message(FATAL_ERROR "check_layering.cmake: ${GRAPH} lists no linking target; nothing was checked")
endif()
message(STATUS "layering: ${checked} linking targets, no link against the floors")
