// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_progress.hpp"

#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::harness {
namespace {

// A case's name without Google Benchmark's suffixes; a line that is no name stays as it is.
std::string base_name(std::string_view name) {
  try {
    const bench::BenchmarkName parsed = bench::parse_benchmark_name(name);
    return bench::registered_name(parsed);
  } catch (const ConfigError&) {
    return std::string(name);
  }
}

}  // namespace

RunProgress::RunProgress(const std::vector<std::string>& cases, std::ostream& err)
    : err_(err), seen_(cases.size(), false), start_(std::chrono::steady_clock::now()) {
  for (std::size_t i = 0; i < cases.size(); ++i) index_[base_name(cases[i])] = static_cast<int>(i);
}

void RunProgress::on_line(std::string_view line) {
  const std::string_view name = line.substr(0, line.find_first_of(" \t"));
  const auto it = index_.find(base_name(name));
  if (it == index_.end() || seen_[static_cast<std::size_t>(it->second)]) return;
  seen_[static_cast<std::size_t>(it->second)] = true;
  ++reported_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left = elapsed / reported_ * static_cast<double>(seen_.size() - reported_);
  err_ << fmt::format("[{:>{}}/{}] {:>6.1f} s, ~{:.0f} s left  {}\n", reported_,
                      std::to_string(seen_.size()).size(), seen_.size(), elapsed, left, it->first)
       << std::flush;
}

}  // namespace canzona::harness
