// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor's device parts (internal): built into the device module (lib/device) and reached
// from defaults.cpp through it, so the executor itself never links CUDA or NCCL.
#pragma once

#include <canzona/backend/backend.hpp>

#include "canzona/exec/comm_ordering.hpp"
#include "canzona/exec/step_timer.hpp"

namespace canzona::exec::detail {

/// The stream ordering of make_stream_ordering (stream_ordering.cpp) for a cuda backend.
CommOrdering* new_stream_ordering(backend::Backend& backend);
/// The CUDA-event timer of make_event_timer (event_timer.cpp) for a cuda backend.
StepTimer* new_event_timer(backend::Backend& backend);

}  // namespace canzona::exec::detail
