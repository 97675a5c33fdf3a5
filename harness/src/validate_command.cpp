// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench validate FILE...`: checks that suite output is well-formed Google Benchmark JSON
// with Canzona's provenance, from a Release build, and that no benchmark failed.
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/gbench_json.hpp>

#include <fmt/format.h>

#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  bool allow_debug = false;
};

// Context keys written by suites/common/bench_main.cpp that every stored run must carry.
constexpr const char* kProvenanceKeys[] = {"canzona_git_sha", "canzona_build_type",
                                           "canzona_config", "device_kind"};

int validate(const ValidateOptions& options, std::ostream& out) {
  int failed_rows = 0;
  for (const std::string& path : options.files) {
    const BenchmarkFile file = read_gbench_json(path);
    for (const char* key : kProvenanceKeys) {
      if (file.context.count(key) == 0) {
        throw ConfigError(
            fmt::format("{}: context has no '{}' (not written by a canzona suite?)", path, key));
      }
    }
    const std::string& build = file.context.at("canzona_build_type");
    if (!options.allow_debug && build != "Release" && build != "RelWithDebInfo") {
      throw ConfigError(
          fmt::format("{}: built as '{}'; benchmark numbers need a Release build "
                      "(pass --allow-debug to validate the format only)",
                      path, build));
    }
    if (file.rows.empty()) {
      throw ConfigError(fmt::format("{}: no benchmarks (check --benchmark_filter)", path));
    }
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
