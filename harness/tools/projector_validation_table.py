#!/usr/bin/env python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
"""The projector-validation table of results/projections/ from optimizer-step run files.

Each measured OptimizerStep row of a cpu-backend run carries the projector's answer for exactly
that job: `projector_ms` (compute measured per shape on the wall clock, against the row's time)
and `projector_cpu_ms` (the busiest rank's compute on the thread CPU clock, against `cpu_ms`).
Given one run per machine condition, prints Markdown: per row and condition the median of each
side over the repetitions and the error, then the worst absolute error per condition and
clock, with the load average each run recorded as it started.

    harness/tools/projector_validation_table.py quiet=RUN.json loaded=RUN.json
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


def load_text(context):
    load = context.get("load_avg") or []
    return "/".join(f"{x:.1f}" for x in load) if load else "?"


def main(args):
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    runs = []
    for arg in args:
        label, path = arg.split("=", 1)
        context, rows = measured_rows(path)
        runs.append((label, path, context, rows))
    for label, path, context, _ in runs:
        print(f"- **{label}**: `{path}`, git `{context.get('canzona_git_sha', '?')}`, "
              f"{context.get('num_cpus', '?')} CPUs, {context.get('ranks', '?')} ranks, load "
              f"average (1/5/15 min) {load_text(context)} as the suite started, "
              f"{context.get('date', '')}")
    print()
    names = sorted({n for *_, rows in runs for n in rows})
    head = "| row | " + " | ".join(
        f"{label}: {clock} measured / projected ms, error"
        for label, *_ in runs for clock, *_ in COLUMNS) + " |"
    print(head)
    print("|---|" + "---:|" * (len(runs) * len(COLUMNS)))
    worst = {}
    for name in names:
        cells = []
        for label, _, _, rows in runs:
            for clock, measured_key, projected_key, _ in COLUMNS:
                reps = rows.get(name)
                if not reps or projected_key not in reps[0]:
                    cells.append("-")
                    continue
                measured, projected, error = summary(reps, measured_key, projected_key)
                key = (label, clock)
                worst[key] = max(worst.get(key, 0.0), abs(error))
                cells.append(f"{measured:.1f} / {projected:.1f}, {100 * error:+.1f} %")
        short = name.removeprefix("OptimizerStep/")
        print(f"| `{short}` | " + " | ".join(cells) + " |")
    print()
    for (label, clock), error in sorted(worst.items()):
        print(f"- {label}, {clock} clock: worst |error| {100 * error:.1f} % over "
              f"{len(names)} rows")


if __name__ == "__main__":
    main(sys.argv[1:])
