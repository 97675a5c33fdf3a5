#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# How good is the regression gate on this machine? Given N runs of the same benchmarks from the
# same build (e.g. `canzona-bench run --preset smoke` five times), compares every ordered pair
# with `canzona-bench compare` — every flagged row is a false alarm — and every pair again with
# the head slowed down by an injected factor — every SLOWER row is a caught regression.
# Repeats that for a grid of thresholds and of repetitions (the first r repetitions of each
# run), so the defaults can be chosen from measured rates. Standard library only.
#
#   for i in 1 2 3 4 5; do build/bin/canzona-bench run --preset smoke --out smoke-$i.json; done
#   harness/tools/gate_benchmark.py --bench build/bin/canzona-bench smoke-*.json
import argparse
import copy
import itertools
import json
import os
import subprocess
import sys
import tempfile


def truncated(run, repetitions):
    """The run with only its first `repetitions` repetitions (aggregates dropped)."""
    out = copy.deepcopy(run)
    out["benchmarks"] = [row for row in run["benchmarks"]
                         if row.get("run_type", "iteration") == "iteration"
                         and row.get("repetition_index", 0) < repetitions]
    for row in out["benchmarks"]:
        row["repetitions"] = min(row.get("repetitions", 1), repetitions)
    return out


def slowed(run, factor):
    """The run with every time multiplied by `factor` (an injected regression)."""
    out = copy.deepcopy(run)
    for row in out["benchmarks"]:
        if "error_occurred" not in row and row.get("aggregate_name") != "cv":
            row["real_time"] *= factor
            row["cpu_time"] *= factor
    return out


def compare(bench, tmp, base, cand, threshold, utest_repetitions):
    paths = []
    for i, doc in enumerate((base, cand)):
        path = os.path.join(tmp, "side{}.json".format(i))
        with open(path, "w") as f:
            json.dump(doc, f)
        paths.append(path)
    result = subprocess.run([bench, "compare", paths[0], paths[1], "--json", "--threshold",
                             str(threshold), "--utest-repetitions", str(utest_repetitions)],
                            capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit("canzona-bench compare failed ({}): {}".format(result.returncode, result.stderr))
    return json.loads(result.stdout)["rows"]


def main():
    parser = argparse.ArgumentParser(
        description="False alarms and caught slowdowns of canzona-bench compare")
    parser.add_argument("runs", nargs="+", help="run JSON files of the same benchmarks")
    parser.add_argument("--bench", required=True, help="canzona-bench executable")
    parser.add_argument("--thresholds", default="2,3,5,7,10", help="percent, comma-separated")
    parser.add_argument("--repetitions", default="", help="repetition counts to try (default: "
                        "3, 5 and every count up to the runs' own)")
    parser.add_argument("--slowdown", type=float, default=10.0, help="injected slowdown, percent")
    parser.add_argument("--utest-repetitions", type=int, default=9)
    args = parser.parse_args()
    if len(args.runs) < 2:
        sys.exit("need at least two runs")
    runs = []
    for path in args.runs:
        with open(path) as f:
            runs.append(json.load(f))
    own = min(max(r.get("repetitions", 1) for r in run["benchmarks"]) for run in runs)
    reps = ([int(r) for r in args.repetitions.split(",")] if args.repetitions
            else sorted({r for r in (3, 5, own) if r <= own}))
    thresholds = [float(t) for t in args.thresholds.split(",")]
    factor = 1.0 + args.slowdown / 100.0
    pairs = list(itertools.permutations(range(len(runs)), 2))
    print("# Gate benchmark: {} runs, {} ordered pairs, injected slowdown {:g} %\n".format(
        len(runs), len(pairs), args.slowdown))
    print("| repetitions | threshold | rows compared | false alarms (SLOWER/FASTER/MISSING) "
          "| NOISY | caught {:g} % slowdowns | missed |".format(args.slowdown))
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for r in reps:
            cut = [truncated(run, r) for run in runs]
            for threshold in thresholds:
                compared = alarms = noisy = caught = missed = 0
                for i, j in pairs:
                    for row in compare(args.bench, tmp, cut[i], cut[j], threshold,
                                       args.utest_repetitions):
                        compared += 1
                        alarms += row["verdict"] in ("SLOWER", "FASTER", "MISSING")
                        noisy += row["verdict"] == "NOISY"
                    for row in compare(args.bench, tmp, cut[i], slowed(cut[j], factor), threshold,
                                       args.utest_repetitions):
                        caught += row["verdict"] == "SLOWER"
                        missed += row["verdict"] != "SLOWER"
                print("| {} | {:g} % | {} | {} ({:.1f} %) | {} | {} ({:.1f} %) | {} |".format(
                    r, threshold, compared, alarms, 100.0 * alarms / compared, noisy, caught,
                    100.0 * caught / max(1, caught + missed), missed))


if __name__ == "__main__":
    main()
