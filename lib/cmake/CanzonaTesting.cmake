# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Test registration. Labels: cpu (pure host), mpi (multi-process under mpiexec), gpu (one CUDA
# device), multi_gpu, bench_smoke (suites run briefly, JSON validated).
include(GoogleTest)

# canzona_add_test(<target> LABELS <label>...)
# Discovers every TEST of a GoogleTest executable as its own CTest test. GTEST_SKIP is reported
# by CTest as skipped, not passed; GPU tests hold a resource lock so they never share a device.
function(canzona_add_test target)
  cmake_parse_arguments(arg "" "" "LABELS" ${ARGN})
  set(props LABELS "${arg_LABELS}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 300)
  if("gpu" IN_LIST arg_LABELS OR "multi_gpu" IN_LIST arg_LABELS)
    list(APPEND props RESOURCE_LOCK gpu)
    # Installed (component gpu_tests) for GPU nodes without a build tree: CanzonaInstall.cmake.
    set_property(GLOBAL APPEND PROPERTY CANZONA_GPU_TEST_TARGETS ${target})
  endif()
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                       PROPERTIES ${props})
endfunction()

# canzona_add_mpi_test(<target> RANKS <n>... [LABELS <label>...])
# Runs the whole GoogleTest executable once per rank count under mpiexec. Oversubscription is
# allowed because CI has 2 cores and the tests go up to 8 ranks.
function(canzona_add_mpi_test target)
  cmake_parse_arguments(arg "" "" "RANKS;LABELS" ${ARGN})
  if(NOT arg_LABELS)
    set(arg_LABELS mpi)
  endif()
  foreach(n IN LISTS arg_RANKS)
    set(name ${target}.np${n})
    add_test(NAME ${name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} --oversubscribe
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS})
    canzona_set_mpi_test_properties(${name} ${n} "${arg_LABELS}")
  endforeach()
endfunction()

# canzona_set_mpi_test_properties(<test> <ranks> <labels> [<extra environment>...])
# What every test under mpiexec needs: CTest counts at most 2 processors for it (CI has 2 cores
# and the ranks are oversubscribed), and Open MPI gets the variables that let it start as root
# (CI runs as root) and makes waiting ranks yield their core.
function(canzona_set_mpi_test_properties test ranks labels)
  set(procs ${ranks})
  if(procs GREATER 2)
    set(procs 2)
  endif()
  set(environment OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                  OMPI_MCA_mpi_yield_when_idle=1 ${ARGN})
  set_tests_properties(${test} PROPERTIES
    LABELS "${labels}" TIMEOUT 600 PROCESSORS ${procs} ENVIRONMENT "${environment}")
endfunction()
