// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench ab --base BIN --head BIN`: the regression gate. Both sides are measured on this
// node in one job, as pairs of fresh `run` processes in a balanced random order; what the pairs
// say is decided in lib harness ab.hpp. Exit 0 pass, 1 a confirmed SLOWER or MISSING row or a
// deterministic change not allowed, 2 bad input (before anything is measured).
#include "child_jobs.hpp"
#include "commands.hpp"
#include "run_launch.hpp"

#include <canzona/bench/flag_checks.hpp>
#include <canzona/bench/gbench_json.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/numeric_text.hpp>
#include <canzona/core/splitmix.hpp>
#include <canzona/harness/ab.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/input_file.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>

namespace canzona::harness {
namespace {

struct AbCommandOptions {
  std::string base;
  std::string head;
  std::string preset = "smoke";
  std::string filter;
  int repetitions = 3;
  double threshold_percent = 3.0;
  double margin_percent = 3.0;
  AbSettings settings;
  std::string seed;  ///< "" = drawn (and recorded)
  std::vector<std::string> base_args;
  std::vector<std::string> head_args;
  std::vector<std::string> run_args;
  std::string allowed_changes;
  bool no_confirm = false;
  std::string out;
};

// One side of the comparison: its executable and the arguments of its `run`.
struct Side {
  std::string name;  ///< "base" or "head"
  std::filesystem::path executable;
  std::vector<std::string> args;
};

// BIN is a canzona-bench executable or a build folder holding bin/canzona-bench.
std::filesystem::path resolve_executable(const std::string& given, std::string_view flag) {
  std::filesystem::path path = given;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) path /= "bin/canzona-bench";
  if (!std::filesystem::is_regular_file(path, error) || access(path.c_str(), X_OK) != 0) {
    throw ConfigError(fmt::format(
        "{} {}: {} is not an executable file; give a canzona-bench executable or a build folder "
        "that holds bin/canzona-bench",
        flag, given, path.string()));
  }
  return std::filesystem::absolute(path);
}

// A flag of the suites (`--canzona_...`) goes to the optimizer-step suite; anything else is a
// flag of `run` itself.
std::vector<std::string> side_run_args(const std::vector<std::string>& common,
                                       const std::vector<std::string>& own) {
  std::vector<std::string> args;
  for (const std::vector<std::string>* list : {&common, &own}) {
    for (const std::string& arg : *list) {
      args.push_back(arg.starts_with("--canzona_") ? "--suite-arg=" + arg : arg);
    }
  }
  return args;
}

// `run --filter` for exactly these rows: their names as the suites register them, escaped.
std::string rows_filter(const std::vector<AbRow*>& rows) {
  std::vector<std::string> names;
  for (const AbRow* row : rows) {
    std::string escaped;
    for (const char c : row->key) {
      if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) escaped += '\\';
      escaped += c;
    }
    names.push_back(std::move(escaped));
  }
  return fmt::format("^({})$", fmt::join(names, "|"));
}

// One sample: a fresh process of a side's `run`, read back as a Run.
struct Sample {
  Run run;
  nlohmann::json info;
};

class SampleTaker {
 public:
  SampleTaker(const AbCommandOptions& o, const ScratchDir& scratch) : o_(o), scratch_(scratch) {}

  Sample take(const Side& side, const std::string& filter, const nlohmann::json& where) {
    const std::filesystem::path file =
        scratch_.path() / fmt::format("{}-{}.json", side.name, count_++);
    std::vector<std::string> command = command_of(side, filter);
    command.push_back("--out");
    command.push_back(file.string());
    std::string errors;
    ChildOutput output;
    output.on_stdout = [](std::string_view) {};
    output.on_stderr = [&](std::string_view chunk) { errors.append(chunk); };
    const auto start = std::chrono::steady_clock::now();
    const ChildExit exit = run_child(command, interruptible({}), output);
    throw_if_interrupted(exit, "ab");
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (exit.exit_code != 0) {
      std::cerr << errors;
      const std::string message = fmt::format(
          "ab: the {} side's run failed with exit code {} (its messages are above); nothing was "
          "written.\n  command: {}",
          side.name, exit.exit_code, command_line(command));
      if (exit.exit_code == kExitUsage) throw ConfigError(message);
      throw Error(message);
    }
    const nlohmann::json document = bench::read_gbench_document(file);
    Sample sample{make_run(bench::parse_gbench_json(document, file.string()),
                           fmt::format("the {} side's sample {}", side.name, count_ - 1)),
                  where};
    std::filesystem::remove(file);
    // The sample's own command names a scratch file that is gone: say what it was instead.
    if (auto it = sample.run.context.find("canzona_command"); it != sample.run.context.end()) {
      const std::string scratch_file = file.string();
      if (const auto at = it->second.find(scratch_file); at != std::string::npos) {
        it->second.replace(at, scratch_file.size(), fmt::format("SAMPLE-{}.json", side.name));
      }
    }
    sample.info["side"] = side.name;
    sample.info["wall_s"] = wall;
    const nlohmann::json& context = document.at("context");
    if (const auto load = context.find("load_avg");
        load != context.end() && load->is_array() && !load->empty() && (*load)[0].is_number()) {
      sample.info["load_avg_1m"] = (*load)[0].get<double>();
    }
    return sample;
  }

