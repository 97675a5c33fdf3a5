// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Human-readable text view of a ZeRO-1 layout (for `canzona-bench plan`, logs and debugging).
#pragma once

#include <string>

#include "canzona/layout/zero1.hpp"

namespace canzona::layout {

/// A text table per buffer: for each bucket its [start, end) range, padded size, shard size per
/// rank, number of params and how many of them are cut across ranks; with `verbose`, every param
/// with its range, size and the ranks whose slices it spans. Ends with a summary: total elements,
/// padding elements, and the number of matrices cut across ranks.
std::string format_zero1_layout(const Zero1Layout& layout, bool verbose = false);

}  // namespace canzona::layout
