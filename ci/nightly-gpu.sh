#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The nightly GPU job: build Release for the GPU it finds, run ci/gpu-check.sh (the GPU tests
# with CANZONA_REQUIRE_GPU=1 in dependency order, compute-sanitizer, cpu vs cuda steps, host
# syncs inside a step), gate the nightly preset with `canzona-bench ab` (the base build, last
# green night's commit, measured side by side with this one), gate the kernels suite against
# results/accepted/<device-kind>/, keep the night's run in a history folder and judge the slow
# drift across the last nights (`canzona-bench drift`), and leave reports, tables and figures in
# an artifacts folder. Exit 1 on a regression or a failed test (and on a drift with
# --fail-on-drift).
usage() {
  cat <<'USAGE'
usage: ci/nightly-gpu.sh [options]

Builds Canzona Bench in Release for the GPU present (CMAKE_CUDA_ARCHITECTURES from nvidia-smi),
runs ci/gpu-check.sh first (the gpu tests with CANZONA_REQUIRE_GPU=1 lowest layer first, the
same under compute-sanitizer, canzona-bench step cpu vs cuda, host syncs inside executor steps;
report gpu-check.md) and the multi_gpu tests, then gates:
  ab.json        canzona-bench ab --base BASE --head THIS --preset nightly: the base build
                 (--base, or built from --base-rev, by default the commit of the last green
                 night in --last-green) and this one measured side by side on this GPU, pairs
                 of fresh processes, every row with its interval; SLOWER (confirmed) or
                 MISSING fails the night. The first night (no base) says so and measures only.
  nightly.json   canzona-bench run --preset nightly --backend cuda, for tables, figures and the
                 trend against results/accepted/<device-kind>/ (compare: reported, not gated)
  kernels.json   canzona_bench_kernels with --benchmark_repetitions (every Qwen3 matrix shape),
                 gated against results/accepted/<device-kind>/kernels.json (canzona-bench
                 compare: kernel rows spread 0.05-1 % on an H200, where its U test holds)
  drift.md       canzona-bench drift --history HISTORY: nightly.json is kept in the history
                 folder (--history, one <date>-<commit>.json a night), and every row's trend over
                 the last 14 nights (Theil-Sen slope with Sen's interval, Holm over the rows) is
                 judged; a DRIFT row (slower than +3 % over the window) is reported in the
                 summary and fails the night only with --fail-on-drift. Fewer than 3 nights: it
                 says so and waits. plots/history.png: canzona-bench plot --history, the rows
                 moving most.
The first night of a device kind has no accepted run: the script says so, passes, and leaves the
run as candidate-<name>.json to promote after review:
  canzona-bench promote ARTIFACTS/candidate-<name>.json --to results/accepted/<device-kind>/

options:
  --artifacts DIR        where runs, reports, tables and figures go (default: out/nightly)
  --accepted DIR         the accepted runs (default: results/accepted)
  --repetitions N        repetitions of the kernels suite (default: 9, the U test's minimum)
  --threshold PCT        compare's threshold for the kernels (default: 5)
  --base BIN             the base side of ab: a canzona-bench executable or a build folder
  --base-rev REV         build the base side from this git revision (in a worktree, into
                         BUILD_DIR-base); default: the commit in --last-green
  --last-green FILE      where the commit of the last green night is kept (default:
                         ARTIFACTS/../last-green-commit); written after a green night
  --ab-arg ARG           pass ARG to canzona-bench ab (repeatable), e.g. --ab-arg=--pairs=8
  --history DIR          the nightly runs across nights, kept for drift and plot --history
                         (default: ARTIFACTS/../history); with --compare-only, a nightly.json
                         given there joins it only when --history is given
  --fail-on-drift        a DRIFT row fails the night (exit 1); without it drift is reported only
  --drift-arg ARG        pass ARG to canzona-bench drift (repeatable), e.g. --drift-arg=--last=28
  --skip-build           use the existing build in BUILD_DIR
  --bundle DIR           offline: an unpacked GPU bundle (ci/gpu-bundle.sh) instead of a build;
                         nothing is built or installed, its first-contact.sh is the GPU check
  --skip-tests           do not run ci/gpu-check.sh and the multi_gpu tests
  --compare-only FILE... compare existing run files (named <name>.json) against the accepted runs
                         and publish them; no GPU, no build, no measurement
  -h, --help             this text

environment:
  BUILD_DIR              build directory (default: build)
  JOBS                   build parallelism (default: number of cores)
  CUDA_ARCHITECTURES     CMAKE_CUDA_ARCHITECTURES (default: the compute capability nvidia-smi reports)
  CANZONA_BENCH          canzona-bench to use (default: BUILD_DIR/bin/canzona-bench)

artifacts:
  ab.md / ab.json        the gate of the nightly preset: every row with its interval, every pair
  <name>.json            the run            compare-<name>.md / .json   compare's report
  drift.md / drift.json  drift over the last nights of the history, every row with its interval
  plots/history.png      the trend of the rows moving most across the history
  table-<name>.md        the run's table    plots/                      figures of the runs
  report-<name>/         report.md and report.html: provenance, tables and figures of the run
  candidate-<name>.json  a run with no accepted run yet      gpu-check/report.md, tests.log
  summary.md

exit codes: 0 no regression, 1 a regression (SLOWER / MISSING), a failed test or benchmark, or a
DRIFT row with --fail-on-drift, 2 bad usage or a run that cannot be compared (wrong device kind,
debug build)
USAGE
}

artifacts="out/nightly"
accepted=""
repetitions=9
threshold=5
skip_build=0
skip_tests=0
bundle=""
compare_only=()
base=""
base_rev=""
last_green=""
ab_args=()
history=""
fail_on_drift=0
drift_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --artifacts) artifacts="${2:?--artifacts needs a folder}"; shift 2 ;;
    --accepted) accepted="${2:?--accepted needs a folder}"; shift 2 ;;
    --repetitions) repetitions="${2:?--repetitions needs a number}"; shift 2 ;;
    --threshold) threshold="${2:?--threshold needs a percentage}"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    --base) base="${2:?--base needs a canzona-bench or a build folder}"; shift 2 ;;
    --base-rev) base_rev="${2:?--base-rev needs a git revision}"; shift 2 ;;
    --last-green) last_green="${2:?--last-green needs a file}"; shift 2 ;;
    --ab-arg=*) ab_args+=("${1#--ab-arg=}"); shift ;;
    --ab-arg) ab_args+=("${2:?--ab-arg needs an argument}"); shift 2 ;;
    --history) history="${2:?--history needs a folder}"; shift 2 ;;
    --fail-on-drift) fail_on_drift=1; shift ;;
    --drift-arg=*) drift_args+=("${1#--drift-arg=}"); shift ;;
    --drift-arg) drift_args+=("${2:?--drift-arg needs an argument}"); shift 2 ;;
    --bundle)
      bundle="${2:-}"
      [ -f "${bundle}/env.sh" ] && [ -x "${bundle}/bin/canzona-bench" ] ||
        { echo "error: --bundle needs an unpacked GPU bundle (env.sh and bin/ in it)" >&2; exit 2; }
      bundle="$(cd "${bundle}" && pwd)"
      shift 2 ;;
    --skip-tests) skip_tests=1; shift ;;
    --compare-only)
      shift
      while [ "$#" -gt 0 ] && [ "${1#--}" = "$1" ]; do compare_only+=("$1"); shift; done
      [ "${#compare_only[@]}" -gt 0 ] || { echo "error: --compare-only needs run files" >&2; exit 2; }
      ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "${repetitions}" in ''|*[!0-9]*) echo "error: --repetitions must be a number" >&2; exit 2 ;; esac

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
accepted="${accepted:-${CANZONA_ROOT}/results/accepted}"
if [ -n "${bundle}" ]; then
  # shellcheck source=bundle/env.sh
  source "${bundle}/env.sh"
  bin_dir="${bundle}/bin"
