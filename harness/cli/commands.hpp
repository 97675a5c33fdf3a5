// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Subcommands of canzona-bench. Each add_* declares its flags on `app` and returns the action
// that runs it after a successful parse; the action returns an ExitCode.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>

namespace canzona::harness {

using CommandAction = std::function<int(std::ostream& out)>;

CommandAction add_ab_command(CLI::App& app);
CommandAction add_calibrate_command(CLI::App& app);
CommandAction add_compare_command(CLI::App& app);
CommandAction add_devices_command(CLI::App& app);
CommandAction add_drift_command(CLI::App& app);
CommandAction add_models_command(CLI::App& app);
CommandAction add_plan_command(CLI::App& app);
CommandAction add_plot_command(CLI::App& app);
CommandAction add_project_command(CLI::App& app);
CommandAction add_promote_command(CLI::App& app);
CommandAction add_report_command(CLI::App& app);
CommandAction add_run_command(CLI::App& app);
CommandAction add_step_command(CLI::App& app);
CommandAction add_table_command(CLI::App& app);
CommandAction add_validate_command(CLI::App& app);

}  // namespace canzona::harness
