#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# canzona_plot.py on small data files. The figures are checked through matplotlib's own objects
# (series, colours, markers, ticks, legend and text extents after layout), and the written files
# decode as images of the fixed size; bad data exits 2.
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canzona_plot  # noqa: E402

canzona_plot.load_matplotlib()
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

STRATEGIES = ["canzona", "sc", "layerwise", "zero1", "asc", "canzona+sc"]
SOURCE = {"file": "run.json", "git": "abc123", "build": "Release",
          "date": "2026-11-24T22:43:16+00:00", "host": "ci-host"}
PROVENANCE = ["Run: run.json, git abc123, Release build, backend cpu, device cpu, 2 ranks, "
              "preset smoke, 2026-11-24T22:43:16+00:00"]


def step(strategy, gpus, ms, projected, tp=1):
    dp = gpus // tp
    return {"name": "OptimizerStep/muon/{}/m/gpus:{}/dp:{}/tp:{}".format(strategy, gpus, dp, tp),
            "family": "OptimizerStep", "optimizer": "muon", "strategy": strategy, "model": "m",
            "gpus": gpus, "dp": dp, "tp": tp, "projected": projected,
            "topology": "dgx-h100" if projected else "", "median_ms": ms, "cv": 0.01,
            "phases": {"grad_sync": ms * 0.3, "compute": ms * 0.6, "other": ms * 0.1}}


def e2e(strategy, projected):
    phases = ({"forward": 117.0, "backward": 235.0, "tp_comm": 83.0, "dp_sync_exposed": 217.0,
               "optimizer": 54.0} if projected else
              {"forward": 38.8, "backward": 58.4, "optimizer": 7.5, "other": 1.7})
    gpus, dp, tp = (256, 32, 8) if projected else (2, 2, 1)
    return {"name": "E2EIteration/muon/{}/m".format(strategy), "family": "E2EIteration",
            "optimizer": "muon", "strategy": strategy, "model": "m", "gpus": gpus, "dp": dp,
            "tp": tp, "projected": projected, "topology": "dgx-h100" if projected else "",
            "median_ms": sum(phases.values()), "cv": 0.01, "phases": phases}


def run_data(series):
    return {"kind": "run", "provenance": PROVENANCE, "source": SOURCE,
            "phase_order": {"OptimizerStep": ["grad_sync", "update", "compute", "other"],
                            "E2EIteration": ["forward", "backward", "tp_comm",
                                             "dp_sync_exposed", "optimizer", "other"]},
            "series": series}


RUN = run_data([step("canzona", 2, 10.0, False), step("sc", 2, 19.0, False),
                step("canzona", 64, 3.0, True), step("sc", 64, 40.0, True)])
# The smoke preset's shape: one GPU count, six strategies at two tensor-parallel sizes.
SMOKE = run_data([step(s, 2, 10.0 + i, False, tp) for tp in (1, 2)
                  for i, s in enumerate(STRATEGIES)])
# The paper grid's shape: all projected, 8 ... 1024 GPUs.
GRID = run_data([step(s, g, 100.0 / (i + 1) + g / 64, True, 8) for i, s in enumerate(STRATEGIES)
                 for g in (8, 16, 32, 64, 128, 256, 512, 1024)])


def history(n_names=2, same_day=True, projected_name=None):
    runs = []
    for r in range(3):
        date = "2026-11-0{}T0{}:00:00+00:00".format(1 if same_day else r + 1, r + 1)
        rows = {}
        for k in range(n_names):
            name = "OptimizerStep/muon/canzona/m/gpus:{}/dp:{}/tp:1".format(2 ** (k + 1),
                                                                           2 ** (k + 1))
            rows[name] = {"median": 1.0 + k + 0.1 * r, "q1": 0.9 + k, "q3": 1.2 + k + 0.1 * r,
                          "projected": False, "topology": ""}
        if projected_name:
            rows[projected_name] = {"median": 5.0, "q1": 5.0, "q3": 5.0, "projected": True,
                                    "topology": "dgx-h100"}
        runs.append({"file": "night{}.json".format(r), "date": date, "git": "g{}".format(r),
                     "rows": rows})
    return {"kind": "history", "folder": "nightly", "runs": runs}


PLANS = {"kind": "plans", "plans": [
    {"file": "a.json", "model": "qwen3-32b", "strategy": s, "dp": 4, "tp": 1, "cost": "flops",
     "imbalance": 1.0 + k, "rank_costs": [c * 1e12 * (k + 1) for c in (1.0, 2.0, 1.5, 1.9)]}
    for k, s in enumerate(["canzona", "zero1", "layerwise"])]}