else
  bin_dir="${BUILD_DIR}/bin"
fi
bench="${CANZONA_BENCH:-${bin_dir}/canzona-bench}"
mkdir -p "${artifacts}/plots"
last_green="${last_green:-$(cd "${artifacts}/.." && pwd)/last-green-commit}"
# With --compare-only the runs are someone's files: they join a history only when asked to.
keep_history=1
if [ "${#compare_only[@]}" -gt 0 ] && [ -z "${history}" ]; then keep_history=0; fi
history="${history:-$(cd "${artifacts}/.." && pwd)/history}"
summary="${artifacts}/summary.md"
: > "${summary}"
failures=0
regressions=0

note() { log "$*"; printf -- '- %s\n' "$*" >> "${summary}"; }

# A string value of a run's context (the first occurrence of the key in the file), or "".
context_of() {
  grep -o "\"$2\": *\"[^\"]*\"" "$1" | head -n1 | sed 's/.*"\([^"]*\)"$/\1/' || true
}

# The device kind a run was measured on (its context says it; a canzona suite always writes it).
device_kind_of() { context_of "$1" device_kind; }

# Tonight's nightly run joins the history as <date>-<commit>.json (a rerun of the same night and
# commit replaces it).
keep_night() {
  local run="$1" day sha
  day="$(context_of "${run}" date | cut -c1-10 | tr -c '0-9-\n' '_')"
  sha="$(context_of "${run}" canzona_git_sha | tr -c 'A-Za-z0-9.\n-' '_')"
  mkdir -p "${history}"
  cp "${run}" "${history}/${day:-$(date -u +%F)}-${sha:-unknown}.json"
  note "nightly.json kept in the history as ${history}/${day:-$(date -u +%F)}-${sha:-unknown}.json"
}

