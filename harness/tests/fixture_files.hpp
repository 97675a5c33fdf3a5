// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Run files for the harness tests: the fixture run (fixtures/optimizer_step_run.json, the shape
// of results/SCHEMA.md), edits that turn it into the cases a test needs, and a temporary folder
// that holds them.
#pragma once

#include <canzona/testing/run_process.hpp>

#include "child_jobs.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace canzona::testing {

/// A fresh temporary folder, removed with the object.
class FixtureFiles {
 public:
  FixtureFiles();
  ~FixtureFiles();
  FixtureFiles(const FixtureFiles&) = delete;
  FixtureFiles& operator=(const FixtureFiles&) = delete;

  /// The fixture run, parsed.
  static nlohmann::json fixture();
  /// Path of `name` inside the folder (not created).
  std::string path(const std::string& name) const;
  /// Writes `document` (pretty-printed) and returns its path.
  std::string write(const std::string& name, const nlohmann::json& document) const;
  /// Writes `text` as it is and returns its path.
  std::string write_text(const std::string& name, const std::string& text) const;
  const std::filesystem::path& dir() const { return scratch_.path(); }

 private:
  // mkdtemp: no other test process can share it (the seed and, under the sanitizers, the heap
  // addresses are equal across CTest's parallel processes, so names drawn from them repeat).
  harness::ScratchDir scratch_;
};

/// The markdown table cell a report prints for benchmark `name`: "| `name` |".
std::string table_cell(const std::string& name);

/// Multiplies every time of benchmark `key` (repetitions and their aggregates, except cv) by
/// `factor`: an injected slowdown.
void scale_times(nlohmann::json& run, const std::string& key, double factor);

/// Removes every row of benchmark `key`.
void remove_rows(nlohmann::json& run, const std::string& key);

/// Sets the label of every row of benchmark `key`.
void set_label(nlohmann::json& run, const std::string& key, const std::string& label);

/// Renames benchmark `key` to `new_key` in every row (name and run_name).
void rename_rows(nlohmann::json& run, const std::string& key, const std::string& new_key);

/// The canzona-bench of this build run with `args`, as a user would run it.
ProcessResult bench(const std::vector<std::string>& args);

/// The line of `text` that holds `needle` (without its newline), or "" when none does.
std::string line_containing(const std::string& text, const std::string& needle);

}  // namespace canzona::testing
