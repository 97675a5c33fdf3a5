// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A name that becomes one file inside a folder the user chose: a flag's value or, worse, a
// field read from a file (a run's preset, its executable). Anything that could climb out of the
// folder or name another one is refused before any path is made of it.
#pragma once

#include <string>
#include <string_view>

namespace canzona::io {

/// `name` when it is one plain path component: not empty, at most 255 bytes, no '/', not "." or
/// "..", no control characters, not starting with '-' (an option to any tool that gets it).
/// ConfigError otherwise, naming `what` (e.g. "--name", "the run's 'canzona_preset'").
std::string checked_file_name(std::string_view name, std::string_view what);

}  // namespace canzona::io
