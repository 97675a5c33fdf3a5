// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one way JSON text from a user's file becomes a document. nlohmann's parser throws more than
// parse_error: a number too large for a double (`1e400`) is an out_of_range exception, which the
// fuzzers found escaping every reader that caught parse_error alone. Here every parser exception
// becomes a ConfigError that names the file and says how to fix it.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

namespace canzona::io {

/// Parses `text`. `what` names the file in messages ("model spec 'x.json'"); `fix` says what to do
/// about it ("fix the syntax"). ConfigError "<what>: not valid JSON: <parser's reason>; <fix>" for
/// any text the parser refuses.
nlohmann::json parse_json_text(std::string_view text, std::string_view what, std::string_view fix);

}  // namespace canzona::io
