// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Collectives on CUDA tensors, ordered on the current torch stream. Built only where libtorch
// has CUDA and the project has NCCL (device_collectives.cpp); elsewhere the TP group refuses
// CUDA tensors with a ConfigError before calling this.
#pragma once

#include <canzona/comm/communicator.hpp>

#include <ATen/ATen.h>

namespace canzona::torch_model::detail {

/// Sum / max of `send` into `recv` (same shape, contiguous, on the communicator's device) over an
/// NCCL communicator: its stream waits for the current torch stream, the collective is enqueued,
/// and the torch stream waits for the collective's completion event. Returns the request, which
/// must stay alive until it completes. ConfigError for a non-NCCL communicator or another device.
comm::Request all_reduce_on_current_stream(comm::Communicator& comm, const at::Tensor& send,
                                           at::Tensor& recv, comm::DataType type,
                                           comm::ReduceOp op);

}  // namespace canzona::torch_model::detail
