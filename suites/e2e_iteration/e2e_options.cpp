// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "e2e_options.hpp"

#include "suite_flags.hpp"

#include <canzona/bench/presets.hpp>

#include <canzona/model/catalog.hpp>
#include <canzona/torch_model/memory.hpp>

#include <algorithm>
#include <vector>

namespace canzona::bench::e2e {
E2EOptions read_e2e_options() {
  E2EOptions o;
  o.backend = suite_backend_flag();
  // The preset's grid (lib/bench), or the suite's own; each flag given replaces one list.
  const E2EGridSpec defaults = e2e_suite_grid(suite_text_flag("preset", ""), o.backend);
  step::CaseGrid& g = o.grid.step;
  g.optimizers = suite_list_flag("optimizers", defaults.step.optimizers);
  g.strategies = suite_list_flag("strategies", defaults.step.strategies);
  g.models = suite_list_flag("models", defaults.step.models);
  g.projected_models = suite_list_flag("projected_models", defaults.step.projected_models);
  g.projected_gpus = suite_whole_list_flag("projected_gpus", defaults.step.projected_gpus, 1);
  g.projected_tp = suite_whole_flag("projected_tp", 8, 1);
  g.gpus_per_node = suite_whole_flag("gpus_per_node", 8, 1);
  const std::string tp = suite_text_flag("tp", "");
  // Sizes of 0 pass here: the model's own check says what is wrong with them.
  if (!tp.empty()) o.grid.tp = suite_whole_list_flag("tp", tp, 0);
  o.grid.seq = suite_whole_list_flag("seq", defaults.seq, 0);
  o.grid.mbs = suite_whole_list_flag("mbs", defaults.mbs, 0);
  o.grid.projected_seq = suite_whole_flag("projected_seq", defaults.projected_seq, 0);
  o.grid.projected_mbs = suite_whole_flag("projected_mbs", defaults.projected_mbs, 0);
  o.warmup = suite_whole_flag("warmup", 1, 0);
  o.micro_batches = suite_whole_flag("micro_batches", 1, 1);
  o.global_batch = suite_whole_flag("global_batch", 128, 1);
  o.torch_threads = suite_whole_flag("torch_threads", 1, 1);
  o.rank_memory_bytes =
      suite_flag("rank_memory_gib", RealRange{0, 1e6}).value_or(0) * 1024 * 1024 * 1024;
  o.seed = static_cast<std::uint64_t>(suite_whole_flag("seed", 1, 0));
  o.plan = std::make_shared<const step::PlanSettings>(suite_text_flag("plan", ""));
  o.topology = suite_text_flag("topology", "dgx-h100");

  // Every model against every run shape and TP degree asked for, before any case exists.
  const auto check_models = [](const std::vector<std::string>& models, const std::vector<int>& seqs,
                               const std::vector<int>& mbss) {
    for (const std::string& name : models) {
      const model::ModelSpec spec = model::model_from_name(name);
      for (const int seq : seqs) {
        for (const int mbs : mbss) torch_model::validate({mbs, seq}, spec);
      }
    }
  };
  check_models(g.models, o.grid.seq, o.grid.mbs);
  check_models(g.projected_models, {o.grid.projected_seq}, {o.grid.projected_mbs});
  for (const std::string& name : g.models) {
    for (const int t : o.grid.tp) torch_model::validate_tp(model::model_from_name(name), t);
  }
  return o;
}

int projected_micro_batches(const E2EOptions& options, const E2ECase& c) {
  return std::max(1, options.global_batch / (c.step.dp * c.mbs));
}

}  // namespace canzona::bench::e2e
