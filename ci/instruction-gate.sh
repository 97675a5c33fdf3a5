#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The instruction-count layer of the regression gate, for CPU CI: the same fixed workloads (the
# planner on Qwen3 shapes, a one-rank optimizer step) run under valgrind's callgrind for a base
# and a head build, and the instructions executed inside the code that matters are compared.
# Under callgrind a program's instruction count does not depend on the machine's load, its
# other tenants or its clock (valgrind runs one thread at a time on a simulated CPU), so an A/A
# comparison reads exactly 0 and a change of 0.5 % is a verdict, where the wall and CPU time of
# `canzona-bench ab` spread 20-23 % between processes on a shared 2-core VM
# (results/tables/gate-benchmark-ab-cpu.md). What it cannot see: anything that costs time without
# instructions (cache misses, memory layout, contention) and the GPU; it is a layer beside `ab`,
# not a replacement.
usage() {
  cat <<'USAGE'
usage: ci/instruction-gate.sh --base DIR --head DIR [options]

DIR is a build folder (with bin/) or a bin/ folder holding canzona-bench and
canzona_bench_optimizer_step. Each workload runs once per side under valgrind's callgrind,
counting the instructions executed (Ir) inside the named functions and everything they call:

  plan/<model>/dp:<d>/tp:<t>      canzona-bench plan --optimizer muon (Canzona's planner: DP
                                  partition and TP micro-groups; counted in
                                  canzona::baselines::make_step_plan)
  step/<optimizer>/qwen3-0.6b~d64 canzona_bench_optimizer_step, one rank, cpu backend, one
                                  untimed and one timed iteration of the Canzona row (Shampoo
                                  and SOAP: a window of refresh-interval steps); counted in
                                  RankStepper::step and in the injected busy work

A workload whose count moves by more than the threshold is SLOWER (more instructions) or FASTER.

options:
  --threshold PCT    the verdict's threshold in percent (default 0.5)
  --workloads LIST   comma-separated among plan, step-muon, step-shampoo, step-soap
                     (default: all; step-shampoo and step-soap take about a minute each)
  --base-arg ARG     pass ARG to the base side's optimizer-step suite (repeatable)
  --head-arg ARG     the same for the head, e.g. --head-arg=--canzona_inject_slowdown=0.1
  --out DIR          keep the callgrind files and the logs there and write report.md
                     (default: a temporary folder, removed at the end)
  -h, --help         this text

exit codes: 0 no workload SLOWER, 1 a workload SLOWER or failed on the head side, 2 bad usage,
valgrind missing, or a base workload that failed or counted nothing
USAGE
}

set -euo pipefail
bad_usage() { printf 'error: %s\n' "$*" >&2; exit 2; }

base="" head="" threshold="0.5" workloads="plan,step-muon,step-shampoo,step-soap" out=""
base_args=() head_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --base) base="${2:-}"; [ -n "${base}" ] || bad_usage "--base needs a build folder"; shift 2 ;;
    --head) head="${2:-}"; [ -n "${head}" ] || bad_usage "--head needs a build folder"; shift 2 ;;
    --threshold) threshold="${2:-}"; shift 2 ;;
    --workloads) workloads="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; [ -n "${out}" ] || bad_usage "--out needs a folder"; shift 2 ;;
    --base-arg=*) base_args+=("${1#--base-arg=}"); shift ;;
    --base-arg) base_args+=("${2:?--base-arg needs an argument}"); shift 2 ;;
    --head-arg=*) head_args+=("${1#--head-arg=}"); shift ;;
    --head-arg) head_args+=("${2:?--head-arg needs an argument}"); shift 2 ;;
    *) bad_usage "unknown argument '$1' (see --help)" ;;
  esac
done
if [ -z "${base}" ] || [ -z "${head}" ]; then
  bad_usage "give both --base DIR and --head DIR (see --help)"
