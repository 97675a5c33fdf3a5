#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# ci/instruction-gate.sh on this build against itself: bad input is exit 2 before any work; an
# A/A comparison passes with every workload within 0.01 % (the planner exactly equal); a head
# slowed by --canzona_inject_slowdown is SLOWER on the optimizer step, not on the planner, and
# fails with exit 1. Exit 77 (skipped) without valgrind.
# Usage: instruction_gate_test.sh BUILD_DIR
set -euo pipefail
build="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
gate="${root}/ci/instruction-gate.sh"
command -v valgrind > /dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_exit() {
  local want="$1" what="$2"
  shift 2
  local rc=0
  "$@" > "${work}/out" 2> "${work}/err" || rc=$?
  [ "${rc}" -eq "${want}" ] || fail "${what}: exit ${rc}, want ${want}: $(cat "${work}/out" "${work}/err")"
}

# Bad input: exit 2 with a message naming what is wrong, before any workload runs.
expect_exit 2 "no --head" bash "${gate}" --base "${build}"
grep -q -- "--head" "${work}/err" || fail "no --head: message does not name it"
expect_exit 2 "a folder without the programs" bash "${gate}" --base "${work}" --head "${build}"
grep -q "no canzona-bench" "${work}/err" || fail "empty folder: message does not say what is missing"
expect_exit 2 "a threshold that is not a percentage" bash "${gate}" --base "${build}" \
  --head "${build}" --threshold abc
expect_exit 2 "an unknown workload" bash "${gate}" --base "${build}" --head "${build}" \
  --workloads plan,nope
grep -q "unknown workload 'nope'" "${work}/err" || fail "unknown workload: not named"
[ ! -e "${work}/report.md" ] || fail "bad input wrote a report"

# A/A: the same build on both sides.
expect_exit 0 "A/A" bash "${gate}" --base "${build}" --head "${build}" \
  --workloads plan,step-muon --out "${work}/aa"
grep -q "^PASS" "${work}/aa/report.md" || fail "A/A did not pass: $(cat "${work}/aa/report.md")"
# Every workload counted something, the planner exactly the same on both sides, the step
# within 0.01 % (its waits poll a clock).
awk -F'|' '/^\| `/ {
  gsub(/[ `]/, "", $2); b = $3 + 0; h = $4 + 0
  if (b <= 0 || h <= 0) { print "nothing counted: " $2; bad = 1 }
  if ($2 ~ /^plan/ && b != h) { print "planner counts differ: " $0; bad = 1 }
  if (h / b - 1 > 1e-4 || b / h - 1 > 1e-4) { print "beyond 0.01 %: " $0; bad = 1 }
  rows++ }
  END { if (rows != 3) { print rows " workload rows, want 3"; bad = 1 }; exit bad }' \
  "${work}/aa/report.md" || fail "A/A counts: $(cat "${work}/aa/report.md")"

# A real slowdown on the head's optimizer step: busy work for 5 % of the step's time.
expect_exit 1 "injected slowdown" bash "${gate}" --base "${build}" --head "${build}" \
  --workloads step-muon --head-arg=--canzona_inject_slowdown=0.05 --out "${work}/slow"
grep -q '`step/muon/qwen3-0.6b~d64`.*\*\*SLOWER\*\*' "${work}/slow/report.md" ||
  fail "the slowed step is not SLOWER: $(cat "${work}/slow/report.md")"
grep -q "^SLOWER: 1 of 1 workloads" "${work}/slow/report.md" ||
  fail "no verdict line: $(cat "${work}/slow/report.md")"
echo "instruction gate: bad input, A/A and an injected slowdown behave"
