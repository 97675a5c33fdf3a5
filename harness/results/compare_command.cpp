// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench compare BASE.json HEAD.json`: two stored runs side by side (trends, and the
// kernels' gate; the nightly suites are gated by `ab`, which measures both builds in one job).
// Exit 1 when a row is SLOWER or MISSING, 0 otherwise, 2 when the files are bad or must not be
// compared.
#include <canzona/bench/flag_checks.hpp>
#include "commands.hpp"

#include <canzona/harness/cli.hpp>
#include <canzona/harness/compare.hpp>
#include <canzona/io/atomic_file.hpp>

#include <fmt/format.h>

#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

struct CompareCommandOptions {
  std::string base;
  std::string head;
  double threshold_percent = 5.0;
  CompareOptions compare;
  std::string filter;
  bool json = false;
  bool changes_only = false;
  bool fail_on_behaviour_change = false;
  std::string out;
};

int compare(CompareCommandOptions& o, std::ostream& out) {
  if (!o.out.empty()) io::check_output_file(o.out, "--out", {o.base, o.head});
  o.compare.threshold = o.threshold_percent / 100.0;
  if (!o.filter.empty()) o.compare.filter = o.filter;
  const Comparison comparison = compare_runs(read_run(o.base), read_run(o.head), o.compare);
  const std::string text = o.json ? comparison_json(comparison).dump(2) + "\n"
                                  : comparison_markdown(comparison, o.changes_only);
  if (o.out.empty()) {
    out << text;
  } else {
    io::write_file_atomically(o.out, text);
  }
  if (comparison.exit_code() != 0) return kExitRegression;
  if (o.fail_on_behaviour_change && comparison.behaviour_changes() > 0) return kExitRegression;
  return kExitOk;
}

}  // namespace

CommandAction add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two stored runs, HEAD against BASE (trends; for two builds use ab): per "
      "benchmark SAME, FASTER, SLOWER, NOISY, NEW or MISSING; exit 1 on SLOWER or MISSING");
  cmd->add_option("base", o->base, "Base run JSON (e.g. an accepted run, results/accepted/)")->required();
  cmd->add_option("head", o->head, "Head run JSON (e.g. tonight's run)")->required();
  cmd->add_option("--threshold", o->threshold_percent,
                  "Change of the median, in percent, below which a row is SAME")
      ->capture_default_str()
      ->check(bench::real_in(bench::kNonNegative));
  cmd->add_option("--alpha", o->compare.alpha, "Significance level of the U test")
      ->capture_default_str();
  cmd->add_option("--utest-repetitions", o->compare.utest_repetitions,
                  "Repetitions both sides need for the U test (fewer: noise-widened threshold)")
      ->capture_default_str();
  cmd->add_option("--filter", o->filter, "Compare only benchmarks whose name matches this pattern (RE2)");
  cmd->add_flag("--json", o->json, "Print the comparison as JSON instead of markdown");
  cmd->add_flag("--changes-only", o->changes_only, "Leave SAME rows out of the markdown table");
  cmd->add_flag("--fail-on-behaviour-change", o->fail_on_behaviour_change,
                "Exit 1 when a deterministic counter (plan bytes, state bytes) changed");
  cmd->add_option("--out", o->out, "Write the report to this file (atomically) instead of stdout");
  cmd->add_flag("--allow-debug", o->compare.allow_debug, "Accept runs of non-Release builds");
  cmd->add_flag("--allow-build-mismatch", o->compare.allow_build_mismatch,
                "Accept different build types");
  cmd->add_flag("--allow-device-mismatch", o->compare.allow_device_mismatch,
                "Accept different device kinds");
  cmd->add_flag("--allow-backend-mismatch", o->compare.allow_backend_mismatch,
                "Accept different backends");
  cmd->add_flag("--allow-projected-mix", o->compare.allow_projected_mix,
                "Compare a projected row with the measured row of the same configuration");
  cmd->add_flag("--allow-plan-mismatch", o->compare.allow_plan_mismatch,
                "Accept different plan hashes for the same benchmark");
  return [o](std::ostream& out) { return compare(*o, out); };
}

}  // namespace canzona::harness
