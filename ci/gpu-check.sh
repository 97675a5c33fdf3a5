#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The first thing to run on a new GPU machine (and the first step of the nightly GPU job): the
# GPU tests in dependency order, the same under compute-sanitizer, a CPU-vs-GPU comparison of
# `canzona-bench step` for every optimizer on Qwen3 shapes, and an nsys count of the host
# synchronisations inside an executor step. Writes one report of what passed, what failed and
# what was not available.
usage() {
  cat <<'USAGE'
usage: ci/gpu-check.sh [--skip-build | --bundle DIR]

The GPU check of a machine with a build (the nightly's first step). Builds Release with CUDA
(ci/common.sh, which installs missing Debian packages; --skip-build uses the existing build in
BUILD_DIR), then, writing one Markdown report:
  1. the gpu test executables with CANZONA_REQUIRE_GPU=1, in dependency order
     (cuda -> backend -> optim -> exec -> comm): a failure names the lowest broken layer;
  2. the same under compute-sanitizer --tool memcheck, racecheck, synccheck, initcheck (when
     compute-sanitizer is installed), each run capped at SANITIZER_CAP_S; kernel checks only on
     the tests that fail API calls on purpose (wrappers, NCCL);
  3. canzona-bench step on the cpu and the cuda backend for muon, shampoo, soap and adamw on
     Qwen3-0.6B shapes, ||gpu - cpu|| / ||cpu - initial|| within the budgets of the executor's
     GPU test (muon 3e-2 with bf16 Newton-Schulz, shampoo and soap 5e-4, adamw 1e-5);
  4. an nsys profile of executor steps, counting the host synchronisations inside each step
     (target 0) (when nsys is installed).
Without a GPU it writes "no GPU: skipped, nothing verified" and exits 0 (1 with
CANZONA_REQUIRE_GPU=1).
--bundle DIR: on a node without the build's Debian packages or network, run the unpacked GPU
bundle's first-contact.sh instead (ci/gpu-bundle.sh; no build, nothing installed), its report in
REPORT's folder, within GPU_CHECK_BUDGET_S (default 1800).

environment:
  BUILD_DIR             build directory (default: build)
  JOBS                  build parallelism (default: number of cores)
  CUDA_ARCHITECTURES    CMAKE_CUDA_ARCHITECTURES (default: 80;90)
  REPORT                report file (default: $BUILD_DIR/gpu-check/report.md)
  SANITIZER_TOOLS       compute-sanitizer tools to run (default: memcheck racecheck synccheck
                        initcheck)
  SANITIZER_CAP_S       time limit of one sanitizer run (default 900)
  CANZONA_REQUIRE_GPU=1 exit 1 instead of 0 when there is no GPU
  CANZONA_TEST_SEED     reproduce a run's random inputs

exit code: 0 when every available check passed, 1 when one failed (or no GPU under
CANZONA_REQUIRE_GPU=1).
USAGE
}
skip_build=0
bundle=""
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --skip-build) skip_build=1 ;;
  --bundle)
    bundle="${2:-}"
    [ -f "${bundle}/first-contact.sh" ] ||
      { echo "error: --bundle needs an unpacked GPU bundle (a folder with first-contact.sh)" >&2; exit 2; }
    ;;
  "") ;;
  *) usage >&2; exit 2 ;;
esac

# Offline: the bundle's first contact is this check, from prebuilt binaries, without a build.
if [ -n "${bundle}" ]; then
  report_dir="$(dirname "${REPORT:-out/gpu-check/report.md}")"
  exec bash "${bundle}/first-contact.sh" --require-gpu --budget "${GPU_CHECK_BUDGET_S:-1800}" \
    --out "${report_dir}"
fi

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REPORT="${REPORT:-${BUILD_DIR}/gpu-check/report.md}"
WORK="$(dirname "${REPORT}")"
mkdir -p "${WORK}"
SANITIZER_TOOLS="${SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}"

failures=0
lines=()
# record STATUS WHAT DETAIL: one report line; STATUS is pass, FAIL or n/a.
record() {
  lines+=("| $1 | $2 | $3 |")
  [ "$1" = "FAIL" ] && failures=$((failures + 1))
  log "$1: $2${3:+ ($3)}"
}

