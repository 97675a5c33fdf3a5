#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The first run of Canzona Bench on a new GPU node, from the GPU bundle (ci/gpu-bundle.sh). One
# command within a time budget, every phase capped, lowest layer first, one report folder.
# Installs nothing and writes nothing outside the report folder and a scratch folder it removes.
usage() {
  cat <<'USAGE'
usage: bash first-contact.sh [--budget SECONDS] [--out DIR] [--require-gpu]

From the unpacked bundle (env.sh beside this script), in this order, each phase capped and
the whole run kept within --budget:
  0. probe: host, OS, glibc, GPU (driver, clocks), which CUDA library each program resolves
     and from where, `canzona-bench devices`; a program that cannot load stops the run here,
     naming what is missing
  1. the CPU path from the bundle: models, a plan, a cpu step, one optimizer-step row on one
     rank (Open MPI as a singleton), validated
  2. the GPU tests, lowest layer first (CUDA wrappers, cuda backend with its bit-for-bit
     cpu == cuda tests, optimizers, executor, NCCL), CANZONA_REQUIRE_GPU=1
  3. compute-sanitizer memcheck on the backend test and a small executor step (kernel checks
     only on the wrapper test, which fails API calls on purpose)
  4. `canzona-bench step`, cpu vs cuda, every optimizer on a Qwen3-0.6B shape
  5. timed rows: Muon's Newton-Schulz against cuBLAS on Qwen3-8B/14B shapes (kernels suite),
     the optimizer step of Canzona and DP-SC (Muon) and of Canzona (SOAP) on one GPU
Without a usable GPU every GPU phase is marked "n/a" with the reason.

options:
  --budget SECONDS  the whole run's limit, 60 to 3600 (default 540)
  --out DIR         report folder, created if missing (default: $OUT when set, else
                    ./first-contact-report): summary.md, logs.tar.gz, the JSON of the timed
                    rows and of `devices`
  --require-gpu     exit 1 when there is no usable GPU (default: such a run passes with every
                    GPU phase n/a)
exit code: 0 every available check passed, 1 one failed (or no GPU with --require-gpu),
2 bad arguments.
USAGE
}

budget=540
out_dir="${OUT:-./first-contact-report}"
require_gpu=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --budget)
      [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -ge 60 ] && [ "$2" -le 3600 ] ||
        { echo "error: --budget needs whole seconds from 60 to 3600, got '${2:-}'" >&2; exit 2; }
      budget="$2"; shift 2 ;;
    --out)
      [ -n "${2:-}" ] || { echo "error: --out needs a folder" >&2; exit 2; }
      out_dir="$2"; shift 2 ;;
    --require-gpu) require_gpu=1; shift ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -f "${here}/env.sh" ] && [ -x "${here}/bin/canzona-bench" ] ||
  { echo "error: run first-contact.sh from an unpacked GPU bundle (env.sh and bin/ beside it)" >&2; exit 2; }
mkdir -p "${out_dir}" 2>/dev/null && [ -w "${out_dir}" ] ||
  { echo "error: cannot write the report folder '${out_dir}'" >&2; exit 2; }
out_dir="$(cd "${out_dir}" && pwd)"

# shellcheck source=env.sh
source "${here}/env.sh"
start=$(date +%s)
work="$(mktemp -d)"
logs="${work}/logs"
mkdir -p "${logs}"
rows="${work}/rows.md"
: >"${rows}"
failures=0
gpu_reason=""