def figures(data):
    """Every figure of a data file, by file stem."""
    return {name: function(*args) for name, function, args in canzona_plot.figure_jobs(data)}


def render(fig):
    fig.canvas.draw()  # runs the layout engine, as savefig does
    return fig.canvas.get_renderer()


def drawn_texts(fig):
    """The text artists matplotlib really draws (a tick label outside the view limits exists
    but is not drawn), recorded during a draw of the figure."""
    from matplotlib.text import Text
    drawn, original = [], Text.draw

    def record(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        return original(self, renderer)

    Text.draw = record
    try:
        renderer = render(fig)
    finally:
        Text.draw = original
    return drawn, renderer


def data_axes(fig):
    """The axes that hold data (not colour bars or legends)."""
    return [ax for ax in fig.axes if ax.get_visible()]


def series_lines(ax):
    """Lines with a label (the legend's series), in drawing order."""
    return [line for line in ax.get_lines() if not line.get_label().startswith("_")]


class FigureChecks(unittest.TestCase):
    def assert_inside_canvas(self, fig):
        texts, renderer = drawn_texts(fig)
        self.assertGreater(len(texts), 5)
        canvas = fig.bbox
        for text in texts:
            box = text.get_window_extent(renderer)
            self.assertTrue(box.x0 >= canvas.x0 - 0.5 and box.x1 <= canvas.x1 + 0.5 and
                            box.y0 >= canvas.y0 - 0.5 and box.y1 <= canvas.y1 + 0.5,
                            "text {!r} at {} lies outside the canvas {}".format(
                                text.get_text()[:60], box, canvas))

    def assert_legend_outside_data(self, fig):
        renderer = render(fig)
        legends = [ax.get_legend() for ax in data_axes(fig) if ax.get_legend()]
        self.assertTrue(legends, "no legend")
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in data_axes(fig):
                self.assertFalse(box.overlaps(ax.get_window_extent(renderer)),
                                 "legend {} overlaps the axes {}".format(box, ax.bbox))

    def assert_distinct_styles(self, lines):
        pairs = [(to_rgba(line.get_color()), line.get_marker()) for line in lines]
        self.assertEqual(len(set(p[0] for p in pairs)), len(pairs), "a colour repeats")
        self.assertEqual(len(set(p[1] for p in pairs)), len(pairs), "a marker repeats")

    def assert_projected_title(self, fig, topology):
        text = " ".join([fig._suptitle.get_text() if fig._suptitle else ""] +
                        [ax.get_title() for ax in fig.axes])
        self.assertIn("projected", text)
        self.assertIn(topology, text)


class LatencyFigureTest(FigureChecks):
    def test_grid_has_one_line_per_strategy_and_gpu_count_ticks(self):
        fig = figures(GRID)["latency_OptimizerStep_muon_m"]
        ax = fig.axes[0]
        lines = series_lines(ax)
        self.assertEqual(len(lines), 6)
        self.assert_distinct_styles(lines)
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()],
                         ["8", "16", "32", "64", "128", "256", "512", "1024"])
        self.assertEqual(list(ax.get_xticks()), [8, 16, 32, 64, 128, 256, 512, 1024])
        self.assertEqual(len(ax.xaxis.get_minor_ticks()), 0)
        # Plain numbers on the log y axis too (mathtext is off: 10^k would print as source).
        render(fig)
        ylabels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        self.assertGreaterEqual(len(ylabels), 2)
        for label in ylabels:
            float(label)
        # Projections only: hollow markers everywhere.
        for line in lines:
            self.assertEqual(to_rgba(line.get_markerfacecolor()), (1.0, 1.0, 1.0, 1.0))
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)
        self.assert_projected_title(fig, "dgx-h100")

    def test_footer_of_a_projection_does_not_read_as_the_host(self):
        fig = figures(GRID)["latency_OptimizerStep_muon_m"]
        footer = fig._supxlabel.get_text()
        self.assertIn("Projection onto dgx-h100", footer)
        self.assertIn("ci-host", footer)
        self.assertNotIn("2 ranks", footer)
        measured = figures(SMOKE)["latency_OptimizerStep_muon_m"]._supxlabel.get_text()
        self.assertIn("2 ranks", measured)
        self.assertNotIn("rojection", measured)

    def test_one_gpu_count_is_a_bar_chart_of_distinct_series(self):
        fig = figures(SMOKE)["latency_OptimizerStep_muon_m"]
        ax = fig.axes[0]
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        self.assertEqual(len(bars), 12)
        self.assertEqual(len({to_rgba(b.patches[0].get_facecolor()) for b in bars}), 12)
        markers = [line for line in ax.get_lines() if line.get_marker() not in ("None", "")]
        self.assertEqual(len(markers), 12)
        self.assert_distinct_styles(markers)
        self.assertEqual(ax.get_xscale(), "linear")
        self.assertEqual(ax.get_ylim()[0], 0.0)
        self.assertEqual(len(ax.get_legend().get_texts()), 12)
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)
        self.assertEqual(ax.get_title(), "measured")

    def test_measured_and_projected_points_differ(self):
        fig = figures(RUN)["latency_OptimizerStep_muon_m"]
        ax = fig.axes[0]
        filled = [line for line in ax.get_lines()
                  if to_rgba(line.get_markerfacecolor()) != (1.0, 1.0, 1.0, 1.0)]
        hollow = [line for line in ax.get_lines()
                  if to_rgba(line.get_markerfacecolor()) == (1.0, 1.0, 1.0, 1.0)]
        # Each strategy: a line with its measured point filled, its projected point hollow.
        self.assertEqual(len(filled), 2)
        self.assertEqual(len(hollow), 2)
        self.assertEqual([list(line.get_xdata()) for line in hollow], [[64], [64]])
        self.assert_projected_title(fig, "dgx-h100")
        footer = fig._supxlabel.get_text()
        self.assertIn("2 ranks", footer)  # the measured points' machine
        self.assertIn("hollow markers: projected onto dgx-h100, computed on host ci-host", footer)

    def test_the_papers_metric_beside_the_full_step(self):
        data = json.loads(json.dumps(GRID))
        for s in data["series"]:
            s["optimizer_ms"] = s["median_ms"] / 10
        fig = figures(data)["latency_OptimizerStep_muon_m"]
        self.assertEqual(len(fig.axes), 2)
        left, right = fig.axes
        self.assertIn("DP sync hidden", left.get_title())
        self.assertIn("paper's metric", left.get_title())
        self.assertIn("full step", right.get_title())
        for ax in (left, right):
            self.assertEqual(len(series_lines(ax)), 6)
            self.assertEqual([t.get_text() for t in ax.get_xticklabels()],
                             ["8", "16", "32", "64", "128", "256", "512", "1024"])
        # Each panel draws its own metric.
        by_label = {line.get_label(): line for line in series_lines(right)}
        for line in series_lines(left):
            full = by_label[line.get_label()]
            for opt, whole in zip(line.get_ydata(), full.get_ydata()):
                self.assertAlmostEqual(opt, whole / 10)
        self.assertIsNone(left.get_legend())
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)
        self.assert_projected_title(fig, "dgx-h100")
        # Without the counter on every series: the full step alone.
        self.assertEqual(len(figures(GRID)["latency_OptimizerStep_muon_m"].axes), 1)

    def test_long_provenance_stays_inside(self):
        data = json.loads(json.dumps(SMOKE))
        data["provenance"] = ["Run: " + "x" * 400 + " " + "word " * 80]
        self.assert_inside_canvas(figures(data)["latency_OptimizerStep_muon_m"])


