// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON model specs and HF config.json (`--model FILE`): parse, validate, then derive what every
// command derives from a spec (parameter counts, the Megatron parameter list).
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/model/json.hpp>
#include <canzona/model/parameters.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("model_spec", [&] {
    const canzona::model::ModelSpec spec =
        canzona::model::model_spec_from_json_text(canzona::fuzz::as_text(data, size), "fuzz.json");
    if (spec.total_params() <= 0) std::abort();
    // The parameter list is built by every command; bounded by the spec's limits, but still
    // skipped for specs too large to enumerate at fuzzing speed.
    if (spec.num_layers * (spec.num_experts + 1) <= 4096) {
      const auto params = canzona::model::parameters(spec, canzona::model::ParamLayout::kMegatron);
      if (params.empty()) std::abort();
    }
  });
  return 0;
}
