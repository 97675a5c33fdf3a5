// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona_validate_projection: run under mpiexec; projects each strategy's step on the "local"
// topology (this machine's collectives, measured) with compute measured on the local backend,
// runs the same plan on the executor, and prints / writes the error. Example:
//   OPENBLAS_NUM_THREADS=1 mpirun -np 2 canzona_validate_projection --model small.json --tp 1
// A failure on any rank (bad flags or a missing model file on one rank only, ranks given
// different flags, an error or a stall mid-run) ends the whole job with a message naming it.
#include "projection_validation.hpp"

#include <canzona/comm/agreement.hpp>
#include <canzona/comm/mpi_job.hpp>
#include <canzona/core/error.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/model/model_argument.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

int validate(canzona::comm::MpiCommunicator& world, int argc, char** argv) {
  const bool root = world.rank() == 0;
  CLI::App app{"Projection vs executor on this machine's MPI ranks (run under mpiexec)",
               "canzona_validate_projection"};
  std::string model;
  std::string optimizer = "muon";
  std::string out;
  std::string uneven = "padded";
  canzona::sim::ValidationConfig config;
  app.add_option("--model", model, "Catalog name or JSON model spec")->required();
  app.add_option("--tp", config.tp, "Tensor-parallel size (dp = ranks / tp)")
      ->capture_default_str();
  app.add_option("--strategy", config.strategies, "Strategies, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--optimizer", optimizer, "muon, shampoo or soap")->capture_default_str();
  app.add_option("--backend", config.backend, "cpu or cuda")->capture_default_str();
  app.add_option("--warmup", config.warmup_steps, "Untimed executor steps")->capture_default_str();
  app.add_option("--steps", config.timed_steps, "Timed executor steps (median compared)")
      ->capture_default_str();
  app.add_option("--measure-steps", config.measure_steps, "Steps per shape when measuring compute")
      ->capture_default_str();
  app.add_option("--calibration-sizes", config.calibration.sizes,
                 "Message sizes (bytes) of the local collective calibration, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--uneven", uneven, "Uneven RS/AG model: padded (MPI) or grouped (NCCL)")
      ->capture_default_str();
  app.add_option("--seed", config.seed, "Values of parameters and gradients")
      ->capture_default_str();
  app.add_option("--out", out, "Write the JSON report here (rank 0, atomically)");

  // Everything a rank can get wrong on its own (a flag, a missing model file) is collected and
  // shown to every rank at the agreement below, so the job stops together, with one message.
  std::exception_ptr local;
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) {  // --help
        if (root) app.exit(e);
        return 0;
      }
      throw canzona::ConfigError(fmt::format("{}; run with --help", e.what()));
    }
    config.model = canzona::model::resolve_model(model);
    config.optimizer.kind = canzona::optim::parse_optimizer_kind(optimizer);
    config.uneven = canzona::sim::parse_uneven_collectives(uneven);
    if (root && !out.empty()) canzona::io::check_output_file(out, "--out");
  } catch (...) {
    local = std::current_exception();
  }
  canzona::comm::agree_on_start(world, canzona::sim::validation_run_options(config), local);

  const canzona::sim::ValidationReport report =
      canzona::sim::run_projection_validation(world, config);
  if (root) {
    std::cout << canzona::sim::format_validation(report);
    if (!out.empty()) {
      canzona::io::write_file_atomically(
          out, fmt::format("{}\n", canzona::sim::validation_json(report).dump(2)));
      std::cout << fmt::format("report written to {}\n", out);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return canzona::comm::run_mpi_job(argc, argv, [&](canzona::comm::MpiCommunicator& world) {
    return validate(world, argc, argv);
  });
}
