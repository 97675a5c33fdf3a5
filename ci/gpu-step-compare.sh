#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# `canzona-bench step` on the cpu and on the cuda backend for every optimizer on Qwen3-0.6B
# shapes, compared as ||cuda - cpu|| / ||cpu - initial||. Used by ci/gpu-check.sh and by the GPU
# bundle's first-contact.sh (one home for the inputs, the conditioning and the budgets).
usage() {
  cat <<'USAGE'
usage: gpu-step-compare.sh CANZONA_BENCH WORK_DIR [SHAPE...]

Runs CANZONA_BENCH step --backend cpu and --backend cuda on a parameter and three gradients of
each SHAPE (ROWSxCOLS; default: 2048x1024 1024x2048 1024x3072, Qwen3-0.6B's q, o and down
projections), float32 .npy files written with Python's standard library into WORK_DIR, and
prints one line per optimizer and shape:
  pass|FAIL step OPTIMIZER SHAPE DETAIL
Budgets: muon 3e-2 (bf16 Newton-Schulz), shampoo and soap 5e-4, adamw 1e-5 (the executor's GPU
test). Exit 0 when every line passes, 1 when one fails, 2 on bad arguments; 3 without python3.
Environment: CANZONA_TEST_SEED (default 20260101) picks the values.
USAGE
}
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ "$#" -ge 2 ] || { usage >&2; exit 2; }
bench="$1"
work="$2"
shift 2
shapes=("$@")
[ "${#shapes[@]}" -gt 0 ] || shapes=(2048x1024 1024x2048 1024x3072)
[ -x "${bench}" ] || { echo "error: not an executable: ${bench}" >&2; exit 2; }
for shape in "${shapes[@]}"; do
  [[ "${shape}" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] ||
    { echo "error: shape '${shape}' is not ROWSxCOLS" >&2; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "error: python3 (writes and compares .npy) not found" >&2; exit 3; }
mkdir -p "${work}" || exit 2

# .npy files written and compared with Python's standard library (no numpy on a bare machine).
npy_tool="$(dirname "${BASH_SOURCE[0]}")/npy_tool.py"
[ -f "${npy_tool}" ] || { echo "error: npy_tool.py is not beside $0" >&2; exit 2; }

# Two fp32 implementations agree only where the result is a function of the input rather than
# of round-off, so Shampoo and SOAP run conditioned as in lib/optim's tests: gradients of scale
# 0.01 (statistics of norm ~1, round-off ~1e-7), root / Adam epsilon 1e-3, and SOAP
# preconditioning only the short side (the long side's statistic starts rank deficient, and
# SOAP's update depends on the basis chosen in that null space). With the defaults an H200
# measured 0.69 (Shampoo) and 0.53 (SOAP) on 2048x1024, and the cpu backend 0.40-0.53 against
# double precision on the same kind of input: amplified round-off, not a defect of either.
seed="${CANZONA_TEST_SEED:-20260101}"
failures=0
for shape in "${shapes[@]}"; do
  rows="${shape%x*}"
  cols="${shape#*x}"
  dir="${work}/${shape}"
  mkdir -p "${dir}"
  python3 "${npy_tool}" make "${dir}/p.npy" "${rows}" "${cols}" "${seed}" 0.02
  grads=()
  for k in 1 2 3; do
    python3 "${npy_tool}" make "${dir}/g${k}.npy" "${rows}" "${cols}" "$((seed + k))" 0.01
    grads+=(--grad "${dir}/g${k}.npy")
  done
  for opt in muon:3e-2 shampoo:5e-4 soap:5e-4 adamw:1e-5; do
    name="${opt%%:*}"
    budget="${opt##*:}"
    conditioning=()
    case "${name}" in
      shampoo) conditioning=(--eps 1e-3) ;;
      soap) conditioning=(--eps 1e-3 --max-precond-dim "$((rows < cols ? rows : cols))") ;;
    esac
    ok=1
    for be in cpu cuda; do
      "${bench}" step --optimizer "${name}" "${conditioning[@]}" --param "${dir}/p.npy" \
        "${grads[@]}" --backend "${be}" --out "${dir}/${name}-${be}.npy" \
        >"${dir}/${name}-${be}.log" 2>&1 || ok=0
    done
    if [ "${ok}" = 0 ]; then
      echo "FAIL step ${name} ${shape} canzona-bench step failed: $(tail -n 1 "${dir}/${name}-cuda.log")"
      failures=$((failures + 1))
      continue
    fi
    rel="$(python3 "${npy_tool}" compare "${dir}/p.npy" "${dir}/${name}-cpu.npy" "${dir}/${name}-cuda.npy")"
    if python3 -c "import sys; sys.exit(0 if float('${rel}') <= float('${budget}') else 1)"; then
      echo "pass step ${name} ${shape} gpu vs cpu ${rel} <= ${budget}"
    else
      echo "FAIL step ${name} ${shape} gpu vs cpu ${rel} > ${budget}"
      failures=$((failures + 1))
    fi
  done
done
[ "${failures}" -eq 0 ]