# The slow drift over the last nights of the history, and the trend of the rows moving most. A
# DRIFT row is reported; it fails the night only with --fail-on-drift. A history too short (or
# that drift cannot read) is said and does not fail the night: it is not tonight's build.
judge_drift() {
  local rc=0 drifting names filter
  log "canzona-bench drift --history ${history}"
  "${bench}" drift --history "${history}" "${drift_args[@]}" --out "${artifacts}/drift.json" \
    --markdown "${artifacts}/drift.md" > /dev/null 2> "${artifacts}/drift.log" || rc=$?
  case "${rc}" in
    0) note "drift over the last nights of ${history}: no row drifting (drift.md)" ;;
    1) drifting="$(grep -c '\*\*DRIFT\*\*' "${artifacts}/drift.md" || true)"
       if [ "${fail_on_drift}" -eq 1 ]; then
         regressions=$((regressions + 1))
         note "drift: ${drifting} row(s) DRIFT over the last nights of ${history} (drift.md); --fail-on-drift fails the night"
       else
         note "drift: ${drifting} row(s) DRIFT over the last nights of ${history} (drift.md; reported, not gated: --fail-on-drift gates it)"
       fi ;;
    *) cat "${artifacts}/drift.log" >&2
       note "drift did not judge ${history} (exit ${rc}): $(head -n1 "${artifacts}/drift.log")"
       return 0 ;;
  esac
  cat "${artifacts}/drift.md"
  # Every DRIFT and IMPROVED row with its interval, in the summary.
  grep -E '^\| `.*\*\*(DRIFT|IMPROVED)\*\*' "${artifacts}/drift.md" |
    sed 's/^/  /' >> "${summary}" || true
  # The trend of the rows moving most (the report lists them first): their names, escaped, are
  # the filter of plot --history.
  # shellcheck disable=SC2016  # the backticks are Markdown's, not a command substitution
  names="$(sed -n 's/^| `\([^`]*\)` | .*\*\*\(DRIFT\|IMPROVED\|STABLE\)\*\* |$/\1/p' \
    "${artifacts}/drift.md" | head -n 6)"
  [ -n "${names}" ] || return 0
  filter="^($(printf '%s\n' "${names}" | sed 's/[][\\.*+?(){}|^$]/\\&/g' | paste -sd'|'))\$"
  "${bench}" plot --history "${history}" --filter "${filter}" --out "${artifacts}/plots" \
    >/dev/null 2>&1 || note "no history figure (needs python3-matplotlib)"
}

