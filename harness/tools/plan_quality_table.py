#!/usr/bin/env python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
"""The plan-quality tables of results/tables/plan-quality.md from a planner-suite run file.

Reads the PlanQuality rows (canzona_bench_planner --benchmark_filter='^PlanQuality/') and prints
Markdown: per cost and model, a grid of dp x tp with each planner's busiest rank over the optimum
(proven, or the best known plan with the proven gap), and a summary of the worst cases.

    harness/tools/plan_quality_table.py results/runs/planner-plan-quality-cpu.json
"""
import json
import re
import sys

NAME = re.compile(
    r"^PlanQuality/(?P<opt>[^/]+)/(?P<model>[^/]+)/gpus:\d+/dp:(?P<dp>\d+)/tp:(?P<tp>\d+)"
    r"/cost:(?P<cost>[a-z]+)")


def rows(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = []
    for b in doc["benchmarks"]:
        m = NAME.match(b["name"])
        if not m or b.get("error_occurred"):
            continue
        out.append(dict(b, model=m["model"], dp=int(m["dp"]), tp=int(m["tp"]), cost=m["cost"]))
    return doc["context"], out


def cell(r, key):
    ratio = r[key]
    mark = "" if r["proven"] >= 1 else "*"
    bold = ratio > 1.02
    text = f"{ratio:.3f}{mark}"
    return f"**{text}**" if bold else text


def model_key(name):
    size = re.search(r"(\d+(?:\.\d+)?)b", name)
    return float(size.group(1)) if size else 0.0


def main(path):
    context, data = rows(path)
    models = sorted({r["model"] for r in data}, key=model_key)
    dps = sorted({r["dp"] for r in data})
    tps = sorted({r["tp"] for r in data})
    by = {(r["cost"], r["model"], r["dp"], r["tp"]): r for r in data}
    print(f"Run: `{path}`, git `{context.get('canzona_git_sha', '?')}`, "
          f"{context.get('num_cpus', '?')} CPUs, {context.get('date', '')}.\n")
    for cost in ("numel", "flops"):
        print(f"### Cost `{cost}`: Canzona's busiest rank / the optimum "
              "(reference greedy in brackets)\n")
        for model in models:
            print(f"**{model}** (dp rows × tp columns)\n")
            print("| dp \\ tp | " + " | ".join(f"tp {t}" for t in tps) + " |")
            print("|---|" + "---:|" * len(tps))
            for dp in dps:
                cells = []
                for tp in tps:
                    r = by.get((cost, model, dp, tp))
                    cells.append("–" if r is None else
                                 f"{cell(r, 'canzona_over_optimum')} "
                                 f"[{r['greedy_over_optimum']:.3f}]")
                print(f"| {dp} | " + " | ".join(cells) + " |")
            print()
    print("### Summary\n")
    print("| cost | cases | optimum proven | Canzona ≤ 1.02 × optimum | Canzona worst "
          "| reference greedy worst | largest unproven gap | optimum / simple bound, worst |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for cost in ("numel", "flops"):
        rs = [r for r in data if r["cost"] == cost]
        proven = sum(1 for r in rs if r["proven"] >= 1)
        within = sum(1 for r in rs if r["canzona_over_optimum"] <= 1.02)
        worst = max(rs, key=lambda r: r["canzona_over_optimum"])
        greedy = max(rs, key=lambda r: r["greedy_over_optimum"])
        gap = max(r["proven_gap"] for r in rs)
        bound = max(r["optimum_over_simple_bound"] for r in rs)
        print(f"| {cost} | {len(rs)} | {proven} | {within} | "
              f"{worst['canzona_over_optimum']:.3f} ({worst['model']} dp {worst['dp']} "
              f"tp {worst['tp']}) | {greedy['greedy_over_optimum']:.3f} ({greedy['model']} "
              f"dp {greedy['dp']} tp {greedy['tp']}) | {100 * gap:.1f} % | {bound:.3f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plan_quality_table.py RUN.json")
    main(sys.argv[1])
