// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The end-to-end suite's own flags (`--canzona_<name>=<value>`, see README.md).
#pragma once

#include "case_plan.hpp"
#include "e2e_case.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace canzona::bench::e2e {

struct E2EOptions {
  E2EGrid grid;
  std::string backend;     ///< "cpu" or "cuda"
  int warmup = 1;          ///< untimed iteration pairs of each case before its first timed one
  int micro_batches = 1;   ///< measured rows: micro-batches per DP rank and iteration
  int global_batch = 128;  ///< projected rows: sequences per iteration over all DP ranks
  int torch_threads = 1;   ///< libtorch intra-op threads per rank (CPU)
  /// Memory one rank may use; 0: its share of what the device has available.
  double rank_memory_bytes = 0;
  std::uint64_t seed = 1;                          ///< parameter values and tokens
  std::shared_ptr<const step::PlanSettings> plan;  ///< preset and switches of every case's plan
  std::string topology;                            ///< topology of projected rows
};

/// Reads the flags; ConfigError naming a bad value: an unknown optimizer, strategy, model or
/// topology, a sequence length or micro-batch of 0, a TP degree that does not shard a model.
E2EOptions read_e2e_options();

/// Micro-batches of a projected row: global_batch / (dp · mbs), at least 1.
int projected_micro_batches(const E2EOptions& options, const E2ECase& c);

}  // namespace canzona::bench::e2e
