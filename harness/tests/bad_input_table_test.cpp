// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The bad-input table (results/reliability/bad-inputs.md): every bad input below is run through
// the real canzona-bench or suite executable (the suites' shared main, suites/common), must exit
// with the expected code and print the expected message, and the table rendered from what it
// printed must equal the committed file, so the table cannot go stale. After a deliberate change
// of a message, regenerate it (in a build with the suites and libtorch):
//   CANZONA_UPDATE_GOLDEN=1 ctest --test-dir <build> -R BadInputTable
#include <canzona/testing/run_process.hpp>
#include <canzona/testing/seed.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct BadInput {
  std::string what;               ///< the bad input, in words
  std::vector<std::string> args;  ///< program arguments; "{dir}" is the scratch directory
  int exit_code;
  std::string fragment;         ///< must appear in stderr
  bool stdout_to_full = false;  ///< run with stdout on /dev/full
  std::string program = "canzona-bench";
  /// {dir}/existing.json holds earlier results before the run and must hold them after it (the
  /// suites' --benchmark_out), with no temporary file left beside it.
  bool keeps_existing_out = false;
};

constexpr const char* kPreviousResults = "previous results\n";

#ifdef CANZONA_PLANNER_EXE
// One benchmark of the planner suite, quick enough for a test.
constexpr const char* kOnePlannerBenchmark =
    "--benchmark_filter=Planner/zero1/qwen3-8b/gpus:32/dp:8/tp:4$";

// A suite run that must fail with exit 2 and leave an existing --benchmark_out file alone.
BadInput suite_case(std::string what, std::string suite, std::vector<std::string> args,
                    std::string fragment) {
  args.push_back("--benchmark_out={dir}/existing.json");
  if (std::none_of(args.begin(), args.end(),
                   [](const std::string& a) { return a.starts_with("--benchmark_out_format="); })) {
    args.push_back("--benchmark_out_format=json");
  }
  return {std::move(what), std::move(args), 2, std::move(fragment), false, std::move(suite), true};
}
#endif

std::string executable(const std::string& program) {
  if (program == "canzona-bench") return CANZONA_BENCH_EXE;
#ifdef CANZONA_PLANNER_EXE
  if (program == "canzona_bench_planner") return CANZONA_PLANNER_EXE;
  if (program == "canzona_bench_kernels") return CANZONA_KERNELS_EXE;
#endif
#ifdef CANZONA_E2E_EXE
  if (program == "canzona_bench_e2e_iteration") return CANZONA_E2E_EXE;
#endif
  ADD_FAILURE() << "no executable for " << program;
  return program;
}

