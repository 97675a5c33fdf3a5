#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Draws the figures of `canzona-bench plot` from the data file the harness writes (names
# already parsed, medians computed): latency vs GPU count per strategy (log-log, projected
# points hollow; grouped bars when a run has a single GPU count), the phase breakdown of each
# configuration, per-rank load bars of plans, and the trend of benchmarks across nightly runs.
# Debian's matplotlib, run by /usr/bin/python3.
#
# Every drawing function returns its matplotlib Figure (no pyplot state), so the tests inspect
# the very objects that are saved.
#
# usage: canzona_plot.py --data DATA.json --out DIR [--format png|svg|pdf]
# Prints "figure I/N: NAME" as each figure is written.
# Exit codes: 0 figures written, 2 bad input (unreadable data, matplotlib missing).
import argparse
import json
import os
import re
import sys
import textwrap

# Every figure has this size (pixels = inches x DPI), so outputs are predictable.
FIGSIZE = (8.0, 5.0)
DPI = 100
# Okabe and Ito's colour-blind-safe colours (their yellow left out: too pale on white), then
# Paul Tol's muted ones for figures with more series than that.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
           "#882255", "#999933", "#332288", "#44AA99", "#AA4499"]
# As many markers as colours: a figure of up to 12 series repeats neither.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p"]
# A strategy keeps its colour and marker in every figure where it is one series.
STRATEGIES = ["canzona", "sc", "layerwise", "zero1", "asc", "canzona+sc"]
# Legend names of the E2E iteration's phases (the harness sends the keys).
PHASE_LABELS = {"tp_comm": "TP all-reduce", "dp_sync_exposed": "DP sync, exposed",
                "optimizer": "optimizer step", "other": "other"}
PROJECTED_HATCH = "///"
# Footer lines are wrapped at this many characters (6-point text across 8 inches).
FOOTER_WIDTH = 160
# Phase panels (configurations) in one figure; more go on further pages.
PHASE_PANELS = 8
# Runs of more than this many figures are drawn by several processes.
PARALLEL_FROM = 12


class BadInput(Exception):
    pass


def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise BadInput("matplotlib is not installed for " + sys.executable +
                       ": apt-get install python3-matplotlib (Debian 12)")
    matplotlib.use("Agg")
    # Names and provenance come from run files: a '$' in them must be a dollar sign, not the
    # start of mathtext (which raises on anything it cannot parse).
    matplotlib.rcParams["text.parse_math"] = False
    return matplotlib


