// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/gbench_json.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

namespace canzona::harness {
namespace {

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
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ConfigError(
        fmt::format("{}: field '{}' has the wrong type ({})", where, key, it->type_name()));
  }
}

std::optional<std::string> row_error(const nlohmann::json& row) {
  if (row.value("error_occurred", false)) {
    return row.value("error_message", std::string("error_occurred without a message"));
  }
  if (const auto skipped = row.find("skipped");
      skipped != row.end() && skipped->is_boolean() && skipped->get<bool>()) {
    return row.value("skip_message", std::string("skipped"));
  }
  return std::nullopt;
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
    if (value.is_string()) file.context[key] = value.get<std::string>();
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
    parsed.error = row_error(row);
    parsed.run_type = row.value("run_type", std::string("iteration"));
    parsed.aggregate_name = row.value("aggregate_name", std::string());
    parsed.label = row.value("label", std::string());
    if (!parsed.error) {
      // A failed row carries no timings in 1.7.1; only successful rows must have them.
      parsed.iterations = required<std::int64_t>(row, "iterations", where);
      parsed.real_time = required<double>(row, "real_time", where);
      parsed.cpu_time = required<double>(row, "cpu_time", where);
      parsed.time_unit = required<std::string>(row, "time_unit", where);
      if (parsed.time_unit != "ns" && parsed.time_unit != "us" && parsed.time_unit != "ms" &&
          parsed.time_unit != "s") {
        throw ConfigError(fmt::format("{}: unknown time_unit '{}' (expected ns, us, ms or s)",
                                      where, parsed.time_unit));
      }
    }
    for (const auto& [key, value] : row.items()) {
      if (value.is_number() && known_row_fields().count(key) == 0) {
        parsed.counters[key] = value.get<double>();
      }
    }
    file.rows.push_back(std::move(parsed));
  }
  return file;
}

namespace {

// Google Benchmark's non-finite numbers ("nan", "-nan", "NaN", "inf", "-inf", "Infinity") become
// null; everything inside strings is left alone.
std::string null_non_finite_numbers(const std::string& text) {
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
    const std::size_t start = c == '-' ? i + 1 : i;
    std::size_t end = start;
    while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
    std::string word = text.substr(start, end - start);
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (word == "nan" || word == "inf" || word == "infinity") {
      out += "null";
      i = end - 1;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

nlohmann::json read_gbench_document(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw ConfigError(fmt::format("cannot read '{}': no such file or not readable", path.string()));
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return nlohmann::json::parse(null_non_finite_numbers(text));
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("'{}' is not valid JSON: {}", path.string(), e.what()));
  }
}

BenchmarkFile read_gbench_json(const std::filesystem::path& path) {
  return parse_gbench_json(read_gbench_document(path), path.string());
}

double real_time_ms(const BenchmarkRow& row) {
  if (row.time_unit == "ns") return row.real_time * 1e-6;
  if (row.time_unit == "us") return row.real_time * 1e-3;
  if (row.time_unit == "s") return row.real_time * 1e3;
  return row.real_time;
}

}  // namespace canzona::harness
