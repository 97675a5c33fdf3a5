// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The optimizer flags shared by subcommands (--optimizer and its hyper-parameters), mapped onto
// an OptimizerSpec after parsing. A flag that does not apply to the chosen optimizer is an error
// rather than silently ignored.
#pragma once

#include <canzona/optim/options.hpp>

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

namespace canzona::harness {

class OptimizerFlags {
 public:
  /// Declares --optimizer and every hyper-parameter flag on `command`. --optimizer is required
  /// unless a `default_optimizer` is given (commands that only plan default to Muon).
  explicit OptimizerFlags(CLI::App& command,
                          std::optional<std::string> default_optimizer = std::nullopt);

  /// The spec the parsed flags describe on top of `defaults` (a preset's, or options.hpp's),
  /// validated. ConfigError for a flag that does not apply to the optimizer or a bad value.
  optim::OptimizerSpec spec(const optim::OptimizerSpec& defaults = {}) const;

 private:
  struct Values;
  std::shared_ptr<Values> values_;
};

}  // namespace canzona::harness
