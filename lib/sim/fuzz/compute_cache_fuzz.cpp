// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Compute caches (`project --compute-cache FILE`): merge a cache file's text.
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/sim/compute_model.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("compute_cache", [&] {
    canzona::sim::ComputeCache cache("cpu");
    cache.merge_text(canzona::fuzz::as_text(data, size), "fuzz.json");
  });
  return 0;
}
