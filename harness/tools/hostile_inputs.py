#!/usr/bin/python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Hostile inputs against a build, as an adversarial user would try them: paths, patterns,
# numbers, file kinds and signals. Each case runs the real executables in a scratch folder and
# is judged: the expected exit code, a message in words (no "internal error", no traceback), an
# answer within its time limit, and nothing written where it must not be. Prints a Markdown
# table; exit 1 when any case is a problem.
#
#   harness/tools/hostile_inputs.py --build build > results/reliability/hostile-inputs.md
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CONTEXT = {"canzona_git_sha": "abc", "canzona_build_type": "Release", "canzona_config": "cuda=0",
           "device_kind": "cpu", "canzona_preset": "smoke", "host_name": "h"}


def row(name="OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1", **extra):
    r = {"name": name, "run_name": name, "iterations": 5, "real_time": 1.0, "cpu_time": 1.0,
         "time_unit": "ms"}
    r.update(extra)
    return r


def run_file(rows=None, context=None):
    return json.dumps({"context": dict(CONTEXT, **(context or {})),
                       "benchmarks": rows if rows is not None else [row()]})


def npy(header, payload=b""):
    header = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + payload


# (what, argv, {file: content}, expected exit codes, env additions, time limit s)
def cases(d):
    run = os.path.join(d, "run.json")
    deep_json = "[" * 100000 + "]" * 100000
    return [
        # Paths
        ("--out into /proc", ["table", run, "--out", "/proc/self/status"], {}, {2}),
        ("--out is a directory", ["table", run, "--out", "/etc"], {}, {2}),
        ("--out empty", ["table", run, "--out", ""], {}, {2}),
        ("--out is an input by another spelling", ["table", run, "--out",
                                                   os.path.join(d, "sub", "..", "run.json")], {}, {2}),
        ("--out is a symlink to the input", ["compare", run, run, "--out",
                                             os.path.join(d, "link.json")], {}, {2}),
        ("--out in a missing folder", ["compare", run, run, "--out",
                                       os.path.join(d, "nope", "c.md")], {}, {2}),
        ("--out with a trailing slash", ["table", run, "--out", d + "/"], {}, {2}),
        ("promote into a folder not there yet (it is made)",
         ["promote", run, "--to", os.path.join(d, "new", "cpu")], {}, {0}),
        ("promote --name with a slash", ["promote", run, "--to", os.path.join(d, "cpu"),
                                         "--name", "../x"], {}, {2}),
        ("plot --out is a device", ["plot", run, "--out", "/dev/null"], {}, {2}),
        ("plot --out is a file", ["plot", run, "--out", run], {}, {2}),
        ("calibrate reads /dev/zero", ["calibrate", "--nccl-tests", "/dev/zero", "--out",
                                       os.path.join(d, "t.json")], {}, {2}),
        ("validate an empty file", ["validate", os.path.join(d, "empty.json")], {}, {2}),
        ("validate a FIFO", ["validate", os.path.join(d, "fifo")], {}, {2}),
        ("validate a symlink loop", ["validate", os.path.join(d, "loop")], {}, {2}),
        # Patterns
        ("filter (.*.*)*X", ["table", run, "--filter", "(.*.*)*X"], {}, {2}),
        ("filter of 20 000 nested groups", ["compare", run, run, "--filter",
                                            "(" * 20000 + "q" + ")" * 20000], {}, {0}),
        ("filter of 70 000 bytes", ["table", run, "--filter", "a" * 70000], {}, {2}),
        ("filter that is a lone backslash", ["table", run, "--filter", "\\"], {}, {2}),
        ("filter with a POSIX class left open", ["run", "--filter", "[[:alpha:]"], {}, {2}),
        ("filter (a|aa)*c", ["compare", run, run, "--filter", "(a|aa)*c"], {}, {0}),
        ("case-insensitive filter (?i)", ["table", run, "--filter", "(?i)CANZONA"], {}, {0}),
        ("suite filter that negates everything", ["@canzona_bench_planner",
                                                  "--benchmark_filter=-.*"], {}, {2}),
        ("suite filter (x+x+)+y", ["@canzona_bench_planner", "--benchmark_filter=(x+x+)+y"], {},
         {2}),
        ("ab allow-list with a bad pattern", ["ab", "--base", "/bin/true", "--head", "/bin/true",
                                              "--allowed-changes", os.path.join(d, "allow.txt")],
         {}, {2}),
        # Numbers
        ("--threshold 1e309", ["compare", run, run, "--threshold", "1e309"], {}, {2}),
        ("--threshold nan", ["compare", run, run, "--threshold", "nan"], {}, {2}),
        ("--alpha 0", ["compare", run, run, "--alpha", "0"], {}, {2}),
        ("--utest-repetitions -5", ["compare", run, run, "--utest-repetitions", "-5"], {}, {2}),
        ("run --repetitions 1e9", ["run", "--repetitions", "1e9"], {}, {2}),
        ("run --ranks 2^70", ["run", "--ranks", "1180591620717411303424"], {}, {2}),
        ("plan --dp 0x10", ["plan", "--model", "qwen3-8b", "--dp", "0x10"], {}, {2}),
        ("plan --bucket-size 1e400", ["plan", "--model", "qwen3-8b", "--dp", "8",
                                      "--bucket-size", "1e400"], {}, {2}),
        ("project --gemm-efficiency denormal", ["project", "--model", "qwen3-0.6b", "--gpus", "8",
                                                "--optimizer", "muon", "--gemm-efficiency",
                                                "1e-320"], {}, {2}),
        ("step --lr -inf", ["step", "--optimizer", "muon", "--param", os.path.join(d, "p.npy"),
                            "--grad", os.path.join(d, "p.npy"), "--lr", "-inf", "--out",
                            os.path.join(d, "o.npy")], {}, {2}),
        ("ab --pairs 0", ["ab", "--base", "/bin/true", "--head", "/bin/true", "--pairs", "0"], {},
         {2}),
        ("ab --threshold 1e308", ["ab", "--base", "/bin/true", "--head", "/bin/true",
                                  "--threshold", "1e308"], {}, {2}),
        ("run file: iterations 1e30", ["validate", os.path.join(d, "it.json")], {}, {2}),
        ("run file: repetitions -1", ["table", os.path.join(d, "rep.json")], {}, {0, 2}),
        ("run file: a denormal time", ["compare", run, os.path.join(d, "denormal.json")], {}, {2}),
        ("run file: cpu_ms -0.0", ["compare", run, os.path.join(d, "negzero.json")], {}, {0, 1}),
        ("run file: counter 1e300", ["table", os.path.join(d, "bigcounter.json")], {}, {2}),
        ("CANZONA_COLLECTIVE_TIMEOUT_S=inf", ["run", "--preset", "smoke"], {}, {2},
         {"CANZONA_COLLECTIVE_TIMEOUT_S": "inf"}),
        ("CANZONA_COLLECTIVE_TIMEOUT_S=5s", ["run", "--preset", "smoke"], {}, {2},
         {"CANZONA_COLLECTIVE_TIMEOUT_S": "5s"}),
        # File kinds and contents
        ("validate binary garbage", ["validate", os.path.join(d, "garbage.json")], {}, {2}),
        ("validate 'benchmarks' as an object", ["validate", os.path.join(d, "obj.json")], {},
         {2}),
        ("validate 'context' as a list", ["validate", os.path.join(d, "ctxlist.json")], {}, {2}),
        ("validate 100 000 nested arrays", ["validate", os.path.join(d, "deep.json")], {}, {2}),
        ("validate a UTF-8 BOM (its row lacks counters: exit 1)",
         ["validate", os.path.join(d, "bom.json")], {}, {1}),
        ("model spec: layers = true", ["plan", "--model", os.path.join(d, "model.json"), "--dp",
                                       "8"], {}, {2}),
        ("topology with a 1 MB name", ["project", "--model", "qwen3-0.6b", "--gpus", "8",
                                       "--optimizer", "muon", "--compute", "cost-model",
                                       "--topology", os.path.join(d, "topo.json")], {}, {0, 2}),
        ("npy in Fortran order", ["step", "--optimizer", "muon", "--param",
                                  os.path.join(d, "fortran.npy"), "--grad",
                                  os.path.join(d, "fortran.npy"), "--out",
                                  os.path.join(d, "o.npy")], {}, {2}),
        ("npy of shape (-1,)", ["step", "--optimizer", "adamw", "--param",
                                os.path.join(d, "neg.npy"), "--grad", os.path.join(d, "neg.npy"),
                                "--out", os.path.join(d, "o.npy")], {}, {2}),
        ("run --topology /dev/zero", ["run", "--topology", "/dev/zero"], {}, {2}),
        ("plot --plan with no ranks", ["plot", "--plan", os.path.join(d, "noranks.json"), "--out",
                                       os.path.join(d, "figs")], {}, {2}),
        ("plot --history of an empty folder", ["plot", "--history", os.path.join(d, "emptydir"),
                                               "--out", os.path.join(d, "figs2")], {}, {2}),
        ("drift --history of an empty folder", ["drift", "--history", os.path.join(d, "emptydir")],
         {}, {2}),
        ("drift --history is a run file", ["drift", "--history", run], {}, {2}),
        ("drift --history of a folder with a FIFO, a symlink loop and garbage .json",
         ["drift", "--history", d], {}, {2}),
        ("drift --markdown is a device", ["drift", "--history", os.path.join(d, "emptydir"),
                                          "--markdown", "/dev/full"], {}, {2}),
        ("promote a run whose preset is '..'", ["promote", os.path.join(d, "dotdot.json"), "--to",
                                                os.path.join(d, "cpu")], {}, {2}),
        ("table of a label with a newline and pipes", ["table", os.path.join(d, "label.json")],
         {}, {0, 2}),
        ("a mistyped subcommand flag", ["table", run, "--fromat", "csv"], {}, {2}),
    ]


