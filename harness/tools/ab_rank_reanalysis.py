#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Would a rank statistic have judged the stored A/B gate experiments better than the t test?
# Re-decides each experiment's rows from their stored pairs (the deciding batches, as many pairs
# as ab took) with three one-sided tests of "ln(head / base) is above ln(1 + threshold)": ab's own
# t test (its stored p-value), the Wilcoxon signed-rank test and the sign test (both exact), each
# with Holm over the experiment's rows at ab's family-wise error. Counts the rows each calls
# SLOWER per injected slowdown (0 = A/A: false alarms). A re-analysis, not the gate: no
# confirmation batch, and the pairs ab added to a row depended on the t test's answers.
#   ab_rank_reanalysis.py [--rows REGEX] EXPERIMENT.json ...
import argparse
import json
import math
import re
import sys
from collections import defaultdict

from ab_gate_benchmark import slowdown_of


def holm_rejected(p_values, alpha):
    """Which hypotheses Holm's step-down procedure rejects at family-wise error alpha."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for k, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - k):
            break
        rejected[i] = True
    return rejected


def signed_rank_p_above(differences):
    """Exact one-sided p-value of the Wilcoxon signed-rank test: P(W+ >= observed) under a
    distribution symmetric about 0 (zeros dropped, ties given their mean rank, the null
    distribution counted over sign patterns of those ranks, doubled to stay integral)."""
    d = [x for x in differences if x != 0]
    if not d:
        return 1.0
    magnitudes = sorted(abs(x) for x in d)
    ranks2 = {}  # twice the mean rank of each magnitude
    i = 0
    while i < len(magnitudes):
        j = i
        while j < len(magnitudes) and magnitudes[j] == magnitudes[i]:
            j += 1
        ranks2[magnitudes[i]] = i + 1 + j  # 2 * (i + 1 + j) / 2
        i = j
    observed = sum(ranks2[abs(x)] for x in d if x > 0)
    counts = {0: 1}  # sign patterns per doubled W+
    for x in d:
        r = ranks2[abs(x)]
        nxt = defaultdict(int)
        for w, c in counts.items():
            nxt[w] += c
            nxt[w + r] += c
        counts = nxt
    return sum(c for w, c in counts.items() if w >= observed) / 2 ** len(d)


def sign_p_above(differences):
    """Exact one-sided sign test: P(X >= positives), X ~ Binomial(non-zero count, 1/2)."""
    d = [x for x in differences if x != 0]
    positives = sum(1 for x in d if x > 0)
    return sum(math.comb(len(d), k) for k in range(positives, len(d) + 1)) / 2 ** len(d)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", default="", help="only rows whose name matches this regex")
    parser.add_argument("experiments", nargs="+")
    args = parser.parse_args()
    rows_re = re.compile(args.rows)
    slower = defaultdict(lambda: defaultdict(int))  # slowdown -> statistic -> rows SLOWER
    judged = defaultdict(int)
    nights = defaultdict(int)
    print("| experiment | slowdown | rows | pairs per row | SLOWER: t (ab) | Wilcoxon | sign |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in args.experiments:
        with open(path) as f:
            ab = json.load(f)
        settings = ab["settings"]
        slowdown = slowdown_of(ab)
        bound = math.log1p(settings["threshold"])
        p = defaultdict(list)
        pairs = []
        for row in ab["rows"]:
            if not rows_re.search(row["name"]) or not row.get("pairs"):
                continue
            d = [math.log(x["head"] / x["base"]) - bound for x in row["pairs"]]
            pairs.append(len(d))
            p["t (ab)"].append(row["statistic"]["p_slower"])
            p["Wilcoxon"].append(signed_rank_p_above(d))
            p["sign"].append(sign_p_above(d))
        if not pairs:
            continue
        counts = {name: sum(holm_rejected(values, settings["alpha"])) for name, values in p.items()}
        for name, count in counts.items():
            slower[slowdown][name] += count
        judged[slowdown] += len(pairs)
        nights[slowdown] += 1
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        print(f"| {name} | {slowdown * 100:g} % | {len(pairs)} | {min(pairs)}-{max(pairs)} | "
              f"{counts['t (ab)']} | {counts['Wilcoxon']} | {counts['sign']} |")
    print()
    print("| slowdown | experiments | rows | SLOWER: t (ab) | Wilcoxon | sign |")
    print("|---:|---:|---:|---:|---:|---:|")
    for slowdown in sorted(judged):
        s = slower[slowdown]
        print(f"| {slowdown * 100:g} % | {nights[slowdown]} | {judged[slowdown]} | {s['t (ab)']} | "
              f"{s['Wilcoxon']} | {s['sign']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
