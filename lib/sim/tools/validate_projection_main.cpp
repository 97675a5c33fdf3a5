// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona_validate_projection: run under mpiexec; projects each strategy's step on the "local"
// topology (this machine's collectives, measured) with compute measured on the local backend,
// runs the same plan on the executor, and prints / writes the error. Example:
//   OPENBLAS_NUM_THREADS=1 mpirun -np 2 canzona_validate_projection --model small.json --tp 1
#include "projection_validation.hpp"

#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/json.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

canzona::model::ModelSpec resolve_model(const std::string& value) {
  if (value.ends_with(".json") || std::filesystem::exists(value)) {
    return canzona::model::load_model_spec(value);
  }
  return canzona::model::find_model(value);
}

}  // namespace

int main(int argc, char** argv) {
  canzona::comm::MpiRuntime runtime(&argc, &argv);
  const auto world = canzona::comm::MpiCommunicator::world();
  const bool root = world->rank() == 0;

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return root ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }

  try {
    config.model = resolve_model(model);
    config.optimizer.kind = canzona::optim::parse_optimizer_kind(optimizer);
    config.uneven = canzona::sim::parse_uneven_collectives(uneven);
    const canzona::sim::ValidationReport report =
        canzona::sim::run_projection_validation(*world, config);
    if (root) {
      std::cout << canzona::sim::format_validation(report);
      if (!out.empty()) {
        canzona::io::write_file_atomically(
            out, fmt::format("{}\n", canzona::sim::validation_json(report).dump(2)));
        std::cout << fmt::format("report written to {}\n", out);
      }
    }
    return 0;
  } catch (const canzona::ConfigError& e) {
    // Bad input is the same on every rank; only the root says so.
    if (root) std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // Other ranks may be blocked in a collective: abort the job rather than hang.
    std::fprintf(stderr, "internal error on rank %d: %s\n", world->rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
}