def phase_collections(ax):
    """The stacked phase bars of a panel (one PolyCollection a phase), in stacking order."""
    return [c for c in ax.collections if not c.get_label().startswith("_")]


def bar_rows(ax):
    """Right end of each row's stack, from the bars drawn (hatch overlays included)."""
    ends = {}
    for collection in ax.collections:
        for path in collection.get_paths():
            row = round(path.vertices[:, 1].mean())
            ends[row] = max(ends.get(row, 0.0), path.vertices[:, 0].max())
    return [ends[row] for row in sorted(ends)]


class PhaseFigureTest(FigureChecks):
    def test_e2e_phases_stack_to_the_iteration(self):
        data = run_data([e2e("canzona", False), e2e("layerwise", False),
                         e2e("canzona", True), e2e("layerwise", True)])
        fig = figures(data)["phases_E2EIteration_muon_m"]
        panels = [ax for ax in fig.axes if ax.get_visible()]
        self.assertEqual([ax.get_title() for ax in panels],
                         ["2 GPUs (dp 2 x tp 1)", "256 GPUs (dp 32 x tp 8), projected"])
        labels = [t.get_text() for t in panels[-1].get_legend().get_texts()]
        self.assertEqual(labels, ["forward", "backward", "TP all-reduce", "DP sync, exposed",
                                  "optimizer step", "other", "iteration, median"])
        for ax, series in zip(panels, (data["series"][:2], data["series"][2:])):
            phases = [c.get_label() for c in phase_collections(ax)]
            self.assertEqual(phases, list(series[0]["phases"]))
            # Every row is drawn: one box per strategy in every phase.
            self.assertEqual({len(c.get_paths()) for c in phase_collections(ax)}, {2})
            for end, s in zip(bar_rows(ax), series):
                self.assertAlmostEqual(end, s["median_ms"], places=6)
        self.assert_projected_title(fig, "dgx-h100")
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)

    def test_projected_only_e2e_phases_say_so_in_the_footer(self):
        data = run_data([e2e("canzona", True), e2e("layerwise", True)])
        fig = figures(data)["phases_E2EIteration_muon_m"]
        self.assert_projected_title(fig, "dgx-h100")
        self.assertIn("Projection onto dgx-h100", fig._supxlabel.get_text())
        self.assertNotIn("2 ranks", fig._supxlabel.get_text())

    def test_one_panel_per_configuration_with_distinct_phase_colours(self):
        fig = figures(GRID)["phases_muon_m"]
        panels = [ax for ax in fig.axes if ax.get_visible()]
        self.assertEqual(len(panels), 8)
        self.assertEqual(panels[0].get_title(), "8 GPUs (dp 1 x tp 8)")
        ax = panels[0]
        bars = phase_collections(ax)
        self.assertEqual([b.get_label() for b in bars], ["grad_sync", "compute", "other"])
        self.assertEqual(len({tuple(b.get_facecolor()[0]) for b in bars}), 3)
        self.assertEqual([len(b.get_paths()) for b in bars], [6, 6, 6])
        # Each row stacks its phases to the step (the fixture's phases add up to it).
        medians = [s["median_ms"] for s in GRID["series"] if s["gpus"] == 8]
        for end, median in zip(bar_rows(ax), medians):
            self.assertAlmostEqual(end, median, places=9)
        render(fig)
        self.assertEqual([t.get_text() for t in ax.get_yticklabels()], STRATEGIES)
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)
        self.assert_projected_title(fig, "dgx-h100")

    def test_many_configurations_go_on_pages(self):
        data = run_data([step("canzona", 2 ** k, 1.0, False) for k in range(1, 11)])
        names = [name for name, _, _ in canzona_plot.figure_jobs(data)
                 if name.startswith("phases")]
        self.assertEqual(names, ["phases_muon_m_1of2", "phases_muon_m_2of2"])
        fig = figures(data)["phases_muon_m_2of2"]
        self.assertEqual(len([ax for ax in fig.axes if ax.get_visible()]), 2)
        self.assert_inside_canvas(fig)


