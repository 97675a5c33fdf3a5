// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Units of the plan text view: one SI prefix per column, picked from the column's largest value
// so that numbers stay short and comparable down the column (nvbench / nccl-tests tables).
#pragma once

#include <canzona/plan/cost.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace canzona::harness {

struct Unit {
  double scale = 1;  ///< divide a value by this to print it
  std::string name;  ///< e.g. "TFLOP", "M elem"
};

/// FLOPs with the prefix (k, M, G, T, P) that leaves `max_value` between 1 and 1000.
Unit flop_unit(double max_value);

/// The unit of a cost column: FLOPs for CostKind::kFlops, elements for kNumel.
Unit cost_unit(plan::CostKind kind, double max_value);

/// "1 rank", "256 ranks": `noun` with an "s" unless n is 1.
std::string counted(std::size_t n, std::string_view noun);

/// Bytes as MiB with one decimal: "1234.5".
std::string mib(double bytes);

}  // namespace canzona::harness
