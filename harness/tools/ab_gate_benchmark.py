#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Tabulates experiments of the A/B gate (harness/tools/gate_experiments.sh): for each injected
# slowdown (0 = A/A), how many experiments ("nights") failed, how many rows were called SLOWER
# (false alarms in A/A, detections otherwise) with a 95 % upper bound where none were, the pair
# noise of each row in the judged metric and in the time column, the pairs it took and the wall
# time of one gate. The verdicts are ab's own (read from its JSON), never re-decided here.
#   ab_gate_benchmark.py [--rows REGEX] EXPERIMENT.json ...
import argparse
import json
import math
import re
import statistics
import sys
from collections import defaultdict


def upper_bound(successes, n, confidence=0.95):
    """One-sided Clopper-Pearson upper bound of a binomial proportion (3/n rule's exact form)."""
    if n == 0:
        return float("nan")
    if successes >= n:
        return 1.0
    alpha = 1 - confidence

    def tail(p):  # P(X <= successes | p)
        return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(successes + 1))

    low, high = successes / n, 1.0
    for _ in range(100):
        mid = (low + high) / 2
        if tail(mid) > alpha:
            low = mid
        else:
            high = mid
    return high


def slowdown_of(document):
    text = document["head"]["context"].get("canzona_inject_slowdown", "0")
    return float(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", default="", help="only rows whose name matches (e.g. OptimizerStep)")
    parser.add_argument("experiments", nargs="+")
    args = parser.parse_args()
    pattern = re.compile(args.rows)

    by_size = defaultdict(list)
    for path in args.experiments:
        with open(path) as f:
            document = json.load(f)
        by_size[slowdown_of(document)].append(document)

    print("| injected slowdown | experiments | failed (exit 1) | rows judged | SLOWER | FASTER | SAME | NOISY / UNCONFIRMED | mean pairs per row | gate wall time |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    noise = defaultdict(lambda: {"metric": [], "time": []})
    for size in sorted(by_size):
        documents = by_size[size]
        failed = sum(1 for d in documents if d["exit_code"] != 0)
        counts = defaultdict(int)
        pairs = []
        for d in documents:
            for row in d["rows"]:
                if not pattern.search(row["name"]):
                    continue
                counts[row["verdict"]] += 1
                pairs.append(row["statistic"]["pairs"] + row["statistic"]["voided"])
                if size == 0:
                    for p in row["pairs"]:
                        if "voided" in p:
                            continue
                        noise[(row["name"], row["metric"])]["metric"].append(math.log(p["head"] / p["base"]))
                        if p.get("base_time", 0) > 0 and p.get("head_time", 0) > 0:
                            noise[(row["name"], row["metric"])]["time"].append(
                                math.log(p["head_time"] / p["base_time"]))
        judged = sum(counts.values())
        n = len(documents)

        def share(k, total):
            bound = f", ≤ {upper_bound(k, total) * 100:.1f} %" if total else ""
            return f"{k} ({k / total * 100:.1f} %{bound})" if total else "-"

        walls = [d["wall_s"] for d in documents]
        print(f"| {size * 100:.0f} % | {n} | {share(failed, n)} | {judged} | {share(counts['SLOWER'], judged)} | "
              f"{counts['FASTER']} | {counts['SAME']} | {counts['NOISY'] + counts['UNCONFIRMED']} | "
              f"{statistics.mean(pairs):.1f} | {statistics.median(walls) / 60:.1f} min |")

    if noise:
        print()
        print("A/A pair noise: standard deviation over pairs of ln(head / base), in percent.")
        print()
        print("| row | metric | pairs | sd (metric) | sd (time column) |")
        print("|---|---|---:|---:|---:|")
        for (name, metric), values in sorted(noise.items()):
            def sd(xs):
                return f"{statistics.stdev(xs) * 100:.1f}" if len(xs) > 1 else "-"

            print(f"| `{name}` | {metric} | {len(values['metric'])} | {sd(values['metric'])} | {sd(values['time'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
