// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Stream ordering between torch's current CUDA stream and an NCCL communicator's stream, with
// events only: the collective sees everything torch enqueued before it, and torch work enqueued
// after it sees its result. Nothing here synchronises the host.
#include "device_collectives.hpp"

#include <canzona/comm/nccl_communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/stream.hpp>

#include <c10/cuda/CUDAStream.h>
#include <fmt/format.h>

namespace canzona::torch_model::detail {

comm::Request all_reduce_on_current_stream(comm::Communicator& comm, const at::Tensor& send,
                                           at::Tensor& recv, comm::DataType type,
                                           comm::ReduceOp op) {
  auto* nccl = dynamic_cast<comm::NcclCommunicator*>(&comm);
  if (nccl == nullptr) {
    throw ConfigError(fmt::format(
        "tensor-parallel group '{}' ({} backend) cannot reduce CUDA tensors: use an NCCL "
        "communicator for CUDA tensors and MPI for CPU tensors",
        comm.name(), comm.backend()));
  }
  if (send.device().index() != nccl->device()) {
    throw ConfigError(fmt::format(
        "tensor-parallel group '{}' runs on cuda:{} but the tensor is on {}; build the model "
        "on the communicator's device",
        comm.name(), nccl->device(), send.device().str()));
  }
  // The caching allocator may hand send's or recv's memory to later torch work only after the
  // torch stream has passed the wait below, so no record_stream is needed.
  const cuda::StreamView torch_stream(c10::cuda::getCurrentCUDAStream(nccl->device()).stream());
  nccl->order_after(torch_stream);
  comm::Request request = comm.all_reduce(send.data_ptr(), recv.data_ptr(),
                                          static_cast<std::size_t>(send.numel()), type, op);
  comm::NcclCommunicator::make_wait(request, torch_stream);
  return request;
}

}  // namespace canzona::torch_model::detail