std::string npy_header(const std::string& shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

std::string npy_floats(const std::string& shape, const std::vector<float>& values) {
  std::string out = npy_header(shape);
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The scratch files the cases refer to.
void make_inputs(const fs::path& dir) {
  fs::create_directories(dir / "a-directory");
  fs::create_directories(dir / "used-folder");
  write(dir / "used-folder" / "notes.txt", "kept");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  write(dir / "overflow.npy", npy_header("(4294967296, 4294967296)"));
  write(dir / "param.npy", npy_floats("(2, 2)", {0.1f, 0.2f, 0.3f, 0.4f}));
  write(dir / "nan-param.npy", npy_floats("(2, 2)", {0.1f, nan, 0.3f, 0.4f}));
  write(dir / "grad.npy", npy_floats("(2, 2)", {0.01f, 0.02f, 0.03f, 0.04f}));
  write(dir / "huge-grad.npy", npy_floats("(2, 2)", {1e19f, 0.02f, 0.03f, 0.04f}));
  const std::string level = R"("step_latency_us": 1, "busbw_gbps": 100)";
  write(dir / "wide-node.json", R"({"name": "t", "gpus_per_node": 99999999999, "intra_node": {)" +
                                    level + R"(}, "inter_node": {)" + level + "}}");
  write(dir / "slow-link.json",
        R"({"name": "t", "gpus_per_node": 8, "intra_node": {"step_latency_us": 1e308, )"
        R"("busbw_gbps": 100}, "inter_node": {)" +
            level + "}}");
  const std::string limits = R"({"hidden_size": 16777216, "intermediate_size": 16777216,
    "num_hidden_layers": 16777216, "num_attention_heads": 16777216, "num_key_value_heads": 1,
    "head_dim": 16777216, "vocab_size": 16777216})";
  write(dir / "limits.json", limits);
  const std::string context = R"("context": {"canzona_git_sha": "abc", "canzona_build_type":
    "Release", "canzona_config": "cuda=0", "device_kind": "cpu"})";
  write(dir / "negative-time.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5, "real_time": -1,
        "cpu_time": 1, "time_unit": "ns"}]})");
  write(dir / "good-run.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5, "real_time": 1,
        "cpu_time": 1, "time_unit": "ns"}]})");
  // Times and counters that would overflow the results commands' arithmetic (issue class:
  // numbers that overflow into verdicts).
  write(dir / "huge-time.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5, "real_time": 1e308,
        "cpu_time": 1, "time_unit": "s"}]})");
  write(dir / "tiny-time.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5, "real_time": 1e-300,
        "cpu_time": 1, "time_unit": "ns"}]})");
  write(dir / "huge-counter.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5, "real_time": 1,
        "cpu_time": 1, "time_unit": "ns", "comm_bytes": -1e300}]})");
  write(dir / "wrong-type-plan.json",
        R"({"model": {"name": "m"}, "strategy": "canzona", "parallel": {"dp": 2, "tp": 1},
        "options": {"cost": "flops"}, "imbalance": 1.0, "ranks": [{"cost": "high"}]})");
  write(dir / "zero-iterations.json",
        "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 0, "real_time": 1,
        "cpu_time": 1, "time_unit": "ns"}]})");
  // Histories of nightly runs for drift: two nights, and three with one that is not a run.
  const std::string night = "{" + context + R"(, "benchmarks": [{"name": "a", "iterations": 5,
        "real_time": 1, "cpu_time": 1, "time_unit": "ms"}]})";
  for (const char* folder : {"two-nights", "bad-night"}) {
    fs::create_directories(dir / folder);
    write(dir / folder / "2026-11-01-abc.json", night);
    write(dir / folder / "2026-11-02-abc.json", night);
  }
  write(dir / "bad-night" / "2026-11-03-abc.json", R"({"context": {)");
}

// The shared suite main (suites/common), through two suites; empty when suites are not built.
std::vector<BadInput> suite_bad_inputs() {
#ifdef CANZONA_PLANNER_EXE
  const std::string planner = "canzona_bench_planner";
  const std::string kernels = "canzona_bench_kernels";
  BadInput full_stdout{"suite stdout on a full device",
                       {kOnePlannerBenchmark, "--benchmark_min_time=0.001"},
                       2,
                       "cannot write to standard output",
                       true,
                       planner};
  return {
      suite_case("suite: a filter that matches nothing", planner,
                 {"--benchmark_filter=NoSuchBenchmark"},
                 "no benchmark matches --benchmark_filter=NoSuchBenchmark"),
      suite_case("suite: a filter that is not a regular expression", planner,
                 {"--benchmark_filter=("}, "not a valid pattern"),
      suite_case("suite: a filter that backtracks for minutes in std::regex", planner,
                 {"--benchmark_filter=(.*.*)*X"},
                 "no benchmark matches --benchmark_filter=(.*.*)*X"),
      suite_case("suite: zero repetitions", planner, {"--benchmark_repetitions=0"},
                 "--benchmark_repetitions: 0 is out of range"),
      suite_case("suite: an unknown console format", planner, {"--benchmark_format=xml"},
                 "--benchmark_format=xml: unknown format"),
      suite_case("suite: an unknown output format", planner, {"--benchmark_out_format=xml"},
                 "--benchmark_out_format=xml: unknown format"),
      suite_case("suite: a suite flag it does not have", planner, {"--canzona_nope=1"},
                 "this suite has no flag --canzona_nope"),
      suite_case("suite: --canzona_max_gflop=-1", kernels, {"--canzona_max_gflop=-1"},
                 "--canzona_max_gflop: -1 is out of range"),
      suite_case("suite: --canzona_max_gflop=nan", kernels, {"--canzona_max_gflop=nan"},
                 "--canzona_max_gflop: nan is not a number"),
      full_stdout,
  };
#else
  return {};
#endif
}

