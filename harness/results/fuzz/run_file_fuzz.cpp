// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A run file, read as the results commands read it (bench::parse_gbench_json_text, then
// make_run) and then used as they use it: the provenance check, a comparison with itself (the
// gate's arithmetic on every value) and a table in every format. Each step either works or
// refuses the file with a ConfigError; values, types, nesting and sizes come from the fuzzer.
#include <canzona/bench/gbench_json.hpp>
#include <canzona/core/fuzz_contract.hpp>
#include <canzona/harness/compare.hpp>
#include <canzona/harness/run_series.hpp>
#include <canzona/harness/table.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace canzona;
  fuzz::expect_value_or_config_error("run_file", [&] {
    const harness::Run run = harness::make_run(
        bench::parse_gbench_json_text(fuzz::as_text(data, size), "fuzz.json"), "fuzz.json");
    harness::require_canzona_provenance(run.context, run.source, /*allow_debug=*/true);
    harness::CompareOptions compare;
    compare.allow_debug = true;
    const harness::Comparison comparison = harness::compare_runs(run, run, compare);
    harness::comparison_markdown(comparison, /*changes_only=*/false);
    harness::comparison_json(comparison).dump();
    for (const auto format : {harness::TableFormat::kMarkdown, harness::TableFormat::kCsv,
                              harness::TableFormat::kLatex, harness::TableFormat::kHtml}) {
      harness::TableOptions table;
      table.format = format;
      harness::render_table(run, table);
    }
  });
  return 0;
}
