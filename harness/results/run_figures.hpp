// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Every figure `plot` draws of a run, for a command that embeds them (report).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace canzona::harness {

/// Draws the figures of run file `run` (PNG) into the existing folder `out`, as `canzona-bench
/// plot RUN --out OUT [--filter F]` does, passing its progress on to `progress`; returns the
/// figures written, sorted by name. ConfigError for what plot refuses, Error when it fails.
std::vector<std::filesystem::path> draw_run_figures(const std::string& run,
                                                    const std::filesystem::path& out,
                                                    const std::string& filter, bool allow_debug,
                                                    std::ostream& progress);

}  // namespace canzona::harness
