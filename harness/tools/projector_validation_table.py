#!/usr/bin/env python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
"""The projector-validation table of results/projections/ from optimizer-step run files.

Each measured OptimizerStep row of a cpu-backend run carries the projector's answer for exactly
that job: `projector_ms` (compute measured per shape on the wall clock, against the row's time)
and `projector_cpu_ms` (the busiest rank's compute on the thread CPU clock, against `cpu_ms`).
Given one or more runs per machine condition, prints Markdown: per row, condition and clock
the median of each side over a run's repetitions and the error; with several runs, the median
over the runs of each (the error: the median run's) and the range of the runs' errors, since
on a shared machine a row's error moves by several points from one run to the next. Then the
worst absolute error per condition and clock, with the load average each run recorded as it
started.

    harness/tools/projector_validation_table.py quiet=RUN.json[,RUN.json...] loaded=RUN.json...
"""
import json
import statistics
import sys

COLUMNS = (("wall", "real_time", "projector_ms", "projector_error"),
           ("thread CPU", "cpu_ms", "projector_cpu_ms", "projector_cpu_error"))


def measured_rows(path):
    """(context, {row name: [repetition rows]}) of a run's measured OptimizerStep rows."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = {}
    for b in doc["benchmarks"]:
        if (b.get("run_type") != "iteration" or b.get("error_occurred")
                or not b["name"].startswith("OptimizerStep/") or b.get("projected", 0)):
            continue
        if "projector_ms" not in b:
            continue
        rows.setdefault(b["name"].removesuffix("/manual_time"), []).append(b)
    if not rows:
        sys.exit(f"{path}: no measured OptimizerStep rows with projector_ms "
                 "(run the optimizer-step suite with --canzona_projector=1)")
    return doc["context"], rows


def summary(reps, measured_key, projected_key):
    """(median measured ms, projected ms, error) over a row's repetitions."""
    measured = statistics.median(r[measured_key] for r in reps)
    projected = statistics.median(r[projected_key] for r in reps)
    return measured, projected, projected / measured - 1


def cell(summaries):
    """A table cell from one (measured, projected, error) per run; its error for the summary."""
    errors = sorted(e for *_, e in summaries)
    measured = statistics.median(m for m, _, _ in summaries)
    projected = statistics.median(p for _, p, _ in summaries)
    error = statistics.median(errors)
    text = f"{measured:.1f} / {projected:.1f}, {100 * error:+.1f} %"
    if len(summaries) > 1:
        text += f" [{100 * errors[0]:+.1f}, {100 * errors[-1]:+.1f}]"
    return text, error, max(abs(errors[0]), abs(errors[-1]))


def load_text(context):
    load = context.get("load_avg") or []
    return "/".join(f"{x:.1f}" for x in load) if load else "?"


def main(args):
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    conditions = []  # (label, [(path, context, rows)])
    for arg in args:
        label, paths = arg.split("=", 1)
        conditions.append((label, [(path, *measured_rows(path)) for path in paths.split(",")]))
    for label, runs in conditions:
        for path, context, _ in runs:
            print(f"- **{label}**: `{path}`, git `{context.get('canzona_git_sha', '?')}`, "
                  f"{context.get('num_cpus', '?')} CPUs, {context.get('ranks', '?')} ranks, "
                  f"load average (1/5/15 min) {load_text(context)} as the suite started, "
                  f"{context.get('date', '')}")
    print()
    names = sorted({n for _, runs in conditions for *_, rows in runs for n in rows})
    several = any(len(runs) > 1 for _, runs in conditions)
    head = "| row | " + " | ".join(
        f"{label}: {clock} measured / projected ms, error" + (" [range]" if len(runs) > 1 else "")
        for label, runs in conditions for clock, *_ in COLUMNS) + " |"
    print(head)
    print("|---|" + "---:|" * (len(conditions) * len(COLUMNS)))
    worst = {}  # (label, clock) -> (worst median error, worst single run's error)
    for name in names:
        cells = []
        for label, runs in conditions:
            for clock, measured_key, projected_key, _ in COLUMNS:
                summaries = [summary(rows[name], measured_key, projected_key)
                             for *_, rows in runs
                             if rows.get(name) and projected_key in rows[name][0]]
                if len(summaries) != len(runs):
                    cells.append("-")
                    continue
                text, error, widest = cell(summaries)
                old_median, old_widest = worst.get((label, clock), (0.0, 0.0))
                worst[(label, clock)] = (max(old_median, abs(error)), max(old_widest, widest))
                cells.append(text)
        short = name.removeprefix("OptimizerStep/")
        print(f"| `{short}` | " + " | ".join(cells) + " |")
    print()
    for (label, clock), (error, widest) in sorted(worst.items()):
        runs = len(dict(conditions)[label])
        across = f" (of the median over {runs} runs; single runs up to {100 * widest:.1f} %)" \
            if runs > 1 else ""
        print(f"- {label}, {clock} clock: worst |error| {100 * error:.1f} %{across} over "
              f"{len(names)} rows")
    if several:
        print()
        print("Error in brackets: the lowest and highest of the runs.")


if __name__ == "__main__":
    main(sys.argv[1:])
