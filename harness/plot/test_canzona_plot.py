#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# canzona_plot.py on small data files: the figures it promises exist, decode, and have the
# fixed size; bad data exits 2.
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canzona_plot  # noqa: E402


def step(strategy, gpus, ms, projected):
    return {"name": "OptimizerStep/muon/{}/m/gpus:{}/dp:{}/tp:1".format(strategy, gpus, gpus),
            "family": "OptimizerStep", "optimizer": "muon", "strategy": strategy, "model": "m",
            "gpus": gpus, "dp": gpus, "tp": 1, "projected": projected,
            "topology": "dgx-h100" if projected else "", "median_ms": ms, "cv": 0.01,
            "phases": {"grad_sync": ms * 0.3, "compute": ms * 0.6, "other": ms * 0.1}}


RUN = {"kind": "run", "provenance": ["Run: fixture"],
       "phase_order": ["grad_sync", "update", "compute", "other"],
       "series": [step("canzona", 2, 10.0, False), step("sc", 2, 19.0, False),
                  step("canzona", 64, 3.0, True), step("sc", 64, 40.0, True)]}


class PlotScriptTest(unittest.TestCase):
    def run_script(self, data, fmt="png"):
        self.tmp = tempfile.TemporaryDirectory()
        data_file = os.path.join(self.tmp.name, "data.json")
        with open(data_file, "w") as f:
            json.dump(data, f)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = canzona_plot.main(["--data", data_file, "--out", self.tmp.name,
                                      "--format", fmt])
        return code, out.getvalue(), err.getvalue()

    def tearDown(self):
        self.tmp.cleanup()

    def test_run_figures_decode_with_the_fixed_size(self):
        import matplotlib.image
        code, out, err = self.run_script(RUN)
        self.assertEqual(code, 0, err)
        names = sorted(os.path.basename(line.split(" ", 1)[1]) for line in out.splitlines())
        self.assertEqual(names, ["latency_OptimizerStep_muon_m.png",
                                 "phases_muon_m_gpus2_dp2_tp1.png",
                                 "phases_muon_m_gpus64_dp64_tp1.png"])
        for name in names:
            pixels = matplotlib.image.imread(os.path.join(self.tmp.name, name))
            self.assertEqual(pixels.shape[:2], (500, 800), name)
            # Not a blank canvas: a drawn figure has many distinct colours.
            self.assertGreater(len({tuple(p) for p in pixels.reshape(-1, pixels.shape[2])[::97]}), 8)

    def test_svg_and_pdf(self):
        code, out, err = self.run_script(RUN, "svg")
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.tmp.name, "latency_OptimizerStep_muon_m.svg")) as f:
            self.assertIn("<svg", f.read(2000))
        self.tmp.cleanup()
        code, out, err = self.run_script(RUN, "pdf")
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.tmp.name, "latency_OptimizerStep_muon_m.pdf"), "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")

    def test_history_and_plans(self):
        history = {"kind": "history", "folder": "nightly",
                   "runs": [{"file": "a.json", "date": "2026-11-01", "git": "aaa",
                             "medians": {"X": 1.0}},
                            {"file": "b.json", "date": "2026-11-02", "git": "bbb",
                             "medians": {"X": 1.2}}]}
        code, out, err = self.run_script(history)
        self.assertEqual(code, 0, err)
        self.assertIn("history.png", out)
        plans = {"kind": "plans", "plans": [{"file": "p.json", "model": "qwen3-8b",
                                             "strategy": "canzona", "dp": 4, "tp": 1,
                                             "cost": "flops", "imbalance": 1.25,
                                             "rank_costs": [1.0, 2.0, 1.5, 1.9]}]}
        code, out, err = self.run_script(plans)
        self.assertEqual(code, 0, err)
        self.assertIn("rank_loads.png", out)

    def test_text_from_run_files_is_drawn_as_it_is(self):
        # '$' and '\\' would be mathtext; a newline would be a line of the footer.
        hostile = json.loads(json.dumps(RUN))
        hostile["provenance"] = ["Run: $\\frac{1}{0$ \\undefined", "Host: a\nb"]
        for s in hostile["series"]:
            s["model"] = "m$^{"
        code, out, err = self.run_script(hostile)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(out.splitlines()), 3, out)

    def test_bad_data_exits_two(self):
        code, out, err = self.run_script({"kind": "spreadsheet"})
        self.assertEqual(code, 2)
        self.assertIn("unknown data kind", err)
        code, out, err = self.run_script({"kind": "run", "provenance": [], "series": []})
        self.assertEqual(code, 2)
        self.assertIn("nothing to draw", err)


if __name__ == "__main__":
    unittest.main()
