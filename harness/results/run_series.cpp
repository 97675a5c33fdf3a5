// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/run_series.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/statistics.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

namespace canzona::harness {
namespace {

// Appends one row to its series: a repetition adds a sample and its counters, an aggregate
// fills in what a file without repetitions still says.
void add_row(Series& series, const bench::BenchmarkRow& row,
             std::map<std::string, std::vector<double>>& counter_samples) {
  if (row.error) {
    if (!series.error) series.error = row.error;
    return;
  }
  if (row.run_type == "aggregate") {
    series.aggregate_repetitions = std::max(series.aggregate_repetitions, row.repetitions);
    if (row.aggregate_name == "median") series.aggregate_median_ms = bench::real_time_ms(row);
    // cv rows carry a fraction in real_time (aggregate_unit "percentage").
    if (row.aggregate_name == "cv") series.aggregate_cv = row.real_time;
    if (row.aggregate_name == "median") {
      for (const auto& [key, value] : row.counters) counter_samples[key + "\n"].push_back(value);
    }
    if (series.label.empty()) series.label = row.label;
    return;
  }
  series.samples_ms.push_back(bench::real_time_ms(row));
  for (const auto& [key, value] : row.counters) counter_samples[key].push_back(value);
  if (series.label.empty()) series.label = row.label;
}

// Counters come from the repetitions; from the median aggregate only when there are none
// (those were collected under "<name>\n" to keep the two apart).
void finish_counters(Series& series, std::map<std::string, std::vector<double>>& samples) {
  for (auto& [key, values] : samples) {
    const bool from_aggregate = key.ends_with('\n');
    if (from_aggregate != series.samples_ms.empty()) continue;
    const std::string name = from_aggregate ? key.substr(0, key.size() - 1) : key;
    series.counters[name] = median(values);
    if (!from_aggregate) series.counter_samples[name] = values;
  }
}

}  // namespace

double Series::median_ms() const {
  if (!samples_ms.empty()) return median(samples_ms);
  return aggregate_median_ms.value_or(0.0);
}

double Series::cv() const {
  // All-zero repetitions (a projected row of an empty plan) have no spread, not a NaN one.
  if (samples_ms.size() >= 2) {
    const double centre = mean(samples_ms);
    return centre > 0 ? sample_stddev(samples_ms) / centre : 0.0;
  }
  return aggregate_cv.value_or(0.0);
}

std::int64_t Series::repetitions() const {
  if (!samples_ms.empty()) return static_cast<std::int64_t>(samples_ms.size());
  return aggregate_median_ms ? aggregate_repetitions : 0;
}

bool Series::projected() const {
  const auto it = counters.find("projected");
  return name.projected || (it != counters.end() && it->second == 1.0);
}

std::optional<double> Series::counter(const std::string& key) const {
  const auto it = counters.find(key);
  if (it == counters.end()) return std::nullopt;
  return it->second;
}

std::string Run::context_or(const std::string& key, const std::string& fallback) const {
  const auto it = context.find(key);
  return it == context.end() || it->second.empty() ? fallback : it->second;
}

const Series* Run::find(const std::string& key, bool projected) const {
  const auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) {
    return s.name.key == key && s.name.projected == projected;
  });
  return it == series.end() ? nullptr : &*it;
}

std::map<std::string, std::string> parse_label_fields(const std::string& label) {
  std::map<std::string, std::string> fields;
  std::size_t begin = 0;
  while (begin <= label.size()) {
    std::size_t end = label.find(';', begin);
    if (end == std::string::npos) end = label.size();
    const std::string field = label.substr(begin, end - begin);
    const std::size_t eq = field.find('=');
    if (eq != std::string::npos && eq > 0) fields[field.substr(0, eq)] = field.substr(eq + 1);
    begin = end + 1;
  }
  return fields;
}

Run make_run(const bench::BenchmarkFile& file, const std::string& source) {
  Run run;
  run.source = source;
  run.context = file.context;
  if (file.rows.empty()) {
    throw ConfigError(fmt::format("{}: no benchmarks in the file", source));
  }
  std::map<std::string, std::size_t> index_of;  // run_name -> position in run.series
  std::vector<std::map<std::string, std::vector<double>>> counter_samples;
  for (const bench::BenchmarkRow& row : file.rows) {
    const std::string& run_name = row.run_name.empty() ? row.name : row.run_name;
    auto [it, inserted] = index_of.try_emplace(run_name, run.series.size());
    if (inserted) {
      Series series;
      series.run_name = run_name;
      try {
        series.name = bench::parse_benchmark_name(run_name);
      } catch (const ConfigError& e) {
        throw ConfigError(
            fmt::format("{}: {} (results/SCHEMA.md lists the name shapes)", source, e.what()));
      }
      run.series.push_back(std::move(series));
      counter_samples.emplace_back();
    }
    add_row(run.series[it->second], row, counter_samples[it->second]);
  }
  for (std::size_t i = 0; i < run.series.size(); ++i) {
    Series& series = run.series[i];
    finish_counters(series, counter_samples[i]);
    series.label_fields = parse_label_fields(series.label);
    if (!series.error && series.repetitions() == 0) {
      series.error = "no repetition and no median aggregate in the file";
    }
  }
  // Two run names that differ only in measurement suffixes would be one benchmark twice.
  std::set<std::pair<std::string, bool>> seen;
  for (const Series& series : run.series) {
    if (!seen.emplace(series.name.key, series.name.projected).second) {
      throw ConfigError(fmt::format("{}: benchmark '{}' appears twice under different run names",
                                    source, series.name.key));
    }
  }
  return run;
}

