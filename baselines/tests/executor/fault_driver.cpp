// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona_fault_driver: a multi-rank executor run (tiny model, Muon, canzona strategy, dp = the
// world) with one injected fault, for fault_mpi_test.cpp. Built like every multi-rank entry
// point: comm::run_mpi_job around the body, comm::agree_on_start on the options that shape the
// run before any step, the collective timeout from --timeout.
//   mpiexec -n 2 canzona_fault_driver --fault throw|kill|stop|bad-input|model|steps|none
//                                     [--fault-rank R] [--fault-step S] [--steps N] [--timeout T]
#include <canzona/backend/backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/agreement.hpp>
#include <canzona/comm/mpi_job.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/comm/timeout.hpp>
#include <canzona/core/error.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/model/json.hpp>
#include <canzona/testing/tiny_model.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Flags {
  std::string fault = "none";
  int fault_rank = 1;
  int fault_step = 1;
  int steps = 3;
  double timeout = 5;
};

int drive(canzona::comm::MpiCommunicator& world, const Flags& f) {
  using namespace canzona;
  comm::set_collective_timeout(f.timeout);
  const bool faulty = world.rank() == f.fault_rank;

  // Preparation that can fail on one rank only: the model (a file missing on that rank) and the
  // step count (a rank given other flags).
  std::exception_ptr local;
  model::ModelSpec spec = testing::tiny_dense_model();
  int steps = f.steps;
  try {
    if (faulty && f.fault == "bad-input")
      spec = model::load_model_spec("missing-on-this-rank.json");
    if (faulty && f.fault == "model") spec = testing::tiny_dense_model({.layers = 3});
    if (faulty && f.fault == "steps") steps = f.steps + 1;
  } catch (...) {
    local = std::current_exception();
  }
  comm::agree_on_start(world,
                       {{"--model", nlohmann::json(spec).dump()},
                        {"--steps", std::to_string(steps)},
                        {"--strategy", "canzona"}},
                       local);

  layout::ParallelConfig config;
  config.dp = world.size();
  config.tp = 1;
  plan::StrategyOptions options;
  baselines::apply_strategy("canzona", options);
  comm::ProcessGroups groups = comm::split_dp_tp(world, 1);
  const auto be = backend::make_backend("cpu");
  exec::Executor executor(baselines::make_step_plan(spec, config, options), world, *groups.dp,
                          *groups.tp, *be);
  for (int step = 0; step < steps; ++step) {
    if (faulty && step == f.fault_step) {
      if (f.fault == "throw") {
        throw std::runtime_error(fmt::format("injected failure at step {}", step));
      }
      if (f.fault == "kill") std::raise(SIGKILL);
      if (f.fault == "stop") std::raise(SIGSTOP);
    }
    for (std::size_t b = 0; b < executor.plan().layout.buffers.size(); ++b) {
      std::vector<float> grads(static_cast<std::size_t>(executor.buffer_elements(b)), 0.01f);
      be->upload(executor.grads(b), grads.data(), grads.size() * sizeof(float));
    }
    executor.step();
  }
  if (world.rank() == 0) std::printf("fault driver: %d steps done\n", steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{"executor run with an injected fault", "canzona_fault_driver"};
  app.add_option("--fault", flags.fault)
      ->check(CLI::IsMember({"none", "throw", "kill", "stop", "bad-input", "model", "steps"}));
  app.add_option("--fault-rank", flags.fault_rank);
  app.add_option("--fault-step", flags.fault_step);
  app.add_option("--steps", flags.steps);
  app.add_option("--timeout", flags.timeout);
  CLI11_PARSE(app, argc, argv);
  return canzona::comm::run_mpi_job(
      argc, argv, [&](canzona::comm::MpiCommunicator& world) { return drive(world, flags); });
}