  // The command of a side's run, for the report (no scratch path).
  std::vector<std::string> command_of(const Side& side, const std::string& filter) const {
    std::vector<std::string> command = {
        side.executable.string(),      "run", "--preset", o_.preset, "--repetitions",
        std::to_string(o_.repetitions)};
    if (!filter.empty()) {
      command.push_back("--filter");
      command.push_back(filter);
    }
    command.insert(command.end(), side.args.begin(), side.args.end());
    return command;
  }

 private:
  const AbCommandOptions& o_;
  const ScratchDir& scratch_;
  int count_ = 0;
};

// Why a pair of samples must not count, or "".
std::string void_reason(const Run& base, const Run& head, const Series* b, const Series* h) {
  // A GPU whose clocks changed between the two samples (throttling, another application-clock
  // setting) moves every row: the pair says nothing about the build.
  const std::string base_clocks = base.context_or("gpu_clocks", "");
  const std::string head_clocks = head.context_or("gpu_clocks", "");
  if (base_clocks != head_clocks) {
    return fmt::format("GPU clocks {} in base, {} in head", base_clocks, head_clocks);
  }
  if (b == nullptr || h == nullptr) return "the row is missing from one sample";
  if (b->error || h->error) return "the row failed in one sample";
  return "";
}

class AbJob {
 public:
  AbJob(const AbCommandOptions& o, Side base, Side head, std::uint64_t seed,
        std::vector<AllowedChange> allowed, const ScratchDir& scratch)
      : o_(o),
        base_(std::move(base)),
        head_(std::move(head)),
        seed_(seed),
        allowed_(std::move(allowed)),
        taker_(o, scratch) {}

  AbResult run() {
    const auto start = std::chrono::steady_clock::now();
    result_.settings = o_.settings;
    result_.seed = seed_;
    result_.base_command = command_line(taker_.command_of(base_, o_.filter));
    result_.head_command = command_line(taker_.command_of(head_, o_.filter));

    // The first batch runs every row the filter selects; it also fixes which rows are gated.
    std::vector<AbRow*> gated;
    take_batch(o_.settings.pairs, o_.filter, gated, /*confirmation=*/false, /*first=*/true);
    for (AbRow& row : result_.rows) {
      if (row.verdict != AbVerdict::kMissing && row.verdict != AbVerdict::kNew) {
        gated.push_back(&row);
      }
    }
    decide_adaptively(gated, /*confirmation=*/false);

    std::vector<AbRow*> slower;
    for (AbRow* row : gated) {
      if (row->verdict == AbVerdict::kSlower) slower.push_back(row);
    }
    if (o_.settings.confirm && !slower.empty()) {
      std::cerr << fmt::format("ab: confirming {} SLOWER row(s) with a fresh batch\n",
                               slower.size());
      take_batch(o_.settings.pairs, rows_filter(slower), slower, /*confirmation=*/true, false);
      const std::vector<AbVerdict> confirmed = decide_adaptively(slower, /*confirmation=*/true);
      for (std::size_t i = 0; i < slower.size(); ++i) {
        if (confirmed[i] != AbVerdict::kSlower) slower[i]->verdict = AbVerdict::kUnconfirmed;
      }
    }
    result_.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(result_);
  }