def make_files(d):
    os.makedirs(os.path.join(d, "sub"))
    os.makedirs(os.path.join(d, "cpu"))
    os.makedirs(os.path.join(d, "emptydir"))
    writes = {
        "run.json": run_file(),
        "empty.json": "",
        "allow.txt": "(unclosed plan_hash\n",
        "it.json": run_file([row(iterations=1e30)]),
        "rep.json": run_file([row(repetitions=-1)]),
        "denormal.json": run_file([row(real_time=1e-320)]),
        "negzero.json": run_file([row(cpu_ms=-0.0)]),
        "bigcounter.json": run_file([row(comm_bytes=1e300)]),
        "garbage.json": os.urandom(4096),
        "obj.json": json.dumps({"context": CONTEXT, "benchmarks": {}}),
        "ctxlist.json": json.dumps({"context": [1, 2], "benchmarks": [row()]}),
        "deep.json": "[" * 100000 + "]" * 100000,
        "bom.json": "\ufeff" + run_file(),
        "model.json": json.dumps({"hidden_size": 64, "intermediate_size": 128,
                                  "num_hidden_layers": True, "num_attention_heads": 4,
                                  "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100}),
        "topo.json": json.dumps({"name": "n" * 1000000, "gpus_per_node": 8,
                                 "intra_node": {"step_latency_us": 1, "busbw_gbps": 100},
                                 "inter_node": {"step_latency_us": 1, "busbw_gbps": 100}}),
        "fortran.npy": npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                           b"\0" * 16),
        "neg.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"),
        "p.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                     b"\0\0\x80\x3f" * 4),
        "noranks.json": json.dumps({"model": {"name": "m"}, "strategy": "canzona",
                                    "parallel": {"dp": 2, "tp": 1}, "options": {"cost": "flops"},
                                    "imbalance": 1.0, "ranks": []}),
        "dotdot.json": run_file(context={"canzona_preset": ".."}),
        "label.json": run_file([row(label="plan_hash=1;x=a\n| evil | row |")]),
    }
    for name, content in writes.items():
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(os.path.join(d, name), mode) as f:
            f.write(content)
    os.symlink(os.path.join(d, "run.json"), os.path.join(d, "link.json"))
    os.symlink(os.path.join(d, "loop"), os.path.join(d, "loop"))
    os.mkfifo(os.path.join(d, "fifo"))