Run read_run(const std::filesystem::path& path) {
  return make_run(bench::read_gbench_json(path), path.string());
}

std::vector<Run> read_history(const std::filesystem::path& folder, std::string_view flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(folder, ec)) {
    throw ConfigError(fmt::format(
        "{} '{}' does not exist: give the folder of nightly run files (ci/nightly-gpu.sh keeps "
        "one, its --history: one <date>-<commit>.json a night)",
        flag, folder.string()));
  }
  if (!fs::is_directory(folder, ec)) {
    throw ConfigError(
        fmt::format("{} '{}' is not a folder of run JSON files", flag, folder.string()));
  }
  // Entries that cannot be examined (a link loop, a dangling link) are not run files.
  std::vector<fs::path> files;
  fs::directory_iterator entries(folder, ec);
  if (ec) {
    throw ConfigError(
        fmt::format("{} '{}' cannot be listed: {}", flag, folder.string(), ec.message()));
  }
  for (const fs::directory_entry& entry : entries) {
    std::error_code kind;
    if (entry.is_regular_file(kind) && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  std::vector<Run> runs;
  runs.reserve(files.size());
  for (const fs::path& file : files) {
    try {
      runs.push_back(read_run(file));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format(
          "{} (every *.json file in {} '{}' is read as a run: repair this one or move it out)",
          e.what(), flag, folder.string()));
    }
  }
  // Oldest first: Google Benchmark dates are ISO 8601, so they sort as text.
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    const std::string a_date = a.context_or("date", "");
    const std::string b_date = b.context_or("date", "");
    const std::string a_file = std::filesystem::path(a.source).filename().string();
    const std::string b_file = std::filesystem::path(b.source).filename().string();
    return std::tie(a_date, a_file) < std::tie(b_date, b_file);
  });
  return runs;
}

bool is_release_build(const std::string& build_type) {
  return build_type == "Release" || build_type == "RelWithDebInfo";
}

void require_canzona_provenance(const std::map<std::string, std::string>& context,
                                const std::string& source, bool allow_debug) {
  // Written by suites/common/bench_main.cpp (and merged by `canzona-bench run`).
  static constexpr const char* kProvenanceKeys[] = {"canzona_git_sha", "canzona_build_type",
                                                    "canzona_config", "device_kind"};
  for (const char* key : kProvenanceKeys) {
    if (context.count(key) == 0) {
      throw ConfigError(fmt::format(
          "{}: context has no '{}': not written by a canzona suite or canzona-bench run "
          "(results/SCHEMA.md lists the provenance every run carries)",
          source, key));
    }
  }
  const std::string& build = context.at("canzona_build_type");
  if (!allow_debug && !is_release_build(build)) {
    throw ConfigError(
        fmt::format("{}: built as '{}'; benchmark numbers need a Release build (configure with "
                    "-DCMAKE_BUILD_TYPE=Release, or pass --allow-debug to accept it)",
                    source, build));
  }
}

std::vector<std::string> provenance_lines(const Run& run) {
  std::string device = run.context_or("device_kind", "?");
  const std::string gpu = run.context_or("gpu_name", "none");
  if (gpu != "none") device += fmt::format(" ({} × {})", run.context_or("gpu_count", "?"), gpu);
  std::vector<std::string> lines = {
      fmt::format("Run: {}, git {}, {} build, backend {}, device {}, {} ranks, preset {}, {}",
                  run.source, run.context_or("canzona_git_sha", "?"),
                  run.context_or("canzona_build_type", "?"), run.context_or("canzona_backend", "-"),
                  device, run.context_or("ranks", "-"), run.context_or("canzona_preset", "-"),
                  run.context_or("date", "?")),
      fmt::format("Host: {}", run.context_or("host_name", "?"))};
  const std::string command = run.context_or("canzona_command", "");
  if (!command.empty()) lines.push_back("Command: " + command);
  return lines;
}

std::optional<bench::NamePattern> name_filter(const std::string& pattern) {
  if (pattern.empty()) return std::nullopt;
  return bench::NamePattern(pattern, "--filter");
}

std::string projection_topology(const Run& run, const Series& series) {
  const auto it = series.label_fields.find("topology");
  if (it != series.label_fields.end() && !it->second.empty()) return it->second;
  return run.context_or("topology", "");
}

}  // namespace canzona::harness
