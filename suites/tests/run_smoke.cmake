# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# bench_smoke: run a suite with a tiny minimum time (Google Benchmark 1.7.1 syntax: a plain
# number of seconds), then have canzona-bench validate the JSON it wrote. LAUNCHER (optional,
# "|"-separated) runs the suite under it, e.g. "mpiexec|-n|2".
foreach(var BENCH VALIDATOR OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_smoke.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE ${OUT})
string(REPLACE "|" ";" extra_args "${ARGS}")
string(REPLACE "|" ";" launcher "${LAUNCHER}")
execute_process(COMMAND ${launcher} ${BENCH} ${extra_args} --benchmark_min_time=0.01 --benchmark_out=${OUT}
                        --benchmark_out_format=json
                RESULT_VARIABLE bench_rc)
if(NOT bench_rc EQUAL 0)
  message(FATAL_ERROR "${BENCH} exited with ${bench_rc}")
endif()
execute_process(COMMAND ${VALIDATOR} validate ${OUT} RESULT_VARIABLE validate_rc)
if(NOT validate_rc EQUAL 0)
  message(FATAL_ERROR "canzona-bench validate ${OUT} exited with ${validate_rc}")
endif()