elapsed() { echo $(($(date +%s) - start)); }
left() { echo $((budget - $(elapsed))); }
say() { printf '[%4ds] %s\n' "$(elapsed)" "$*" | tee -a "${logs}/first-contact.log"; }
# row STATUS CHECK DETAIL: one line of the report; STATUS is pass, FAIL or n/a.
row() {
  printf '| %s | %s | %s |\n' "$1" "$2" "$(echo "${3:-}" | tr '|\n' '/ ' | cut -c1-400)" >>"${rows}"
  [ "$1" = FAIL ] && failures=$((failures + 1))
  say "$1: $2${3:+ ($3)}"
}
# capped NAME SECONDS CMD...: runs CMD with its output in logs/NAME.log, never past the budget
# (15 s kept for the report); 124 when the cap ended it, 125 when no time was left to start.
capped() {
  local name="$1" cap="$2"
  shift 2
  local room=$(($(left) - 15))
  [ "${cap}" -gt "${room}" ] && cap="${room}"
  if [ "${cap}" -lt 5 ]; then
    say "${name}: not started, the budget is spent"
    return 125
  fi
  local t=$(date +%s) rc=0
  # In the background and waited for, so that a signal to this script is handled at once (a
  # foreground child would delay it to the child's end); timeout leads its own process group
  # and passes a signal on to all of it (mpirun, ranks, suites).
  timeout --kill-after=5 "${cap}" "$@" >"${logs}/${name}.log" 2>&1 </dev/null &
  child=$!
  wait "${child}" || rc=$?
  child=""
  say "${name}: exit ${rc} after $(($(date +%s) - t)) s (cap ${cap} s)"
  return "${rc}"
}
child=""
# on_signal CODE WORD: ends the running phase's whole process group, then the report, then exit.
on_signal() {
  if [ -n "${child}" ]; then
    kill -TERM "${child}" 2>/dev/null
    wait "${child}" 2>/dev/null
  fi
  row FAIL "first contact" "$2 by a signal; what had not run yet is missing from this report"
  exit "$1"
}
# outcome NAME RC CHECK [DETAIL]: a row from a capped command's exit code.
outcome() {
  case "$2" in
    0) row pass "$3" "${4:-}" ;;
    124|137) row FAIL "$3" "stopped at its time cap; logs/$1.log" ;;
    125) row n/a "$3" "no time left in the budget" ;;
    *)
      local why
      why="$(grep -E 'error|Failure|FAILED' "${logs}/$1.log" | head -n 3)"
      row FAIL "$3" "exit $2; logs/$1.log: ${why:-$(tail -n 2 "${logs}/$1.log")}" ;;
  esac
}
gpu_phase() {  # gpu_phase CHECK: true when the GPU phases can run, else an n/a row
  [ -z "${gpu_reason}" ] && return 0
  row n/a "$1" "${gpu_reason}"
  return 1
}

report() {
  {
    echo "# Canzona Bench: first contact"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); wall $(elapsed) s of a ${budget} s budget"
    sed -n 's/^commit: /- bundle commit: /p; s/^made: /- bundle made: /p' "${here}/MANIFEST" 2>/dev/null
    cat "${work}/probe.md" 2>/dev/null
    echo
    echo "| result | check | detail |"
    echo "|---|---|---|"
    cat "${rows}"
    echo
    if [ -n "${gpu_reason}" ]; then
      echo "No usable GPU (${gpu_reason}): nothing on the GPU was verified."
    fi
    echo "${failures} check(s) failed. Logs: logs.tar.gz."
  } >"${out_dir}/summary.md"
  tar -C "${work}" -czf "${out_dir}/logs.tar.gz" logs probe.md 2>/dev/null
  cat "${out_dir}/summary.md"
  rm -rf "${work}"
}
trap report EXIT
trap 'on_signal 130 interrupted' INT
trap 'on_signal 143 terminated' TERM

# ---- 0. probe ------------------------------------------------------------------------------------
say "probe"
{
  echo "- host: $(uname -srm), $(nproc) cores, $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown OS}")"
  echo "- glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown); bundle $(grep -E '^needs (glibc|libstdc)' "${here}/MANIFEST" 2>/dev/null | tr '\n' ' ')"
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "- gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.applications.graphics --format=csv,noheader 2>&1 | head -n 4 | tr '\n' ';')"
  else
    echo "- gpu: nvidia-smi not found"
  fi
  echo "- python3: $(python3 -c 'import sys; print(sys.version.split()[0])' 2>/dev/null || echo none); torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo none)"
  echo "- compute-sanitizer: $(command -v compute-sanitizer || echo none)"
  echo "- CUDA library folders: ${CANZONA_CUDA_LIB_PATH:-none found}"
  if [ -f "${CANZONA_BUNDLE}/lib/libcanzona_device.so" ]; then
    ldd "${CANZONA_BUNDLE}/lib/libcanzona_device.so" 2>&1 |
      awk '$1 ~ /^lib(cudart|cublas|cublasLt|cusolver|cusparse|nvJitLink|nccl)\.so/ {print "- " $1 ": " $3}'
  else
    echo "- device module: not in this bundle (built without CUDA)"
  fi
} >"${work}/probe.md" 2>&1
cat "${work}/probe.md" >>"${logs}/first-contact.log"

