// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The parts of one step's work that tools costing every rank of a plan (the projector) need in
// bulk: the DP collectives of all DP ranks at once, a rank's TP collectives alone, a DP rank's
// AdamW slice. rank_collectives and plan_metrics are built from the same functions.
#pragma once

#include <cstdint>
#include <vector>

#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {

/// The element type of the update directions the TP scatters move (the optimizer's).
comm::DataType direction_type(const StrategyOptions& options);

/// The TP collectives global rank (dp_rank, tp_rank) issues, in issue order: the part of
/// rank_collectives between the DP gradient sync and the DP parameter sync (empty for tp == 1).
std::vector<PlannedCollective> tp_collectives(const StepPlan& plan, int dp_rank, int tp_rank);

/// One DP collective of the step as every DP rank issues it. Every DP rank issues the same
/// sequence of DP collectives (one per buffer and bucket, and per owned all-gather-v); only the
/// bytes differ, and costing an instance needs every member's.
struct DpCollectiveSlot {
  PlannedCollective collective;               ///< DP rank 0's view
  std::vector<std::uint64_t> bytes_sent;      ///< per DP rank
  std::vector<std::uint64_t> bytes_received;  ///< per DP rank
  /// Per DP rank, the elements the executor passes over on its own side of the collective:
  /// a gradient sync's kept part, which it then averages (its slice of a reduce-scatter, the
  /// whole bucket of an all-reduce); a layer-wise all-gather-v's own part, packed before it.
  std::vector<std::int64_t> local_elements;
  /// Per DP rank, a layer-wise all-gather-v's other ranks' parts, unpacked after it (else 0).
  std::vector<std::int64_t> unpacked_elements;
};

/// The DP collectives of rank_collectives for all DP ranks at once, in issue order: the gradient
/// sync (phase kGradSync), which comes before the TP collectives, then the parameter sync. Equal
/// to what rank_collectives lists for each DP rank (tested), in O(dp) per collective instead of
/// O(dp) per collective and rank. Empty for dp == 1.
std::vector<DpCollectiveSlot> dp_collective_slots(const StepPlan& plan);

/// Elements of the AdamW buffers DP rank `dp_rank` steps (RankLoad::adamw_elements): its slice
/// of every bucket (ZeRO-1), every element (DP-SC's replicated AdamW), or the entries it owns
/// (layer-wise). Every TP rank of the DP rank steps as many.
std::int64_t adamw_elements(const StepPlan& plan, int dp_rank);

/// Elements of every buffer DP rank `dp_rank` steps and keeps fp32 main parameters for (the
/// executor's main parameters): adamw_elements plus the matrix buffers' elements it steps.
std::int64_t stepped_elements(const StepPlan& plan, int dp_rank);

}  // namespace canzona::plan
