// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one reading of a --model argument (every command and tool that takes one): a catalog name,
// possibly scaled, or a JSON model spec file.
#pragma once

#include "canzona/model/spec.hpp"

#include <string>

namespace canzona::model {

/// A catalog entry when `value` names one (case-insensitive), scaled when it carries a "~d<factor>"
/// suffix (model_from_name); otherwise, when it ends in
/// ".json" or names an existing file, the spec loaded from that file. ConfigError when neither.
ModelSpec resolve_model(const std::string& value);

}  // namespace canzona::model
