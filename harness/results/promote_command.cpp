// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench promote RUN.json --to results/accepted/<device-kind>/`: the only way an accepted
// run changes. The run is checked (Release, clean tree, complete, measured, from the
// device kind of the folder), copied byte for byte atomically, and the diff against the
// accepted run it replaces is printed.
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/compare.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/file_name.hpp>
#include <canzona/io/input_file.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

namespace fs = std::filesystem;

struct PromoteOptions {
  std::string run;
  std::string to;
  std::string name;
  bool allow_dirty = false;
};

// The accepted run's file name: the preset of a `run` (nightly.json), else the suite
// (canzona_bench_kernels -> kernels.json).
std::string accepted_name(const Run& run, const std::string& requested) {
  // Every name becomes a file inside --to: one path component, whether typed or read from the
  // run (a run file is input like any other).
  if (!requested.empty()) return io::checked_file_name(requested, "--name");
  const std::string preset = run.context_or("canzona_preset", "");
  if (!preset.empty()) {
    return io::checked_file_name(preset, fmt::format("{}: context 'canzona_preset'", run.source));
  }
  const std::string executable = fs::path(run.context_or("executable", "")).filename().string();
  constexpr std::string_view kSuitePrefix = "canzona_bench_";
  if (executable.starts_with(kSuitePrefix)) {
    return io::checked_file_name(executable.substr(kSuitePrefix.size()),
                                 fmt::format("{}: context 'executable'", run.source));
  }
  throw ConfigError(fmt::format(
      "{}: cannot tell which accepted run this is (no context 'canzona_preset' and executable "
      "'{}' is not a canzona suite); pass --name NAME",
      run.source, executable));
}

void check_promotable(const Run& run, const PromoteOptions& o, const fs::path& folder) {
  require_canzona_provenance(run.context, run.source, /*allow_debug=*/false);
  const std::string sha = run.context.at("canzona_git_sha");
  if (sha.ends_with("-dirty") && !o.allow_dirty) {
    throw ConfigError(fmt::format(
        "{}: built from a tree with uncommitted changes (git {}); an accepted run must name the "
        "commit it measures. Commit, rebuild and rerun (or pass --allow-dirty)",
        run.source, sha));
  }
  std::vector<std::string> failed;
  for (const Series& s : run.series) {
    if (s.error) failed.push_back(fmt::format("{}: {}", s.name.key, *s.error));
  }
  if (!failed.empty()) {
    throw ConfigError(fmt::format("{}: incomplete, {} benchmark(s) failed:\n  {}", run.source,
                                  failed.size(), fmt::join(failed, "\n  ")));
  }
  if (std::all_of(run.series.begin(), run.series.end(),
                  [](const Series& s) { return s.projected(); })) {
    throw ConfigError(fmt::format(
        "{}: every row is projected; an accepted run holds measurements (projections belong in "
        "results/projections/ or results/tables/)",
        run.source));
  }
  const std::string kind = run.context.at("device_kind");
  const std::string folder_kind = folder.filename().string();
  if (folder_kind != kind) {
    throw ConfigError(
        fmt::format("{}: measured on device kind '{}' but --to names '{}'; accepted runs live in "
                    "results/accepted/<device-kind>/, here results/accepted/{}/",
                    run.source, kind, folder.string(), kind));
  }
}

int promote(const PromoteOptions& o, std::ostream& out) {
  const Run run = read_run(o.run);
  // "results/accepted/cpu/" and "results/accepted/cpu" name the same folder.
  fs::path folder_path = fs::path(o.to).lexically_normal();
  if (folder_path.filename().empty()) folder_path = folder_path.parent_path();
  check_promotable(run, o, folder_path);
  const fs::path target = folder_path / (accepted_name(run, o.name) + ".json");

  std::string diff;
  if (fs::exists(target)) {
    try {
      CompareOptions everything;
      everything.allow_build_mismatch = everything.allow_backend_mismatch = true;
      everything.allow_plan_mismatch = everything.allow_projected_mix = true;
      everything.allow_debug = true;
      diff = comparison_markdown(compare_runs(read_run(target), run, everything), true);
    } catch (const ConfigError& e) {
      diff = fmt::format("(the accepted run it replaces could not be compared: {})\n", e.what());
    }
  } else {
    diff = fmt::format("(no accepted run at {} before: this is the first)\n", target.string());
  }
  std::error_code ec;
  fs::create_directories(folder_path, ec);
  if (ec) {
    throw ConfigError(fmt::format("cannot create {}: {}", folder_path.string(), ec.message()));
  }
  io::write_file_atomically(target, io::read_input_file(o.run, "run JSON"));
  out << fmt::format("promoted {} -> {} ({} benchmarks, git {}, {})\n\n", o.run, target.string(),
                     run.series.size(), run.context.at("canzona_git_sha"),
                     run.context.at("device_kind"));
  out << diff;
  return kExitOk;
}

}  // namespace

CommandAction add_promote_command(CLI::App& app) {
  auto o = std::make_shared<PromoteOptions>();
  CLI::App* cmd = app.add_subcommand(
      "promote",
      "Make a run the accepted run of its device kind: checks it (Release, committed tree, "
      "complete, measured), writes it atomically, prints the diff against the run it replaces");
  cmd->add_option("run", o->run, "Run JSON to promote")->required();
  cmd->add_option("--to", o->to, "Folder of the accepted runs, results/accepted/<device-kind>/")->required();
  cmd->add_option("--name", o->name,
                  "Reference name (default: the run's preset, or the suite's name)");
  cmd->add_flag("--allow-dirty", o->allow_dirty,
                "Accept a run built from a tree with uncommitted changes");
  return [o](std::ostream& out) { return promote(*o, out); };
}

}  // namespace canzona::harness
