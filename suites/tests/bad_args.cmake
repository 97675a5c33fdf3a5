# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The shared suite main on bad Google Benchmark and suite flags: each must exit 2 with a message,
# and an existing --benchmark_out file must be left untouched by a run that fails.
foreach(var PLANNER KERNELS WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "bad_args.cmake needs -D${var}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})
set(out ${WORK}/existing.json)

# expect_usage_error(<fragment> <command...>)
function(expect_usage_error fragment)
  file(WRITE ${out} "previous results\n")
  execute_process(COMMAND ${ARGN} --benchmark_out=${out} --benchmark_out_format=json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${ARGN}: exit ${rc}, expected 2\n${stdout}\n${stderr}")
  endif()
  string(FIND "${stderr}" "${fragment}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${ARGN}: stderr lacks '${fragment}':\n${stderr}")
  endif()
  file(READ ${out} kept)
  if(NOT kept STREQUAL "previous results\n")
    message(FATAL_ERROR "${ARGN}: the existing --benchmark_out file was changed")
  endif()
  file(GLOB leftovers ${WORK}/existing.json.running-*)
  if(leftovers)
    message(FATAL_ERROR "${ARGN}: left temporary files behind: ${leftovers}")
  endif()
  message(STATUS "ok (exit 2): ${fragment}")
endfunction()

expect_usage_error("no benchmark matches --benchmark_filter=NoSuchBenchmark"
                   ${PLANNER} --benchmark_filter=NoSuchBenchmark)
expect_usage_error("not a valid regular expression" ${PLANNER} "--benchmark_filter=(")
expect_usage_error("--benchmark_repetitions: 0 is out of range"
                   ${PLANNER} --benchmark_repetitions=0)
expect_usage_error("--benchmark_format=xml: unknown format" ${PLANNER} --benchmark_format=xml)
expect_usage_error("this suite has no flag --canzona_nope" ${PLANNER} --canzona_nope=1)
expect_usage_error("--canzona_max_gflop: -1 is out of range" ${KERNELS} --canzona_max_gflop=-1)
expect_usage_error("--canzona_max_gflop: nan is not a number" ${KERNELS} --canzona_max_gflop=nan)

# --benchmark_out_format=xml is checked without a --benchmark_out of its own.
execute_process(COMMAND ${PLANNER} --benchmark_out_format=xml RESULT_VARIABLE rc
                ERROR_VARIABLE stderr)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--benchmark_out_format=xml: exit ${rc}, expected 2\n${stderr}")
endif()

# A successful run replaces the file, completely.
execute_process(COMMAND ${PLANNER} "--benchmark_filter=Planner/zero1/qwen3-8b/gpus:32/dp:8/tp:4$"
                        --benchmark_min_time=0.001 --benchmark_out=${out}
                        --benchmark_out_format=json
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE stderr)
file(READ ${out} written)
string(FIND "${written}" "\"benchmarks\"" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "a successful run did not replace ${out} (exit ${rc}):\n${stderr}")
endif()
message(STATUS "ok: a successful run replaced the existing file")
