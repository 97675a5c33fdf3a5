// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// MPI backend: non-blocking MPI 3.1 collectives on host buffers.
#include "canzona/comm/mpi_communicator.hpp"

#include "mpi_check.hpp"

#include <canzona/core/bf16.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

namespace canzona::comm {
namespace detail {

void throw_mpi_error(int code, const char* expr, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    std::snprintf(text, sizeof(text), "unknown MPI error");
  }
  throw MpiError(fmt::format("MPI error {} ({}) at {}:{} in '{}'", text, code, file, line, expr),
                 code);
}

}  // namespace detail

namespace {

// Everything an MPI_I* call needs until completion: the request, the int count/displacement
// arrays MPI reads asynchronously, and an optional staging buffer copied out on completion.
class MpiRequestState final : public RequestState {
 public:
  void wait() override {
    CANZONA_MPI_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    complete();
  }
  bool test() override {
    int flag = 0;
    CANZONA_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
    if (flag != 0) {
      complete();
    }
    return flag != 0;
  }

  MPI_Request request = MPI_REQUEST_NULL;
  std::vector<int> counts_a;
  std::vector<int> displs_a;
  std::vector<int> counts_b;
  std::vector<int> displs_b;
  std::vector<std::byte> staging;
  std::function<void()> on_complete;

 private:
  void complete() {
    if (on_complete) {
      std::exchange(on_complete, nullptr)();
    }
  }
};

MPI_Datatype mpi_type(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return MPI_FLOAT;
    case DataType::kFloat64:
      return MPI_DOUBLE;
    // No MPI arithmetic type for these; moved as opaque 2-byte words (reductions rejected).
    case DataType::kBFloat16:
      return MPI_UINT16_T;
    case DataType::kFloat16:
      return MPI_UINT16_T;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kUInt8:
      return MPI_UINT8_T;
  }
  throw ConfigError("invalid comm::DataType value " + std::to_string(static_cast<int>(type)));
}