 private:
  // Adds pairs to the INCONCLUSIVE rows of `family` until none is left; returns the verdicts.
  // Holm's family is the whole of `family` in every round.
  std::vector<AbVerdict> decide_adaptively(std::vector<AbRow*>& family, bool confirmation) {
    while (true) {
      compute_ab_statistics(family, o_.settings, confirmation);
      std::vector<AbVerdict> verdicts;
      std::vector<AbRow*> undecided;
      int most = 0;
      for (AbRow* row : family) {
        const AbStatistic& s = confirmation ? *row->confirmation_statistic : row->statistic;
        const AbVerdict v = decide_ab_row(s, o_.settings);
        verdicts.push_back(v);
        if (!confirmation) row->verdict = v;
        if (v == AbVerdict::kInconclusive) {
          undecided.push_back(row);
          most = std::max(most, s.pairs + s.voided);
        }
      }
      if (undecided.empty()) return verdicts;
      const int add = std::min(o_.settings.more_pairs, o_.settings.max_pairs - most);
      std::cerr << fmt::format("ab: {} row(s) INCONCLUSIVE: {} more pair(s)\n", undecided.size(),
                               add);
      take_batch(add, rows_filter(undecided), undecided, confirmation, false);
    }
  }

  // Takes `pairs` pairs of samples in a balanced order and adds them to `rows` (in the first
  // batch: to every row the samples hold, creating them).
  void take_batch(int pairs, const std::string& filter, const std::vector<AbRow*>& rows,
                  bool confirmation, bool first) {
    const std::vector<bool> order = balanced_order(pairs, splitmix64(seed_ + batches_));
    ++batches_;
    for (int i = 0; i < pairs; ++i) {
      const bool base_first = order[static_cast<std::size_t>(i)];
      const nlohmann::json where = {{"batch", batches_},
                                    {"pair", i + 1},
                                    {"order", base_first ? "AB" : "BA"},
                                    {"confirmation", confirmation}};
      std::cerr << fmt::format("ab: batch {}, pair {}/{} ({}) ...\n", batches_, i + 1, pairs,
                               base_first ? "base first" : "head first");
      std::optional<Sample> base;
      std::optional<Sample> head;
      if (base_first) base = taker_.take(base_, filter, where);
      head = taker_.take(head_, filter, where);
      if (!base_first) base = taker_.take(base_, filter, where);
      result_.samples.push_back(base->info);
      result_.samples.push_back(head->info);
      if (first && i == 0) start_rows(base->run, head->run);
      const std::vector<AbRow*> targets = first ? all_rows() : rows;
      for (AbRow* row : targets) {
        if (row->verdict == AbVerdict::kMissing || row->verdict == AbVerdict::kNew) continue;
        const Series* b = base->run.find(row->key, false);
        const Series* h = head->run.find(row->key, false);
        AbPair pair;
        pair.base_first = base_first;
        pair.voided = void_reason(base->run, head->run, b, h);
        if (pair.voided.empty()) {
          pair.base = ab_value(*b, row->metric);
          pair.head = ab_value(*h, row->metric);
          pair.base_time = b->median_ms();
          pair.head_time = h->median_ms();
        }
        (confirmation ? row->confirmation : row->pairs).push_back(pair);
      }
    }
  }

  std::vector<AbRow*> all_rows() {
    std::vector<AbRow*> rows;
    for (AbRow& row : result_.rows) rows.push_back(&row);
    return rows;
  }

  // The gated rows are the measured rows of the first samples: MISSING where head lacks one
  // (or it failed there), NEW where only head has one; projected rows are compared exactly.
  void start_rows(const Run& base, const Run& head) {
    result_.base_context = base.context;
    result_.head_context = head.context;
    result_.changes = deterministic_changes(base, head, allowed_);
    for (const Series& b : base.series) {
      if (b.projected()) continue;
      AbRow row;
      row.key = b.name.key;
      row.run_name = b.run_name;
      row.metric = ab_metric(base, b);
      const Series* h = head.find(b.name.key, false);
      if (b.error) {
        throw Error(
            fmt::format("ab: '{}' failed in the base side's run: {}", b.run_name, *b.error));
      }
      if (h == nullptr || h->error) row.verdict = AbVerdict::kMissing;
      result_.rows.push_back(std::move(row));
    }
    for (const Series& h : head.series) {
      if (h.projected() || base.find(h.name.key, false) != nullptr) continue;
      AbRow row;
      row.key = h.name.key;
      row.run_name = h.run_name;
      row.metric = ab_metric(head, h);
      row.verdict = AbVerdict::kNew;
      result_.rows.push_back(std::move(row));
    }
  }

  const AbCommandOptions& o_;
  Side base_;
  Side head_;
  std::uint64_t seed_;
  std::vector<AllowedChange> allowed_;
  SampleTaker taker_;
  AbResult result_;
  int batches_ = 0;
};

