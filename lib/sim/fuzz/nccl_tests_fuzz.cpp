// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// nccl-tests output (`calibrate --nccl-tests FILE`): parse, then fit what parsed.
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/sim/nccl_tests.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("nccl_tests", [&] {
    const canzona::sim::NcclTestsRun run = canzona::sim::parse_nccl_tests(
        canzona::fuzz::as_text(data, size), "fuzz.txt", std::nullopt);
    canzona::sim::fit_alpha_beta(run);
  });
  return 0;
}
