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
usage: ci/gpu-check.sh [--skip-build]

First contact with a GPU machine. Builds Release with CUDA (ci/common.sh; --skip-build uses the
existing build in BUILD_DIR), then, writing one Markdown report:
  1. the gpu test executables with CANZONA_REQUIRE_GPU=1, in dependency order
     (cuda -> backend -> optim -> exec -> comm): a failure names the lowest broken layer;
  2. the same under compute-sanitizer --tool memcheck, racecheck, synccheck, initcheck (when
     compute-sanitizer is installed);
  3. canzona-bench step on the cpu and the cuda backend for muon, shampoo, soap and adamw on
     Qwen3-0.6B shapes, ||gpu - cpu|| / ||cpu - initial|| within the budgets of the executor's
     GPU test (muon 3e-2 with bf16 Newton-Schulz, shampoo and soap 5e-4, adamw 1e-5);
  4. an nsys profile of executor steps, counting the host synchronisations inside each step
     (target 0) (when nsys is installed).
Without a GPU it writes "no GPU: skipped, nothing verified" and exits 0 (1 with
CANZONA_REQUIRE_GPU=1).

environment:
  BUILD_DIR             build directory (default: build)
  JOBS                  build parallelism (default: number of cores)
  CUDA_ARCHITECTURES    CMAKE_CUDA_ARCHITECTURES (default: 80;90)
  REPORT                report file (default: $BUILD_DIR/gpu-check/report.md)
  SANITIZER_TOOLS       compute-sanitizer tools to run (default: memcheck racecheck synccheck
                        initcheck)
  CANZONA_REQUIRE_GPU=1 exit 1 instead of 0 when there is no GPU
  CANZONA_TEST_SEED     reproduce a run's random inputs

exit code: 0 when every available check passed, 1 when one failed (or no GPU under
CANZONA_REQUIRE_GPU=1).
USAGE
}
skip_build=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --skip-build) skip_build=1 ;;
  "") ;;
  *) usage >&2; exit 2 ;;
esac

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

# 2. The same under compute-sanitizer.
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in ${SANITIZER_TOOLS}; do
    for t in "${gpu_tests[@]}"; do
      [ -x "${BIN}/${t}" ] || continue
      log_file="${WORK}/${t}.${tool}.log"
      if compute-sanitizer --tool "${tool}" --error-exitcode 99 "${BIN}/${t}" >"${log_file}" 2>&1; then
        record pass "compute-sanitizer ${tool}: ${t}" ""
      else
        record FAIL "compute-sanitizer ${tool}: ${t}" "see ${log_file}"
      fi
    done
  done
else
  record "n/a" "compute-sanitizer" "not installed"
fi

# 3. canzona-bench step, cpu vs cuda, on Qwen3-0.6B shapes (q_proj 2048x1024, o_proj 1024x2048,
# down_proj 1024x3072): three gradients each, float32 .npy written with the standard library.
# Two fp32 implementations agree only where the result is a function of the input rather than
# of round-off, so Shampoo and SOAP run conditioned as in lib/optim's tests: gradients of scale
# 0.01 (statistics of norm ~1, round-off ~1e-7), root / Adam epsilon 1e-3, and SOAP
# preconditioning only the short side (the long side's statistic starts rank deficient, and
# SOAP's update depends on the basis chosen in that null space). With the defaults an H200
# measured 0.69 (Shampoo) and 0.53 (SOAP) here: amplified round-off, not a GPU defect.
if command -v python3 >/dev/null 2>&1; then
  npy_tool="${WORK}/npy_tool.py"
  cat >"${npy_tool}" <<'PY'
import random, struct, sys

def write(path, rows, cols, seed, scale):
    rng = random.Random(seed)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * ((64 - (len(header) + 11) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % (rows * cols), *(rng.gauss(0, scale) for _ in range(rows * cols))))

def read(path):
    data = open(path, "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    kind = "d" if "<f8" in header else "f"
    body = data[10 + length:]
    return struct.unpack("<%d%s" % (len(body) // struct.calcsize(kind), kind), body)

if sys.argv[1] == "make":
    rows, cols, seed = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    write(sys.argv[2], rows, cols, seed, float(sys.argv[6]))
else:  # compare INITIAL CPU GPU: ||gpu - cpu|| / ||cpu - initial||
    p0, cpu, gpu = (read(p) for p in sys.argv[2:5])
    diff = sum((g - c) ** 2 for g, c in zip(gpu, cpu)) ** 0.5
    moved = sum((c - p) ** 2 for c, p in zip(cpu, p0)) ** 0.5
    print("%.3e" % (diff / max(moved, 1e-30)))
PY
  seed="${CANZONA_TEST_SEED:-20260101}"
  for opt in muon:3e-2 shampoo:5e-4 soap:5e-4 adamw:1e-5; do
    name="${opt%%:*}"
    budget="${opt##*:}"
    for shape in 2048x1024 1024x2048 1024x3072; do
      rows="${shape%x*}"
      cols="${shape#*x}"
      conditioning=()
      case "${name}" in
        shampoo) conditioning=(--eps 1e-3) ;;
        soap) conditioning=(--eps 1e-3 --max-precond-dim "$((rows < cols ? rows : cols))") ;;
      esac
      dir="${WORK}/step/${name}-${shape}"
      mkdir -p "${dir}"
      python3 "${npy_tool}" make "${dir}/p.npy" "${rows}" "${cols}" "${seed}" 0.02
      grads=()
      for k in 1 2 3; do
        python3 "${npy_tool}" make "${dir}/g${k}.npy" "${rows}" "${cols}" "$((seed + k))" 0.01
        grads+=(--grad "${dir}/g${k}.npy")
      done
      ok=1
      for be in cpu cuda; do
        if ! "${BIN}/canzona-bench" step --optimizer "${name}" "${conditioning[@]}" \
            --param "${dir}/p.npy" "${grads[@]}" --backend "${be}" --out "${dir}/${be}.npy" \
            >"${dir}/${be}.log" 2>&1; then
          ok=0
        fi
      done
      if [ "${ok}" = 0 ]; then
        record FAIL "step ${name} ${shape}" "canzona-bench step failed, see ${dir}/*.log"
        continue
      fi
      rel="$(python3 "${npy_tool}" compare "${dir}/p.npy" "${dir}/cpu.npy" "${dir}/cuda.npy")"
      if python3 -c "import sys; sys.exit(0 if float('${rel}') <= float('${budget}') else 1)"; then
        record pass "step ${name} ${shape}" "gpu vs cpu ${rel} <= ${budget}"
      else
        record FAIL "step ${name} ${shape}" "gpu vs cpu ${rel} > ${budget}"
      fi
    done
  done
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