# Every program of the bundle must load: a missing library stops here, named.
missing="$(for f in "${CANZONA_BUNDLE}"/bin/* "${CANZONA_BUNDLE}"/lib/libcanzona_device.so \
                     "${CANZONA_BUNDLE}"/libexec/canzona/tests/*; do
             [ -f "${f}" ] && head -c 4 "${f}" | grep -q ELF || continue
             ldd "${f}" 2>&1 | awk -v f="${f##*/}" '/not found/ {print f ": " $1}'
           done | sort -u)"
if [ -n "${missing}" ]; then
  row FAIL "loader" "not found: $(echo "${missing}" | tr '\n' ' ') (CUDA folders searched: ${CANZONA_CUDA_LIB_PATH:-none}; set CANZONA_CUDA_LIB_DIRS)"
  exit 1
fi
row pass "loader" "every program of the bundle resolves its libraries"

canzona-bench devices --json >"${out_dir}/devices.json" 2>"${logs}/devices.err" ||
  { row FAIL "canzona-bench devices" "$(cat "${logs}/devices.err")"; exit 1; }
canzona-bench devices >"${logs}/devices.log" 2>&1
cat "${logs}/devices.log" >>"${work}/probe.md"
if ! canzona-bench devices --require >/dev/null 2>&1; then
  gpu_reason="$(sed -n 's/^cuda devices: none: //p' "${logs}/devices.log")"
  gpu_reason="${gpu_reason:-no CUDA device}"
fi
row "$([ -z "${gpu_reason}" ] && echo pass || echo n/a)" "canzona-bench devices" \
  "$(grep -E '^(cuda devices|  0:)' "${logs}/devices.log" | tr '\n' ' ')"

# ---- 1. the CPU path from the bundle --------------------------------------------------------------
scratch="${work}/scratch"
mkdir -p "${scratch}"
capped cpu_path 60 bash -c '
  set -e
  canzona-bench models >/dev/null
  canzona-bench plan --model qwen3-8b --dp 8 --tp 8 --strategy canzona >/dev/null
  canzona-bench run --preset smoke --backend cpu --ranks 1 --launcher env \
    --filter "OptimizerStep/muon/canzona/.*gpus:1/" --repetitions 2 --out "$1/cpu-row.json"
  canzona-bench validate "$1/cpu-row.json"' _ "${scratch}"
outcome cpu_path $? "CPU path from the bundle (models, plan, one optimizer-step row on one rank, validate)"

# ---- 2. GPU tests, lowest layer first --------------------------------------------------------------
tests_dir="${CANZONA_BUNDLE}/libexec/canzona/tests"
for t in canzona_test_cuda_gpu canzona_test_backend_cuda_gpu canzona_test_optim_gpu \
         canzona_test_exec_gpu canzona_test_comm_nccl_gpu; do
  gpu_phase "${t}" || continue
  [ -x "${tests_dir}/${t}" ] || { row n/a "${t}" "not in this bundle"; continue; }
  capped "${t}" 120 env CANZONA_REQUIRE_GPU=1 "${tests_dir}/${t}"
  rc=$?
  ok="$(grep -c '^\[       OK \]' "${logs}/${t}.log")"
  skipped="$(grep -c '^\[  SKIPPED \] [A-Za-z]' "${logs}/${t}.log")"
  failed="$(grep '^\[  FAILED  \] [A-Za-z]' "${logs}/${t}.log" | sed 's/^\[  FAILED  \] //; s/ (.*//; s/,.*//' | sort -u | tr '\n' ' ')"
  if [ "${rc}" -eq 0 ]; then
    row pass "${t}" "${ok} passed${skipped:+, ${skipped} skipped (need more GPUs)}"
  elif [ "${rc}" -ge 124 ]; then
    outcome "${t}" "${rc}" "${t}"
  else
    row FAIL "${t}" "${ok} passed; failed: ${failed:-see logs/${t}.log}"
  fi