def new_figure(**subplots):
    """A figure outside pyplot (nothing to close, nothing global) whose layout engine keeps
    every title, label, legend and footer inside the canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(h_pad=0.04, w_pad=0.04)
    axes = fig.subplots(**subplots)
    return fig, axes


def finish_layout(fig):
    """Runs the constrained layout once and fixes its result: savefig would otherwise lay the
    figure out again in an extra draw (a third of the drawing time of a large run)."""
    fig.get_layout_engine().execute(fig)
    fig.set_layout_engine(None)
    return fig


def file_name(*parts):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", "_".join(str(p) for p in parts if p != ""))


def style_indices(keys, strategy_of):
    """Distinct palette/marker slots for the keys of one figure, in order: a strategy's own
    slot where the figure has it once, the lowest free slot otherwise."""
    slots, taken, seen = {}, set(), set()
    for key in keys:
        strategy = strategy_of(key)
        if strategy in STRATEGIES and strategy not in seen:
            slots[key] = STRATEGIES.index(strategy)
            taken.add(slots[key])
        seen.add(strategy)
    free = (i for i in range(10 ** 6) if i not in taken)
    for key in keys:
        if key not in slots:
            slots[key] = next(free)
    return slots


def style(slot):
    """Colour and marker of a slot; past the palette the markers shift by one per round, so
    (colour, marker) pairs stay distinct."""
    n = len(PALETTE)
    return PALETTE[slot % n], MARKERS[(slot + slot // n) % len(MARKERS)]


def legend_right(ax, **kwargs):
    """A legend beside the axes, never over the data."""
    kwargs.setdefault("fontsize", 7)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


def footer(fig, lines):
    wrapped = [part for line in lines
               for part in textwrap.wrap(line, FOOTER_WIDTH, break_long_words=True) or [""]]
    # supxlabel is part of the constrained layout: the axes make room for it.
    fig.supxlabel("\n".join(wrapped), x=0.005, ha="left", fontsize=6, color="0.35",
                  linespacing=1.3)


def titles(fig, ax, title, subtitle):
    fig.suptitle(title, fontsize=11)
    if subtitle:
        ax.set_title(subtitle, fontsize=8, color="#8B0000" if "projected" in subtitle else "0.2")


def topologies(series):
    return sorted({s["topology"] or "an unnamed topology" for s in series if s["projected"]})


def projection_subtitle(series, mixed_marking):
    topo = ", ".join(topologies(series))
    if not topo:
        return "measured"
    if all(s["projected"] for s in series):
        return "projected onto {} (cost model, not measured)".format(topo)
    return "{}: projected onto {} (not measured); the rest measured".format(mixed_marking, topo)


def footer_lines(data, series, marking):
    """The run's provenance; for figures of projections only, what was computed where, so the
    host's backend and rank count do not read as the figure's machine."""
    src = data.get("source", {})
    provenance = data.get("provenance", [])
    if series and all(s["projected"] for s in series):
        return ["Projection onto {} computed by canzona-bench git {} ({} build) on host {}, {}; "
                "run file {} (not a measurement on that host)".format(
                    ", ".join(topologies(series)), src.get("git", "?"), src.get("build", "?"),
                    src.get("host", "?"), src.get("date", "?"), src.get("file", "?"))]
    if any(s["projected"] for s in series):
        return provenance[:1] + ["{}: projected onto {}, computed on host {} (not measured)"
                                 .format(marking, ", ".join(topologies(series)),
                                         src.get("host", "?"))]
    return provenance[:1]


def log2_gpu_axis(ax, gpus):
    """log2 spacing, ticks only at the GPU counts present, written as plain numbers."""
    from matplotlib.ticker import FixedLocator, FixedFormatter, NullLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(gpus))
    ax.xaxis.set_major_formatter(FixedFormatter([str(g) for g in gpus]))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(gpus) > 1:
        ax.set_xlim(gpus[0] / 1.25, gpus[-1] * 1.25)


def log_ms_axis(ax, values):
    """log10 spacing with ticks written as plain numbers (mathtext is off, so matplotlib's
    default 10^k labels would print as source): 1, 2, 5 x 10^k, or every digit when the data
    span less than two decades, so a narrow range still has several labels."""
    import math
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    positive = [v for v in values if v > 0]
    decades = math.log10(max(positive) / min(positive)) if positive else 0.0
    subs = (1.0, 2.0, 5.0) if decades > 2 else tuple(float(d) for d in range(1, 10))
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "{:g}".format(v)))
    ax.yaxis.set_minor_locator(NullLocator())


def time_label(family):
    return {"OptimizerStep": "optimizer step", "E2EIteration": "training iteration",
            "Planner": "planning time"}.get(family, "time")


def latency_series(series):
    """One series per strategy, and per tp when the group mixes tensor-parallel sizes (a GPU
    count reached as dp x tp in two ways is two configurations, not one)."""
    tps = {s["tp"] for s in series}
    keys = list(dict.fromkeys((s["strategy"], s["tp"]) for s in series))
    slots = style_indices(keys, lambda key: key[0])
    lines = []
    for key in keys:
        points = sorted((s for s in series if (s["strategy"], s["tp"]) == key),
                        key=lambda s: s["gpus"])
        label = key[0] if len(tps) == 1 else "{} (tp {})".format(*key)
        lines.append((label, style(slots[key]), points))
    return lines


# The optimizer-step metrics, the paper's first: (series key, panel title).
STEP_METRICS = [("optimizer_ms", "opt. step, DP sync hidden (the paper's metric)"),
                ("median_ms", "full step, DP sync included")]


def latency_metrics(family, series):
    """The optimizer step with the DP sync hidden beside the full step where every series has
    it (projected rows, GPU rows); the measured time alone otherwise."""
    if family == "OptimizerStep" and all(s.get("optimizer_ms") is not None for s in series):
        return STEP_METRICS
    return [("median_ms", None)]


def latency_figure(data, family, optimizer, model, series):
    lines = latency_series(series)
    gpus = sorted({s["gpus"] for s in series})
    metrics = latency_metrics(family, series)
    fig, axes = new_figure(ncols=len(metrics), squeeze=False)
    axes = list(axes[0])
    marking = "hatched bars" if len(gpus) == 1 else "hollow markers"
    for ax, (key, panel) in zip(axes, metrics):
        if len(gpus) == 1:
            latency_bars(ax, lines, gpus[0], key)
        else:
            latency_lines(ax, lines, gpus, key)
        if panel:
            ax.set_title(panel, fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    if len(gpus) == 1:
        title = "{} {} {}: {} median, {} GPUs".format(family, optimizer, model,
                                                      time_label(family), gpus[0])
    else:
        title = "{} {} {}: {} vs GPU count".format(family, optimizer, model, time_label(family))
    for ax in axes[:-1]:  # one legend, beside the last panel
        if ax.get_legend():
            ax.get_legend().remove()
    legend_right(axes[-1], title="strategy", title_fontsize=7)
    subtitle = projection_subtitle(series, marking)
    if len(axes) == 1:
        titles(fig, axes[0], title, subtitle)
    else:
        # The panels carry their metric; what the points are goes under the figure's title.
        fig.suptitle(title + ("\n" + subtitle if subtitle else ""), fontsize=10)
    footer(fig, footer_lines(data, series, marking))
    return finish_layout(fig)


def latency_lines(ax, lines, gpus, key="median_ms"):
    for label, (c, m), points in lines:
        xs = [p["gpus"] for p in points]
        ys = [p[key] for p in points]
        measured = [i for i, p in enumerate(points) if not p["projected"]]
        projected = [i for i, p in enumerate(points) if p["projected"]]
        # Filled markers are measurements, hollow ones projections; the line joins both.
        ax.plot(xs, ys, "-", marker=m, color=c, markerfacecolor=c if measured else "white",
                markevery=measured or projected, label=label, markersize=6)
        if measured and projected:
            ax.plot([xs[i] for i in projected], [ys[i] for i in projected], linestyle="none",
                    marker=m, color=c, markerfacecolor="white", markersize=6)
    log2_gpu_axis(ax, gpus)
    log_ms_axis(ax, [p[key] for _, _, points in lines for p in points])
    ax.set_xlabel("GPUs (dp x tp)")
    ax.set_ylabel("median, ms")


def latency_bars(ax, lines, gpu_count, key="median_ms"):
    """One GPU count: a group of bars, one per series, each topped by its series' marker."""
    handles = []
    # Markers sit just above their bars, on the white background whatever the bar's colour.
    lift = 0.03 * max(points[0][key] for _, _, points in lines)
    for i, (label, (c, m), points) in enumerate(lines):
        p = points[0]
        bars = ax.bar(i, p[key], width=0.8, color="white" if p["projected"] else c,
                      edgecolor=c, hatch=PROJECTED_HATCH if p["projected"] else None,
                      linewidth=1.2, label=label)
        marker, = ax.plot(i, p[key] + lift, linestyle="none", marker=m, color=c,
                          markerfacecolor="white" if p["projected"] else c, markersize=6)
        handles.append(((bars.patches[0], marker), label))
    ax.set_xticks(range(len(lines)))
    ax.set_xticklabels([label for label, _, _ in lines], rotation=30, ha="right", fontsize=7)
    ax.set_xlim(-0.6, len(lines) - 0.4)
    ax.set_ylim(0, None)
    ax.set_xlabel("strategy, {} GPUs".format(gpu_count))
    ax.set_ylabel("median, ms")
    # The legend shows bar and marker together, as drawn.
    ax.legend([h for h, _ in handles], [label for _, label in handles])


