// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "iteration_counters.hpp"

#include "step_counters.hpp"

#include <canzona/model/catalog.hpp>
#include <canzona/model/flops.hpp>

namespace canzona::bench::e2e {

double iteration_tokens(const E2ECase& c, int micro_batches) {
  return static_cast<double>(c.step.dp) * micro_batches * c.mbs * c.seq;
}

void report_iteration(benchmark::State& state, const IterationCounters& counters, const E2ECase& c,
                      int micro_batches) {
  using step::ms;
  state.counters["projected"] = c.step.projected ? 1 : 0;
  state.counters["iteration_ms"] = ms(counters.iteration_seconds);
  state.counters["forward_ms"] = ms(counters.forward_seconds);
  state.counters["backward_ms"] = ms(counters.backward_seconds);
  state.counters["step_ms"] = ms(counters.step_seconds);
  state.counters["optimizer_exposed_ms"] = ms(counters.optimizer_exposed_seconds);
  const auto optional = [&](const char* name, const std::optional<double>& seconds) {
    if (seconds) state.counters[name] = ms(*seconds);
  };
  optional("other_ms", counters.other_seconds);
  optional("grad_sync_only_ms", counters.grad_sync_only_seconds);
  optional("tp_comm_ms", counters.tp_comm_seconds);
  optional("dp_sync_exposed_ms", counters.dp_sync_exposed_seconds);
  const double tokens = iteration_tokens(c, micro_batches);
  state.counters["tokens"] = tokens;
  state.counters["tokens_per_s"] = tokens / counters.iteration_seconds;
  const double flops =
      model::training_flops(model::model_from_name(c.step.model),
                            static_cast<std::int64_t>(c.step.dp) * micro_batches * c.mbs, c.seq);
  state.counters["model_tflops"] = flops / counters.iteration_seconds / 1e12;
  state.counters["model_tflops_per_gpu"] =
      flops / counters.iteration_seconds / 1e12 / c.step.gpus();
}

}  // namespace canzona::bench::e2e