int ab(AbCommandOptions& o, std::ostream& out) {
  InterruptScope interrupts;  // an interrupt ends every sample's job and writes nothing
  // Every input is checked before the first sample.
  o.settings.threshold = o.threshold_percent / 100;
  o.settings.margin = o.margin_percent / 100;
  o.settings.confirm = !o.no_confirm;
  check_ab_settings(o.settings);
  Side base{"base", resolve_executable(o.base, "--base"), side_run_args(o.run_args, o.base_args)};
  Side head{"head", resolve_executable(o.head, "--head"), side_run_args(o.run_args, o.head_args)};
  if (!o.out.empty()) io::check_output_file(o.out, "--out", {o.allowed_changes});
  std::vector<AllowedChange> allowed;
  if (!o.allowed_changes.empty()) {
    allowed = parse_allowed_changes(
        io::read_input_file(o.allowed_changes, "allow-list of deterministic changes"),
        o.allowed_changes);
  }
  const std::uint64_t seed =
      o.seed.empty()
          ? (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()
          : static_cast<std::uint64_t>(parse_integer(
                "--seed", o.seed, IntegerRange{0, std::numeric_limits<std::int64_t>::max()}));

  ScratchDir scratch("canzona-ab");
  AbJob job(o, std::move(base), std::move(head), seed, std::move(allowed), scratch);
  const AbResult result = job.run();
  throw_if_interrupt_pending("ab");
  if (!o.out.empty()) io::write_file_atomically(o.out, ab_json(result).dump(2) + "\n");
  out << ab_markdown(result);
  return result.exit_code() == 0 ? kExitOk : kExitRegression;
}

}  // namespace

CommandAction add_ab_command(CLI::App& app) {
  auto o = std::make_shared<AbCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ab",
      "The regression gate: measure two builds side by side on this node (pairs of fresh `run` "
      "processes in a balanced random order) and judge every row with a confidence interval; "
      "exit 1 on a confirmed SLOWER or MISSING row");
  cmd->add_option("--base", o->base, "canzona-bench executable (or build folder) of the base")
      ->required();
  cmd->add_option("--head", o->head, "canzona-bench executable (or build folder) of the head")
      ->required();
  cmd->add_option("--preset", o->preset, "The preset each sample runs")->capture_default_str();
  cmd->add_option("--filter", o->filter, "Only rows whose name matches this pattern (RE2)");
  cmd->add_option("--repetitions", o->repetitions,
                  "Repetitions per case in one sample (its median is the sample's value)")
      ->capture_default_str()
      ->check(bench::integer_in(bench::kRepetitions));
  cmd->add_option("--pairs", o->settings.pairs, "Pairs of the first batch (and of a confirmation)")
      ->capture_default_str();
  cmd->add_option("--more-pairs", o->settings.more_pairs,
                  "Pairs added per round to rows still INCONCLUSIVE")
      ->capture_default_str();
  cmd->add_option("--max-pairs", o->settings.max_pairs,
                  "Pairs per row and batch at most; INCONCLUSIVE then becomes NOISY")
      ->capture_default_str();
  cmd->add_option("--threshold", o->threshold_percent,
                  "Slowdown in percent beyond which a row is SLOWER")
      ->capture_default_str()
      ->check(bench::real_in(bench::kNonNegative));
  cmd->add_option("--margin", o->margin_percent,
                  "SAME when the interval lies inside +-this percentage (at most --threshold)")
      ->capture_default_str()
      ->check(bench::real_in(bench::kNonNegative));
  cmd->add_option("--alpha", o->settings.alpha, "Family-wise error over the gated rows (Holm)")
      ->capture_default_str();
  cmd->add_option("--confidence", o->settings.confidence, "Level of the printed intervals")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the pair order (default: drawn, and recorded)");
  cmd->add_option("--run-arg", o->run_args,
                  "Pass this argument to both sides' run (repeatable); --canzona_* flags go to "
                  "the optimizer-step suite");
  cmd->add_option("--base-arg", o->base_args, "Pass this argument to the base side's run only")
      ->allow_extra_args(false);
  cmd->add_option("--head-arg", o->head_args,
                  "Pass this argument to the head side's run only, e.g. "
                  "--head-arg=--canzona_inject_slowdown=0.1")
      ->allow_extra_args(false);
  cmd->add_option("--allowed-changes", o->allowed_changes,
                  "Allow-list of intended deterministic changes: lines 'ROW_REGEX COUNTER_REGEX'");
  cmd->add_flag("--no-confirm", o->no_confirm, "Fail on SLOWER without a confirmation batch");
  cmd->add_option("--out", o->out, "Write every pair and verdict as JSON here (atomically)");
  return [o](std::ostream& out) { return ab(*o, out); };
}

}  // namespace canzona::harness