def phase_labels(series):
    mixed = len({s["projected"] for s in series}) > 1
    return [s["strategy"] + (" (projected)" if s["projected"] and mixed else "")
            for s in series]


def row_bars(ax, ys, lefts, widths, label, **style):
    """Horizontal bars of height 0.7 as one collection: a figure of hundreds of bars draws
    several times faster than with one patch per bar (ax.barh)."""
    from matplotlib.collections import PolyCollection
    boxes = [[(x, y - 0.35), (x + w, y - 0.35), (x + w, y + 0.35), (x, y + 0.35)]
             for y, x, w in zip(ys, lefts, widths)]
    bars = PolyCollection(boxes, label=label, **style)
    ax.add_collection(bars, autolim=False)
    return bars


def phase_panel(ax, family, order, series, mark_projected):
    """One configuration's stacked phase bars, one row per strategy; the phases drawn."""
    ys = list(range(len(series)))
    left = [0.0] * len(series)
    drawn = []
    # Stacked in the order the command sends: the phases in execution order, then the time
    # outside them.
    for i, phase in enumerate(order):
        widths = [s["phases"].get(phase, 0.0) for s in series]
        if not any(widths):
            continue
        row_bars(ax, ys, left, widths, phase, facecolors=PALETTE[i % len(PALETTE)],
                 edgecolors="white", linewidths=0.5)
        left = [a + b for a, b in zip(left, widths)]
        drawn.append(phase)
    projected = [y for y, s in zip(ys, series) if s["projected"]]
    if projected and mark_projected:
        # Hatched over the stack: these rows are projections, other rows measurements.
        row_bars(ax, projected, [0.0] * len(projected), [left[y] for y in projected],
                 "_projected", facecolors="none", edgecolors="0.3", linewidths=0,
                 hatch=PROJECTED_HATCH)
    if family == "E2EIteration":
        # The stack adds up to the iteration: the harness sends `other` as the rest of it.
        ax.plot([s["median_ms"] for s in series], ys, linestyle="none", marker="|",
                markersize=12, markeredgewidth=2, color="black", label="iteration, median")
    ax.set_yticks(ys)
    ax.set_yticklabels(phase_labels(series))
    ax.set_ylim(len(series) - 0.5, -0.5)
    ax.set_xlim(0, 1.03 * max(left + [s["median_ms"] for s in series]))
    ax.grid(True, axis="x", alpha=0.3)
    return drawn