class HistoryFigureTest(FigureChecks):
    def test_one_point_per_run_with_band_and_hollow_projections(self):
        data = history(2, same_day=True, projected_name="OptimizerStep/muon/canzona/m/proj")
        fig = figures(data)["history"]
        ax = fig.axes[0]
        lines = series_lines(ax)
        self.assertEqual(len(lines), 3)
        self.assert_distinct_styles(lines)
        for line in lines:
            self.assertEqual(list(line.get_xdata()), [0, 1, 2])  # same day, three points
            hollow = to_rgba(line.get_markerfacecolor()) == (1.0, 1.0, 1.0, 1.0)
            self.assertEqual(hollow, "proj" in line.get_label(), line.get_label())
        # A spread band (PolyCollection of fill_between) per line.
        self.assertEqual(len(ax.collections), 3)
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        self.assertEqual(len(set(ticks)), 3, ticks)
        self.assertIn("2026-11-01 01:00", ticks[0])
        self.assert_projected_title(fig, "dgx-h100")
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)

    def test_twelve_lines_repeat_no_style(self):
        fig = figures(history(12))["history"]
        lines = series_lines(fig.axes[0])
        self.assertEqual(len(lines), 12)
        self.assert_distinct_styles(lines)
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)


class PlanFigureTest(FigureChecks):
    def test_plans_share_one_scale_with_units(self):
        fig = figures(PLANS)["rank_loads"]
        axes = fig.axes
        self.assertEqual(len(axes), 3)
        limits = {ax.get_ylim() for ax in axes}
        self.assertEqual(len(limits), 1, limits)
        self.assertGreaterEqual(axes[0].get_ylim()[1], 3 * 2.0)  # the largest plan fits
        for ax in axes:
            self.assertEqual(ax.get_ylabel(), "load, TFLOP")
            self.assertIn("rank", ax.get_xlabel())
        self.assert_legend_outside_data(fig)
        self.assert_inside_canvas(fig)


