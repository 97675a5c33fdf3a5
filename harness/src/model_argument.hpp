// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The --model argument shared by subcommands: a catalog name or a JSON model spec file.
#pragma once

#include <canzona/model/spec.hpp>

#include <string>

namespace canzona::harness {

/// A catalog entry when `value` names one (case-insensitive), scaled when it carries a "~d<factor>"
/// suffix (model::model_from_name); otherwise, when it ends in
/// ".json" or names an existing file, the spec loaded from that file. ConfigError when neither.
model::ModelSpec resolve_model(const std::string& value);

}  // namespace canzona::harness