// The end-to-end suite's checks of its cases, all made before anything is allocated; empty
// when the suite is not built (no libtorch).
std::vector<BadInput> e2e_bad_inputs() {
#ifdef CANZONA_E2E_EXE
  const std::string e2e = "canzona_bench_e2e_iteration";
  return {
      suite_case("e2e: sequence length 0", e2e, {"--canzona_seq=0"},
                 "sequence length 0 is invalid"),
      suite_case("e2e: micro-batch 0", e2e, {"--canzona_mbs=0"}, "micro-batch size 0 is invalid"),
      suite_case("e2e: TP that does not divide the heads", e2e, {"--canzona_tp=3"},
                 "tp=3 does not divide num_attention_heads"),
      suite_case(
          "e2e: a model too large for the rank's memory", e2e,
          {"--canzona_models=qwen3-8b", "--canzona_seq=4096", "--canzona_rank_memory_gib=16"},
          "but 16.00 GiB are available"),
      suite_case("e2e: unknown strategy", e2e, {"--canzona_strategies=canzona,bogus"},
                 "unknown strategy 'bogus'"),
      suite_case("e2e: unknown optimizer", e2e, {"--canzona_optimizers=adam"},
                 "unknown optimizer 'adam'"),
  };
#else
  return {};
#endif
}

