// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What a DP partition balances: one cost per buffer entry, either its element count (Canzona's
// default, --dp-balanced-opt-cost numel) or the FLOPs our optimizer spends stepping it.
#pragma once

#include <canzona/layout/zero1.hpp>
#include <canzona/optim/options.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace canzona::plan {

/// The per-entry cost a partition is judged by (paper-spec §3.3 acceptance test).
enum class CostKind {
  kNumel,  ///< the entry's TP-local element count ("numel"; the paper's W(p))
  kFlops,  ///< mean FLOPs per steady-state step of our optimizer implementation ("flops")
};

std::string_view to_string(CostKind kind);  ///< "numel", "flops"
/// Case-insensitive; ConfigError listing the choices for anything else.
CostKind parse_cost_kind(std::string_view text);

/// Why `kind` misleads a partition for the optimizer `optimizer`, or "" when it does not: the
/// element count tracks Muon's Newton–Schulz work well enough (its FLOPs grow with the matrix's
/// area times its short side), but Shampoo's and SOAP's eigendecompositions grow with the cube
/// of each side, so a numel-balanced plan piles the large square matrices on a few ranks.
std::string_view cost_proxy_warning(CostKind kind, optim::OptimizerKind optimizer);

/// One cost per entry of `buffer` (same order as buffer.entries), as a double.
///  - kNumel: entry.numel(), the TP-local element count this DP rank's buffer slice holds.
///  - kFlops: for a matrix entry, optim::step_cost(spec, rows, cols).mean_flops() of the FULL
///    matrix, layout.params[entry.param_index].shape: after the owner's TP group reconstructs it
///    the whole matrix is what gets stepped, once per TP group. (The reference code costs the
///    TP-local shape; at fixed tp the two differ by a per-matrix factor that is not uniform for
///    Newton–Schulz, so the full shape is the one that predicts the owner's step time.) Entries
///    that do not use the matrix optimizer, and every entry when spec.kind is kAdamW, cost what
///    AdamW spends on the entry's TP-local elements (element-wise: no reconstruction needed).
/// `buffer` must be one of layout.buffers (param_index refers to layout.params). ConfigError when
/// `spec` is invalid.
std::vector<double> entry_costs(const layout::Zero1Layout& layout, const layout::Buffer& buffer,
                                CostKind kind, const optim::OptimizerSpec& spec);

/// Positions 0..n−1 of `costs`, largest cost first; equal costs keep their order (the order every
/// LPT-style planner here visits its items in, so that plans are reproducible).
std::vector<std::size_t> largest_first(std::span<const double> costs);

}  // namespace canzona::plan
