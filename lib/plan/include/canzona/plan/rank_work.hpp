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

}  // namespace canzona::plan
