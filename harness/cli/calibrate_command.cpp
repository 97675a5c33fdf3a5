// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench calibrate`: a topology file fitted to nccl-tests output (one file per
// collective, on one node or across nodes), starting from a preset or another topology file, for
// `canzona-bench project --topology FILE`.
#include "commands.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/sim/nccl_tests.hpp>
#include <canzona/sim/topology.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace canzona::harness {
namespace {

struct CalibrateOptions {
  std::vector<std::string> inputs;
  std::string base = "dgx-h100";
  std::optional<std::string> op;
  std::optional<std::string> name;
  std::string out;
};

int calibrate(const CalibrateOptions& o, std::ostream& out) {
  io::check_output_file(o.out, "--out", {o.inputs.begin(), o.inputs.end()});
  const sim::Topology base = sim::resolve_topology(o.base);
  std::optional<sim::CollectiveClass> hint;
  if (o.op) hint = sim::parse_collective_class(*o.op);
  std::vector<sim::NcclTestsRun> runs;
  for (const std::string& path : o.inputs) runs.push_back(sim::read_nccl_tests(path, hint));
  sim::Topology topology = sim::calibrate_topology(base, runs);
  topology.name = o.name ? *o.name : fmt::format("{}-calibrated", base.name);
  sim::validate(topology);
  io::write_file_atomically(o.out, fmt::format("{}\n", nlohmann::json(topology).dump(2)));

  out << fmt::format("calibrated topology '{}' written to {}\n", topology.name, o.out);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const sim::AlphaBetaFit fit = sim::fit_alpha_beta(runs[i]);
    out << fmt::format(
        "  {:<16} {:>3} ranks {:>2} node(s): alpha {:8.2f} us  busbw {:8.1f} GB/s  "
        "({} sizes, max rel. error {:.0f}%)\n",
        runs[i].op_name, runs[i].ranks, runs[i].nodes, fit.alpha_us, fit.busbw_gbps, fit.samples,
        100 * fit.max_relative_error);
  }
  return kExitOk;
}

}  // namespace

CommandAction add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit a topology's alpha-beta constants to nccl-tests output (for 'project')");
  cmd->add_option("--nccl-tests", o->inputs,
                  "nccl-tests stdout (e.g. all_reduce_perf -b 8 -e 4G -f 2 -g 8); repeat per "
                  "collective")
      ->required();
  cmd->add_option("--base", o->base,
                  fmt::format("Topology to start from: {} or a JSON file",
                              fmt::join(sim::topology_preset_names(), ", ")))
      ->capture_default_str();
  cmd->add_option("--op", o->op,
                  "Collective of outputs that do not name it: all_reduce, reduce_scatter, "
                  "all_gather, all_to_all, broadcast");
  cmd->add_option("--name", o->name, "Name of the calibrated topology (default <base>-calibrated)");
  cmd->add_option("--out", o->out, "Topology JSON to write (atomically)")->required();
  return [o](std::ostream& out) { return calibrate(*o, out); };
}

}  // namespace canzona::harness
