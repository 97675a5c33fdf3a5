// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NcclUniqueId / NcclComm: creation, split, explicit finalize and the abort fallback.
#include "canzona/comm/nccl_comm.hpp"

#include "canzona/comm/nccl_check.hpp"

#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <cstdio>
#include <utility>

namespace canzona::comm {

NcclUniqueId NcclUniqueId::create() {
  NcclUniqueId id;
  CANZONA_NCCL_CHECK(ncclGetUniqueId(&id.id_), nullptr);
  return id;
}

NcclComm NcclComm::init_rank(const NcclUniqueId& id, int nranks, int rank, int device) {
  const cuda::DeviceGuard guard(device);
  ncclComm_t comm = nullptr;
  CANZONA_NCCL_CHECK(ncclCommInitRank(&comm, nranks, id.get(), rank), nullptr);
  return NcclComm(comm, device, rank, nranks);
}

std::vector<NcclComm> NcclComm::init_all(std::span<const int> devices) {
  const int n = static_cast<int>(devices.size());
  std::vector<ncclComm_t> raw(devices.size(), nullptr);
  CANZONA_NCCL_CHECK(ncclCommInitAll(raw.data(), n, devices.data()), nullptr);
  std::vector<NcclComm> comms;
  comms.reserve(devices.size());
  for (int i = 0; i < n; ++i) {
    comms.push_back(
        NcclComm(raw[static_cast<std::size_t>(i)], devices[static_cast<std::size_t>(i)], i, n));
  }
  return comms;
}

NcclComm::~NcclComm() {
  if (comm_ != nullptr) abort("destroyed without finalize()");
}

NcclComm::NcclComm(NcclComm&& other) noexcept
    : comm_(std::exchange(other.comm_, nullptr)),
      device_(std::exchange(other.device_, -1)),
      rank_(std::exchange(other.rank_, 0)),
      size_(std::exchange(other.size_, 0)) {}

NcclComm& NcclComm::operator=(NcclComm&& other) noexcept {
  if (this != &other) {
    if (comm_ != nullptr) abort("replaced without finalize()");
    comm_ = std::exchange(other.comm_, nullptr);
    device_ = std::exchange(other.device_, -1);
    rank_ = std::exchange(other.rank_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

NcclComm NcclComm::split(int color, int key) const {
  const cuda::DeviceGuard guard(device_);
  ncclComm_t child = nullptr;
  CANZONA_NCCL_CHECK(
      ncclCommSplit(comm_, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &child, nullptr), comm_);
  if (child == nullptr) {
    return NcclComm();
  }
  int rank = 0;
  int size = 0;
  NcclComm result(child, device_, 0, 0);
  CANZONA_NCCL_CHECK(ncclCommUserRank(child, &rank), child);
  CANZONA_NCCL_CHECK(ncclCommCount(child, &size), child);
  result.rank_ = rank;
  result.size_ = size;
  return result;
}

void NcclComm::finalize() {
  if (comm_ == nullptr) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_NCCL_CHECK(ncclCommFinalize(comm_), comm_);
  CANZONA_NCCL_CHECK(ncclCommDestroy(comm_), comm_);
  comm_ = nullptr;
}

ncclResult_t NcclComm::async_error() const noexcept {
  if (comm_ == nullptr) return ncclSuccess;
  ncclResult_t async = ncclSuccess;
  const ncclResult_t query = ncclCommGetAsyncError(comm_, &async);
  return query != ncclSuccess ? query : async;
}

void NcclComm::abort(const char* why) noexcept {
  if (comm_ == nullptr) {
    return;
  }
  if (why != nullptr) {
    std::fprintf(stderr,
                 "canzona: warning: NCCL communicator (rank %d of %d, device %d) %s; aborting it\n",
                 rank_, size_, device_, why);
  }
  // Abort is local and does not wait for peers, which may be gone.
  int previous = -1;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device_ &&
                        cudaSetDevice(device_) == cudaSuccess;
  CANZONA_NCCL_WARN(ncclCommAbort(comm_), nullptr);
  if (switched) {
    CANZONA_CUDA_WARN(cudaSetDevice(previous));
  }
  comm_ = nullptr;
}

}  // namespace canzona::comm
