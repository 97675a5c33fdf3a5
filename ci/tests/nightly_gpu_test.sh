#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# ci/nightly-gpu.sh without a GPU (--compare-only): the first night without an accepted run says so,
# passes and keeps the candidate; the next night passes against the promoted run and fails
# with exit 1 on a 20 % slower row. Usage: nightly_gpu_test.sh CANZONA_BENCH FIXTURE.json
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
echo "1 passed, 0 failed"
