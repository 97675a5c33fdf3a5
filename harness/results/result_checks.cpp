// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "result_checks.hpp"

#include "e2e_row_check.hpp"
#include "step_row_check.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::harness {

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

void require_release_build(const std::string& build_type, const std::string& what) {
  if (!is_release_build(build_type)) {
    throw ConfigError(
        fmt::format("{} built as '{}'; benchmark numbers need a Release build (configure with "
                    "-DCMAKE_BUILD_TYPE=Release)",
                    what, build_type));
  }
}

int report_bad_rows(const bench::BenchmarkFile& file, std::ostream& out) {
  int bad = 0;
  for (const bench::BenchmarkRow& row : file.rows) {
    if (row.error) {
      ++bad;
      out << fmt::format("FAILED  {}  {}\n", row.name, *row.error);
      continue;
    }
    std::optional<std::string> problem = check_step_row(row);
    if (!problem) problem = check_e2e_row(row);
    if (problem) {
      ++bad;
      out << fmt::format("INVALID  {}  {}\n", row.name, *problem);
    }
  }
  return bad;
}

}  // namespace canzona::harness
