// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench validate FILE...`: checks that suite output is well-formed Google Benchmark JSON
// with Canzona's provenance, from a Release build, and that no benchmark failed.
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/gbench_json.hpp>
#include <canzona/harness/run_series.hpp>

#include <fmt/format.h>

#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  bool allow_debug = false;
};

// Every name has its family's shape (the one parser, results/SCHEMA.md), and a projected row
// can never pass for a measurement: `/projected` in the name, `projected` = 1 and a topology.
void check_names_and_projections(const Run& run) {
  for (const Series& series : run.series) {
    const std::optional<double> flag = series.counter("projected");
    if (flag && *flag != (series.name.projected ? 1.0 : 0.0)) {
      throw ConfigError(fmt::format(
          "{}: '{}' has projected = {} but its name {} '/projected'; the name and the counter "
          "must agree",
          run.source, series.name.key, *flag, series.name.projected ? "ends in" : "lacks"));
    }
    if (series.projected() && projection_topology(run, series).empty()) {
      throw ConfigError(fmt::format(
          "{}: projected row '{}' names no topology (label field 'topology=' or context key "
          "'topology')",
          run.source, series.name.key));
    }
  }
}

int validate(const ValidateOptions& options, std::ostream& out) {
  int failed_rows = 0;
  for (const std::string& path : options.files) {
    const BenchmarkFile file = read_gbench_json(path);
    require_canzona_provenance(file.context, path, options.allow_debug);
    if (file.rows.empty()) {
      throw ConfigError(fmt::format("{}: no benchmarks (check --benchmark_filter)", path));
    }
    check_names_and_projections(make_run(file, path));
    for (const BenchmarkRow& row : file.rows) {
      if (row.error) {
        ++failed_rows;
        out << fmt::format("FAILED  {}  {}\n", row.name, *row.error);
      }
    }
    out << fmt::format("{}: {} benchmarks, device_kind {}, git {}\n", path, file.rows.size(),
                       file.context.at("device_kind"), file.context.at("canzona_git_sha"));
  }
  return failed_rows == 0 ? kExitOk : kExitRegression;
}

}  // namespace

CommandAction add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Check suite JSON output: format, provenance, Release build, no failed rows");
  cmd->add_option("files", options->files, "Google Benchmark JSON files")->required();
  cmd->add_flag("--allow-debug", options->allow_debug,
                "Accept output of non-Release builds (format check only)");
  return [options](std::ostream& out) { return validate(*options, out); };
}

}  // namespace canzona::harness
