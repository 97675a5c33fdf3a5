// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Benchmark names, through the one parser every results command uses; a name that parses must
// also format back to a name the parser reads to the same parts (the grammar is one table).
#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/fuzz_contract.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("benchmark_name", [&] {
    const canzona::bench::BenchmarkName parsed =
        canzona::bench::parse_benchmark_name(canzona::fuzz::as_text(data, size));
    const canzona::bench::BenchmarkName again =
        canzona::bench::parse_benchmark_name(canzona::bench::format_benchmark_name(parsed));
    if (again.key != parsed.key || again.projected != parsed.projected) {
      std::fprintf(stderr, "benchmark_name: '%s' formats to a name that parses to '%s'\n",
                   parsed.key.c_str(), again.key.c_str());
      std::abort();
    }
  });
  return 0;
}