std::vector<BadInput> bad_inputs() {
  const std::vector<std::string> step = {"step", "--optimizer", "muon", "--out", "{dir}/out.npy"};
  auto with = [](std::vector<std::string> base, std::initializer_list<std::string> more) {
    base.insert(base.end(), more);
    return base;
  };
  return {
      {".npy whose element count overflows int64",
       with(step, {"--param", "{dir}/overflow.npy", "--grad", "{dir}/overflow.npy"}), 2,
       "overflows 64 bits"},
      {"a directory as .npy",
       with(step, {"--param", "{dir}/a-directory", "--grad", "{dir}/grad.npy"}), 2,
       "is a directory, not a regular file"},
      {"NaN in the parameter",
       with(step, {"--param", "{dir}/nan-param.npy", "--grad", "{dir}/grad.npy"}), 2,
       "parameter element 1 is nan"},
      {"--lr 1e308 overflows the step",
       with(step, {"--param", "{dir}/param.npy", "--grad", "{dir}/grad.npy", "--lr", "1e308"}), 2,
       "from finite inputs"},
      {"Shampoo on a 1e19 gradient (fp32 statistics overflow)",
       {"step", "--optimizer", "shampoo", "--param", "{dir}/param.npy", "--grad",
        "{dir}/huge-grad.npy", "--out", "{dir}/out.npy"},
       2,
       "the largest magnitude an fp32 shampoo step"},
      {"--out /dev/full (a device)",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon", "--out",
        "/dev/full"},
       2,
       "is a character device"},
      {"stdout on a full device", {"models"}, 2, "cannot write to standard output", true},
      {"huge --dp",
       {"plan", "--model", "qwen3-8b", "--dp", "100000000"},
       2,
       "--dp: 100000000 is out of range; expected an integer in [1, 65536]"},
      {"huge --gpus",
       {"project", "--model", "qwen3-8b", "--gpus", "99999999999", "--optimizer", "muon"},
       2,
       "--gpus: 99999999999 is out of range"},
      {"--dp that is not a number",
       {"plan", "--model", "qwen3-8b", "--dp", "many"},
       2,
       "--dp: 'many' is not an integer"},
      {"--alpha nan",
       {"plan", "--model", "qwen3-8b", "--dp", "8", "--alpha", "nan"},
       2,
       "--alpha: nan is not a number; expected a number in [0, 1]"},
      {"model spec at the documented 2^24 limits",
       {"plan", "--model", "{dir}/limits.json", "--dp", "8"},
       2,
       "at most 4.4e+12 (2^42) fit"},
      {"a directory as --model",
       {"plan", "--model", "{dir}/a-directory", "--dp", "8"},
       2,
       "is a directory, not a regular file"},
      {"a directory to validate", {"validate", "{dir}/a-directory"}, 2, "is a directory"},
      {"a directory to calibrate",
       {"calibrate", "--nccl-tests", "{dir}/a-directory", "--out", "{dir}/t.json"},
       2,
       "is a directory"},
      {"topology gpus_per_node 99999999999",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon", "--topology",
        "{dir}/wide-node.json"},
       2,
       "must be an integer in [1, 65536], got 99999999999"},
      {"topology step_latency_us 1e308",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon", "--topology",
        "{dir}/slow-link.json"},
       2,
       "must be in [0, 1e+08] µs, got 1e+308"},
      {"empty strategy in canzona,,sc",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon", "--strategy",
        "canzona,,sc"},
       2,
       "the list has an empty name"},
      {"--per-rank without --json",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon", "--per-rank"},
       2,
       "--per-rank adds every rank's timeline to the JSON output; it needs --json"},
      {"validate: a negative time",
       {"validate", "{dir}/negative-time.json"},
       2,
       "'real_time' is -1, but a time must be finite and >= 0"},
      {"validate: a time of 1e308 s (overflows to inf in ms)",
       {"validate", "{dir}/huge-time.json"},
       2,
       "'real_time' is 1e+308 s, outside any benchmark's times"},
      {"compare: a time of 1e308 s on both sides",
       {"compare", "{dir}/huge-time.json", "{dir}/huge-time.json"},
       2,
       "'real_time' is 1e+308 s, outside any benchmark's times"},
      {"table: a time of 1e308 s",
       {"table", "{dir}/huge-time.json"},
       2,
       "'real_time' is 1e+308 s, outside any benchmark's times"},
      {"compare: a time of 1e-300 ns (ratios against it overflow)",
       {"compare", "{dir}/good-run.json", "{dir}/tiny-time.json"},
       2,
       "'real_time' is 1e-300 ns, outside any benchmark's times"},
      {"table: a counter of -1e300",
       {"table", "{dir}/huge-counter.json"},
       2,
       "counter 'comm_bytes' is -1e+300, beyond any counter a suite writes"},
      {"validate: zero iterations",
       {"validate", "{dir}/zero-iterations.json"},
       2,
       "'iterations' is 0"},
      {"unknown --plan-preset (by its old name --preset)",
       {"plan", "--model", "qwen3-8b", "--dp", "8", "--preset", "fast"},
       2,
       "--plan-preset: unknown preset 'fast'; choose one of: megatron, canzona-reference"},
      {"--tp-execution with TP-SC",
       {"plan", "--model", "qwen3-8b", "--dp", "4", "--tp", "2", "--strategy", "sc",
        "--tp-execution", "serial"},
       2,
       "--tp-execution applies to TP sides with micro-groups"},
      {"bf16 gradient reduction with fp32 parameters",
       {"plan", "--model", "qwen3-8b", "--dp", "8", "--param-dtype", "fp32", "--grad-reduce-dtype",
        "bf16"},
       2,
       "gradients reduced in bf16 need bf16 model parameters"},
      {"--gemm-efficiency not increasing",
       {"project", "--model", "qwen3-0.6b", "--gpus", "8", "--optimizer", "muon",
        "--gemm-efficiency", "0.7,0.4"},
       2,
       "give increasing fractions in (0, 1]"},
      {"compare: --threshold -1",
       {"compare", "{dir}/good-run.json", "{dir}/good-run.json", "--threshold", "-1"},
       2,
       "--threshold: -1 is out of range; expected a finite number >= 0"},
      {"compare: --alpha 2",
       {"compare", "{dir}/good-run.json", "{dir}/good-run.json", "--alpha", "2"},
       2,
       "--alpha must be in (0, 1), got 2"},
      {"compare: a directory as a run",
       {"compare", "{dir}/a-directory", "{dir}/good-run.json"},
       2,
       "is a directory, not a regular file"},
      {"table: a filter that backtracks for minutes in std::regex",
       {"table", "{dir}/good-run.json", "--filter", "(.*.*)*X"},
       2,
       "matches --filter '(.*.*)*X'"},
      {"run: a filter that is not a pattern",
       {"run", "--preset", "smoke", "--filter", "(a"},
       2,
       "--filter '(a': not a valid pattern"},
      {"a mistyped flag",
       {"compare", "{dir}/good-run.json", "{dir}/good-run.json", "--threshhold", "3"},
       2,
       "compare has no flag --threshhold; did you mean --threshold?"},
      {"a mistyped command", {"plna"}, 2, "unknown command 'plna'; did you mean plan?"},
      {"--out given an empty word (an unset variable)",
       {"table", "{dir}/good-run.json", "--out", ""},
       2,
       "table --out needs a path, not an empty word"},
      {"report into a folder that holds other files",
       {"report", "{dir}/good-run.json", "--out", "{dir}/used-folder"},
       2,
       "exists and is not an empty folder; remove it or choose a new folder"},
      {"report into a folder whose parent is missing",
       {"report", "{dir}/good-run.json", "--out", "{dir}/missing/report"},
       2,
       "/missing' does not exist"},
      {"run --ranks 0 (a range in words)",
       {"run", "--ranks", "0"},
       2,
       "--ranks: 0 is out of range; expected an integer in [1, 65536]"},
      {"table: unknown --format",
       {"table", "{dir}/good-run.json", "--format", "xml"},
       2,
       "--format: xml not in {md,csv,latex,html}"},
      {"plot: a directory as --plan",
       {"plot", "--plan", "{dir}/a-directory", "--out", "{dir}/figures"},
       2,
       "plan JSON"},
      {"plot: a plan whose rank cost is text",
       {"plot", "--plan", "{dir}/wrong-type-plan.json", "--out", "{dir}/plan-figures"},
       2,
       "is not the output of 'canzona-bench plan --json'"},
      {"table: --out is its input",
       {"table", "{dir}/good-run.json", "--out", "{dir}/good-run.json"},
       2,
       "the result would replace what it is computed from"},
      {"compare: --out is the head run",
       {"compare", "{dir}/good-run.json", "{dir}/good-run.json", "--out", "{dir}/good-run.json"},
       2,
       "the result would replace what it is computed from"},
      {"step: --out is the parameter",
       {"step", "--optimizer", "muon", "--param", "{dir}/param.npy", "--grad", "{dir}/grad.npy",
        "--out", "{dir}/param.npy"},
       2,
       "is the input"},
      {"run: --out in a folder that does not exist",
       {"run", "--preset", "smoke", "--out", "{dir}/no-such-folder/run.json"},
       2,
       "does not exist; create it first (nothing was run)"},
      {"run: --out /dev/full",
       {"run", "--preset", "smoke", "--out", "/dev/full"},
       2,
       "is a character device"},
      {"drift: a history folder that does not exist",
       {"drift", "--history", "{dir}/no-such-history"},
       2,
       "does not exist: give the folder of nightly run files"},
      {"drift: a history of two nights",
       {"drift", "--history", "{dir}/two-nights"},
       2,
       "a drift needs at least 3 nights"},
      {"drift: a file in the history that is not a run",
       {"drift", "--history", "{dir}/bad-night", "--out", "{dir}/drift.json"},
       2,
       "repair this one or move it out"},
      {"drift: its JSON report inside the history",
       {"drift", "--history", "{dir}/two-nights", "--out", "{dir}/two-nights/drift.json"},
       2,
       "the next drift would read it as a night's run"},
      {"drift: --min-runs above --last",
       {"drift", "--history", "{dir}/two-nights", "--last", "7", "--min-runs", "9"},
       2,
       "--min-runs 9: give at least 3 and at most --last (7)"},
      {"promote: a directory as the run",
       {"promote", "{dir}/a-directory", "--to", "{dir}/reference/cpu"},
       2,
       "is a directory, not a regular file"},
  };
}