def phase_legend(ax, family, order, drawn):
    """Every phase drawn in any panel, in stacking order, beside the first row of panels."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=PALETTE[i % len(PALETTE)], edgecolor="white",
                     label=PHASE_LABELS.get(phase, phase.replace("_", " ")))
               for i, phase in enumerate(order) if phase in drawn]
    if family == "E2EIteration":
        handles.append(Line2D([], [], linestyle="none", marker="|", markersize=12,
                              markeredgewidth=2, color="black", label="iteration, median"))
    legend_right(ax, handles=handles, title="phase", title_fontsize=7)


def panel_grid(count):
    """Rows and columns of small multiples: up to four panels a row."""
    columns = min(count, 4)
    return -(-count // columns), columns


def phase_figure(data, family, optimizer, model, configurations):
    """The phases of each configuration (GPU count, dp x tp) of one family, optimizer and
    model, one panel per configuration: one figure per model instead of one per
    configuration, which a grid of hundreds of configurations makes slow to draw and to
    read."""
    from matplotlib.ticker import MaxNLocator
    order = data["phase_order"].get(family, [])
    rows, columns = panel_grid(len(configurations))
    labels = {tuple(phase_labels(series)) for _, series in configurations}
    fig, axes = new_figure(nrows=rows, ncols=columns, squeeze=False, sharey=len(labels) == 1)
    unit = "ms per {}".format("iteration" if family == "E2EIteration" else "step")
    every = [s for _, series in configurations for s in series]
    mixed = len({s["projected"] for s in every}) > 1
    drawn = set()
    for ax, ((gpus, dp, tp), series) in zip(axes.flat, configurations):
        drawn.update(phase_panel(ax, family, order, series, mixed))
        small = len(configurations) > 1
        projected = mixed and all(s["projected"] for s in series)
        ax.set_title("{} GPUs (dp {} x tp {}){}".format(gpus, dp, tp, ", projected" if projected
                                                         else ""), fontsize=8 if small else 9)
        ax.set_xlabel(unit if not small else "ms", fontsize=7 if small else 10)
        ax.tick_params(labelsize=6 if small else 8)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4 if columns > 2 else 6))
    for ax in axes.flat[len(configurations):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("strategy", fontsize=8)
    phase_legend(axes[0, -1], family, order, drawn)
    subtitle = projection_subtitle(every, "hatched rows")
    fig.suptitle("{} {} {}: phases of the straggler rank, {}\n{}".format(
        family, optimizer, model, unit, subtitle), fontsize=10)
    footer(fig, footer_lines(data, every, "hatched rows"))
    return finish_layout(fig)


def common_prefix(names):
    """The '/'-separated leading parts every name shares (shown once in the title)."""
    parts = [n.split("/") for n in names]
    prefix = []
    for column in zip(*parts):
        if len(set(column)) != 1 or len(prefix) + 1 >= min(len(p) for p in parts):
            break
        prefix.append(column[0])
    return "/".join(prefix)


def run_tick(run):
    """Date and time (two runs of a day stay apart) and the commit."""
    date = run["date"].replace("T", " ")[:16] or run["file"]
    return "{}\n{}".format(date, run["git"])


def history_figure(data):
    runs = data["runs"]
    names = sorted({name for r in runs for name in r["rows"]})
    prefix = common_prefix(names) if len(names) > 1 else ""
    slots = style_indices(names, lambda name: None)
    fig, ax = new_figure()
    xs = list(range(len(runs)))
    projected_topologies = set()
    for name in names:
        c, m = style(slots[name])
        at = [(x, r["rows"][name]) for x, r in zip(xs, runs) if name in r["rows"]]
        projected = any(row["projected"] for _, row in at)
        projected_topologies.update(row.get("topology") or "?" for _, row in at
                                    if row["projected"])
        px = [x for x, _ in at]
        # The band is the spread of each run's repetitions (interquartile range).
        ax.fill_between(px, [row["q1"] for _, row in at], [row["q3"] for _, row in at],
                        color=c, alpha=0.18, linewidth=0)
        label = name[len(prefix) + 1:] if prefix else name
        ax.plot(px, [row["median"] for _, row in at], marker=m, color=c,
                markerfacecolor="white" if projected else c,
                linestyle="--" if projected else "-",
                label=label + (" (projected)" if projected and "projected" not in label else ""))
    step = max(1, -(-len(runs) // 12))
    ax.set_xticks(xs[::step])
    ax.set_xticklabels([run_tick(r) for r in runs[::step]], fontsize=6, rotation=30, ha="right")
    ax.set_xlim(-0.5, len(runs) - 0.5)
    ax.set_xlabel("run (date and time as recorded; commit)")
    ax.set_ylabel("median, ms (band: interquartile range of repetitions)")
    ax.grid(True, alpha=0.3)
    legend_right(ax, fontsize=6)
    subtitle = prefix or ""
    if projected_topologies:
        subtitle += ("; " if subtitle else "") + "hollow markers: projected onto {} " \
            "(not measured)".format(", ".join(sorted(projected_topologies)))
    titles(fig, ax, "Trend across {} runs in {}".format(len(runs), data["folder"]), subtitle)
    return finish_layout(fig)


def load_unit(cost, values):
    """A scale and a unit for the plans' loads, e.g. (1e9, 'GFLOP')."""
    unit = {"flops": "FLOP", "numel": "elements"}.get(cost, cost)
    top = max(values) if values else 0.0
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if top >= scale:
            return scale, prefix + unit if unit == "FLOP" else "{} {}".format(prefix, unit)
    return 1.0, unit


