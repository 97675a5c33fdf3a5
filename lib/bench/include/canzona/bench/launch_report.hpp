// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How `canzona-bench run` learns, before it measures anything, that its launcher started the
// suite on the ranks it asked for. It names a file in CANZONA_LAUNCH_REPORT when it lists a
// suite's cases; rank 0 of the suite writes the job's size there as soon as the job exists. No
// file: the launcher never started the suite (`--launcher false`); another size: it started
// another job than the one asked for. Both are refused before the first case runs.
#pragma once

#include <filesystem>
#include <optional>

namespace canzona::bench {

inline constexpr const char* kLaunchReportVariable = "CANZONA_LAUNCH_REPORT";

/// Suite side, on rank 0: writes `ranks` to the file CANZONA_LAUNCH_REPORT names (nothing when
/// it is unset or empty).
void write_launch_report(int ranks);

/// run side: the job size the suite reported in `file`, or nullopt when no rank of it wrote
/// one (the file is absent or holds no positive integer).
std::optional<int> read_launch_report(const std::filesystem::path& file);

}  // namespace canzona::bench
