// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CLI11 validators for numeric flags, over the one range checker (canzona/core/numeric_text.hpp),
// so every command's flags fail alike: "--dp: 0 is out of range; expected an integer in
// [1, 65536]", "--alpha: 'x' is not a number; ...". CLI11's own Range/PositiveNumber print the
// 309-digit double limit and call a word "out of range"; they are not used.
#pragma once

#include <canzona/core/numeric_text.hpp>
#include <canzona/layout/parallel_config.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace canzona::bench {

/// An integer flag in `range`.
CLI::Validator integer_in(IntegerRange range);
/// A finite real flag in `range`.
CLI::Validator real_in(RealRange range);

/// Common ranges, one definition each.
inline constexpr IntegerRange kAtLeastOne{1, std::numeric_limits<std::int64_t>::max()};
/// Rank counts (--dp, --tp, --gpus, --gpus-per-node): up to the largest job plans are built for.
inline constexpr IntegerRange kRanks{1, layout::kMaxWorldSize};
inline constexpr IntegerRange kRepetitions{1, 100000};
inline constexpr IntegerRange kSeed{0, std::numeric_limits<int>::max()};
inline constexpr RealRange kPositive{0, std::numeric_limits<double>::max(), true};
inline constexpr RealRange kNonNegative{0, std::numeric_limits<double>::max(), false};
inline constexpr RealRange kUnitInterval{0, 1, false};

}  // namespace canzona::bench
