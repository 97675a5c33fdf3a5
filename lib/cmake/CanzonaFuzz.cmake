# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# libFuzzer targets live beside the parser they fuzz, in a fuzz/ folder of its component
# (ci/fuzzing.md lists them). Built with -DCANZONA_BUILD_FUZZERS=ON in a Clang build with
# sanitizers (ci/sanitize.sh). Two tests each:
#   canzona_fuzz_<name>.regression (label fuzz): every seed and every kept crash input, once;
#   canzona_fuzz_<name>.run (label fuzz_run): fuzzing for CANZONA_FUZZ_SECONDS from the seeds.
set(CANZONA_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz target runs in its fuzz_run test")

# canzona_add_fuzzer(<name> <libraries>...): canzona_fuzz_<name> from <name>_fuzz.cpp in the
# calling folder, seeded from corpus/<name>/ and replaying regressions/<name>/ there.
function(canzona_add_fuzzer name)
  set(target canzona_fuzz_${name})
  add_executable(${target} ${name}_fuzz.cpp)
  target_link_libraries(${target} PRIVATE ${ARGN} canzona::core)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)

  set(inputs ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/regressions/${name})
    list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/regressions/${name})
  endif()
  # -runs=0: load (execute) every input of the directories once, then stop.
  add_test(NAME ${target}.regression COMMAND ${target} -runs=0 ${inputs})
  set_tests_properties(${target}.regression PROPERTIES LABELS fuzz TIMEOUT 300)

  # The working corpus lives in the build tree, so the source seeds stay small; a crash input is
  # written to <build>/fuzz-artifacts/<name>/ (keep it in regressions/<name>/ once fixed).
  math(EXPR fuzz_timeout "${CANZONA_FUZZ_SECONDS} * 3 + 60")
  set(work ${CMAKE_CURRENT_BINARY_DIR}/corpus-${name})
  set(artifacts ${PROJECT_BINARY_DIR}/fuzz-artifacts/${name}/)
  add_test(NAME ${target}.run
           COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
                   sh -c "mkdir -p '${work}' '${artifacts}' && exec \"$0\" \"$@\""
                   $<TARGET_FILE:${target}> -max_total_time=${CANZONA_FUZZ_SECONDS}
                   -rss_limit_mb=2048 -timeout=20 -print_final_stats=1
                   -artifact_prefix=${artifacts} ${work} ${inputs})
  set_tests_properties(${target}.run PROPERTIES LABELS fuzz_run TIMEOUT ${fuzz_timeout})
endfunction()
