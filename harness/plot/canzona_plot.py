#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Draws the figures of `canzona-bench plot` from the data file the harness writes (names
# already parsed, medians computed): latency vs GPU count per strategy (log-log, projected
# points hollow), the phase breakdown of each configuration, per-rank load bars of plans, and
# the trend of benchmarks across nightly runs. Debian's matplotlib, run by /usr/bin/python3.
#
# usage: canzona_plot.py --data DATA.json --out DIR [--format png|svg|pdf]
# Exit codes: 0 figures written, 2 bad input (unreadable data, matplotlib missing).
import argparse
import json
import os
import re
import sys

# Every figure has this size (pixels = inches x DPI), so outputs are predictable.
FIGSIZE = (8.0, 5.0)
DPI = 100
# The strategies' colours stay the same in every figure.
STRATEGY_COLOURS = {"canzona": "C0", "sc": "C1", "layerwise": "C2", "zero1": "C3", "asc": "C4",
                    "canzona+sc": "C5"}


class BadInput(Exception):
    pass


def load_pyplot():
    try:
        import matplotlib
    except ImportError:
        raise BadInput("matplotlib is not installed for " + sys.executable +
                       ": apt-get install python3-matplotlib (Debian 12)")
    matplotlib.use("Agg")
    # Names and provenance come from run files: a '$' in them must be a dollar sign, not the
    # start of mathtext (which raises on anything it cannot parse).
    matplotlib.rcParams["text.parse_math"] = False
    import matplotlib.pyplot as plt
    return plt


def file_name(*parts):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", "_".join(str(p) for p in parts if p != ""))


def colour(strategy, index):
    return STRATEGY_COLOURS.get(strategy, "C{}".format(6 + index % 4))


def save(plt, fig, out, name, fmt, written):
    path = os.path.join(out, "{}.{}".format(name, fmt))
    fig.savefig(path, dpi=DPI, format=fmt)
    plt.close(fig)
    written.append(path)


def footer(fig, lines):
    fig.text(0.01, 0.01, "\n".join(lines), fontsize=6, va="bottom", ha="left", color="0.35")


def latency_figures(plt, data, out, fmt, written):
    groups = {}
    for s in data["series"]:
        if s["gpus"] > 0:
            groups.setdefault((s["family"], s["optimizer"], s["model"]), []).append(s)
    for (family, optimizer, model), series in groups.items():
        fig, ax = plt.subplots(figsize=FIGSIZE)
        fig.subplots_adjust(bottom=0.2)
        # One line per strategy, and per tp when the figure mixes tensor-parallel sizes (a GPU
        # count reached as dp x tp in two ways is two configurations, not one).
        tps = sorted({s["tp"] for s in series})
        lines = list(dict.fromkeys((s["strategy"], s["tp"]) for s in series))
        topologies = sorted({s["topology"] for s in series if s["projected"]})
        for i, (strategy, tp) in enumerate(lines):
            points = sorted((s for s in series if (s["strategy"], s["tp"]) == (strategy, tp)),
                            key=lambda s: s["gpus"])
            c = colour(strategy, i) if len(tps) == 1 else "C{}".format(i % 10)
            label = strategy if len(tps) == 1 else "{} (tp {})".format(strategy, tp)
            ax.plot([p["gpus"] for p in points], [p["median_ms"] for p in points], "-", color=c,
                    label=label)
            for p in points:
                ax.plot(p["gpus"], p["median_ms"], "o", color=c,
                        markerfacecolor="none" if p["projected"] else c)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("GPUs")
        ax.set_ylabel("{} median, ms".format("step" if family == "OptimizerStep" else "time"))
        ax.set_title("{} {} {}: latency vs GPU count".format(family, optimizer, model))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(title="strategy", fontsize=7)
        notes = data["provenance"][:1]
        if topologies:
            notes.append("hollow markers: PROJECTED on " + ", ".join(topologies) +
                         " (not measured); filled: measured")
        footer(fig, notes)
        save(plt, fig, out, file_name("latency", family, optimizer, model), fmt, written)