# Compares one run with its accepted run (or keeps it as the candidate), then publishes it. With
# "trend", a regression is reported but does not fail the night (ab gates that run).
gate() {
  local run="$1" mode="${2:-gate}"
  local name kind accepted_run rc
  name="$(basename "${run}" .json)"
  kind="$(device_kind_of "${run}")"
  [ -n "${kind}" ] || { note "${run}: no device_kind in its context; not a canzona run"; return 2; }
  accepted_run="${accepted}/${kind}/${name}.json"
  if [ ! -f "${accepted_run}" ]; then
    cp "${run}" "${artifacts}/candidate-${name}.json"
    note "${name}: no accepted run for device kind '${kind}' yet (${accepted_run}); first night: nothing to compare. Candidate kept: ${artifacts}/candidate-${name}.json; after review: canzona-bench promote ${artifacts}/candidate-${name}.json --to ${accepted}/${kind}/"
  else
    rc=0
    "${bench}" compare "${accepted_run}" "${run}" --threshold "${threshold}" --changes-only \
      --out "${artifacts}/compare-${name}.md" || rc=$?
    if [ "${rc}" -eq 2 ]; then
      note "${name}: cannot be compared with ${accepted_run} (see the message above)"
      return 2
    fi
    "${bench}" compare "${accepted_run}" "${run}" --threshold "${threshold}" --json \
      --out "${artifacts}/compare-${name}.json" || true
    if [ "${rc}" -eq 1 ] && [ "${mode}" = "trend" ]; then
      note "${name}: moved against the stored ${accepted_run} (a trend, not the gate: see ab.md), compare-${name}.md"
    elif [ "${rc}" -eq 1 ]; then
      regressions=$((regressions + 1))
      note "${name}: REGRESSION against ${accepted_run}, see compare-${name}.md"
    else
      note "${name}: no regression against ${accepted_run} (compare-${name}.md)"
    fi
    cat "${artifacts}/compare-${name}.md"
  fi
  # Tables and figures are for people; a run they cannot draw (e.g. no strategy axis) still gates.
  "${bench}" table "${run}" --out "${artifacts}/table-${name}.md" >/dev/null 2>&1 ||
    "${bench}" table "${run}" --compare-optimizers --out "${artifacts}/table-${name}.md" \
      >/dev/null 2>&1 || note "${name}: no table (no strategy or optimizer axis)"
  "${bench}" plot "${run}" --out "${artifacts}/plots" >/dev/null 2>&1 ||
    note "${name}: no figures (needs strategies in the names and python3-matplotlib)"
  # One page per run (tables, figures, provenance) to attach where the night is discussed.
  "${bench}" report "${run}" --out "${artifacts}/report-${name}" >/dev/null 2>&1 ||
    note "${name}: no report (see the table and plot notes above)"
}

runs=()
if [ "${#compare_only[@]}" -gt 0 ]; then
  runs=("${compare_only[@]}")
