// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/bench/gbench_json.hpp"

#include <canzona/core/error.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/io/json_text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <type_traits>

namespace canzona::bench {
namespace {

// Bounds that keep every product, square and ratio the results commands form from a file's
// numbers finite (a time of 1e308 s would make a median of inf and a geometric mean of NaN):
// a time of 0 or from 1e-12 ms (a femtosecond, far below any clock's resolution) up to 1e12 ms
// (31 years), and a counter up to 1e30 in magnitude; their squares, products and ratios stay
// finite.
constexpr double kMinTimeMs = 1e-12;
constexpr double kMaxTimeMs = 1e12;
constexpr double kMaxCounterMagnitude = 1e30;

double in_ms(double value, std::string_view unit) {
  if (unit == "ns") return value * 1e-6;
  if (unit == "us") return value * 1e-3;
  if (unit == "s") return value * 1e3;
  return value;
}

void check_time(double value, std::string_view unit, std::string_view key,
                const std::string& where) {
  if (!std::isfinite(value) || value < 0) {
    throw ConfigError(
        fmt::format("{}: '{}' is {}, but a time must be finite and >= 0", where, key, value));
  }
  const double ms = in_ms(value, unit);
  if (ms > kMaxTimeMs || (ms > 0 && ms < kMinTimeMs)) {
    throw ConfigError(
        fmt::format("{}: '{}' is {} {}, outside any benchmark's times (0, or {:g} "
                    "to {:g} ms): the file was edited or corrupted",
                    where, key, value, unit, kMinTimeMs, kMaxTimeMs));
  }
}

double checked_counter(double value, std::string_view key, const std::string& where) {
  if (!(std::abs(value) <= kMaxCounterMagnitude)) {
    throw ConfigError(
        fmt::format("{}: counter '{}' is {}, beyond any counter a suite writes (at "
                    "most {:g} in magnitude): the file was edited or corrupted",
                    where, key, value, kMaxCounterMagnitude));
  }
  return value;
}

// Google Benchmark's own numeric context (num_cpus, mhz_per_cpu, load_avg) as text, so a report
// can show the load a run was measured under: "2", "2445", "6.35 8.4 9.2"; "" for anything
// else (booleans, the caches' objects).
std::string context_number_text(const nlohmann::json& value) {
  if (value.is_number()) return fmt::format("{:.4g}", value.get<double>());
  if (!value.is_array() || value.empty()) return "";
  std::string text;
  for (const nlohmann::json& item : value) {
    if (!item.is_number()) return "";
    text += fmt::format("{}{:.3g}", text.empty() ? "" : " ", item.get<double>());
  }
  return text;
}

// Fields of a row the reader interprets itself; every other number is a user counter.
const std::set<std::string>& known_row_fields() {
  static const std::set<std::string> fields = {"name",
                                               "family_index",
                                               "per_family_instance_index",
                                               "run_name",
                                               "run_type",
                                               "repetitions",
                                               "repetition_index",
                                               "threads",
                                               "iterations",
                                               "real_time",
                                               "cpu_time",
                                               "time_unit",
                                               "aggregate_name",
                                               "aggregate_unit",
                                               "error_occurred",
                                               "error_message",
                                               "skipped",
                                               "skip_message",
                                               "label"};
  return fields;
}

template <typename T>
T required(const nlohmann::json& row, const char* key, const std::string& where) {
  const auto it = row.find(key);
  if (it == row.end()) {
    throw ConfigError(fmt::format("{}: missing field '{}'", where, key));
  }
  if (it->is_null()) {
    // A bare NaN or Infinity in the file reads as null (with_non_finite_as_null).
    throw ConfigError(fmt::format("{}: field '{}' is not a finite value (null, NaN or Infinity)",
                                  where, key));
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann would truncate 2.5 and wrap 1e30 or 2^64 - 1 into a negative count.
    const bool fits = it->is_number_integer() &&
                      !(it->is_number_unsigned() &&
                        it->template get<std::uint64_t>() >
                            static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    if (!fits) {
      throw ConfigError(fmt::format("{}: field '{}' must be an integer up to {}, got {}", where,
                                    key, std::numeric_limits<T>::max(), it->dump()));
    }
  }
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ConfigError(
        fmt::format("{}: field '{}' has the wrong type ({})", where, key, it->type_name()));
  }
}

// A field the format may omit; when present it must have the right type (nlohmann's value()
// would throw its own type_error, which is not a user-facing message).
template <typename T>
std::optional<T> optional_field(const nlohmann::json& row, const char* key,
                                const std::string& where) {
  if (!row.contains(key)) return std::nullopt;
  return required<T>(row, key, where);
}

std::optional<std::string> row_error(const nlohmann::json& row, const std::string& where) {
  if (optional_field<bool>(row, "error_occurred", where).value_or(false)) {
    return optional_field<std::string>(row, "error_message", where)
        .value_or("error_occurred without a message");
  }
  // "skipped" is a boolean in some Google Benchmark versions and an enum (0 = not skipped) in
  // others.
  const auto skipped = row.find("skipped");
  const bool is_skipped = skipped != row.end() && skipped->is_number_integer()
                              ? skipped->get<std::int64_t>() != 0
                              : optional_field<bool>(row, "skipped", where).value_or(false);
  if (is_skipped) {
    return optional_field<std::string>(row, "skip_message", where).value_or("skipped");
  }
  return std::nullopt;
}

// Google Benchmark writes NaN and infinite counters as the bare words NaN, -NaN, Infinity and
// -Infinity (1.7.1's JSONReporter: the cv of a counter whose mean is 0 is NaN), which JSON does
// not allow. Outside strings they become null: such a counter is then absent, not a number.
std::string with_non_finite_as_null(std::string_view text) {
  static constexpr std::string_view kWords[] = {"-Infinity", "Infinity", "-NaN", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    const auto word = std::find_if(std::begin(kWords), std::end(kWords), [&](std::string_view w) {
      return text.substr(i, w.size()) == w;
    });
    if (!in_string && word != std::end(kWords)) {
      out += "null";
      i += word->size() - 1;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

BenchmarkFile parse_gbench_json(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object()) {
    throw ConfigError(
        fmt::format("{}: not a Google Benchmark JSON file (top level is {}, "
                    "expected an object with 'context' and 'benchmarks')",
                    source, document.type_name()));
  }
  BenchmarkFile file;
  const auto context = document.find("context");
  if (context == document.end() || !context->is_object()) {
    throw ConfigError(
        fmt::format("{}: missing object 'context' (was the file written with "
                    "--benchmark_out_format=json?)",
                    source));
  }
  for (const auto& [key, value] : context->items()) {
    if (value.is_string()) {
      file.context[key] = value.get<std::string>();
    } else if (std::string text = context_number_text(value); !text.empty()) {
      file.context[key] = std::move(text);
    }
  }
  const auto rows = document.find("benchmarks");
  if (rows == document.end() || !rows->is_array()) {
    throw ConfigError(fmt::format("{}: missing array 'benchmarks'", source));
  }
  std::size_t index = 0;
  for (const nlohmann::json& row : *rows) {
    const std::string where = fmt::format("{}: benchmarks[{}]", source, index++);
    if (!row.is_object()) throw ConfigError(where + ": not an object");
    BenchmarkRow parsed;
    parsed.name = required<std::string>(row, "name", where);
    parsed.error = row_error(row, where);
    parsed.run_name = optional_field<std::string>(row, "run_name", where).value_or(parsed.name);
    parsed.run_type = optional_field<std::string>(row, "run_type", where).value_or("iteration");
    parsed.aggregate_name = optional_field<std::string>(row, "aggregate_name", where).value_or("");
    parsed.aggregate_unit = optional_field<std::string>(row, "aggregate_unit", where).value_or("");
    parsed.repetitions = optional_field<std::int64_t>(row, "repetitions", where).value_or(1);
    parsed.repetition_index =
        optional_field<std::int64_t>(row, "repetition_index", where).value_or(0);
    parsed.label = optional_field<std::string>(row, "label", where).value_or("");
    if (!parsed.error) {
      // A failed row carries no timings in 1.7.1; only successful rows must have them.
      parsed.iterations = required<std::int64_t>(row, "iterations", where);
      parsed.real_time = required<double>(row, "real_time", where);
      parsed.cpu_time = required<double>(row, "cpu_time", where);
      // Google Benchmark never writes these; a file that has them was edited or corrupted, and
      // a comparison against it would gate on nonsense.
      if (parsed.iterations < 1) {
        throw ConfigError(fmt::format(
            "{}: 'iterations' is {}, but a successful benchmark ran at least one iteration", where,
            parsed.iterations));
      }
      parsed.time_unit = required<std::string>(row, "time_unit", where);
      if (parsed.time_unit != "ns" && parsed.time_unit != "us" && parsed.time_unit != "ms" &&
          parsed.time_unit != "s") {
        throw ConfigError(fmt::format("{}: unknown time_unit '{}' (expected ns, us, ms or s)",
                                      where, parsed.time_unit));
      }
      for (const auto& [key, value] :
           {std::pair{"real_time", parsed.real_time}, std::pair{"cpu_time", parsed.cpu_time}}) {
        check_time(value, parsed.time_unit, key, where);
      }
    }
    for (const auto& [key, value] : row.items()) {
      if (value.is_number() && known_row_fields().count(key) == 0) {
        parsed.counters[key] = checked_counter(value.get<double>(), key, where);
      }
    }
    file.rows.push_back(std::move(parsed));
  }
  return file;
}

namespace {

nlohmann::json gbench_document(std::string_view text, const std::string& source) {
  return io::parse_json_text(with_non_finite_as_null(text), fmt::format("'{}'", source),
                             "give a file written by a benchmark suite's --benchmark_out");
}

}  // namespace

nlohmann::json read_gbench_document(const std::filesystem::path& path) {
  return gbench_document(io::read_input_file(path, "benchmark JSON"), path.string());
}

BenchmarkFile parse_gbench_json_text(std::string_view text, const std::string& source) {
  return parse_gbench_json(gbench_document(text, source), source);
}

BenchmarkFile read_gbench_json(const std::filesystem::path& path) {
  return parse_gbench_json(read_gbench_document(path), path.string());
}

double real_time_ms(const BenchmarkRow& row) { return in_ms(row.real_time, row.time_unit); }

}  // namespace canzona::bench
