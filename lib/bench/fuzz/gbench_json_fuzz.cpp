// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Google Benchmark JSON, through the reader `validate` (and the comparison commands) use.
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/bench/gbench_json.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("gbench_json", [&] {
    const canzona::bench::BenchmarkFile file =
        canzona::bench::parse_gbench_json_text(canzona::fuzz::as_text(data, size), "fuzz.json");
    for (const auto& row : file.rows) {
      if (!row.error) canzona::bench::real_time_ms(row);
    }
  });
  return 0;
}
