// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench drift --history FOLDER`: the slow-drift check over the last nights of a folder of
// nightly runs (canzona/harness/drift.hpp). Exit 1 when a row is DRIFT, 0 otherwise, 2 when the
// folder, a run in it or a flag is bad (nothing written).
#include <canzona/bench/flag_checks.hpp>
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/drift.hpp>
#include <canzona/io/atomic_file.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <vector>

namespace canzona::harness {
namespace {

namespace fs = std::filesystem;

struct DriftCommandOptions {
  std::string history;
  DriftSettings settings;
  double threshold_percent = 3.0;
  std::string out;
  std::string markdown;
  bool allow_debug = false;
};

// A result file must not land among the runs: the next drift would read it as one.
void check_not_in_history(const std::string& path, std::string_view flag,
                          const std::string& history) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(path).parent_path(), ec);
  if (!ec && folder == fs::weakly_canonical(history, ec) && fs::path(path).extension() == ".json") {
    throw ConfigError(fmt::format(
        "{} '{}' is inside --history '{}': the next drift would read it as a night's run; "
        "write it elsewhere (e.g. the night's artifacts folder)",
        flag, path, history));
  }
}

int drift(DriftCommandOptions& o, std::ostream& out) {
  o.settings.threshold = o.threshold_percent / 100.0;
  check_drift_settings(o.settings);
  // Every output is checked before any work, so a bad one leaves nothing half-done.
  if (!o.out.empty() && o.out == o.markdown) {
    throw ConfigError(fmt::format("--out and --markdown are both '{}'; give two files", o.out));
  }
  for (const auto& [path, flag] :
       {std::pair{o.out, "--out"}, std::pair{o.markdown, "--markdown"}}) {
    if (path.empty()) continue;
    check_not_in_history(path, flag, o.history);
    io::check_output_file(path, flag);
  }
  const std::vector<Run> history = read_history(o.history, "--history");
  for (const Run& run : history) {
    require_canzona_provenance(run.context, run.source, o.allow_debug);
  }
  const DriftResult result = compute_drift(history, o.history, o.settings);
  const std::string markdown = drift_markdown(result);
  if (!o.out.empty()) io::write_file_atomically(o.out, drift_json(result).dump(2) + "\n");
  if (!o.markdown.empty()) io::write_file_atomically(o.markdown, markdown);
  out << markdown;
  return result.exit_code() == 0 ? kExitOk : kExitRegression;
}

}  // namespace

CommandAction add_drift_command(CLI::App& app) {
  auto o = std::make_shared<DriftCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "drift",
      "The slow-drift check: per benchmark, the Theil-Sen trend of its value over the last "
      "nights of a folder of nightly runs, with Sen's interval at a family-wise error (Holm); "
      "DRIFT, IMPROVED or STABLE; exit 1 on a DRIFT row");
  cmd->add_option("--history", o->history,
                  "Folder of nightly run JSON files (ci/nightly-gpu.sh --history)")
      ->required();
  cmd->add_option("--last", o->settings.last, "The window: this many newest runs")
      ->capture_default_str()
      ->check(bench::integer_in({3, 1000}));
  cmd->add_option("--threshold", o->threshold_percent,
                  "Change over the window, in percent, beyond which a row is DRIFT (or IMPROVED)")
      ->capture_default_str()
      ->check(bench::real_in({0, 100, false}));
  cmd->add_option("--alpha", o->settings.alpha,
                  "Family-wise error over the judged rows, each direction (Holm)")
      ->capture_default_str();
  cmd->add_option("--min-runs", o->settings.min_runs,
                  "Rows in fewer of the window's runs are not judged (TOO FEW)")
      ->capture_default_str()
      ->check(bench::integer_in({3, 1000}));
  cmd->add_option("--filter", o->settings.filter,
                  "Only benchmarks whose name matches this pattern (RE2)");
  cmd->add_option("--out", o->out, "Write every row and night as JSON here (atomically)");
  cmd->add_option("--markdown", o->markdown,
                  "Write the report here too (atomically); it always goes to stdout");
  cmd->add_flag("--allow-debug", o->allow_debug, "Accept runs of non-Release builds");
  return [o](std::ostream& out) { return drift(*o, out); };
}

}  // namespace canzona::harness
