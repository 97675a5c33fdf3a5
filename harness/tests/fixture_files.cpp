// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "fixture_files.hpp"

#include <fstream>
#include <stdexcept>

namespace canzona::testing {
namespace {

// Rows of benchmark `key`: their run_name is the key followed by Google Benchmark's suffixes.
bool belongs_to(const nlohmann::json& row, const std::string& key) {
  const std::string run_name = row.value("run_name", row.at("name").get<std::string>());
  return run_name == key || run_name.rfind(key + "/", 0) == 0;
}

}  // namespace

FixtureFiles::FixtureFiles() : scratch_("canzona-harness-test") {}

// Tests take permissions away to make writes fail; the folder's removal needs them back.
FixtureFiles::~FixtureFiles() {
  std::error_code ignored;
  std::filesystem::permissions(dir(), std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
}

nlohmann::json FixtureFiles::fixture() {
  std::ifstream in(std::string(CANZONA_FIXTURE_DIR) + "/optimizer_step_run.json");
  if (!in) throw std::runtime_error("cannot read the fixture run");
  return nlohmann::json::parse(in);
}

std::string FixtureFiles::path(const std::string& name) const { return (dir() / name).string(); }

std::string FixtureFiles::write(const std::string& name, const nlohmann::json& document) const {
  return write_text(name, document.dump(2));
}

std::string FixtureFiles::write_text(const std::string& name, const std::string& text) const {
  std::ofstream(dir() / name) << text;
  return path(name);
}

std::string table_cell(const std::string& name) { return "| `" + name + "` |"; }

void scale_times(nlohmann::json& run, const std::string& key, double factor) {
  for (nlohmann::json& row : run.at("benchmarks")) {
    if (!belongs_to(row, key) || row.value("aggregate_name", "") == "cv") continue;
    row["real_time"] = row.at("real_time").get<double>() * factor;
    row["cpu_time"] = row.at("cpu_time").get<double>() * factor;
  }
}

void remove_rows(nlohmann::json& run, const std::string& key) {
  nlohmann::json kept = nlohmann::json::array();
  for (const nlohmann::json& row : run.at("benchmarks")) {
    if (!belongs_to(row, key)) kept.push_back(row);
  }
  run["benchmarks"] = kept;
}

void set_label(nlohmann::json& run, const std::string& key, const std::string& label) {
  for (nlohmann::json& row : run.at("benchmarks")) {
    if (belongs_to(row, key)) row["label"] = label;
  }
}

void rename_rows(nlohmann::json& run, const std::string& key, const std::string& new_key) {
  for (nlohmann::json& row : run.at("benchmarks")) {
    if (!belongs_to(row, key)) continue;
    for (const char* field : {"name", "run_name"}) {
      const std::string value = row.at(field).get<std::string>();
      row[field] = new_key + value.substr(key.size());
    }
  }
}

ProcessResult bench(const std::vector<std::string>& args) {
  return run_process(CANZONA_BENCH_EXE, args);
}

std::string line_containing(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

}  // namespace canzona::testing