class StyleTest(unittest.TestCase):
    def test_styles_stay_distinct_past_the_palette(self):
        pairs = [canzona_plot.style(i) for i in range(40)]
        self.assertEqual(len(set(pairs)), 40)
        self.assertEqual(len({c for c, _ in pairs[:12]}), 12)
        self.assertEqual(len({m for _, m in pairs[:12]}), 12)

    def test_a_strategy_keeps_its_style(self):
        a = canzona_plot.style_indices(["layerwise", "canzona"], lambda k: k)
        b = canzona_plot.style_indices(["canzona", "zero1", "layerwise"], lambda k: k)
        self.assertEqual(a["layerwise"], b["layerwise"])
        self.assertEqual(a["canzona"], b["canzona"])


class PlotScriptTest(unittest.TestCase):
    def run_script(self, data, fmt="png"):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        data_file = os.path.join(self.tmp.name, "data.json")
        with open(data_file, "w") as f:
            json.dump(data, f)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = canzona_plot.main(["--data", data_file, "--out", self.tmp.name,
                                      "--format", fmt])
        return code, out.getvalue(), err.getvalue()

    def written(self, out):
        return [line.split(": ", 1)[1] for line in out.splitlines()
                if line.startswith("figure ")]

    def test_run_figures_decode_with_the_fixed_size(self):
        import matplotlib.image
        code, out, err = self.run_script(RUN)
        self.assertEqual(code, 0, err)
        names = self.written(out)
        self.assertEqual(names, ["latency_OptimizerStep_muon_m.png", "phases_muon_m.png"])
        self.assertEqual(out.splitlines()[0], "figure 1/2: latency_OptimizerStep_muon_m.png")
        for name in names:
            pixels = matplotlib.image.imread(os.path.join(self.tmp.name, name))
            self.assertEqual(pixels.shape[:2], (500, 800), name)
            # Not a blank canvas: a drawn figure has many distinct colours.
            colours = {tuple(p) for p in pixels.reshape(-1, pixels.shape[2])[::97]}
            self.assertGreater(len(colours), 8)

    def test_many_figures_are_drawn_in_order_by_several_processes(self):
        import matplotlib.image
        many = run_data([dict(step(s, 64, 10.0 + i, True), model="m{}".format(m))
                         for i, s in enumerate(STRATEGIES[:2]) for m in range(7)])
        code, out, err = self.run_script(many)
        self.assertEqual(code, 0, err)
        names = self.written(out)
        self.assertGreaterEqual(len(names), canzona_plot.PARALLEL_FROM)
        self.assertEqual(names, [n + ".png" for n, _, _ in canzona_plot.figure_jobs(many)])
        self.assertTrue(out.splitlines()[-1].startswith("wrote 14 figure(s)"), out)
        for name in names:
            self.assertEqual(matplotlib.image.imread(
                os.path.join(self.tmp.name, name)).shape[:2], (500, 800))

    def test_svg_and_pdf(self):
        code, out, err = self.run_script(RUN, "svg")
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.tmp.name, "latency_OptimizerStep_muon_m.svg")) as f:
            self.assertIn("<svg", f.read(2000))
        code, out, err = self.run_script(RUN, "pdf")
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.tmp.name, "latency_OptimizerStep_muon_m.pdf"), "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")

    def test_history_and_plans(self):
        import matplotlib.image
        code, out, err = self.run_script(history())
        self.assertEqual(code, 0, err)
        self.assertEqual(self.written(out), ["history.png"])
        self.assertEqual(matplotlib.image.imread(
            os.path.join(self.tmp.name, "history.png")).shape[:2], (500, 800))
        code, out, err = self.run_script(PLANS)
        self.assertEqual(code, 0, err)
        self.assertEqual(self.written(out), ["rank_loads.png"])

    def test_text_from_run_files_is_drawn_as_it_is(self):
        # '$' and '\\' would be mathtext; a newline would be a line of the footer.
        hostile = json.loads(json.dumps(RUN))
        hostile["provenance"] = ["Run: $\\frac{1}{0$ \\undefined", "Host: a\nb"]
        for s in hostile["series"]:
            s["model"] = "m$^{"
        code, out, err = self.run_script(hostile)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(self.written(out)), 2, out)

    def test_bad_data_exits_two(self):
        code, out, err = self.run_script({"kind": "spreadsheet"})
        self.assertEqual(code, 2)
        self.assertIn("unknown data kind", err)
        code, out, err = self.run_script({"kind": "run", "provenance": [], "series": []})
        self.assertEqual(code, 2)
        self.assertIn("nothing to draw", err)


if __name__ == "__main__":
    unittest.main()
