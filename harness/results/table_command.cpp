// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench table RUN.json [RUN.json ...]`: the publication table of runs, merged
// (results/tables/).
#include "commands.hpp"

#include <canzona/harness/cli.hpp>
#include <canzona/harness/table.hpp>
#include <canzona/io/atomic_file.hpp>

#include <fmt/format.h>

#include <map>
#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

struct TableCommandOptions {
  std::vector<std::string> runs;
  std::string format = "md";
  std::string baseline;
  std::vector<std::string> strategies;
  bool compare_optimizers = false;
  std::string filter;
  bool allow_debug = false;
  std::string out;
};

int table(const TableCommandOptions& o, std::ostream& out) {
  if (!o.out.empty()) io::check_output_file(o.out, "--out", {o.runs.begin(), o.runs.end()});
  std::vector<Run> runs;
  for (const std::string& path : o.runs) {
    runs.push_back(read_run(path));
    require_canzona_provenance(runs.back().context, runs.back().source, o.allow_debug);
  }
  TableOptions options;
  options.format = std::map<std::string, TableFormat>{{"md", TableFormat::kMarkdown},
                                                      {"csv", TableFormat::kCsv},
                                                      {"latex", TableFormat::kLatex},
                                                      {"html", TableFormat::kHtml}}
                       .at(o.format);
  options.layout = o.compare_optimizers ? TableLayout::kOptimizers : TableLayout::kStrategies;
  if (!o.baseline.empty()) options.baseline = o.baseline;
  options.strategies = o.strategies;
  if (!o.filter.empty()) options.filter = o.filter;
  const std::string text = render_table(runs, options);
  if (o.out.empty()) {
    out << text;
  } else {
    io::write_file_atomically(o.out, text);
    out << fmt::format("table written to {}\n", o.out);
  }
  return kExitOk;
}

}  // namespace

CommandAction add_table_command(CLI::App& app) {
  auto o = std::make_shared<TableCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "table",
      "Publication table of runs (merged): latency per strategy, Canzona's speed-up over each "
      "baseline with its 95 % interval, imbalance, communication; projected cells marked with "
      "their topology");
  cmd->add_option("runs", o->runs,
                  "Run JSON files (canzona-bench run or a suite's output); several are merged "
                  "into one table per family")
      ->required();
  cmd->add_option("--format", o->format,
                  "md, csv (one line per benchmark), latex (booktabs, graphicx) or html (a "
                  "fragment)")
      ->capture_default_str()
      ->check(CLI::IsMember({"md", "csv", "latex", "html"}));
  CLI::Option* baseline =
      cmd->add_option("--baseline", o->baseline, "Show only canzona and this strategy");
  cmd->add_option("--strategies", o->strategies, "Show only these strategies, in this order")
      ->delimiter(',')
      ->excludes(baseline);
  cmd->add_flag("--compare-optimizers", o->compare_optimizers,
                "Columns are optimizers (Muon, Shampoo, SOAP, AdamW) per strategy and shape: "
                "latency, optimizer state per rank, communication")
      ->excludes(baseline);
  cmd->add_option("--filter", o->filter, "Only benchmarks whose name matches this pattern (RE2)");
  cmd->add_flag("--allow-debug", o->allow_debug, "Accept a run of a non-Release build");
  cmd->add_option("--out", o->out, "Write the table to this file (atomically) instead of stdout");
  return [o](std::ostream& out) { return table(*o, out); };
}

}  // namespace canzona::harness