else
  fail_if_no_gpu
  if [ -z "${CUDA_ARCHITECTURES:-}" ]; then
    # "9.0" -> "90": the GPU's own architecture, nothing else (faster to build, exact code).
    CUDA_ARCHITECTURES="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d '. ')"
    export CUDA_ARCHITECTURES
  fi
  if [ "${skip_build}" -eq 0 ] && [ -z "${bundle}" ]; then
    setup_build
  fi
  print_env
  if [ "${skip_tests}" -eq 0 ]; then
    log "ci/gpu-check.sh"
    check_source=(--skip-build)
    [ -n "${bundle}" ] && check_source=(--bundle "${bundle}")
    if REPORT="${artifacts}/gpu-check/report.md" CANZONA_REQUIRE_GPU=1 \
        "${CANZONA_ROOT}/ci/gpu-check.sh" "${check_source[@]}" > "${artifacts}/gpu-check.log" 2>&1; then
      note "GPU check passed (gpu-check/)"
    else
      failures=$((failures + 1))
      note "GPU check FAILED (gpu-check/)"
      tail -n 30 "${artifacts}/gpu-check.log"
    fi
    # A label no test carries passes with zero tests: count them first and say so.
    multi_gpu_tests=0
    if [ -z "${bundle}" ]; then
      multi_gpu_tests="$(ctest --test-dir "${BUILD_DIR}" -N -L multi_gpu | sed -n 's/^Total Tests: //p')"
    fi
    if [ "${multi_gpu_tests:-0}" -eq 0 ]; then
      note "multi-GPU tests: none to run (no test carries the multi_gpu label${bundle:+, and a bundle has no ctest}); nothing multi-GPU verified"
    else
      log "ctest -L multi_gpu with CANZONA_REQUIRE_GPU=1 (${multi_gpu_tests} tests)"
      if CANZONA_REQUIRE_GPU=1 ctest --test-dir "${BUILD_DIR}" --output-on-failure -L multi_gpu \
          --no-tests=error > "${artifacts}/tests.log" 2>&1; then
        note "multi-GPU tests passed (tests.log)"
      else
        failures=$((failures + 1))
        note "multi-GPU tests FAILED (tests.log)"
        tail -n 30 "${artifacts}/tests.log"
      fi
    fi
  fi
  # The gate of the nightly preset: base and head side by side on this GPU.
  if [ -z "${base}" ] && [ -z "${base_rev}" ] && [ -f "${last_green}" ]; then
    base_rev="$(tr -d '[:space:]' < "${last_green}")"
  fi
  if [ -z "${base}" ] && [ -n "${base_rev}" ]; then
    if [ -n "${bundle}" ]; then
      note "--base-rev needs a build; with --bundle give --base (another unpacked bundle's bin/canzona-bench)"
      exit 2
    fi
    base_src="${BUILD_DIR}-base-src"
    log "building the base ${base_rev} in ${BUILD_DIR}-base"
    git -C "${CANZONA_ROOT}" worktree remove --force "${base_src}" >/dev/null 2>&1 || true
    if git -C "${CANZONA_ROOT}" worktree add --detach "${base_src}" "${base_rev}" >/dev/null &&
        (CANZONA_ROOT="${base_src}" BUILD_DIR="${BUILD_DIR}-base" configure -DCANZONA_BUILD_TESTS=OFF &&
         CANZONA_ROOT="${base_src}" BUILD_DIR="${BUILD_DIR}-base" build) > "${artifacts}/base-build.log" 2>&1; then
      base="${BUILD_DIR}-base"
    else
      failures=$((failures + 1))
      note "the base ${base_rev} did not build (base-build.log); no A/B gate tonight"
    fi
  fi
  if [ -z "${base}" ]; then
    note "no base to measure against (no --base, --base-rev or ${last_green}): the first night measures only"
  else
    log "canzona-bench ab --base ${base} --head ${bench} --preset nightly"
    rc=0
    "${bench}" ab --base "${base}" --head "${bench}" --preset nightly "${ab_args[@]}" \
      --out "${artifacts}/ab.json" > "${artifacts}/ab.md" || rc=$?
    cat "${artifacts}/ab.md"
    case "${rc}" in
      0) note "ab (nightly preset): no regression against ${base_rev:-${base}} (ab.md)" ;;
      1) regressions=$((regressions + 1))
         note "ab (nightly preset): REGRESSION against ${base_rev:-${base}} (ab.md)" ;;
      *) failures=$((failures + 1)); note "ab (nightly preset) could not run (exit ${rc})" ;;
    esac
    # Every row that is not SAME, with its interval, in the summary.
    grep -E '^\| `.*\*\*(SLOWER|MISSING|UNCONFIRMED|NOISY|FASTER|NEW)\*\*' "${artifacts}/ab.md" |
      sed 's/^/  /' >> "${summary}" || true
  fi
  log "canzona-bench run --preset nightly --backend cuda"
  if "${bench}" run --preset nightly --backend cuda --out "${artifacts}/nightly.json"; then
    runs+=("${artifacts}/nightly.json")
  else
    failures=$((failures + 1))
    note "canzona-bench run --preset nightly FAILED"
  fi
  log "canzona_bench_kernels --benchmark_repetitions=${repetitions}"
  if "${bin_dir}/canzona_bench_kernels" --benchmark_repetitions="${repetitions}" \
      --benchmark_out="${artifacts}/kernels.json" --benchmark_out_format=json \
      --benchmark_counters_tabular=true; then
    runs+=("${artifacts}/kernels.json")
  else
    failures=$((failures + 1))
    note "the kernels suite FAILED"
  fi
fi

bad=0
night=""
for run in "${runs[@]}"; do
  if ! "${bench}" validate "${run}"; then
    failures=$((failures + 1))
    note "${run}: failed rows or not a valid run (canzona-bench validate)"
  elif [ "$(basename "${run}")" = "nightly.json" ]; then
    night="${run}"
  fi
  mode=gate
  [ "$(basename "${run}")" = "nightly.json" ] && [ "${#compare_only[@]}" -eq 0 ] && mode=trend
  gate "${run}" "${mode}" || bad=1
done

if [ -n "${night}" ] && [ "${keep_history}" -eq 1 ]; then
  keep_night "${night}"
  judge_drift
fi

log "summary (${summary}):"
cat "${summary}"
if [ "${bad}" -ne 0 ]; then exit 2; fi
if [ "${regressions}" -gt 0 ] || [ "${failures}" -gt 0 ]; then exit 1; fi
# A green night measured this commit: the next night's base.
if [ "${#compare_only[@]}" -eq 0 ] && [ -z "${bundle}" ]; then
  mkdir -p "$(dirname "${last_green}")" &&
    git -C "${CANZONA_ROOT}" rev-parse HEAD > "${last_green}" 2>/dev/null || true
fi
exit 0