int query_rank(MPI_Comm comm) {
  int rank = 0;
  CANZONA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int query_size(MPI_Comm comm) {
  int size = 0;
  CANZONA_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

ThreadLevel from_mpi_level(int level) {
  if (level >= MPI_THREAD_MULTIPLE) return ThreadLevel::kMultiple;
  if (level >= MPI_THREAD_SERIALIZED) return ThreadLevel::kSerialized;
  if (level >= MPI_THREAD_FUNNELED) return ThreadLevel::kFunneled;
  return ThreadLevel::kSingle;
}

int to_mpi_level(ThreadLevel level) {
  switch (level) {
    case ThreadLevel::kSingle:
      return MPI_THREAD_SINGLE;
    case ThreadLevel::kFunneled:
      return MPI_THREAD_FUNNELED;
    case ThreadLevel::kSerialized:
      return MPI_THREAD_SERIALIZED;
    case ThreadLevel::kMultiple:
      return MPI_THREAD_MULTIPLE;
  }
  return MPI_THREAD_FUNNELED;
}

// MPI 3.1 has no non-blocking communicator split or duplicate; a barrier through the polling
// Request::wait first turns a stalled or missing peer into a CollectiveTimeoutError naming the
// call, instead of a hang inside the blocking call.
void arrive_together(MPI_Comm comm, std::string_view call, std::string group) {
  auto state = std::make_unique<MpiRequestState>();
  CANZONA_MPI_CHECK(MPI_Ibarrier(comm, &state->request));
  Request request(std::move(state));
  request.set_origin(
      RequestOrigin{call, "mpi", std::move(group), query_rank(comm), query_size(comm)});
  request.wait();
}

// MPI has no bf16 type, so a bf16 sum is a user operation on 16-bit words: each pairwise
// combination widens both operands to fp32 (exact), adds once and rounds to nearest even, the
// arithmetic of one hop of NCCL's bf16 ring. Which pairs are combined, in which association, is
// the MPI algorithm's choice (the operation is commutative), so a sum of more than two ranks may
// round differently from NCCL's ring; sums that are exact in bf16 agree everywhere.
void bf16_sum(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

// Created on first use (MPI is initialised by then) and released by MPI_Finalize.
MPI_Op bf16_sum_op() {
  static const MPI_Op op = [] {
    MPI_Op created = MPI_OP_NULL;
    CANZONA_MPI_CHECK(MPI_Op_create(&bf16_sum, /*commute=*/1, &created));
    return created;
  }();
  return op;
}

const std::byte* at(const void* base, std::size_t elements, std::size_t element_size) {
  return static_cast<const std::byte*>(base) + elements * element_size;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// MpiRuntime

MpiRuntime::MpiRuntime(ThreadLevel required) : MpiRuntime(nullptr, nullptr, required) {}

MpiRuntime::MpiRuntime(int* argc, char*** argv, ThreadLevel required) {
  int initialised = 0;
  CANZONA_MPI_CHECK(MPI_Initialized(&initialised));
  int provided = MPI_THREAD_SINGLE;
  if (initialised != 0) {
    // Someone else (a test main, the application) owns MPI: report what it provides, and never
    // finalise it.
    CANZONA_MPI_CHECK(MPI_Query_thread(&provided));
    provided_ = from_mpi_level(provided);
    return;
  }
  CANZONA_MPI_CHECK(MPI_Init_thread(argc, argv, to_mpi_level(required), &provided));
  provided_ = from_mpi_level(provided);
  if (provided < to_mpi_level(required)) {
    MPI_Finalize();
    throw MpiError(fmt::format("MPI provides thread level {} but {} was required; use an MPI "
                               "built with thread support",
                               provided, to_mpi_level(required)),
                   provided);
  }
  owns_ = true;
}

MpiRuntime::MpiRuntime(MpiRuntime&& other) noexcept
    : owns_(std::exchange(other.owns_, false)), provided_(other.provided_) {}

MpiRuntime::~MpiRuntime() {
  if (owns_ && active()) {
    const int status = MPI_Finalize();
    if (status != MPI_SUCCESS) {
      std::fprintf(stderr, "canzona: warning: MPI_Finalize failed with code %d\n", status);
    }
  }
}

bool MpiRuntime::active() noexcept {
  int initialised = 0;
  int finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised != 0 && finalised == 0;
}

// ---------------------------------------------------------------------------------------------
// MpiCommunicator: construction

MpiCommunicator::MpiCommunicator(MPI_Comm comm, std::string name, bool owning)
    : Communicator(query_rank(comm), query_size(comm), std::move(name)),
      comm_(comm),
      owning_(owning) {}

std::unique_ptr<MpiCommunicator> MpiCommunicator::world() {
  if (!MpiRuntime::active()) {
    throw Error("MpiCommunicator::world: MPI is not initialised; create a comm::MpiRuntime first");
  }
  arrive_together(MPI_COMM_WORLD, "communicator duplicate", "MPI_COMM_WORLD");
  MPI_Comm dup = MPI_COMM_NULL;
  CANZONA_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CANZONA_MPI_CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  return std::unique_ptr<MpiCommunicator>(new MpiCommunicator(dup, "world", true));
}

std::unique_ptr<MpiCommunicator> MpiCommunicator::borrow(MPI_Comm comm, std::string name) {
  return std::unique_ptr<MpiCommunicator>(new MpiCommunicator(comm, std::move(name), false));
}

MpiCommunicator::~MpiCommunicator() {
  if (!owning_ || comm_ == MPI_COMM_NULL || comm_ == MPI_COMM_WORLD || comm_ == MPI_COMM_SELF) {
    return;
  }
  if (!MpiRuntime::active()) {
    std::fprintf(stderr,
                 "canzona: warning: MPI communicator '%s' outlived MPI_Finalize; not freed\n",
                 name().c_str());
    return;
  }
  const int status = MPI_Comm_free(&comm_);
  if (status != MPI_SUCCESS) {
    std::fprintf(stderr, "canzona: warning: MPI_Comm_free of '%s' failed with code %d\n",
                 name().c_str(), status);
  }
}

NodeRanks MpiCommunicator::node_ranks() const {
  arrive_together(comm_, "node split", name());
  MPI_Comm local = MPI_COMM_NULL;
  CANZONA_MPI_CHECK(
      MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &local));
  NodeRanks result;
  const int rank_status = MPI_Comm_rank(local, &result.local_rank);
  const int size_status = MPI_Comm_size(local, &result.local_size);
  MPI_Comm_free(&local);
  CANZONA_MPI_CHECK(rank_status);
  CANZONA_MPI_CHECK(size_status);
  return result;
}

std::unique_ptr<Communicator> MpiCommunicator::do_split(int color, int key, std::string name) {
  arrive_together(comm_, "split", this->name());
  MPI_Comm child = MPI_COMM_NULL;
  CANZONA_MPI_CHECK(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &child));
  if (child == MPI_COMM_NULL) {
    return nullptr;
  }
  CANZONA_MPI_CHECK(MPI_Comm_set_errhandler(child, MPI_ERRORS_RETURN));
  return std::unique_ptr<Communicator>(new MpiCommunicator(child, std::move(name), true));
}

// ---------------------------------------------------------------------------------------------
// MpiCommunicator: argument conversion

int MpiCommunicator::to_int(std::string_view call, std::size_t value) const {
  if (value > static_cast<std::size_t>(INT_MAX)) {
    fail(call, fmt::format("{} elements exceed the MPI count limit INT_MAX ({}); split the "
                           "operation into smaller pieces",
                           value, INT_MAX));
  }
  return static_cast<int>(value);
}

MPI_Op MpiCommunicator::reduction(std::string_view call, DataType type, ReduceOp op) const {
  if (type == DataType::kBFloat16 && op == ReduceOp::kSum) return bf16_sum_op();
  if (type == DataType::kBFloat16 || type == DataType::kFloat16) {
    fail(call, fmt::format("the MPI backend cannot reduce {} with {} (MPI has no such arithmetic "
                           "type; only the bfloat16 sum is provided); reduce in float32",
                           to_string(type), to_string(op)));
  }
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
  }
  fail(call, fmt::format("invalid ReduceOp value {}", static_cast<int>(op)));
}

// ---------------------------------------------------------------------------------------------
// MpiCommunicator: collectives

Request MpiCommunicator::do_all_reduce(const void* send, void* recv, std::size_t count,
                                       DataType type, ReduceOp op) {
  const MPI_Op mpi_op = reduction("all_reduce", type, op);
  const int n = to_int("all_reduce", count);
  auto state = std::make_unique<MpiRequestState>();
  CANZONA_MPI_CHECK(MPI_Iallreduce(send == recv ? MPI_IN_PLACE : send, recv, n, mpi_type(type),
                                   mpi_op, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_reduce_scatter(const void* send, void* recv,
                                           std::span<const std::size_t> counts,
                                           std::span<const std::size_t> displs, DataType type,
                                           ReduceOp op) {
  constexpr std::string_view kCall = "reduce_scatter";
  const MPI_Op mpi_op = reduction(kCall, type, op);
  auto state = std::make_unique<MpiRequestState>();
  for (const std::size_t c : counts) {
    state->counts_a.push_back(to_int(kCall, c));
  }
  (void)to_int(kCall, displs.empty() ? 0 : displs.back() + counts.back());
  const std::size_t e = size_of(type);
  const std::size_t r = static_cast<std::size_t>(rank());
  void* target = recv;
  if (recv != nullptr && counts[r] > 0 && at(send, displs[r], e) == recv) {
    // In place in NCCL's sense (result lands in this rank's slice of the send buffer). MPI would
    // need recv == send and write the result to the front, so stage it and copy on completion.
    state->staging.resize(counts[r] * e);
    target = state->staging.data();
    state->on_complete = [dst = recv, src = state->staging.data(), bytes = counts[r] * e] {
      std::memcpy(dst, src, bytes);
    };
  }
  CANZONA_MPI_CHECK(MPI_Ireduce_scatter(send, target, state->counts_a.data(), mpi_type(type),
                                        mpi_op, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_all_gather(const void* send, void* recv,
                                       std::span<const std::size_t> counts,
                                       std::span<const std::size_t> displs, DataType type) {
  constexpr std::string_view kCall = "all_gather";
  auto state = std::make_unique<MpiRequestState>();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    state->counts_a.push_back(to_int(kCall, counts[i]));
    state->displs_a.push_back(to_int(kCall, displs[i]));
  }
  const std::size_t r = static_cast<std::size_t>(rank());
  const bool in_place = send != nullptr && at(recv, displs[r], size_of(type)) == send;
  CANZONA_MPI_CHECK(MPI_Iallgatherv(
      in_place ? MPI_IN_PLACE : send, state->counts_a[r], mpi_type(type), recv,
      state->counts_a.data(), state->displs_a.data(), mpi_type(type), comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_all_to_all(const void* send, std::span<const std::size_t> send_counts,
                                       std::span<const std::size_t> send_displs, void* recv,
                                       std::span<const std::size_t> recv_counts,
                                       std::span<const std::size_t> recv_displs, DataType type) {
  constexpr std::string_view kCall = "all_to_all";
  auto state = std::make_unique<MpiRequestState>();
  for (std::size_t i = 0; i < send_counts.size(); ++i) {
    state->counts_a.push_back(to_int(kCall, send_counts[i]));
    state->displs_a.push_back(to_int(kCall, send_displs[i]));
    state->counts_b.push_back(to_int(kCall, recv_counts[i]));
    state->displs_b.push_back(to_int(kCall, recv_displs[i]));
  }
  CANZONA_MPI_CHECK(MPI_Ialltoallv(send, state->counts_a.data(), state->displs_a.data(),
                                   mpi_type(type), recv, state->counts_b.data(),
                                   state->displs_b.data(), mpi_type(type), comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_broadcast(void* buf, std::size_t count, DataType type, int root) {
  const int n = to_int("broadcast", count);
  auto state = std::make_unique<MpiRequestState>();
  CANZONA_MPI_CHECK(MPI_Ibcast(buf, n, mpi_type(type), root, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                   ReduceOp op, int root) {
  const MPI_Op mpi_op = reduction("reduce", type, op);
  const int n = to_int("reduce", count);
  const bool in_place = rank() == root && send == recv;
  auto state = std::make_unique<MpiRequestState>();
  CANZONA_MPI_CHECK(MPI_Ireduce(in_place ? MPI_IN_PLACE : send, recv, n, mpi_type(type), mpi_op,
                                root, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_gather(const void* send, std::size_t send_count, void* recv,
                                   std::span<const std::size_t> recv_counts,
                                   std::span<const std::size_t> displs, DataType type, int root) {
  constexpr std::string_view kCall = "gather";
  auto state = std::make_unique<MpiRequestState>();
  for (std::size_t i = 0; i < recv_counts.size(); ++i) {
    state->counts_a.push_back(to_int(kCall, recv_counts[i]));
    state->displs_a.push_back(to_int(kCall, displs[i]));
  }
  const int n = to_int(kCall, send_count);
  const bool in_place = rank() == root && send != nullptr &&
                        at(recv, displs[static_cast<std::size_t>(root)], size_of(type)) == send;
  CANZONA_MPI_CHECK(MPI_Igatherv(in_place ? MPI_IN_PLACE : send, n, mpi_type(type), recv,
                                 state->counts_a.data(), state->displs_a.data(), mpi_type(type),
                                 root, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_scatter(const void* send, std::span<const std::size_t> send_counts,
                                    std::span<const std::size_t> displs, void* recv,
                                    std::size_t recv_count, DataType type, int root) {
  constexpr std::string_view kCall = "scatter";
  auto state = std::make_unique<MpiRequestState>();
  for (std::size_t i = 0; i < send_counts.size(); ++i) {
    state->counts_a.push_back(to_int(kCall, send_counts[i]));
    state->displs_a.push_back(to_int(kCall, displs[i]));
  }
  const int n = to_int(kCall, recv_count);
  const bool in_place = rank() == root && recv != nullptr &&
                        at(send, displs[static_cast<std::size_t>(root)], size_of(type)) == recv;
  CANZONA_MPI_CHECK(MPI_Iscatterv(send, state->counts_a.data(), state->displs_a.data(),
                                  mpi_type(type), in_place ? MPI_IN_PLACE : recv, n, mpi_type(type),
                                  root, comm_, &state->request));
  return Request(std::move(state));
}

Request MpiCommunicator::do_barrier() {
  auto state = std::make_unique<MpiRequestState>();
  CANZONA_MPI_CHECK(MPI_Ibarrier(comm_, &state->request));
  return Request(std::move(state));
}

}  // namespace canzona::comm
