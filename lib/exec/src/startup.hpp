// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Executor start-up (internal): the checks a plan must pass before any rank runs it, and the
// one collective that makes every rank agree on them, so a bad job fails everywhere, clearly,
// instead of hanging in a mismatched collective.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstdint>

namespace canzona::exec::detail {

/// FNV-1a 64 of every hyper-parameter of `spec` (plan_hash covers only the optimizer kind, but
/// ranks stepping with different learning rates would drift apart silently).
std::uint64_t optimizer_spec_hash(const optim::OptimizerSpec& spec);

/// What the executor relies on beyond plan::check_plan; canzona::Error naming the buffer,
/// entry or matrix: every buffer's entries agree with its optimizer (a matrix parameter in an
/// element-wise buffer would silently get AdamW), every matrix entry has exactly one
/// MatrixPlan, a matrix owned by one DP rank lies inside that rank's slice when its buffer is
/// reduce-scattered, DP-SC matrices are all-reduced, shards tile their matrices, and every
/// matrix of a DP rank is either in one of its micro-groups or in its replicated list, once.
void check_executable(const plan::StepPlan& plan);

/// Collective over `world`. Throws ConfigError at once when the backend's memory is not the
/// communicators' memory space (cpu pairs with mpi, cuda with nccl) or, for device memory, not on
/// the communicators' device. Otherwise runs the local
/// checks (world = dp·tp, group sizes and Megatron rank order, check_plan, check_executable),
/// then all-gathers (plan_hash, optimizer_spec_hash, checks passed) of every rank and throws
/// on every rank alike: ConfigError naming both hashes when two ranks disagree; the local
/// error on the rank that failed; ConfigError naming that rank on the others.
void agree_on_start(const plan::StepPlan& plan, comm::Communicator& world,
                    const comm::Communicator& dp, const comm::Communicator& tp,
                    backend::Backend& backend);

}  // namespace canzona::exec::detail