def phase_figures(plt, data, out, fmt, written):
    groups = {}
    for s in data["series"]:
        if s["phases"]:
            key = (s["family"], s["optimizer"], s["model"], s["gpus"], s["dp"], s["tp"])
            groups.setdefault(key, []).append(s)
    for (family, optimizer, model, gpus, dp, tp), series in groups.items():
        fig, ax = plt.subplots(figsize=FIGSIZE)
        fig.subplots_adjust(bottom=0.2, left=0.2)
        labels = [s["strategy"] + (" (projected)" if s["projected"] else "") for s in series]
        left = [0.0] * len(series)
        # Stacked in the order the command sends (the step's phases, then the time outside
        # them); idle, time blocked on collectives, is part of them and not stacked.
        for i, phase in enumerate(data["phase_order"]):
            widths = [s["phases"].get(phase, 0.0) for s in series]
            if not any(widths):
                continue
            ax.barh(labels, widths, left=left, color="C{}".format(i), label=phase)
            left = [a + b for a, b in zip(left, widths)]
        ax.invert_yaxis()
        ax.set_xlabel("ms (straggler rank's phases)")
        ax.set_title("{} {} {}, {} GPUs (dp {} x tp {}): phases".format(family, optimizer, model,
                                                                          gpus, dp, tp))
        ax.legend(fontsize=7, ncol=4, loc="lower right")
        footer(fig, data["provenance"][:1])
        save(plt, fig, out, file_name("phases", optimizer, model, "gpus{}".format(gpus),
                                      "dp{}".format(dp), "tp{}".format(tp)), fmt, written)


def history_figure(plt, data, out, fmt, written):
    runs = data["runs"]
    names = sorted({name for r in runs for name in r["medians"]})
    fig, ax = plt.subplots(figsize=FIGSIZE)
    fig.subplots_adjust(bottom=0.3)
    xs = list(range(len(runs)))
    for i, name in enumerate(names):
        points = [(x, r["medians"][name]) for x, r in zip(xs, runs) if name in r["medians"]]
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", color="C{}".format(i % 10),
                label=name)
    ax.set_xticks(xs)
    ax.set_xticklabels(["{}\n{}".format(r["date"][:10], r["git"]) for r in runs], fontsize=6,
                       rotation=45, ha="right")
    ax.set_ylabel("median, ms")
    ax.set_title("trend across {} runs in {}".format(len(runs), data["folder"]))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    save(plt, fig, out, "history", fmt, written)


def plan_figure(plt, data, out, fmt, written):
    plans = data["plans"]
    fig, axes = plt.subplots(len(plans), 1, figsize=FIGSIZE, squeeze=False)
    fig.subplots_adjust(hspace=0.8)
    for ax, plan in zip(axes[:, 0], plans):
        costs = plan["rank_costs"]
        mean = sum(costs) / len(costs) if costs else 0.0
        ax.bar(range(len(costs)), costs, color="C0", width=1.0 if len(costs) > 64 else 0.8)
        ax.axhline(mean, color="C3", linestyle="--", linewidth=1, label="mean")
        ax.set_title("{} {} dp {} x tp {}: imbalance {:.3f} ({} cost)".format(
            plan["model"], plan["strategy"], plan["dp"], plan["tp"], plan["imbalance"],
            plan["cost"]), fontsize=8)
        ax.set_xlabel("rank", fontsize=7)
        ax.set_ylabel("cost", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6)
    save(plt, fig, out, "rank_loads", fmt, written)


def draw(data, out, fmt):
    plt = load_pyplot()
    written = []
    kind = data.get("kind")
    if kind == "run":
        latency_figures(plt, data, out, fmt, written)
        phase_figures(plt, data, out, fmt, written)
    elif kind == "history":
        history_figure(plt, data, out, fmt, written)
    elif kind == "plans":
        plan_figure(plt, data, out, fmt, written)
    else:
        raise BadInput("unknown data kind {!r}".format(kind))
    if not written:
        raise BadInput("nothing to draw: no series with a GPU count or phase times")
    return written


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--format", default="png", choices=["png", "svg", "pdf"])
    args = parser.parse_args(argv)
    try:
        with open(args.data) as f:
            data = json.load(f)
        for path in draw(data, args.out, args.format):
            print("wrote " + path)
    except (BadInput, OSError, ValueError, KeyError) as e:
        print("error: {}".format(e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