// The line of stderr that carries the expected fragment (the first line when none does).
std::string error_line(const std::string& err, const std::string& fragment) {
  std::size_t at = err.find(fragment);
  if (at == std::string::npos) at = 0;
  const std::size_t begin = err.rfind('\n', at) == std::string::npos ? 0 : err.rfind('\n', at) + 1;
  return err.substr(begin, err.find('\n', at) - begin);
}

std::string render(const std::vector<std::pair<BadInput, std::string>>& rows) {
  std::string out =
      "<!-- Generated by harness/tests/bad_input_table_test.cpp; do not edit by hand. -->\n"
      "# Bad inputs and what canzona-bench and the suites answer\n\n"
      "Every row is run by the test `BadInputTable` against the real executable (`{dir}` is a "
      "scratch directory; a suite row also checks that the earlier results in "
      "`{dir}/existing.json` are left untouched); the test fails when an exit code or message "
      "changes and this file "
      "was not regenerated (`CANZONA_UPDATE_GOLDEN=1 ctest -R BadInputTable`). Exit codes: 2 bad "
      "input or an output that cannot be written, 3 internal error (none here).\n\n"
      "| bad input | command | exit | message |\n|---|---|---|---|\n";
  for (const auto& [input, message] : rows) {
    std::string command = input.program;
    for (const std::string& a : input.args) command += " " + a;
    if (input.stdout_to_full) command += " > /dev/full";
    std::string cell = message;
    for (char& c : cell) {
      if (c == '|') c = '/';
    }
    out += fmt::format("| {} | `{}` | {} | {} |\n", input.what, command, input.exit_code, cell);
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(BadInputTable, EveryBadInputGetsItsExitCodeAndMessage) {
  const fs::path dir = fs::temp_directory_path() /
                       ("canzona-bad-inputs-" + std::to_string(canzona::testing::test_seed()));
  fs::create_directories(dir);
  make_inputs(dir);
  std::vector<BadInput> inputs = bad_inputs();
  const std::vector<BadInput> suites = suite_bad_inputs();
  inputs.insert(inputs.end(), suites.begin(), suites.end());
  const std::vector<BadInput> e2e = e2e_bad_inputs();
  inputs.insert(inputs.end(), e2e.begin(), e2e.end());
  std::vector<std::pair<BadInput, std::string>> rows;
  for (const BadInput& input : inputs) {
    SCOPED_TRACE(input.what);
    std::vector<std::string> args;
    for (std::string a : input.args) {
      for (std::size_t p; (p = a.find("{dir}")) != std::string::npos;)
        a.replace(p, 5, dir.string());
      args.push_back(a);
    }
    const fs::path existing = dir / "existing.json";
    if (input.keeps_existing_out) std::ofstream(existing) << kPreviousResults;
    canzona::testing::ProcessResult r;
    if (input.stdout_to_full) {
      std::string command = fmt::format("exec '{}'", executable(input.program));
      for (const std::string& a : args) command += " '" + a + "'";
      r = canzona::testing::run_process("/bin/sh", {"-c", command + " > /dev/full"});
    } else {
      r = canzona::testing::run_process(executable(input.program), args);
    }
    EXPECT_EQ(r.exit_code, input.exit_code) << r.err;
    EXPECT_NE(r.err.find(input.fragment), std::string::npos)
        << "expected '" << input.fragment << "' in:\n"
        << r.err;
    if (!input.stdout_to_full) {
      EXPECT_EQ(r.out, "") << "bad input must print nothing to stdout";
    }
    if (input.keeps_existing_out) {
      EXPECT_EQ(read_file(existing), kPreviousResults) << "the existing output file was changed";
      for (const auto& entry : fs::directory_iterator(dir)) {
        EXPECT_EQ(entry.path().filename().string().find("existing.json."), std::string::npos)
            << "left a temporary file behind: " << entry.path();
      }
    }
    std::string message = error_line(r.err, input.fragment);
    for (std::size_t p; (p = message.find(dir.string())) != std::string::npos;) {
      message.replace(p, dir.string().size(), "{dir}");
    }
    rows.emplace_back(input, message);
  }
  fs::remove_all(dir);

  const std::string table = render(rows);
  const fs::path golden = fs::path(CANZONA_RESULTS_DIR) / "reliability" / "bad-inputs.md";
  const char* update = std::getenv("CANZONA_UPDATE_GOLDEN");
  if (update != nullptr && std::strcmp(update, "1") == 0) {
    if (suites.empty() || e2e.empty()) {
      FAIL() << "regenerate the table in a build with the suites and libtorch";
    }
    std::ofstream(golden) << table;
    GTEST_SKIP() << "regenerated " << golden;
  }
  const std::string committed = read_file(golden);
  if (suites.empty() || e2e.empty()) {
    // A build without the suites or without libtorch (no end-to-end suite) checks its own rows.
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_NE(committed.find(line), std::string::npos)
          << golden << " is stale: it lacks\n"
          << line << "\nregenerate it with "
          << "CANZONA_UPDATE_GOLDEN=1 in a build with the suites and libtorch and commit it";
    }
    return;
  }
  EXPECT_EQ(committed, table)
      << golden << " is stale; regenerate it with CANZONA_UPDATE_GOLDEN=1 and commit it";
}

#ifdef CANZONA_PLANNER_EXE
// The other half of the --benchmark_out rule: a run that succeeds replaces the file, completely.
TEST(BadInputTable, ASuccessfulSuiteRunReplacesItsOutputFile) {
  const fs::path dir = fs::temp_directory_path() /
                       ("canzona-suite-out-" + std::to_string(canzona::testing::test_seed()));
  fs::create_directories(dir);
  const fs::path out = dir / "existing.json";
  std::ofstream(out) << kPreviousResults;
  const canzona::testing::ProcessResult r = canzona::testing::run_process(
      CANZONA_PLANNER_EXE, {kOnePlannerBenchmark, "--benchmark_min_time=0.001",
                            "--benchmark_out=" + out.string(), "--benchmark_out_format=json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(out).find("\"benchmarks\""), std::string::npos) << read_file(out);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left beside the output";
  fs::remove_all(dir);
}

// A folder with an existing output file, for the tests of what a suite does with it.
fs::path folder_with_existing_output(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("canzona-{}-{}", name, canzona::testing::test_seed());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "existing.json") << kPreviousResults;
  return dir;
}