fi
if ! [[ "${threshold}" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  ! awk -v t="${threshold}" 'BEGIN { exit !(t > 0 && t < 100) }'; then
  bad_usage "--threshold '${threshold}': give a percentage above 0 and below 100, e.g. 0.5"
fi
if ! command -v valgrind > /dev/null; then
  bad_usage "valgrind is not installed: apt-get install valgrind (its callgrind counts the instructions)"
fi

# The bin/ folder of a side: DIR itself or DIR/bin, holding both programs.
bin_of() {
  local dir="$1" side="$2" candidate
  for candidate in "${dir}/bin" "${dir}"; do
    if [ -x "${candidate}/canzona-bench" ] && [ -x "${candidate}/canzona_bench_optimizer_step" ]; then
      (cd "${candidate}" && pwd)
      return 0
    fi
  done
  bad_usage "--${side} '${dir}': no canzona-bench and canzona_bench_optimizer_step in it or in its bin/; give a Release build folder"
}
base_bin="$(bin_of "${base}" base)"
head_bin="$(bin_of "${head}" head)"

# The workloads: name, the program, its arguments, the functions counted.
declare -a names=()
declare -A program=() arguments=() counted=()
add_plan() {
  local model="$1" dp="$2" tp="$3" name="plan/$1/dp:$2/tp:$3"
  names+=("${name}")
  program["${name}"]=canzona-bench
  arguments["${name}"]="plan --model ${model} --dp ${dp} --tp ${tp} --optimizer muon"
  counted["${name}"]='canzona::baselines::make_step_plan*'
}
add_step() {
  local optimizer="$1" model='qwen3-0.6b~d64' name="step/$1/qwen3-0.6b~d64"
  names+=("${name}")
  program["${name}"]=canzona_bench_optimizer_step
  arguments["${name}"]="--benchmark_filter=^OptimizerStep/${optimizer}/canzona/${model}/gpus:1/dp:1/tp:1 --canzona_models=${model} --canzona_optimizers=${optimizer} --canzona_strategies=canzona --canzona_projector=0 --canzona_warmup=1 --benchmark_min_time=1e-9 --benchmark_repetitions=1"
  counted["${name}"]='canzona::bench::step::RankStepper::step() canzona::bench::busy_work(double)'
}
IFS=',' read -r -a chosen <<< "${workloads}"
[ "${#chosen[@]}" -gt 0 ] || bad_usage "--workloads is empty; give plan, step-muon, step-shampoo or step-soap"
for w in "${chosen[@]}"; do
  case "${w}" in
    plan) add_plan qwen3-32b 64 4; add_plan qwen3-30b-a3b 32 4 ;;
    step-muon|step-shampoo|step-soap) add_step "${w#step-}" ;;
    *) bad_usage "--workloads: unknown workload '${w}'; give plan, step-muon, step-shampoo or step-soap" ;;
  esac
done

if [ -n "${out}" ]; then
  mkdir -p "${out}" || bad_usage "--out '${out}': cannot create the folder"
  work="$(cd "${out}" && pwd)"
else
  work="$(mktemp -d)"
  trap 'rm -rf "${work}"' EXIT
fi

# An interrupt ends the running workload too: valgrind runs in the background and is waited for,
# so the trap can reach it.
child=""
# shellcheck disable=SC2317  # called by the trap
stop() {
  if [ -n "${child}" ]; then kill -TERM "${child}" 2> /dev/null || true; fi
  printf 'error: interrupted; the running workload was stopped\n' >&2
  exit 130
}
trap stop INT TERM

