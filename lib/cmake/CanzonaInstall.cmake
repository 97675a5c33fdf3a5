# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Install rules: `cmake --install BUILD --prefix DIR` makes a relocatable tree that finds its own
# libraries through relative run paths ($ORIGIN), never through the build tree:
#   bin/                      canzona-bench, canzona_plot.py, the suites       (component runtime)
#   lib/                      libcanzona_device.so, the CUDA module            (component runtime)
#   libexec/canzona/tests/    the gpu-labelled test executables               (component gpu_tests)
#   lib/canzona/ include/ deps/include/ lib/cmake/Canzona/ e2e/
#                             the prebuilt libraries, headers, CMake package and sources that
#                             build the end-to-end suite against another libtorch (component
#                             e2e_dev: CanzonaExport.cmake)
# The end-to-end suite links libtorch, which no bundle carries: component torch, so that
# ci/gpu-bundle.sh (components runtime, gpu_tests and e2e_dev) leaves it out and a plain install
# has it; a GPU node builds it from e2e_dev against its own libtorch (ci/bundle/build-e2e.sh).
# Libraries of the system (Open MPI, OpenBLAS, ...) and of CUDA are not installed here; the GPU
# bundle adds the former and finds the latter on the node (ci/gpu-bundle.sh, ci/bundle/env.sh).

# A target's run path once installed: its own folder's relative way to lib/ ("" for lib/ itself).
function(canzona_install_rpath target relative)
  set(rpath "\$ORIGIN")
  if(relative)
    string(APPEND rpath "/${relative}")
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}"
                                             INSTALL_RPATH_USE_LINK_PATH OFF)
endfunction()

canzona_install_rpath(canzona-bench ../lib)
install(TARGETS canzona-bench RUNTIME DESTINATION bin COMPONENT runtime)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/harness/plot/canzona_plot.py DESTINATION bin
        COMPONENT runtime)

get_property(canzona_suite_targets GLOBAL PROPERTY CANZONA_SUITE_TARGETS)
foreach(target IN LISTS canzona_suite_targets)
  canzona_install_rpath(${target} ../lib)
  set(component runtime)
  if(target STREQUAL "canzona_bench_e2e_iteration")
    set(component torch)
  endif()
  install(TARGETS ${target} RUNTIME DESTINATION bin COMPONENT ${component})
endforeach()

if(TARGET canzona_device)
  canzona_install_rpath(canzona_device "")
  install(TARGETS canzona_device LIBRARY DESTINATION lib COMPONENT runtime)
endif()

if(TARGET canzona_bench_e2e AND TARGET canzona_torch_model)
  include(CanzonaExport)
endif()

get_property(canzona_gpu_test_targets GLOBAL PROPERTY CANZONA_GPU_TEST_TARGETS)
foreach(target IN LISTS canzona_gpu_test_targets)
  canzona_install_rpath(${target} ../../../lib)
  install(TARGETS ${target} RUNTIME DESTINATION libexec/canzona/tests COMPONENT gpu_tests)
endforeach()

# The GPU bundle made from this build and run from a fresh folder as a GPU node would (its CPU
# parts and first-contact.sh on a machine without a GPU): ci/tests/gpu_bundle_test.sh. Not in a
# sanitizer build: nobody bundles sanitized binaries, and the test scrubs the environment that
# carries the sanitizers' suppressions.
if(CANZONA_BUILD_TESTS AND CANZONA_BUILD_SUITES AND CANZONA_WITH_MPI AND NOT CANZONA_SANITIZE)
  # The archive is made once (ci/gpu-bundle.sh --skip-build, its 16 MiB check included; xz -9
  # takes a minute) and both tests below unpack it.
  set(canzona_test_bundle ${PROJECT_BINARY_DIR}/test-gpu-bundle/canzona-gpu-bundle.tar.xz)
  add_test(NAME canzona_gpu_bundle_make
           COMMAND bash ${PROJECT_SOURCE_DIR}/ci/tests/gpu_bundle_make.sh ${PROJECT_BINARY_DIR}
                   ${canzona_test_bundle})
  set_tests_properties(canzona_gpu_bundle_make PROPERTIES LABELS cpu TIMEOUT 600
                       FIXTURES_SETUP canzona_gpu_bundle_archive)
  add_test(NAME canzona_gpu_bundle
           COMMAND bash ${PROJECT_SOURCE_DIR}/ci/tests/gpu_bundle_test.sh ${canzona_test_bundle})
  set_tests_properties(canzona_gpu_bundle PROPERTIES LABELS cpu TIMEOUT 600 PROCESSORS 2
                       FIXTURES_REQUIRED canzona_gpu_bundle_archive)
  # The bundle's end-to-end part built as a node would, against this machine's libtorch, from a
  # scrubbed environment that sees neither this tree nor the -dev packages' headers
  # (ci/tests/gpu_bundle_e2e_test.sh). Only where libtorch is (the build's own, C++11 ABI).
  if(TARGET canzona_bench_e2e AND TARGET canzona_torch_model)
    add_test(NAME canzona_gpu_bundle_e2e
             COMMAND bash ${PROJECT_SOURCE_DIR}/ci/tests/gpu_bundle_e2e_test.sh
                     ${canzona_test_bundle} ${Torch_DIR})
    set_tests_properties(canzona_gpu_bundle_e2e PROPERTIES LABELS "cpu;torch" TIMEOUT 600
                         PROCESSORS 2 FIXTURES_REQUIRED canzona_gpu_bundle_archive)
  endif()
endif()
