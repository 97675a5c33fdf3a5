// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench plot`: figures of a run (latency vs GPU count, phase breakdown), of plans
// (per-rank load bars) or of a folder of nightly runs (trend). The harness reads and interprets
// the files (one parser of names); the drawing is harness/plot/canzona_plot.py, run with
// Debian's matplotlib through /usr/bin/python3.
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/run_series.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/plan/step_plan.hpp>

#include <fmt/format.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <vector>

namespace canzona::harness {
namespace {

namespace fs = std::filesystem;

// The phases of an optimizer step, in execution order (plan::reported_phase_names), and the
// straggler's time outside them (results/SCHEMA.md): stacked they make the step. `idle` is not
// stacked: it is the part of the phases spent blocked on collectives. The drawing script stacks
// them in this order.
std::vector<std::string> step_phases() {
  std::vector<std::string> phases(plan::reported_phase_names().begin(),
                                  plan::reported_phase_names().end());
  phases.emplace_back("other");
  return phases;
}

// The parts of a training iteration (E2EIteration, results/SCHEMA.md) in the order they run.
// Measured rows have forward, backward, optimizer (`step_ms`) and other; projected rows have
// forward, backward, the TP all-reduces, the exposed DP sync and the exposed optimizer step,
// which add up to the projected iteration.
std::vector<std::string> e2e_phases() {
  return {"forward", "backward", "tp_comm", "dp_sync_exposed", "optimizer", "other"};
}

nlohmann::json step_phase_times(const Series& s) {
  nlohmann::json phases = nlohmann::json::object();
  for (const std::string& phase : step_phases()) {
    if (const auto v = s.counter(phase + "_ms")) phases[phase] = *v;
  }
  return phases;
}

nlohmann::json e2e_phase_times(const Series& s) {
  nlohmann::json phases = nlohmann::json::object();
  double named = 0.0;
  const auto add = [&](const std::string& phase, const std::string& counter) {
    if (const auto v = s.counter(counter)) {
      phases[phase] = *v;
      named += *v;
    }
  };
  add("forward", "forward_ms");
  add("backward", "backward_ms");
  add("tp_comm", "tp_comm_ms");
  add("dp_sync_exposed", "dp_sync_exposed_ms");
  add("optimizer", s.projected() ? "optimizer_exposed_ms" : "step_ms");
  // Counters are medians over repetitions, and medians do not add up: `other` is the rest of
  // the median iteration, so the stack is the iteration the latency figure shows.
  if (!s.projected() && s.counter("other_ms"))
    phases["other"] = std::max(0.0, s.median_ms() - named);
  return phases;
}

nlohmann::json phase_times(const Series& s) {
  return s.name.family == "E2EIteration" ? e2e_phase_times(s) : step_phase_times(s);
}

// Linear interpolation between the order statistics (the usual "type 7" quantile).
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}

// What a figure says about where its run was made (the footer of a projection names the host
// that computed it rather than presenting it as the measured machine).
nlohmann::json source_json(const Run& run) {
  return {{"file", fs::path(run.source).filename().string()},
          {"git", run.context_or("canzona_git_sha", "?")},
          {"build", run.context_or("canzona_build_type", "?")},
          {"date", run.context_or("date", "?")},
          {"host", run.context_or("host_name", "?")}};
}

// Trend figures with more lines than this are unreadable.
constexpr std::size_t kMaxHistoryLines = 12;

struct PlotOptions {
  std::string run;
  std::string history;
  std::vector<std::string> plans;
  std::string out;
  std::string format = "png";
  std::string filter;
  bool allow_debug = false;
};

nlohmann::json series_json(const Run& run, const Series& s) {
  // The paper's metric beside the full step where the row has it (results/SCHEMA.md).
  const std::optional<double> optimizer_ms = s.counter("optimizer_ms");
  return {{"name", s.name.key},
          {"family", s.name.family},
          {"optimizer", s.name.optimizer},
          {"strategy", s.name.strategy},
          {"model", s.name.model},
          {"gpus", s.name.gpus.value_or(0)},
          {"dp", s.name.dp.value_or(0)},
          {"tp", s.name.tp.value_or(0)},
          {"projected", s.projected()},
          {"topology", s.projected() ? projection_topology(run, s) : ""},
          {"median_ms", s.median_ms()},
          {"optimizer_ms", optimizer_ms ? nlohmann::json(*optimizer_ms) : nlohmann::json()},
          {"cv", s.cv()},
          {"phases", phase_times(s)}};
}

nlohmann::json run_data(const PlotOptions& o) {
  const Run run = read_run(o.run);
  require_canzona_provenance(run.context, run.source, o.allow_debug);
  const std::optional<bench::NamePattern> filter = name_filter(o.filter);
  nlohmann::json series = nlohmann::json::array();
  for (const Series& s : run.series) {
    if (s.error || s.name.strategy.empty()) continue;
    if (filter && !filter->matches(bench::registered_name(s.name))) continue;
    series.push_back(series_json(run, s));
  }
  if (series.empty()) {
    throw ConfigError(
        fmt::format("{}: no benchmark with a strategy in its name{} to plot "
                    "(OptimizerStep, E2EIteration or Planner rows)",
                    run.source, o.filter.empty() ? "" : " matches --filter"));
  }
  return {{"kind", "run"},
          {"provenance", provenance_lines(run)},
          {"source", source_json(run)},
          {"phase_order", {{"OptimizerStep", step_phases()}, {"E2EIteration", e2e_phases()}}},
          {"series", std::move(series)}};
}

// One benchmark of one night: its median and the spread of its repetitions (the band of the
// trend), and whether it is a projection.
nlohmann::json history_row(const Run& run, const Series& s) {
  const double median = s.median_ms();
  const bool spread = !s.samples_ms.empty();
  return {{"median", median},
          {"q1", spread ? quantile(s.samples_ms, 0.25) : median},
          {"q3", spread ? quantile(s.samples_ms, 0.75) : median},
          {"projected", s.projected()},
          {"topology", s.projected() ? projection_topology(run, s) : ""}};
}

nlohmann::json history_data(const PlotOptions& o) {
  const std::vector<Run> history = read_history(o.history, "--history");  // oldest first
  if (history.size() < 2) {
    throw ConfigError(fmt::format("--history '{}' holds {} run file(s); a trend needs two",
                                  o.history, history.size()));
  }
  const std::optional<bench::NamePattern> filter = name_filter(o.filter);
  nlohmann::json runs = nlohmann::json::array();
  std::set<std::string> names;
  for (const Run& run : history) {
    require_canzona_provenance(run.context, run.source, o.allow_debug);
    nlohmann::json rows = nlohmann::json::object();
    for (const Series& s : run.series) {
      const std::string name = bench::registered_name(s.name);
      if (s.error || (filter && !filter->matches(name))) continue;
      rows[name] = history_row(run, s);
      names.insert(name);
    }
    runs.push_back({{"file", fs::path(run.source).filename().string()},
                    {"date", run.context_or("date", "")},
                    {"git", run.context_or("canzona_git_sha", "?")},
                    {"rows", std::move(rows)}});
  }
  if (names.empty()) throw ConfigError(fmt::format("--filter '{}' matches nothing", o.filter));
  if (names.size() > kMaxHistoryLines) {
    throw ConfigError(fmt::format(
        "{} benchmarks match; a trend of more than {} lines is unreadable: narrow it with "
        "--filter REGEX (e.g. '^OptimizerStep/muon/canzona/')",
        names.size(), kMaxHistoryLines));
  }
  return {{"kind", "history"}, {"folder", o.history}, {"runs", std::move(runs)}};
}

nlohmann::json plans_data(const PlotOptions& o) {
  nlohmann::json plans = nlohmann::json::array();
  for (const std::string& path : o.plans) {
    const std::string text = io::read_input_file(path, "plan JSON");
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text);
      // Every value is read with the type the drawing script needs, so a plan file with a
      // wrong type is refused here with its path, not as a traceback in the script.
      std::vector<double> costs;
      for (const nlohmann::json& rank : doc.at("ranks"))
        costs.push_back(rank.at("cost").get<double>());
      const auto dp = doc.at("parallel").at("dp").get<std::int64_t>();
      const auto tp = doc.at("parallel").at("tp").get<std::int64_t>();
      if (costs.empty() || dp < 1 || tp < 1) {
        throw ConfigError(fmt::format(
            "'{}' is not the output of 'canzona-bench plan --json': it has {} ranks, dp {} and "
            "tp {} (a plan has at least one rank and dp, tp >= 1)",
            path, costs.size(), dp, tp));
      }
      plans.push_back({{"file", fs::path(path).filename().string()},
                       {"model", doc.at("model").at("name").get<std::string>()},
                       {"strategy", doc.at("strategy").get<std::string>()},
                       {"dp", dp},
                       {"tp", tp},
                       {"cost", doc.at("options").at("cost").get<std::string>()},
                       {"imbalance", doc.at("imbalance").get<double>()},
                       {"rank_costs", std::move(costs)}});
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(
          fmt::format("'{}' is not the output of 'canzona-bench plan --json': {}", path, e.what()));
    }
  }
  return {{"kind", "plans"}, {"plans", std::move(plans)}};
}