write_report() {
  {
    echo "# GPU check"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- commit: $(git -C "${CANZONA_ROOT}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "- host: $(uname -srm), $(nproc) cores"
    if gpu_present; then
      nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader |
        sed 's/^/- gpu: /'
    fi
    echo
    if [ "$#" -gt 0 ]; then
      echo "$*"
    else
      echo "| result | check | detail |"
      echo "|---|---|---|"
      printf '%s\n' "${lines[@]}"
      echo
      echo "${failures} check(s) failed."
    fi
  } >"${REPORT}"
  log "report: ${REPORT}"
  cat "${REPORT}"
}

if ! gpu_present; then
  write_report "no GPU: skipped, nothing verified (nvidia-smi finds no device on this machine)."
  [ "${CANZONA_REQUIRE_GPU:-0}" = "1" ] && exit 1
  exit 0
fi

export CANZONA_REQUIRE_GPU=1
[ "${skip_build}" -eq 1 ] || setup_build
BIN="${BUILD_DIR}/bin"

# 1. GPU tests, lowest layer first: a broken wrapper explains a broken backend, and so on.
gpu_tests=(canzona_test_cuda_gpu canzona_test_backend_cuda_gpu canzona_test_optim_gpu
           canzona_test_exec_gpu canzona_test_comm_nccl_gpu)
for t in "${gpu_tests[@]}"; do
  if [ ! -x "${BIN}/${t}" ]; then
    record "n/a" "${t}" "not built (CUDA or NCCL off in this build)"
    continue
  fi
  if "${BIN}/${t}" >"${WORK}/${t}.log" 2>&1; then
    record pass "${t}" "$(grep -c '^\[       OK \]' "${WORK}/${t}.log") tests"
  else
    record FAIL "${t}" "see ${WORK}/${t}.log"
  fi
done

# 2. The same under compute-sanitizer, each run capped (SANITIZER_CAP_S). The wrapper tests and
# NCCL fail API calls on purpose (an invalid device, an illegal GEMM argument; NCCL's probes of
# driver features): there the sanitizer checks kernels only (--report-api-errors no).
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in ${SANITIZER_TOOLS}; do
    for t in "${gpu_tests[@]}"; do
      [ -x "${BIN}/${t}" ] || continue
      log_file="${WORK}/${t}.${tool}.log"
      api=()
      case "${t}" in
        canzona_test_cuda_gpu|canzona_test_exec_gpu|canzona_test_comm_nccl_gpu) api=(--report-api-errors no) ;;
      esac
      rc=0
      NCCL_CUMEM_ENABLE=0 timeout --kill-after=10 "${SANITIZER_CAP_S:-900}" compute-sanitizer \
        --tool "${tool}" --error-exitcode 99 "${api[@]}" "${BIN}/${t}" >"${log_file}" 2>&1 || rc=$?
      case "${rc}" in
        0) record pass "compute-sanitizer ${tool}: ${t}" "" ;;
        124|137) record FAIL "compute-sanitizer ${tool}: ${t}" "over ${SANITIZER_CAP_S:-900} s, see ${log_file}" ;;
        *) record FAIL "compute-sanitizer ${tool}: ${t}" "see ${log_file}" ;;
      esac
    done
  done
else
  record "n/a" "compute-sanitizer" "not installed"
fi

# 3. canzona-bench step, cpu vs cuda, on Qwen3-0.6B shapes (ci/gpu-step-compare.sh: the inputs,
# their conditioning and the budgets).
if command -v python3 >/dev/null 2>&1; then
  while read -r status _ name shape detail; do
    case "${status}" in
      pass|FAIL) record "${status}" "step ${name} ${shape}" "${detail}" ;;
      *) record FAIL "canzona-bench step cpu vs cuda" "${status} ${_:-} ${name:-} ${shape:-} ${detail:-}" ;;
    esac
  done < <("${CANZONA_ROOT}/ci/gpu-step-compare.sh" "${BIN}/canzona-bench" "${WORK}/step" 2>&1 || true)
else
  record "n/a" "canzona-bench step cpu vs cuda" "python3 (used to write and compare .npy) not found"
fi

# 4. Host synchronisations inside executor steps: the GPU test wraps each step of
# ExecutorGpuProfile in an NVTX range "canzona.step"; count the CUDA API calls that block the
# host inside those ranges.
if command -v nsys >/dev/null 2>&1 && [ -x "${BIN}/canzona_test_exec_gpu" ]; then
  profile="${WORK}/executor_step"
  if nsys profile --force-overwrite true --trace cuda,nvtx --output "${profile}" \
      "${BIN}/canzona_test_exec_gpu" --gtest_filter='ExecutorGpuProfile.*' \
      >"${WORK}/nsys.log" 2>&1 &&
     nsys stats --force-export true --report cuda_api_trace --format csv \
      --filter-nvtx canzona.step --output "${profile}" "${profile}.nsys-rep" \
      >>"${WORK}/nsys.log" 2>&1; then
    trace="$(ls "${profile}"*cuda_api_trace*.csv 2>/dev/null | head -n1)"
    if [ -n "${trace}" ]; then
      syncs="$(grep -cE 'Synchronize|cudaMemcpy[^A]|cudaMemset[^A]' "${trace}" || true)"
      if [ "${syncs}" = 0 ]; then
        record pass "nsys: host syncs inside executor steps" "0"
      else
        record FAIL "nsys: host syncs inside executor steps" "${syncs} (target 0), see ${trace}"
      fi
    else
      record FAIL "nsys: host syncs inside executor steps" "no cuda_api_trace report, see ${WORK}/nsys.log"
    fi
  else
    record FAIL "nsys: host syncs inside executor steps" "nsys failed, see ${WORK}/nsys.log"
  fi
else
  record "n/a" "nsys: host syncs inside executor steps" "nsys (or the exec GPU test) not available"
fi

write_report
[ "${failures}" -eq 0 ]