def judge(code, expected, err, seconds, limit):
    problems = []
    if code not in expected:
        problems.append("exit {} (expected {})".format(code, "/".join(map(str, sorted(expected)))))
    if "internal error" in err or "Traceback" in err:
        problems.append("internal error")
    if code == 2 and not err.strip():
        problems.append("no message")
    if seconds > limit:
        problems.append("slow")
    return problems


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("["):
            return line[:160].replace("|", "\\|")
    return ""


def run_signal_cases(build, d):
    """SIGHUP, SIGINT twice and SIGQUIT to `run` while its ranks measure."""
    results = []
    bench = os.path.join(build, "bin", "canzona-bench")
    for what, signals, expected in [("SIGHUP to run while measuring", [signal.SIGHUP], {129}),
                                    ("SIGINT twice to run", [signal.SIGINT, signal.SIGINT], {130}),
                                    ("SIGTERM to ab during a sample", [signal.SIGTERM], {143})]:
        tmp = tempfile.mkdtemp(dir=d)
        env = dict(os.environ, TMPDIR=tmp)
        out = os.path.join(d, "sig.json")
        argv = [bench, "run", "--preset", "smoke", "--out", out]
        if "ab" in what:
            argv = [bench, "ab", "--base", bench, "--head", bench, "--pairs", "2",
                    "--filter", "^OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1$"]
        start = time.time()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        time.sleep(3.0)
        for s in signals:
            p.send_signal(s)
            time.sleep(0.05)
        try:
            _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        err = err.decode(errors="replace")
        seconds = time.time() - start
        time.sleep(1.0)
        left = subprocess.run(["pgrep", "-f", tmp], capture_output=True, text=True).stdout.split()
        problems = judge(p.returncode, expected, err, seconds, 60)
        if left:
            problems.append("{} process(es) left".format(len(left)))
        if os.listdir(tmp):
            problems.append("scratch left: " + ", ".join(os.listdir(tmp)))
        if os.path.exists(out):
            problems.append("output written")
        results.append((what, " ".join(["canzona-bench"] + argv[1:3]) + " ...", p.returncode,
                        seconds, first_line(err), problems))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    d = tempfile.mkdtemp(prefix="canzona-hostile-")
    results = []
    try:
        make_files(d)
        for case in cases(d):
            what, argv, _, expected = case[:4]
            env = dict(os.environ, **(case[4] if len(case) > 4 else {}))
            program = os.path.join(build, "bin", "canzona-bench")
            if argv[0].startswith("@"):
                program = os.path.join(build, "bin", argv[0][1:])
                argv = argv[1:]
            start = time.time()
            try:
                p = subprocess.run([program] + argv, capture_output=True, env=env, timeout=60,
                                   cwd=d)
                code, err = p.returncode, p.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                code, err = "timeout", ""
            seconds = time.time() - start
            words = [a.replace(d, "{dir}") for a in [os.path.basename(program)] + argv]
            shown = " ".join(a if len(a) < 40 else a[:20] + "…({} bytes)".format(len(a))
                             for a in words)
            results.append((what, shown, code, seconds, first_line(err).replace(d, "{dir}"),
                            judge(code, expected, err, seconds, 10)))
        results += run_signal_cases(build, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("| # | hostile input | command | exit | s | message | verdict |")
    print("|---:|---|---|---:|---:|---|---|")
    bad = 0
    for i, (what, shown, code, seconds, message, problems) in enumerate(results, 1):
        bad += bool(problems)
        print("| {} | {} | `{}` | {} | {:.2f} | {} | {} |".format(
            i, what, shown.replace("|", "\\|").replace("`", "'"), code, seconds, message,
            "**" + "; ".join(problems) + "**" if problems else "ok"))
    print("\n{} inputs, {} problem(s).".format(len(results), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
