// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/cli.hpp"

#include "commands.hpp"

#include <canzona/bench/did_you_mean.hpp>

#include <canzona/config.hpp>
#include <canzona/core/build_info.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <utility>

namespace canzona::harness {
namespace {

// The first `--flag` among a command's arguments that the command does not have, with the
// nearest flag it does have; "" when every flag is known. CLI11 alone reports "--model is
// required" for `--modle` or "arguments were not expected: 3 --threshhold".
std::string unknown_flag(const CLI::App& command, const std::vector<std::string>& args) {
  std::vector<std::string> known = {"--help"};
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;  // what follows is positional
    if (!arg.starts_with("--")) continue;
    const std::string name = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return fmt::format("{} has no flag {}{} (canzona-bench {} --help lists them)",
                         command.get_name(), name, bench::did_you_mean(name, known),
                         command.get_name());
    }
    // An empty path (an unset variable in a script) would mean "standard output" or "here".
    const bool inline_value = arg.find('=') != std::string::npos;
    if ((name == "--out" || name == "--to" || name == "--markdown") &&
        (inline_value ? arg.size() == name.size() + 1
                      : i + 1 < args.size() && args[i + 1].empty())) {
      return fmt::format("{} {} needs a path, not an empty word (an unset variable?)",
                         command.get_name(), name);
    }
    // A value given as the next word may itself start with "--" (ab's --run-arg).
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option != nullptr && option->get_type_size() != 0 && arg.find('=') == std::string::npos) {
      ++i;
    }
  }
  return "";
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "canzona-bench: plans, runs and compares distributed matrix-optimizer steps "
      "(Canzona and its baselines) on Qwen3 shapes",
      "canzona-bench"};
  app.set_version_flag("--version",
                       std::string(CANZONA_VERSION) + " (" + canzona::build_git_sha() + ")");
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<std::pair<CLI::App*, CommandAction>> commands;
  auto add = [&](CommandAction (*adder)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    CommandAction action = adder(app);
    commands.emplace_back(app.get_subcommands({}).at(before), std::move(action));
  };
  add(add_models_command);
  add(add_devices_command);
  add(add_plan_command);
  add(add_project_command);
  add(add_run_command);
  add(add_calibrate_command);
  add(add_step_command);
  add(add_validate_command);
  add(add_ab_command);
  add(add_compare_command);
  add(add_drift_command);
  add(add_table_command);
  add(add_plot_command);
  add(add_report_command);
  add(add_promote_command);

  // CLI11 would only say "A subcommand is required" for a mistyped command; name it instead.
  if (!args.empty() && !args.front().starts_with("-") &&
      std::none_of(commands.begin(), commands.end(),
                   [&](const auto& c) { return c.first->get_name() == args.front(); })) {
    std::vector<std::string> names;
    for (const auto& c : commands) names.push_back(c.first->get_name());
    err << "error: unknown command '" << args.front() << "'"
        << bench::did_you_mean(args.front(), names)
        << " Available: " << fmt::format("{}", fmt::join(names, ", "))
        << "\nRun with --help for more information.\n";
    return kExitUsage;
  }
  if (!args.empty()) {
    const auto named = std::find_if(commands.begin(), commands.end(), [&](const auto& c) {
      return c.first->get_name() == args.front();
    });
    if (named != commands.end()) {
      if (const std::string message = unknown_flag(*named->first, args); !message.empty()) {
        err << "error: " << message << "\n";
        return kExitUsage;
      }
    }
  }

  // CLI11 parses in reverse order of a vector; it expects argv order reversed.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    // --help and --version exit 0; every real parse error is a usage error.
    return code == 0 ? kExitOk : kExitUsage;
  }

  const auto chosen = std::find_if(commands.begin(), commands.end(),
                                   [](const auto& c) { return c.first->parsed(); });
  try {
    // Results are built completely before anything is printed, so a failure leaves no partial
    // output behind.
    std::ostringstream buffered;
    const int code = chosen->second(buffered);
    out << buffered.str();
    return code;
  } catch (const ConfigError& e) {
    err << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const InterruptedError& e) {
    err << "interrupted: " << e.what() << "\n";
    return 128 + e.signal_number();
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace canzona::harness