std::size_t files_in(const fs::path& dir) {
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  return files;
}

// Listing prints names and measures nothing: it never opens an output, wherever the flags stand.
TEST(BadInputTable, AListingNeverTouchesTheOutputFile) {
  const fs::path dir = folder_with_existing_output("suite-list");
  const fs::path out = dir / "existing.json";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--benchmark_list_tests", "--benchmark_out=" + out.string()},
        std::vector<std::string>{"--benchmark_out=" + out.string(), "--benchmark_out_format=json",
                                 "--benchmark_list_tests=true"}}) {
    const canzona::testing::ProcessResult r =
        canzona::testing::run_process(CANZONA_PLANNER_EXE, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Planner/"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(out), kPreviousResults) << "listing changed the output file";
    EXPECT_EQ(files_in(dir), 1u) << "listing left a file beside the output";
  }
  fs::remove_all(dir);
}

// SIGTERM (a CI timeout) or SIGINT (Ctrl-C) while a suite measures: the process ends by the
// signal, its scratch output is removed and the existing output is kept as it was.
TEST(BadInputTable, ASignalEndsASuiteWithoutScratchAndKeepsTheOutput) {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    const fs::path dir = folder_with_existing_output("suite-signal");
    const fs::path out = dir / "existing.json";
    const std::string out_flag = "--benchmark_out=" + out.string();
    std::vector<std::string> words = {CANZONA_PLANNER_EXE, out_flag, "--benchmark_out_format=json"};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    // The whole planner suite runs for many seconds; signal it once its scratch file exists.
    bool measuring = false;
    for (int i = 0; i < 600 && !measuring; ++i) {
      measuring = files_in(dir) > 1;
      if (!measuring) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(measuring) << "the suite never created its scratch output";
    ASSERT_EQ(kill(pid, signal_number), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number)
        << "status " << status << " after signal " << signal_number;
    EXPECT_EQ(read_file(out), kPreviousResults) << "the existing output file was changed";
    EXPECT_EQ(files_in(dir), 1u) << "a scratch file was left beside the output";
    fs::remove_all(dir);
  }
}
#endif

}  // namespace
