// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Reader of Google Benchmark JSON output (1.7.1 fields and the newer skip fields), tolerant of
// unknown keys as the format's documentation asks, strict about the fields the harness uses.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::bench {

/// One row of the `benchmarks` array.
struct BenchmarkRow {
  std::string name;
  std::string run_name;        ///< the run a repetition or aggregate belongs to (= name if absent)
  std::string run_type;        ///< "iteration" or "aggregate"
  std::string aggregate_name;  ///< "mean", "median", "stddev", "cv" for aggregates, else ""
  std::string aggregate_unit;  ///< "time", or "percentage" (cv: real_time is a fraction)
  std::int64_t repetitions = 1;       ///< repetitions of the run (1 when the field is absent)
  std::int64_t repetition_index = 0;  ///< which repetition an iteration row is
  std::int64_t iterations = 0;
  double real_time = 0.0;
  double cpu_time = 0.0;
  std::string time_unit;                   ///< "ns", "us", "ms" or "s"
  std::map<std::string, double> counters;  ///< every other numeric field (user counters)
  std::string label;                       ///< SetLabel() text ("" when absent)
  std::optional<std::string> error;        ///< error_message / skip_message when it failed
};

/// A whole benchmark output file.
struct BenchmarkFile {
  std::map<std::string, std::string> context;  ///< string context keys, and numbers as text
  std::vector<BenchmarkRow> rows;
};

/// Parses a document; `source` names it in error messages. Throws ConfigError saying which field
/// of which row is missing, has the wrong type or an impossible value (fewer than one iteration,
/// a negative or non-finite time in a successful row).
BenchmarkFile parse_gbench_json(const nlohmann::json& document, const std::string& source);

/// Parses JSON text; ConfigError when it is not valid JSON (with the parser's byte position) or
/// parse_gbench_json refuses it. The entry point every reader of suite output goes through.
BenchmarkFile parse_gbench_json_text(std::string_view text, const std::string& source);

/// The JSON document of a file as Google Benchmark writes it, read through io::read_input_file
/// (regular files only). Google Benchmark writes NaN and infinities as bare words (NaN, -NaN,
/// Infinity, -Infinity; the cv of a counter whose mean is 0 is NaN), which JSON has no literal
/// for: they are read as null, i.e. as absent counters. ConfigError when the file cannot be read
/// or is not valid JSON otherwise (with the parser's position).
nlohmann::json read_gbench_document(const std::filesystem::path& path);

/// read_gbench_document, then parse_gbench_json.
BenchmarkFile read_gbench_json(const std::filesystem::path& path);

/// real_time converted to milliseconds.
double real_time_ms(const BenchmarkRow& row);

}  // namespace canzona::bench
