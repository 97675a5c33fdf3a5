#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Runs the A/B gate many times to measure its false alarms and its detection: each experiment is
# one `canzona-bench ab` of BASE against HEAD, the head slowed on purpose by FRACTION
# (--canzona_inject_slowdown; 0 = an A/A experiment). Every experiment's JSON lands in OUT;
# harness/tools/ab_gate_benchmark.py tabulates them.
#   harness/tools/gate_experiments.sh BASE HEAD OUT "0 0.1 0 0.2 ..." [ab flags...]
set -euo pipefail
if [[ $# -lt 4 ]]; then
  echo "usage: $0 BASE HEAD OUT 'FRACTION ...' [ab flags...]" >&2
  exit 2
fi
base=$1 head=$2 out=$3 fractions=$4
shift 4
mkdir -p "$out"
i=$(ls "$out" | grep -c '^experiment-.*\.json$' || true)
for fraction in $fractions; do
  i=$((i + 1))
  name=$(printf 'experiment-%03d-slowdown-%s' "$i" "$fraction")
  args=()
  [[ $fraction != 0 ]] && args+=("--head-arg=--canzona_inject_slowdown=$fraction")
  set +e
  "$base" ab --base "$base" --head "$head" "${args[@]}" "$@" --out "$out/$name.json" \
    > "$out/$name.md" 2> "$out/$name.log"
  code=$?
  set -e
  echo "$name: exit $code"
  [[ $code -le 1 ]] || { cat "$out/$name.log" >&2; exit "$code"; }
done