# Runs one workload of one side in this shell (so that the trap reaches it); sets `counted_ir`
# to its instruction count, or to "" when it failed.
count() {
  local side="$1" bin="$2" name="$3" file
  file="${work}/${side}-${name//\//_}"
  # read splits the patterns without expanding the `*` against this folder's files.
  local functions=() toggles=() fn
  read -r -a functions <<< "${counted["${name}"]}"
  for fn in "${functions[@]}"; do toggles+=("--toggle-collect=${fn}"); done
  local extra=()
  if [[ "${name}" == step/* ]]; then
    if [ "${side}" = base ]; then extra=("${base_args[@]}"); else extra=("${head_args[@]}"); fi
  fi
  # One BLAS thread, and the same small environment on both sides: malloc's and memcpy's own
  # instruction counts follow the heap's and the stack's state, which the environment's size and
  # OpenBLAS's thread buffers move (by 0.4 % on the planner with OPENBLAS_NUM_THREADS unset).
  # shellcheck disable=SC2086  # the workload's arguments are words by construction
  env -i PATH="${PATH}" HOME="${HOME:-/}" LANG=C OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="${file}.callgrind" \
    "${toggles[@]}" "${bin}/${program["${name}"]}" ${arguments["${name}"]} "${extra[@]}" \
    > "${file}.out" 2> "${file}.log" &
  child=$!
  local rc=0
  wait "${child}" || rc=$?
  child=""
  counted_ir=""
  [ "${rc}" -eq 0 ] || return 0
  counted_ir="$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "${file}.callgrind" | head -n1)"
}

report="${work}/report.md"
{
  printf '# Instruction counts, base vs head (callgrind)\n\n'
  printf -- '- base: `%s` (canzona-bench %s)\n' "${base}" "$("${base_bin}/canzona-bench" --version)"
  printf -- '- head: `%s` (canzona-bench %s)\n' "${head}" "$("${head_bin}/canzona-bench" --version)"
  [ "${#base_args[@]}" -eq 0 ] || printf -- '- base arguments: `%s`\n' "${base_args[*]}"
  [ "${#head_args[@]}" -eq 0 ] || printf -- '- head arguments: `%s`\n' "${head_args[*]}"
  printf -- '- threshold: %s %% (instruction counts are deterministic: no interval)\n\n' "${threshold}"
  printf '| workload | base Ir | head Ir | change | verdict |\n|---|---:|---:|---:|---|\n'
} > "${report}"

slower=0 failed=0 broken=0
for name in "${names[@]}"; do
  printf '[canzona] %s ...\n' "${name}" >&2
  count base "${base_bin}" "${name}"
  b="${counted_ir}"
  count head "${head_bin}" "${name}"
  h="${counted_ir}"
  if [ -z "${b}" ] || [ "${b}" = 0 ]; then
    # Nothing counted on the base: the workload failed or the functions above were renamed.
    broken=$((broken + 1))
    printf '| `%s` | %s | %s | | BASE FAILED (log: %s) |\n' "${name}" "${b:-—}" "${h:-—}" \
      "base-${name//\//_}.log" >> "${report}"
    continue
  fi
  if [ -z "${h}" ] || [ "${h}" = 0 ]; then
    failed=$((failed + 1))
    printf '| `%s` | %s | %s | | HEAD FAILED (log: %s) |\n' "${name}" "${b}" "${h:-—}" \
      "head-${name//\//_}.log" >> "${report}"
    continue
  fi
  read -r change verdict < <(awk -v b="${b}" -v h="${h}" -v t="${threshold}" 'BEGIN {
    c = (h / b - 1) * 100
    v = c > t ? "SLOWER" : (c < -t ? "FASTER" : "SAME")
    printf "%+.3f %s\n", c, v }')
  [ "${verdict}" = SLOWER ] && slower=$((slower + 1))
  [ "${verdict}" = SAME ] || verdict="**${verdict}**"
  printf '| `%s` | %s | %s | %s %% | %s |\n' "${name}" "${b}" "${h}" "${change}" "${verdict}" \
    >> "${report}"
done

total="${#names[@]}"
if [ "${broken}" -gt 0 ]; then
  line="cannot compare: ${broken} of ${total} workloads failed or counted nothing on the base side (exit 2)"
  code=2
elif [ "${slower}" -gt 0 ] || [ "${failed}" -gt 0 ]; then
  line="SLOWER: ${slower} of ${total} workloads beyond +${threshold} %, ${failed} failed on the head side (exit 1)"
  code=1
else
  line="PASS: no workload beyond +${threshold} % of ${total} (exit 0)"
  code=0
fi
printf '\n%s\n' "${line}" >> "${report}"
cat "${report}"
exit "${code}"