done

# ---- 3. compute-sanitizer ---------------------------------------------------------------------------
if gpu_phase "compute-sanitizer memcheck"; then
  if ! command -v compute-sanitizer >/dev/null 2>&1; then
    row n/a "compute-sanitizer memcheck" "compute-sanitizer not on PATH"
  else
    memcheck=(compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 30)
    capped memcheck_backend 120 "${memcheck[@]}" --leak-check full "${tests_dir}/canzona_test_backend_cuda_gpu"
    outcome memcheck_backend $? "memcheck: cuda backend tests"
    # NCCL probes driver features through failing calls: kernel checks only around it.
    capped memcheck_executor 120 env NCCL_CUMEM_ENABLE=0 "${memcheck[@]}" --report-api-errors no \
      "${tests_dir}/canzona_test_exec_gpu" --gtest_filter='*muon_fp32_ns*:*soap*:ExecutorGpuProfile.*'
    outcome memcheck_executor $? "memcheck: executor steps (Muon fp32, SOAP) with NCCL"
    # The wrapper tests fail API calls on purpose (invalid device, illegal GEMM argument).
    capped memcheck_wrappers 60 "${memcheck[@]}" --report-api-errors no "${tests_dir}/canzona_test_cuda_gpu"
    outcome memcheck_wrappers $? "memcheck: CUDA wrappers (kernel checks only)"
  fi
fi

# ---- 4. canzona-bench step, cpu vs cuda --------------------------------------------------------------
if gpu_phase "canzona-bench step, cpu vs cuda"; then
  capped step_compare 120 "${CANZONA_BUNDLE}/gpu-step-compare.sh" "$(command -v canzona-bench)" \
    "${scratch}/step" 2048x1024
  rc=$?
  if [ "${rc}" -ge 124 ]; then
    outcome step_compare "${rc}" "canzona-bench step, cpu vs cuda"
  else
    while read -r status _ name shape detail; do
      case "${status}" in
        pass|FAIL) row "${status}" "step ${name} ${shape}, cpu vs cuda" "${detail}" ;;
        *) row FAIL "canzona-bench step, cpu vs cuda" "${status} ${name:-} ${shape:-} ${detail:-}" ;;
      esac
    done <"${logs}/step_compare.log"
  fi
fi

# ---- 5. timed rows ------------------------------------------------------------------------------------
if gpu_phase "timed rows"; then
  capped kernels_muon 90 canzona_bench_kernels \
    --benchmark_filter='Kernels/muon/cuda/shape:(4096x4096|12288x4096|5120x5120|17408x5120)/' \
    --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_counters_tabular=true \
    --benchmark_out="${out_dir}/kernels.json" --benchmark_out_format=json
  outcome kernels_muon $? "kernels suite: Muon vs the cuBLAS bf16 GEMM, Qwen3-8B/14B shapes" "kernels.json"
  step_rows() {  # NAME CAP FILTER OUT [run args]
    local name="$1" cap="$2" filter="$3" file="$4"
    shift 4
    capped "${name}" "${cap}" canzona-bench run --preset nightly --backend cuda --ranks 1 \
      --launcher env --filter "${filter}" --out "${out_dir}/${file}" "$@"
    outcome "${name}" $? "optimizer step, one GPU: ${filter}" "${file}"
  }
  step_rows step_rows_muon 120 'OptimizerStep/muon/(canzona|sc)/qwen3-0.6b/gpus:1/' step.json \
    --repetitions 3
  step_rows step_rows_soap 90 'OptimizerStep/soap/canzona/qwen3-0.6b/gpus:1/' step-soap.json \
    --repetitions 1 --suite-arg=--canzona_projector=0
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv \
    >>"${logs}/first-contact.log" 2>&1
fi

if [ -n "${gpu_reason}" ] && [ "${require_gpu}" -eq 1 ]; then
  row FAIL "a usable GPU (--require-gpu)" "${gpu_reason}"
fi
[ "${failures}" -eq 0 ]
