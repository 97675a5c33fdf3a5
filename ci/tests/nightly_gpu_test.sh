#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# ci/nightly-gpu.sh without a GPU (--compare-only): the first night without an accepted run says so,
# passes and keeps the candidate; the next night passes against the promoted run and fails
# with exit 1 on a 20 % slower row; a nightly.json joins the history folder and a row 3 % slower
# every night is reported as DRIFT, failing the night only with --fail-on-drift.
# Usage: nightly_gpu_test.sh CANZONA_BENCH FIXTURE.json
set -euo pipefail
export CANZONA_BENCH="$1"
fixture="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "${work}/runs" "${work}/refs"
cp "${fixture}" "${work}/runs/smoke.json"

"${root}/ci/nightly-gpu.sh" --help | grep -q -- "--compare-only" || fail "--help lacks --compare-only"

# First night: no accepted run for device kind cpu.
out="$("${root}/ci/nightly-gpu.sh" --compare-only "${work}/runs/smoke.json" \
  --accepted "${work}/refs" --artifacts "${work}/night1" 2>&1)" || fail "first night exited $?: ${out}"
grep -q "no accepted run for device kind 'cpu' yet" <<<"${out}" || fail "first night did not say so: ${out}"
[ -f "${work}/night1/candidate-smoke.json" ] || fail "no candidate written"
[ -f "${work}/night1/table-smoke.md" ] || fail "no table written"

# Promote the candidate, then a same run passes and a slower one fails.
"${CANZONA_BENCH}" promote "${work}/night1/candidate-smoke.json" --to "${work}/refs/cpu" \
  --name smoke > /dev/null
"${root}/ci/nightly-gpu.sh" --compare-only "${work}/runs/smoke.json" --accepted "${work}/refs" \
  --artifacts "${work}/night2" > "${work}/night2.log" 2>&1 || fail "same run exited $?: $(cat "${work}/night2.log")"
grep -q "PASS" "${work}/night2/compare-smoke.md" || fail "no PASS in the report"

/usr/bin/python3 - "${work}/runs/smoke.json" <<'PY'
import json, sys
path = sys.argv[1]
run = json.load(open(path))
key = "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1/"
for row in run["benchmarks"]:
    if row["run_name"].startswith(key) and row.get("aggregate_name") != "cv":
        row["real_time"] *= 1.2
json.dump(run, open(path, "w"))
PY
rc=0
"${root}/ci/nightly-gpu.sh" --compare-only "${work}/runs/smoke.json" --accepted "${work}/refs" \
  --artifacts "${work}/night3" > "${work}/night3.log" 2>&1 || rc=$?
[ "${rc}" -eq 1 ] || fail "a 20 % slower row exited ${rc}, not 1: $(cat "${work}/night3.log")"
grep -q "REGRESSION" "${work}/night3/summary.md" || fail "summary does not say REGRESSION"
grep -q '"SLOWER": 1' "${work}/night3/compare-smoke.json" || fail "compare JSON has no SLOWER row"

# The history: six earlier nights and tonight's nightly.json, one row 3 % slower each night.
"${root}/ci/nightly-gpu.sh" --help | grep -q -- "--fail-on-drift" || fail "--help lacks --fail-on-drift"
mkdir -p "${work}/history" "${work}/refs-empty"
/usr/bin/python3 - "${fixture}" "${work}" <<'PY'
import json, sys
fixture, work = sys.argv[1], sys.argv[2]
key = "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1/"
for night in range(7):
    run = json.load(open(fixture))
    run["context"]["date"] = "2026-11-%02dT08:00:00+00:00" % (16 + night)
    for row in run["benchmarks"]:
        if row["run_name"].startswith(key) and row.get("aggregate_name") != "cv":
            # The time and its phases alike, so the run stays valid.
            for field in [f for f in row if f in ("real_time", "cpu_time") or f.endswith("_ms")]:
                row[field] *= 1.03 ** night
    path = work + ("/runs/nightly.json" if night == 6 else "/history/2026-11-%02d-old.json" % (16 + night))
    json.dump(run, open(path, "w"))
PY
"${root}/ci/nightly-gpu.sh" --compare-only "${work}/runs/nightly.json" --accepted "${work}/refs-empty" \
  --artifacts "${work}/night4" --history "${work}/history" > "${work}/night4.log" 2>&1 ||
  fail "a drift without --fail-on-drift exited $?: $(cat "${work}/night4.log")"
[ -f "${work}/history/2026-11-22-0123456789ab.json" ] || fail "nightly.json not kept: $(ls "${work}/history")"
if [ ! -f "${work}/night4/drift.md" ] || [ ! -f "${work}/night4/drift.json" ]; then
  fail "no drift report"
fi
grep -q "1 row(s) DRIFT" "${work}/night4/summary.md" || fail "summary does not report the drift"
grep -q 'OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1`.*\*\*DRIFT\*\*' \
  "${work}/night4/summary.md" || fail "summary does not list the drifting row"
rc=0
"${root}/ci/nightly-gpu.sh" --compare-only "${work}/runs/nightly.json" --accepted "${work}/refs-empty" \
  --artifacts "${work}/night5" --history "${work}/history" --fail-on-drift > "${work}/night5.log" 2>&1 || rc=$?
[ "${rc}" -eq 1 ] || fail "a drift with --fail-on-drift exited ${rc}, not 1: $(cat "${work}/night5.log")"
[ "$(find "${work}/history" -name '*.json' | wc -l)" -eq 7 ] || fail "a rerun of a night did not replace it"
echo "1 passed, 0 failed"