def plan_figure(data):
    from matplotlib.ticker import MaxNLocator
    plans = data["plans"]
    costs = {p["cost"] for p in plans}
    # Compared bars share one scale: only plans of one cost kind can.
    share = len(costs) == 1
    fig, axes = new_figure(nrows=len(plans), ncols=1, squeeze=False, sharex=False,
                           sharey=share)
    scale, unit = load_unit(plans[0]["cost"], [c for p in plans for c in p["rank_costs"]])
    slots = style_indices(list(range(len(plans))), lambda i: plans[i]["strategy"])
    for i, (ax, plan) in enumerate(zip(axes[:, 0], plans)):
        if not share:
            scale, unit = load_unit(plan["cost"], plan["rank_costs"])
        costs_scaled = [c / scale for c in plan["rank_costs"]]
        mean = sum(costs_scaled) / len(costs_scaled)
        c, _ = style(slots[i])
        ax.bar(range(len(costs_scaled)), costs_scaled, color=c,
               width=1.0 if len(costs_scaled) > 64 else 0.8)
        ax.axhline(mean, color="black", linestyle="--", linewidth=1, label="mean over ranks")
        # On a shared scale a plan of small loads is a thin line: its numbers say how thin.
        ax.set_title("{} {}, dp {} x tp {}: mean {:.3g}, max {:.3g} {}, imbalance {:.3f} "
                     "(max / mean)".format(plan["model"], plan["strategy"], plan["dp"],
                                           plan["tp"], mean, max(costs_scaled), unit,
                                           plan["imbalance"]), fontsize=8)
        ax.set_xlim(-0.5, len(costs_scaled) - 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("rank (index, dp x tp order)", fontsize=7)
        ax.set_ylabel("load, {}".format(unit), fontsize=7)
        ax.tick_params(labelsize=6)
        ax.grid(True, axis="y", alpha=0.3)
        legend_right(ax, fontsize=6)
    fig.suptitle("Per-rank optimizer load of each plan ({} cost model{})".format(
        "/".join(sorted(costs)), ", one y scale" if share and len(plans) > 1 else ""),
        fontsize=10)
    return finish_layout(fig)


def run_jobs(data):
    """(file stem, function, arguments) of every figure of a run, in a fixed order."""
    jobs = []
    groups = {}
    for s in data["series"]:
        if s["gpus"] > 0:
            groups.setdefault((s["family"], s["optimizer"], s["model"]), []).append(s)
    for key, series in groups.items():
        jobs.append((file_name("latency", *key), latency_figure, (data,) + key + (series,)))
    groups = {}
    for s in data["series"]:
        if s["phases"]:
            configurations = groups.setdefault((s["family"], s["optimizer"], s["model"]), {})
            configurations.setdefault((s["gpus"], s["dp"], s["tp"]), []).append(s)
    for (family, optimizer, model), configurations in groups.items():
        ordered = sorted(configurations.items(), key=lambda item: (item[0][0], item[0][2]))
        pages = [ordered[i:i + PHASE_PANELS] for i in range(0, len(ordered), PHASE_PANELS)]
        prefix = "phases" if family == "OptimizerStep" else "phases_" + family
        for number, page in enumerate(pages, 1):
            name = file_name(prefix, optimizer, model,
                             "{}of{}".format(number, len(pages)) if len(pages) > 1 else "")
            jobs.append((name, phase_figure, (data, family, optimizer, model, page)))
    return jobs


def figure_jobs(data):
    kind = data.get("kind")
    if kind == "run":
        return run_jobs(data)
    if kind == "history":
        return [("history", history_figure, (data,))]
    if kind == "plans":
        return [("rank_loads", plan_figure, (data,))]
    raise BadInput("unknown data kind {!r}".format(kind))


def write_figure(job):
    name, function, args, path, fmt = job
    fig = function(*args)
    fig.savefig(path, dpi=DPI, format=fmt)
    return path


def draw(data, out, fmt, progress=None):
    load_matplotlib()
    jobs = figure_jobs(data)
    if not jobs:
        raise BadInput("nothing to draw: no series with a GPU count or phase times")
    work = [(name, function, args, os.path.join(out, "{}.{}".format(name, fmt)), fmt)
            for name, function, args in jobs]
    written = []
    # Drawing is CPU-bound and figures are independent: large runs use every core. The
    # results come back in job order, so the progress lines are the same on every machine.
    processes = min(len(work), os.cpu_count() or 1)
    if len(work) >= PARALLEL_FROM and processes > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            results = pool.imap(write_figure, work)
            for path in results:
                written.append(path)
                if progress:
                    progress(len(written), len(work), path)
    else:
        for job in work:
            written.append(write_figure(job))
            if progress:
                progress(len(written), len(work), written[-1])
    return written


def print_progress(index, total, path):
    print("figure {}/{}: {}".format(index, total, os.path.basename(path)), flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--format", default="png", choices=["png", "svg", "pdf"])
    args = parser.parse_args(argv)
    try:
        with open(args.data) as f:
            data = json.load(f)
        written = draw(data, args.out, args.format, print_progress)
        print("wrote {} figure(s) to {}".format(len(written), args.out), flush=True)
    except (BadInput, OSError, ValueError, KeyError) as e:
        print("error: {}".format(e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