// The drawing script ships next to the executable (the build copies it there).
fs::path plot_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path script = exe.parent_path() / "canzona_plot.py";
  if (ec || !fs::exists(script)) {
    throw Error(
        fmt::format("the plotting script canzona_plot.py is not next to canzona-bench "
                    "({}); rebuild, or copy harness/plot/canzona_plot.py there",
                    exe.parent_path().string()));
  }
  return script;
}

std::string python() {
  const char* env = std::getenv("CANZONA_PYTHON");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A file removed when this goes out of scope.
struct TemporaryFile {
  fs::path path;
  explicit TemporaryFile(fs::path p) : path(std::move(p)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
};

std::string read_if_present(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `command`, passing each line it prints on to `out` as it comes (the script's progress,
// "figure 3/40: NAME", is worth seeing during a large run), and returns its exit code.
int run_streaming(const std::string& command, std::ostream& out) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw Error("cannot start " + python());
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr) {
    out << buffer.data() << std::flush;
  }
  const int status = pclose(pipe.release());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int plot(const PlotOptions& o, std::ostream& out) {
  const int inputs = !o.run.empty() + !o.history.empty() + !o.plans.empty();
  if (inputs != 1) {
    throw ConfigError(
        "give exactly one input: a run JSON, --history FOLDER, or --plan PLAN.json...");
  }
  const nlohmann::json data =
      !o.run.empty() ? run_data(o) : (!o.history.empty() ? history_data(o) : plans_data(o));
  const fs::path script = plot_script();
  std::error_code ec;
  // A folder this command creates is removed again when no figure lands in it.
  const bool out_existed = fs::exists(o.out, ec);
  fs::create_directories(o.out, ec);
  if (ec) throw ConfigError(fmt::format("cannot create --out '{}': {}", o.out, ec.message()));

  // The data and the script's messages go through files in --out, removed afterwards whatever
  // happens.
  std::mt19937_64 rng(std::random_device{}());
  const std::string stem = fmt::format(".plot-data-{:016x}", rng());
  const TemporaryFile data_file{fs::path(o.out) / (stem + ".json")};
  const TemporaryFile errors_file{fs::path(o.out) / (stem + ".err")};
  io::write_file_atomically(data_file.path, data.dump());
  const std::string command = fmt::format(
      "{} {} --data {} --out {} --format {} 2>{}", shell_quote(python()),
      shell_quote(script.string()), shell_quote(data_file.path.string()), shell_quote(o.out),
      shell_quote(o.format), shell_quote(errors_file.path.string()));
  const int code = run_streaming(command, out);
  const std::string errors = read_if_present(errors_file.path);
  if (code != 0 && !out_existed) {
    fs::remove(data_file.path, ec);
    fs::remove(errors_file.path, ec);
    fs::remove(o.out, ec);  // only when empty: a figure already written stays
  }
  if (code == 2) throw ConfigError(errors);  // the script's own "bad input" (e.g. no matplotlib)
  if (code != 0)
    throw Error(fmt::format("{} failed (exit {}):\n{}", script.string(), code, errors));
  std::cerr << errors;  // warnings of a run that worked
  return kExitOk;
}

}  // namespace

CommandAction add_plot_command(CLI::App& app) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Figures: latency vs GPU count per strategy (projected points hollow; bars for a single "
      "GPU count) and phase breakdown (a panel per configuration) of a run, per-rank load bars "
      "of plans, or a trend across nightly runs; prints a line per figure as it is written");
  cmd->add_option("run", o->run, "Run JSON (canzona-bench run or a suite's output)");
  cmd->add_option("--history", o->history, "Folder of run JSON files: trend of each benchmark");
  cmd->add_option("--plan", o->plans, "Plan JSON files ('canzona-bench plan --json'): loads");
  cmd->add_option("--out", o->out, "Folder for the figures (created)")->required();
  cmd->add_option("--format", o->format, "png, svg or pdf")
      ->capture_default_str()
      ->check(CLI::IsMember({"png", "svg", "pdf"}));
  cmd->add_option("--filter", o->filter, "Only benchmarks whose name matches this pattern (RE2)");
  cmd->add_flag("--allow-debug", o->allow_debug, "Accept runs of non-Release builds");
  return [o](std::ostream& out) { return plot(*o, out); };
}

}  // namespace canzona::harness
