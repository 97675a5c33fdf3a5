// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The suggestion a mistyped command or flag gets, in canzona-bench and in the suites alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace canzona::bench {

/// "; did you mean X?" for the candidate nearest to `word` by edit distance when it is close
/// enough to be a typo (at most max(2, |word| / 3) edits), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace canzona::bench
