// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_figures.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>

#include <algorithm>
#include <sstream>

namespace canzona::harness {

namespace fs = std::filesystem;

std::vector<fs::path> draw_run_figures(const std::string& run, const fs::path& out,
                                       const std::string& filter, bool allow_debug,
                                       std::ostream& progress) {
  // The plot command itself, so a report's figures are exactly the ones `plot` draws.
  std::vector<std::string> args = {"plot", run, "--out", out.string(), "--format", "png"};
  if (!filter.empty()) args.insert(args.end(), {"--filter", filter});
  if (allow_debug) args.emplace_back("--allow-debug");
  std::ostringstream errors;
  const int code = run_cli(args, progress, errors);
  if (code == kExitUsage) {
    std::string message = errors.str();
    if (message.starts_with("error: ")) message.erase(0, 7);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw ConfigError(message);
  }
  if (code != kExitOk) throw Error("plot failed: " + errors.str());
  progress << errors.str();  // the warnings of a plot that worked
  std::vector<fs::path> figures;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().extension() == ".png") figures.push_back(entry.path());
  }
  std::sort(figures.begin(), figures.end());
  return figures;
}

}  // namespace canzona::harness
