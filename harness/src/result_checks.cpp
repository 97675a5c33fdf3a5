// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "result_checks.hpp"

#include "step_row_check.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::harness {
namespace {

// Context keys written by suites/common/bench_main.cpp that every stored run must carry.
constexpr const char* kProvenanceKeys[] = {"canzona_git_sha", "canzona_build_type",
                                           "canzona_config", "device_kind"};

}  // namespace

void require_release_build(const std::string& build_type, const std::string& what) {
  if (build_type != "Release" && build_type != "RelWithDebInfo") {
    throw ConfigError(
        fmt::format("{} built as '{}'; benchmark numbers need a Release build (configure with "
                    "-DCMAKE_BUILD_TYPE=Release)",
                    what, build_type));
  }
}

void check_provenance(const BenchmarkFile& file, const std::string& source, bool allow_debug) {
  for (const char* key : kProvenanceKeys) {
    if (file.context.count(key) == 0) {
      throw ConfigError(
          fmt::format("{}: context has no '{}' (not written by a canzona suite?)", source, key));
    }
  }
  if (!allow_debug) {
    try {
      require_release_build(file.context.at("canzona_build_type"), source + ":");
    } catch (const ConfigError& e) {
      throw ConfigError(
          fmt::format("{} (pass --allow-debug to validate the format only)", e.what()));
    }
  }
  if (file.rows.empty()) {
    throw ConfigError(fmt::format("{}: no benchmarks (check --benchmark_filter)", source));
  }
}

int report_bad_rows(const BenchmarkFile& file, std::ostream& out) {
  int bad = 0;
  for (const BenchmarkRow& row : file.rows) {
    if (row.error) {
      ++bad;
      out << fmt::format("FAILED  {}  {}\n", row.name, *row.error);
      continue;
    }
    if (!row.name.starts_with(std::string(kOptimizerStepFamily) + "/")) continue;
    if (const auto problem = check_step_row(row)) {
      ++bad;
      out << fmt::format("INVALID  {}  {}\n", row.name, *problem);
    }
  }
  return bad;
}

}  // namespace canzona::harness
