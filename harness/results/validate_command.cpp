// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench validate FILE...`: checks that suite output is well-formed Google Benchmark JSON
// with Canzona's provenance, from a Release build, that no benchmark failed, and that the
// optimizer-step and end-to-end rows are well-formed (step_row_check.hpp, e2e_row_check.hpp).
#include "commands.hpp"
#include "result_checks.hpp"

#include <canzona/bench/gbench_json.hpp>
#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
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

int validate(const ValidateOptions& options, std::ostream& out) {
  int bad_rows = 0;
  for (const std::string& path : options.files) {
    const bench::BenchmarkFile file = bench::read_gbench_json(path);
    require_canzona_provenance(file.context, path, options.allow_debug);
    check_names_and_projections(make_run(file, path));
    bad_rows += report_bad_rows(file, out);
    out << fmt::format("{}: {} benchmarks, device_kind {}, git {}\n", path, file.rows.size(),
                       file.context.at("device_kind"), file.context.at("canzona_git_sha"));
  }
  return bad_rows == 0 ? kExitOk : kExitRegression;
}

}  // namespace

CommandAction add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check suite JSON output: format, provenance, Release build, no failed rows, "
      "well-formed optimizer-step rows");
  cmd->add_option("files", options->files, "Google Benchmark JSON files")->required();
  cmd->add_flag("--allow-debug", options->allow_debug,
                "Accept output of non-Release builds (format check only)");
  return [options](std::ostream& out) { return validate(*options, out); };
}

}  // namespace canzona::harness
