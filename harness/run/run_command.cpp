// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench run`: measures the optimizer step of every strategy on this machine's ranks. It
// picks the cases of a preset, launches the optimizer-step suite on N ranks (mpirun, srun or a
// given prefix), shows progress, and writes one Google Benchmark JSON with the run's provenance,
// atomically and only when every rank finished and every row checks out.
#include <canzona/bench/presets.hpp>
#include <canzona/comm/timeout.hpp>
#include "child_jobs.hpp"
#include "commands.hpp"
#include "report_text.hpp"
#include "result_checks.hpp"
#include "run_launch.hpp"
#include "run_progress.hpp"
#include "run_report.hpp"

#include <canzona/bench/benchmark_name.hpp>
#include <canzona/bench/flag_checks.hpp>
#include <canzona/bench/gbench_json.hpp>
#include <canzona/bench/launch_report.hpp>
#include <canzona/bench/name_pattern.hpp>
#include <canzona/bench/plan_settings_flags.hpp>
#include <canzona/config.hpp>
#include <canzona/core/child_process.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/gpu_clocks.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/run_series.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/sim/topology.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

namespace canzona::harness {
namespace {

constexpr const char* kSuite = "canzona_bench_optimizer_step";
constexpr const char* kE2ESuite = "canzona_bench_e2e_iteration";

struct RunOptions {
  std::string preset = "smoke";
  std::string backend;  ///< "" = cuda when this machine has a GPU (and the build NCCL), else cpu
  int ranks = 0;        ///< 0 = the preset's
  std::string filter;
  std::string topology = "dgx-h100";
  std::string out;
  std::string launcher = "mpirun";
  int repetitions = 0;  ///< 0 = the preset's
  int seed = 1;
  bool oversubscribe = false;
  bool list = false;
  bool verbose = false;
  std::string suite_dir;
  std::vector<std::string> suite_args;  ///< passed to the optimizer-step suite after the preset's
  std::vector<std::string> e2e_args;    ///< passed to the end-to-end suite after the preset's
  std::unique_ptr<bench::PlanSettingsFlags>
      plan;                       ///< --plan-preset and the switches of every case's plan
  std::vector<std::string> argv;  ///< the command as typed, for provenance
};

// A suite that stopped with an error: its own message is already on stderr. Exit 2 is the
// suites' bad-input code; anything else (a rank aborting the job, a crash) is a failed run.
[[noreturn]] void suite_failed(const std::string& what, int code, const std::string& command) {
  const std::string message = fmt::format(
      "{} failed with exit code {} (its messages are above); nothing was written.\n"
      "  command: {}",
      what, code, command);
  if (code == kExitUsage) throw ConfigError(message);
  throw Error(message);
}

// The launcher must start the suite, on the ranks asked for, before anything is measured: the
// suite's rank 0 says how many ranks its job has (bench/launch_report.hpp).
void check_launch(const std::string& launcher, int ranks, const std::string& what,
                  std::optional<int> reported, int exit_code, const std::string& errors,
                  const std::string& command) {
  if (!reported) {
    // Exit 2 is the suite's own refusal of bad input (a flag it checks before its job reports):
    // suite_failed says that, not the launcher.
    if (exit_code == kExitUsage) return;
    throw ConfigError(fmt::format(
        "--launcher '{}' did not start the {} (no rank of it began; the launcher exited with "
        "code {}{}): a launcher must start the program that follows it on {} rank(s), as "
        "'mpirun -np {}' does; nothing was run.\n  command: {}",
        launcher, what, exit_code, errors.empty() ? "" : " and said: " + one_line(errors), ranks,
        ranks, command));
  }
  if (*reported != ranks) {
    throw ConfigError(fmt::format(
        "--launcher '{}' started the {} on {} rank(s), not the {} asked for (--ranks): give a "
        "launcher that starts exactly that many; nothing was run.\n  command: {}",
        launcher, what, *reported, ranks, command));
  }
}

// What a listing prints is benchmark names; anything else is the launcher's own output (a
// launcher such as `echo` that prints the command instead of running it).
void check_listed_names(const std::string& launcher, const std::string& what,
                        const std::vector<std::string>& cases) {
  for (const std::string& line : cases) {
    try {
      bench::parse_benchmark_name(line);
    } catch (const ConfigError&) {
      throw ConfigError(fmt::format(
          "listing the cases of the {} printed '{}', which is not a benchmark name: check "
          "--launcher '{}' (it must run the suite, not print or wrap its output); nothing was run",
          what, one_line(line), launcher));
    }
  }
}

std::string default_backend(int gpus) {
  return CANZONA_WITH_CUDA && CANZONA_WITH_NCCL && gpus > 0 ? "cuda" : "cpu";
}

int run(const RunOptions& o, std::ostream& out) {
  // From here on an interrupt never kills `run` half-way: it ends the job, the scratch folder
  // goes, nothing is written (child_jobs.hpp).
  InterruptScope interrupts;
  require_release_build(CANZONA_BUILD_TYPE, "canzona-bench was");
  const int gpus = cuda_device_count();
  const std::string backend = o.backend.empty() ? default_backend(gpus) : o.backend;
  if (backend == "cuda" && gpus == 0) {
    throw ConfigError("--backend cuda: this machine has no CUDA device; use --backend cpu");
  }
  const bench::RunPreset preset = bench::run_preset(o.preset, backend, gpus);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int ranks =
      o.ranks > 0 ? o.ranks : (backend == "cpu" ? std::min(preset.ranks, cores) : preset.ranks);
  check_ranks(o.launcher, ranks, backend, o.oversubscribe, cores, gpus);
  if (!o.out.empty()) io::check_output_file(o.out, "--out");        // before minutes of measuring
  if (!o.filter.empty()) bench::NamePattern(o.filter, "--filter");  // the suites' rule, first
  sim::resolve_topology(o.topology);            // a bad topology fails before anything is launched
  comm::collective_timeout_from_environment();  // so does the ranks' collective timeout
  plan::StrategyOptions checked;                // and so do bad plan settings
  o.plan->apply(checked, /*check_sides=*/false);
  const Launch launch = make_launch(o.launcher, ranks, o.oversubscribe, backend == "cpu");

  ScratchDir scratch("canzona-run");
  // The suites of the preset, each with its command and its cases on this many ranks.
  struct SuiteRun {
    std::string what;
    std::filesystem::path executable;
    std::vector<std::string> command;
    std::vector<std::string> cases;
  };
  std::vector<SuiteRun> suites;
  const auto add_suite = [&](std::string what, const char* name,
                             const std::vector<std::string>& flags,
                             const std::vector<std::string>& extra) {
    SuiteRun s{std::move(what), find_suite(name, o.suite_dir), launch.prefix, {}};
    s.command.push_back(s.executable.string());
    s.command.insert(s.command.end(), flags.begin(), flags.end());
    s.command.push_back("--canzona_backend=" + backend);
    s.command.push_back("--canzona_topology=" + o.topology);
    s.command.push_back(fmt::format("--canzona_seed={}", o.seed));
    s.command.push_back("--canzona_plan=" + o.plan->as_flags());
    s.command.insert(s.command.end(), extra.begin(), extra.end());
    if (!o.filter.empty()) s.command.push_back("--benchmark_filter=" + o.filter);
    std::vector<std::string> listing = s.command;
    listing.push_back("--benchmark_list_tests=true");
    LineSplitter list_lines([&](std::string_view line) {
      if (!line.empty()) s.cases.emplace_back(line);
    });
    // A filter may select cases of one suite only: the other's "Failed to match any benchmarks"
    // is not news (the run as a whole reports an empty selection), its errors are.
    std::string list_errors;
    ChildOutput list_output;
    list_output.on_stdout = [&](std::string_view chunk) { list_lines.feed(chunk); };
    list_output.on_stderr = [&](std::string_view chunk) { list_errors += chunk; };
    const std::filesystem::path report =
        scratch.path() / (s.executable.filename().string() + ".launch");
    std::vector<std::string> env = launch.env;
    env.push_back(fmt::format("{}={}", bench::kLaunchReportVariable, report.string()));
    const ChildExit listed = run_child(listing, interruptible(env), list_output);
    throw_if_interrupted(listed, "run");
    check_launch(o.launcher, ranks, s.what, bench::read_launch_report(report), listed.exit_code,
                 list_errors, command_line(listing));
    if (const int code = listed.exit_code; code != 0) {
      std::cerr << list_errors;
      suite_failed(fmt::format("listing the cases of the {}", s.what), code, command_line(listing));
    }
    list_lines.flush();
    check_listed_names(o.launcher, s.what, s.cases);
    // A suite's notes on what it leaves out (e.g. measured rows its build cannot run).
    std::istringstream error_lines(list_errors);
    for (std::string line; std::getline(error_lines, line);) {
      if (line.starts_with("note: ")) std::cerr << "run: " << line.substr(6) << "\n";
    }
    if (!s.cases.empty()) suites.push_back(std::move(s));
  };
  // The suites read the preset's grids themselves (lib/bench/presets); run names the preset.
  const std::vector<std::string> grid_flag = {"--canzona_preset=" + preset.name};
  add_suite("optimizer-step suite", kSuite, grid_flag, o.suite_args);
  if (preset.e2e) {
    // The end-to-end suite is optional: a build without libtorch has none, and an install or a
    // GPU bundle may leave it out (it links libtorch). Its rows are then missing, said so.
    if (!CANZONA_WITH_TORCH) {
      std::cerr << "run: no E2EIteration rows: this build has no libtorch (CANZONA_ENABLE_TORCH)\n";
    } else if (!suite_exists(kE2ESuite, o.suite_dir)) {
      std::cerr << fmt::format(
          "run: no E2EIteration rows: the end-to-end suite {} is not beside "
          "the other suites (an install without libtorch's component)\n",
          kE2ESuite);
    } else {
      add_suite("end-to-end suite", kE2ESuite, grid_flag, o.e2e_args);
    }
  }
  std::size_t case_count = 0;
  for (const SuiteRun& s : suites) case_count += s.cases.size();
  if (case_count == 0) {
    throw ConfigError(fmt::format(
        "--filter '{}' matches none of the cases of preset '{}' on {} rank(s); run with --list "
        "and without --filter to see them",
        o.filter, o.preset, ranks));
  }
  if (o.list) {
    for (const SuiteRun& s : suites) {
      for (const std::string& c : s.cases) out << c << "\n";
    }
    return kExitOk;
  }

  const int repetitions = o.repetitions > 0 ? o.repetitions : preset.repetitions;
  std::cerr << fmt::format("run: preset {} ({}), {} case(s) on {} {} rank(s)\n", preset.name,
                           preset.description, case_count, ranks, backend);
  std::vector<nlohmann::json> documents;
  std::vector<std::string> portable_commands;
  std::vector<std::string> executables;
  std::vector<std::string> suite_jsons;
  const auto start = std::chrono::steady_clock::now();
  for (SuiteRun& s : suites) {
    const std::filesystem::path suite_json =
        scratch.path() / (s.executable.filename().string() + ".json");
    s.command.push_back(fmt::format("--benchmark_repetitions={}", repetitions));
    s.command.push_back(fmt::format("--benchmark_min_time={}", preset.min_time));
    s.command.push_back("--benchmark_color=false");
    s.command.push_back("--benchmark_counters_tabular=false");
    std::vector<std::string> running = s.command;
    running.push_back("--benchmark_out=" + suite_json.string());
    running.push_back("--benchmark_out_format=json");

    RunProgress progress(s.cases, std::cerr);
    LineSplitter run_lines([&](std::string_view line) {
      if (o.verbose) std::cerr << line << "\n";
      progress.on_line(line);
    });
    // The suite's stderr (Google Benchmark's context block, the ranks' messages) is shown when
    // it fails, or with --verbose.
    std::string suite_errors;
    ChildOutput run_output;
    run_output.on_stdout = [&](std::string_view chunk) { run_lines.feed(chunk); };
    run_output.on_stderr = [&](std::string_view chunk) {
      if (o.verbose) std::cerr << chunk;
      suite_errors.append(chunk);
    };
    const ChildExit ran = run_child(running, interruptible(launch.env), run_output);
    throw_if_interrupted(ran, "run");
    if (const int code = ran.exit_code; code != 0) {
      if (!o.verbose) std::cerr << suite_errors;
      suite_failed("the " + s.what, code, command_line(s.command));
    }
    run_lines.flush();
    documents.push_back(bench::read_gbench_document(suite_json));
    suite_jsons.push_back(suite_json.string());
    // The suite by its name: a stored run must not carry the folders of the machine it ran on.
    std::vector<std::string> portable = s.command;
    std::replace(portable.begin(), portable.end(), s.executable.string(),
                 s.executable.filename().string());
    portable_commands.push_back(command_line(portable));
    executables.push_back(s.executable.filename().string());
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // results/SCHEMA.md: the suites wrote the build, devices, MPI library, ranks, backend,
  // topology, seed and plan settings (the first suite's context); the run adds how it was
  // launched, one command per suite, and the GPU's clocks (read here, not in the ranks: an MPI
  // process should not fork).
  std::map<std::string, std::string> provenance = {
      {"canzona_command", command_line(o.argv)},
      {"canzona_suite_command", fmt::format("{}", fmt::join(portable_commands, " ; "))},
      {"executable", fmt::format("{}", fmt::join(executables, ","))},
      {"canzona_preset", preset.name},
      {"launcher", o.launcher},
      {"canzona_filter", o.filter},
      {"canzona_repetitions", std::to_string(repetitions)},
      {"canzona_wall_s", fmt::format("{:.1f}", wall)}};
  if (backend == "cuda") {
    if (std::string clocks = gpu_application_clocks(); !clocks.empty()) {
      provenance["gpu_clocks"] = std::move(clocks);
    }
  }
  nlohmann::json merged = merge_runs(documents, provenance);
  const bench::BenchmarkFile file = bench::parse_gbench_json(merged, "the merged run");
  require_canzona_provenance(file.context, "the merged run", /*allow_debug=*/false);
  if (file.context.at("ranks") != std::to_string(ranks)) {
    throw Error(fmt::format("the suite ran on {} rank(s), not the {} asked for; check --launcher",
                            file.context.at("ranks"), ranks));
  }
  const Run merged_run = make_run(file, "the merged run");
  check_names_and_projections(merged_run);
  if (const int bad = report_bad_rows(file, std::cerr); bad > 0) {
    scratch.keep();
    std::cerr << fmt::format(
        "run: {} row(s) failed or are malformed; nothing was written (the suite's own output is "
        "kept in {})\n",
        bad, fmt::format("{}", fmt::join(suite_jsons, ", ")));
    return kExitRegression;
  }
  throw_if_interrupt_pending("run");
  if (!o.out.empty()) io::write_file_atomically(o.out, merged.dump(2) + "\n");
  out << fmt::format("canzona-bench run --preset {}: {} case(s), {} {} rank(s), {:.1f} s{}\n\n",
                     preset.name, case_count, ranks, backend, wall,
                     o.out.empty() ? "" : ", written to " + o.out);
  out << format_run_summary(merged_run);
  return kExitOk;
}

}  // namespace

CommandAction add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Measure the optimizer step of every strategy on this machine's ranks (the optimizer-step "
      "suite under mpirun) and write one Google Benchmark JSON with provenance");
  cmd->add_option("--preset", o->preset,
                  fmt::format("Cases to run: {}", fmt::join(bench::run_preset_names(), ", ")))
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "cpu or cuda (default: cuda when a GPU is present)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--ranks", o->ranks,
                  "Ranks (processes) to run on (default: the preset's; one per GPU on cuda)")
      ->check(bench::integer_in(bench::kRanks));
  cmd->add_option("--filter", o->filter,
                  "Only cases whose name matches this pattern (RE2; --benchmark_filter)");
  cmd->add_option("--topology", o->topology,
                  "Cluster of the projected rows: a preset or a topology JSON file")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write the run's JSON here (atomically, only on success)");
  cmd->add_option("--launcher", o->launcher,
                  "mpirun, srun, or a command prefix that starts the ranks (e.g. \"mpirun -np 16 "
                  "--hostfile hosts\")")
      ->capture_default_str();
  cmd->add_option("--repetitions", o->repetitions, "Repetitions per case (default: the preset's)")
      ->check(bench::integer_in(bench::kRepetitions));
  cmd->add_option("--seed", o->seed,
                  "Parameter and gradient values (each rank's a function of the seed and the rank)")
      ->capture_default_str()
      ->check(bench::integer_in(bench::kSeed));
  cmd->add_flag("--oversubscribe", o->oversubscribe,
                "Allow more CPU ranks than cores (mpirun --oversubscribe; timings mean little)");
  cmd->add_flag("--list", o->list, "Print the cases and exit");
  cmd->add_flag("--verbose", o->verbose, "Show the suite's own console output");
  cmd->add_option("--suite-arg", o->suite_args,
                  "Pass this argument to the optimizer-step suite after the preset's "
                  "(repeatable), e.g. "
                  "--suite-arg=--canzona_models=qwen3-4b~d16");
  cmd->add_option("--e2e-arg", o->e2e_args,
                  "Pass this argument to the end-to-end suite after the preset's (repeatable), "
                  "e.g. --e2e-arg=--canzona_seq=128");
  cmd->add_option("--suite-dir", o->suite_dir,
                  "Folder of the suite executables (default: next to canzona-bench)");
  // The plan settings of `plan` and `project`; --preset is this command's case preset.
  o->plan = std::make_unique<bench::PlanSettingsFlags>(*cmd, /*old_name_too=*/false);
  return [o, cmd](std::ostream& out) {
    o->argv = {"canzona-bench", "run"};
    for (const CLI::Option* option : cmd->get_options()) {
      for (const std::string& value : option->results()) {
        o->argv.push_back(option->get_name(false, true));
        if (option->get_expected_min() > 0) o->argv.push_back(value);  // flags take no value
      }
    }
    return run(*o, out);
  };
}

}  // namespace canzona::harness
