// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// MpiCommunicator under mpiexec (1..8 ranks): every collective with uneven counts including zero
// parts, checked element by element against values every rank computes on its own
// (value = f(seed, source rank, index)), plus splits, DP/TP groups, async completion, traces and
// argument validation. The seed is agreed over ranks by the MPI test main.
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/core/bf16.hpp>
#include <canzona/core/error.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace canzona::comm;  // NOLINT(google-build-using-namespace): test brevity
using canzona::testing::test_seed;

// Element checks never return from the test body: a rank that stopped issuing collectives after
// a failed ASSERT would leave its peers waiting forever. Reports the first mismatch of a loop
// and leaves that loop.
#define EXPECT_ELEMENT(actual, expected, where)                                        \
  if (!((actual) == (expected))) {                                                     \
    ADD_FAILURE() << "mismatch at " << where << ": got " << +(actual) << ", expected " \
                  << +(expected);                                                      \
    break;                                                                             \
  }

std::uint64_t mix(std::uint64_t x) {
  // splitmix64 finaliser: a counter-based hash, so any rank can compute any other rank's data.
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Small integers in [-8, 8]: sums over <= 8 ranks are exact in every tested type.
template <typename T>
T value(std::uint64_t seed, int source, std::size_t index) {
  const std::uint64_t h =
      mix(seed ^ mix(static_cast<std::uint64_t>(source) + 1) ^ mix(index * 0x100000001B3ULL));
  return static_cast<T>(static_cast<int>(h % 17) - 8);
}

template <typename T>
T combine(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum:
      return static_cast<T>(a + b);
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kMin:
      return std::min(a, b);
  }
  return a;
}

// Reduction over all `n` source ranks of value(seed, src, index).
template <typename T>
T reduced(ReduceOp op, std::uint64_t seed, int n, std::size_t index) {
  T acc = value<T>(seed, 0, index);
  for (int src = 1; src < n; ++src) {
    acc = combine(op, acc, value<T>(seed, src, index));
  }
  return acc;
}

// Same draw on every rank: the generator is seeded from the agreed seed and a per-test salt.
std::vector<std::size_t> draw_counts(std::mt19937_64& rng, int n, std::size_t max) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(n));
  for (std::size_t& c : counts) {
    c = (rng() % 3 == 0) ? 0 : 1 + rng() % max;
  }
  return counts;
}

std::vector<std::size_t> prefix(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
  return displs;
}

std::size_t total(const std::vector<std::size_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

template <typename T>
struct TypeOf;
template <>
struct TypeOf<float> {
  static constexpr DataType kType = DataType::kFloat32;
};
template <>
struct TypeOf<double> {
  static constexpr DataType kType = DataType::kFloat64;
};
template <>
struct TypeOf<std::int32_t> {
  static constexpr DataType kType = DataType::kInt32;
};

constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin};

// Checks the bookkeeping fields of a trace entry (bytes are checked separately).
void expect_entry(const Communicator& comm, const TraceEntry& e, CollectiveOp op, DataType type,
                  std::size_t count, int root) {
  EXPECT_EQ(e.op, op);
  EXPECT_EQ(e.group, comm.name());
  EXPECT_EQ(e.group_size, comm.size());
  EXPECT_EQ(e.rank, comm.rank());
  EXPECT_EQ(e.type, type);
  EXPECT_EQ(e.count, count);
  EXPECT_EQ(e.root, root);
}

// Over the whole group, every byte sent by someone is received by someone: Σ sent == Σ received
// for each trace entry (the definition in trace.hpp is closed under the group).
void expect_trace_balanced(const MpiCommunicator& comm) {
  const Trace& trace = comm.trace();
  // Every rank takes the same branch, so a mismatch cannot leave a rank waiting.
  long long length = static_cast<long long>(trace.size());
  long long max_length = 0;
  long long min_length = 0;
  MPI_Allreduce(&length, &max_length, 1, MPI_LONG_LONG, MPI_MAX, comm.native());
  MPI_Allreduce(&length, &min_length, 1, MPI_LONG_LONG, MPI_MIN, comm.native());
  if (min_length != max_length) {
    ADD_FAILURE() << "trace lengths differ between ranks: " << min_length << " to " << max_length;
    return;
  }
  std::vector<unsigned long long> local;
  for (const TraceEntry& e : trace) {
    local.push_back(e.bytes_sent);
    local.push_back(e.bytes_received);
  }
  std::vector<unsigned long long> sums(local.size());
  MPI_Allreduce(local.data(), sums.data(), static_cast<int>(local.size()), MPI_UNSIGNED_LONG_LONG,
                MPI_SUM, comm.native());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(sums[2 * i], sums[2 * i + 1])
        << "entry " << i << " (" << trace[i].op_name() << ") sent != received over the group";
  }
}

class MpiComm : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = MpiCommunicator::world();
    n_ = world_->size();
    r_ = world_->rank();
  }
  void TearDown() override {
    if (world_) {
      expect_trace_balanced(*world_);
    }
  }
  std::unique_ptr<MpiCommunicator> world_;
  int n_ = 0;
  int r_ = 0;
};

template <typename T>
class MpiCommTyped : public MpiComm {};
using Types = ::testing::Types<float, double, std::int32_t>;
TYPED_TEST_SUITE(MpiCommTyped, Types);

TEST_F(MpiComm, WorldBasics) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(world_->size(), size);
  EXPECT_EQ(world_->name(), "world");
  EXPECT_EQ(world_->backend(), "mpi");
  EXPECT_EQ(world_->memory_space(), MemorySpace::kHost);
  EXPECT_NE(world_->native(), MPI_COMM_WORLD);  // a private duplicate
  const NodeRanks node = world_->node_ranks();
  EXPECT_GE(node.local_rank, 0);
  EXPECT_LT(node.local_rank, node.local_size);
  MpiRuntime runtime;  // MPI already initialised by the test main: a no-op guard
  EXPECT_FALSE(runtime.owns());
  EXPECT_TRUE(MpiRuntime::active());
}

TYPED_TEST(MpiCommTyped, AllReduceOutOfPlaceAndInPlace) {
  using T = TypeParam;
  constexpr DataType kType = TypeOf<T>::kType;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xA11);
  auto& comm = *this->world_;
  const int n = this->n_;
  const int r = this->r_;
  for (const ReduceOp op : kOps) {
    SCOPED_TRACE(std::string("op ") + std::string(to_string(op)));
    const std::size_t count = (rng() % 4 == 0) ? 0 : rng() % 300;
    std::vector<T> send(count);
    std::vector<T> recv(count, T(99));
    for (std::size_t i = 0; i < count; ++i) send[i] = value<T>(seed, r, i);
    comm.all_reduce(send.data(), recv.data(), count, kType, op).wait();
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_ELEMENT(recv[i], reduced<T>(op, seed, n, i), "element " << i);
    }
    expect_entry(comm, comm.trace().back(), CollectiveOp::kAllReduce, kType, count, -1);
    const std::size_t un = static_cast<std::size_t>(n);
    const std::size_t chunk = count / un + (static_cast<std::size_t>(r) < count % un ? 1 : 0);
    EXPECT_EQ(comm.trace().back().bytes_sent, (count - chunk + (un - 1) * chunk) * sizeof(T));

    // In place: send == recv.
    comm.all_reduce(send.data(), send.data(), count, kType, op).wait();
    EXPECT_EQ(send, recv);
  }
}

TYPED_TEST(MpiCommTyped, ReduceScatterUnevenWithZeroParts) {
  using T = TypeParam;
  constexpr DataType kType = TypeOf<T>::kType;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xB22);
  auto& comm = *this->world_;
  const int n = this->n_;
  const std::size_t r = static_cast<std::size_t>(this->r_);
  for (const ReduceOp op : kOps) {
    SCOPED_TRACE(std::string("op ") + std::string(to_string(op)));
    const std::vector<std::size_t> counts = draw_counts(rng, n, 40);
    const std::vector<std::size_t> displs = prefix(counts);
    const std::size_t sum = total(counts);
    std::vector<T> send(sum);
    for (std::size_t k = 0; k < sum; ++k) send[k] = value<T>(seed, this->r_, k);
    std::vector<T> recv(counts[r], T(99));
    comm.reduce_scatter(send.data(), recv.data(), counts, kType, op).wait();
    for (std::size_t i = 0; i < counts[r]; ++i) {
      EXPECT_ELEMENT(recv[i], reduced<T>(op, seed, n, displs[r] + i), "element " << i);
    }
    const TraceEntry& e = comm.trace().back();
    expect_entry(comm, e, CollectiveOp::kReduceScatter, kType, sum, -1);
    EXPECT_EQ(e.bytes_sent, (sum - counts[r]) * sizeof(T));
    EXPECT_EQ(e.bytes_received, static_cast<std::size_t>(n - 1) * counts[r] * sizeof(T));

    // In place: the result lands in this rank's part of the send buffer; the rest is untouched.
    std::vector<T> buf = send;
    comm.reduce_scatter(buf.data(), buf.data() + displs[r], counts, kType, op).wait();
    for (std::size_t k = 0; k < sum; ++k) {
      const bool mine = k >= displs[r] && k < displs[r] + counts[r];
      EXPECT_ELEMENT(buf[k], mine ? reduced<T>(op, seed, n, k) : send[k], "element " << k);
    }
  }
}

TYPED_TEST(MpiCommTyped, AllGatherUnevenWithZeroParts) {
  using T = TypeParam;
  constexpr DataType kType = TypeOf<T>::kType;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xC33);
  auto& comm = *this->world_;
  const int n = this->n_;
  const std::size_t r = static_cast<std::size_t>(this->r_);
  for (int round = 0; round < 3; ++round) {
    const std::vector<std::size_t> counts = draw_counts(rng, n, 50);
    const std::vector<std::size_t> displs = prefix(counts);
    const std::size_t sum = total(counts);
    std::vector<T> send(counts[r]);
    for (std::size_t i = 0; i < counts[r]; ++i) send[i] = value<T>(seed, this->r_, i);
    std::vector<T> recv(sum, T(99));
    comm.all_gather(send.data(), recv.data(), counts, kType).wait();
    for (int j = 0; j < n; ++j) {
      const std::size_t uj = static_cast<std::size_t>(j);
      for (std::size_t i = 0; i < counts[uj]; ++i) {
        EXPECT_ELEMENT(recv[displs[uj] + i], value<T>(seed, j, i),
                       "rank " << j << " element " << i);
      }
    }
    const TraceEntry& e = comm.trace().back();
    expect_entry(comm, e, CollectiveOp::kAllGather, kType, sum, -1);
    EXPECT_EQ(e.bytes_sent, static_cast<std::size_t>(n - 1) * counts[r] * sizeof(T));
    EXPECT_EQ(e.bytes_received, (sum - counts[r]) * sizeof(T));

    // In place: this rank's part already sits at its offset of the output.
    std::vector<T> buf(sum, T(77));
    std::copy(send.begin(), send.end(), buf.begin() + static_cast<std::ptrdiff_t>(displs[r]));
    comm.all_gather(buf.data() + displs[r], buf.data(), counts, kType).wait();
    EXPECT_EQ(buf, recv);
  }
}

TYPED_TEST(MpiCommTyped, AllToAllVWithGapsAndZeros) {
  using T = TypeParam;
  constexpr DataType kType = TypeOf<T>::kType;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xD44);
  auto& comm = *this->world_;
  const int n = this->n_;
  const int r = this->r_;
  const std::size_t un = static_cast<std::size_t>(n);
  // matrix[i][j]: elements rank i sends to rank j; identical on every rank.
  std::vector<std::vector<std::size_t>> matrix(un);
  for (auto& row : matrix) row = draw_counts(rng, n, 12);
  const std::size_t ur = static_cast<std::size_t>(r);
  std::vector<std::size_t> send_counts(un), send_displs(un), recv_counts(un), recv_displs(un);
  std::size_t send_size = 0;
  std::size_t recv_size = 0;
  for (std::size_t j = 0; j < un; ++j) {
    // Gaps between parts (1 element on the send side, 2 on the receive side) must stay untouched.
    send_counts[j] = matrix[ur][j];
    send_displs[j] = send_size;
    send_size += send_counts[j] + 1;
    recv_counts[j] = matrix[j][ur];
    recv_displs[j] = recv_size;
    recv_size += recv_counts[j] + 2;
  }
  std::vector<T> send(send_size, T(55));
  for (std::size_t j = 0; j < un; ++j) {
    for (std::size_t k = 0; k < send_counts[j]; ++k) {
      send[send_displs[j] + k] = value<T>(seed, r, j * 1000 + k);
    }
  }
  std::vector<T> recv(recv_size, T(66));
  comm.all_to_all(send.data(), send_counts, send_displs, recv.data(), recv_counts, recv_displs,
                  kType)
      .wait();
  std::vector<bool> covered(recv_size, false);
  for (std::size_t i = 0; i < un; ++i) {
    for (std::size_t k = 0; k < recv_counts[i]; ++k) {
      EXPECT_ELEMENT(recv[recv_displs[i] + k], value<T>(seed, static_cast<int>(i), ur * 1000 + k),
                     "from rank " << i << " element " << k);
      covered[recv_displs[i] + k] = true;
    }
  }
  for (std::size_t k = 0; k < recv_size; ++k) {
    if (!covered[k]) {
      EXPECT_ELEMENT(recv[k], T(66), "gap element " << k);
    }
  }
  const TraceEntry& e = comm.trace().back();
  expect_entry(comm, e, CollectiveOp::kAllToAll, kType, total(send_counts), -1);
  EXPECT_EQ(e.bytes_sent, (total(send_counts) - send_counts[ur]) * sizeof(T));
  EXPECT_EQ(e.bytes_received, (total(recv_counts) - recv_counts[ur]) * sizeof(T));
}

TYPED_TEST(MpiCommTyped, RootedCollectivesFromEveryRoot) {
  using T = TypeParam;
  constexpr DataType kType = TypeOf<T>::kType;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xE55);
  auto& comm = *this->world_;
  const int n = this->n_;
  const int r = this->r_;
  const std::size_t ur = static_cast<std::size_t>(r);
  for (int root = 0; root < n; ++root) {
    SCOPED_TRACE("root " + std::to_string(root));
    const bool is_root = r == root;

    // broadcast
    const std::size_t count = rng() % 60;
    std::vector<T> buf(count, T(99));
    if (is_root) {
      for (std::size_t i = 0; i < count; ++i) buf[i] = value<T>(seed, root, i);
    }
    comm.broadcast(buf.data(), count, kType, root).wait();
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_ELEMENT(buf[i], value<T>(seed, root, i), "broadcast element " << i);
    }
    expect_entry(comm, comm.trace().back(), CollectiveOp::kBroadcast, kType, count, root);
    EXPECT_EQ(comm.trace().back().bytes_received, is_root ? 0U : count * sizeof(T));

    // reduce, every op; the last one in place on the root
    for (const ReduceOp op : kOps) {
      std::vector<T> send(count);
      for (std::size_t i = 0; i < count; ++i) send[i] = value<T>(seed, r, i);
      std::vector<T> recv(is_root ? count : 0, T(99));
      comm.reduce(send.data(), is_root ? recv.data() : nullptr, count, kType, op, root).wait();
      if (is_root) {
        for (std::size_t i = 0; i < count; ++i) {
          EXPECT_ELEMENT(recv[i], reduced<T>(op, seed, n, i), "reduce element " << i);
        }
      }
      expect_entry(comm, comm.trace().back(), CollectiveOp::kReduce, kType, count, root);
      if (op == ReduceOp::kMin) {
        comm.reduce(send.data(), is_root ? send.data() : nullptr, count, kType, op, root).wait();
        if (is_root) {
          EXPECT_EQ(send, recv);
        }
      }
    }

    // uneven gather
    const std::vector<std::size_t> counts = draw_counts(rng, n, 30);
    const std::vector<std::size_t> displs = prefix(counts);
    const std::size_t sum = total(counts);
    std::vector<T> mine(counts[ur]);
    for (std::size_t i = 0; i < counts[ur]; ++i) mine[i] = value<T>(seed, r, i);
    std::vector<T> gathered(is_root ? sum : 0, T(99));
    comm.gather(mine.data(), counts[ur], is_root ? gathered.data() : nullptr, counts, kType, root)
        .wait();
    if (is_root) {
      for (int j = 0; j < n; ++j) {
        const std::size_t uj = static_cast<std::size_t>(j);
        for (std::size_t i = 0; i < counts[uj]; ++i) {
          EXPECT_ELEMENT(gathered[displs[uj] + i], value<T>(seed, j, i),
                         "gather " << j << "/" << i);
        }
      }
    }
    expect_entry(comm, comm.trace().back(), CollectiveOp::kGather, kType, sum, root);
    EXPECT_EQ(comm.trace().back().bytes_received, is_root ? (sum - counts[ur]) * sizeof(T) : 0U);

    // uneven scatter: part j of the root's buffer goes to rank j
    std::vector<T> parts(is_root ? sum : 0);
    if (is_root) {
      for (int j = 0; j < n; ++j) {
        const std::size_t uj = static_cast<std::size_t>(j);
        for (std::size_t i = 0; i < counts[uj]; ++i) parts[displs[uj] + i] = value<T>(seed, j, i);
      }
    }
    std::vector<T> got(counts[ur], T(99));
    comm.scatter(is_root ? parts.data() : nullptr, counts, got.data(), counts[ur], kType, root)
        .wait();
    EXPECT_EQ(got, mine);
    expect_entry(comm, comm.trace().back(), CollectiveOp::kScatter, kType, sum, root);
    EXPECT_EQ(comm.trace().back().bytes_sent, is_root ? (sum - counts[ur]) * sizeof(T) : 0U);
  }
}

TEST_F(MpiComm, AsyncRequestsCompleteInAnyOrder) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  const std::size_t count = 257;
  std::vector<double> a(count);
  std::vector<double> a_out(count);
  for (std::size_t i = 0; i < count; ++i) a[i] = value<double>(seed, r_, i);
  std::vector<std::size_t> counts(static_cast<std::size_t>(n_));
  for (std::size_t j = 0; j < counts.size(); ++j) counts[j] = j % 3;  // zeros included
  const std::vector<std::size_t> displs = prefix(counts);
  std::vector<std::int32_t> b(counts[static_cast<std::size_t>(r_)]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = value<std::int32_t>(seed, r_, i);
  std::vector<std::int32_t> b_out(total(counts), -1);
  std::vector<float> c(33, r_ == 0 ? 5.0F : 0.0F);

  std::vector<Request> requests;
  requests.push_back(
      world_->all_reduce(a.data(), a_out.data(), count, DataType::kFloat64, ReduceOp::kSum));
  requests.push_back(world_->all_gather(b.data(), b_out.data(), counts, DataType::kInt32));
  requests.push_back(world_->broadcast(c.data(), c.size(), DataType::kFloat32, 0));
  requests.push_back(world_->barrier());
  for (const Request& req : requests) EXPECT_TRUE(req.pending());

  // Unrelated local work while the collectives are in flight.
  volatile double sink = 0.0;
  for (int i = 0; i < 10000; ++i) sink = sink + std::sqrt(static_cast<double>(i));

  for (auto it = requests.rbegin(); it != requests.rend(); ++it) {
    it->wait();
    EXPECT_FALSE(it->pending());
    EXPECT_TRUE(it->test());
  }
  for (std::size_t i = 0; i < count; ++i) {
    EXPECT_ELEMENT(a_out[i], reduced<double>(ReduceOp::kSum, seed, n_, i), "element " << i);
  }
  for (int j = 0; j < n_; ++j) {
    const std::size_t uj = static_cast<std::size_t>(j);
    for (std::size_t i = 0; i < counts[uj]; ++i) {
      EXPECT_ELEMENT(b_out[displs[uj] + i], value<std::int32_t>(seed, j, i), j << "/" << i);
    }
  }
  for (const float v : c) {
    EXPECT_ELEMENT(v, 5.0F, "broadcast");
  }

  // Polling: test() eventually reports completion.
  std::vector<std::int64_t> x(16, r_);
  std::vector<std::int64_t> y(16, -1);
  Request polled =
      world_->all_reduce(x.data(), y.data(), x.size(), DataType::kInt64, ReduceOp::kMax);
  while (!polled.test()) {
  }
  EXPECT_FALSE(polled.pending());
  for (const auto v : y) {
    EXPECT_ELEMENT(v, n_ - 1, "max");
  }

  // A request dropped without wait() completes in its destructor.
  { Request dropped = world_->barrier(); }
  EXPECT_EQ(world_->trace().back().op, CollectiveOp::kBarrier);
  EXPECT_EQ(world_->trace().back().bytes_sent, 0U);
}

TEST_F(MpiComm, SplitOddEvenWithReversedKeys) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  // Members of my parity group, ordered by key = -rank, i.e. descending world rank.
  std::vector<int> members;
  for (int q = n_ - 1; q >= 0; --q) {
    if (q % 2 == r_ % 2) members.push_back(q);
  }
  std::unique_ptr<Communicator> sub = world_->split(r_ % 2, -r_, "parity");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->name(), "parity");
  EXPECT_EQ(sub->size(), static_cast<int>(members.size()));
  const auto pos = std::find(members.begin(), members.end(), r_) - members.begin();
  EXPECT_EQ(sub->rank(), static_cast<int>(pos));
  EXPECT_TRUE(world_->trace().empty());  // split is not traced

  std::int32_t me = r_;
  std::int32_t sum = 0;
  sub->all_reduce(&me, &sum, 1, DataType::kInt32, ReduceOp::kSum).wait();
  EXPECT_EQ(sum, std::accumulate(members.begin(), members.end(), 0));

  // Uneven all-gather inside the group: member j contributes j % 3 + 1 values of its world rank.
  std::vector<std::size_t> counts(members.size());
  for (std::size_t j = 0; j < counts.size(); ++j) counts[j] = j % 3 + 1;
  const std::vector<std::size_t> displs = prefix(counts);
  const std::size_t uj = static_cast<std::size_t>(sub->rank());
  std::vector<double> send(counts[uj]);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = value<double>(seed, r_, i);
  std::vector<double> recv(total(counts));
  sub->all_gather(send.data(), recv.data(), counts, DataType::kFloat64).wait();
  for (std::size_t j = 0; j < members.size(); ++j) {
    for (std::size_t i = 0; i < counts[j]; ++i) {
      EXPECT_ELEMENT(recv[displs[j] + i], value<double>(seed, members[j], i), j << "/" << i);
    }
  }
  EXPECT_EQ(sub->trace().size(), 2U);
  if (sub->trace().size() == 2U) {
    expect_entry(*sub, sub->trace()[1], CollectiveOp::kAllGather, DataType::kFloat64, total(counts),
                 -1);
    EXPECT_EQ(sub->trace()[1].group, "parity");
    EXPECT_EQ(sub->trace()[1].group_size, static_cast<int>(members.size()));
  }

  // Negative colour: rank 0 joins nothing, everyone else forms one group.
  std::unique_ptr<Communicator> rest = world_->split(r_ == 0 ? -1 : 0, r_, "rest");
  if (r_ == 0) {
    EXPECT_EQ(rest, nullptr);
  } else {
    ASSERT_NE(rest, nullptr);
    EXPECT_EQ(rest->size(), n_ - 1);
    EXPECT_EQ(rest->rank(), r_ - 1);
    rest->barrier().wait();
  }
}

TEST_F(MpiComm, SplitDpTpForEveryDivisor) {
  for (int tp = 1; tp <= n_; ++tp) {
    if (n_ % tp != 0) {
      EXPECT_THROW(split_dp_tp(*world_, tp), canzona::ConfigError);
      continue;
    }
    SCOPED_TRACE("tp " + std::to_string(tp));
    ProcessGroups groups = split_dp_tp(*world_, tp);
    ASSERT_NE(groups.dp, nullptr);
    ASSERT_NE(groups.tp, nullptr);
    const int dp_index = r_ / tp;
    const int tp_index = r_ % tp;
    EXPECT_EQ(groups.tp->name(), "tp");
    EXPECT_EQ(groups.dp->name(), "dp");
    EXPECT_EQ(groups.tp->size(), tp);
    EXPECT_EQ(groups.dp->size(), n_ / tp);
    EXPECT_EQ(groups.tp->rank(), tp_index);
    EXPECT_EQ(groups.dp->rank(), dp_index);

    // Gathering world ranks shows the Megatron layout: tp group = contiguous ranks.
    const std::int32_t me = r_;
    std::vector<std::int32_t> tp_ranks(static_cast<std::size_t>(tp));
    const std::vector<std::size_t> ones_tp(static_cast<std::size_t>(tp), 1);
    groups.tp->all_gather(&me, tp_ranks.data(), ones_tp, DataType::kInt32).wait();
    for (int j = 0; j < tp; ++j)
      EXPECT_EQ(tp_ranks[static_cast<std::size_t>(j)], dp_index * tp + j);
    std::vector<std::int32_t> dp_ranks(static_cast<std::size_t>(n_ / tp));
    const std::vector<std::size_t> ones_dp(static_cast<std::size_t>(n_ / tp), 1);
    groups.dp->all_gather(&me, dp_ranks.data(), ones_dp, DataType::kInt32).wait();
    for (int d = 0; d < n_ / tp; ++d) {
      EXPECT_EQ(dp_ranks[static_cast<std::size_t>(d)], d * tp + tp_index);
    }
    std::int32_t sum = 0;
    groups.dp->all_reduce(&me, &sum, 1, DataType::kInt32, ReduceOp::kSum).wait();
    std::int32_t expect = 0;
    for (int d = 0; d < n_ / tp; ++d) expect += d * tp + tp_index;
    EXPECT_EQ(sum, expect);
    EXPECT_EQ(groups.dp->trace().back().group, "dp");
    EXPECT_EQ(groups.tp->trace().back().group_size, tp);
  }
  EXPECT_THROW(split_dp_tp(*world_, n_ + 1), canzona::ConfigError);
  EXPECT_THROW(split_dp_tp(*world_, 0), canzona::ConfigError);
}

TEST_F(MpiComm, HalfPrecisionMovesAndOnlyBf16Sums) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xF66);
  const std::vector<std::size_t> counts = draw_counts(rng, n_, 20);
  const std::vector<std::size_t> displs = prefix(counts);
  const std::size_t ur = static_cast<std::size_t>(r_);
  // Arbitrary 16-bit patterns (bf16 bits): moved verbatim.
  auto bits = [&](int src, std::size_t i) {
    return static_cast<std::uint16_t>(mix(seed ^ mix(static_cast<std::uint64_t>(src)) ^ i));
  };
  std::vector<std::uint16_t> send(counts[ur]);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = bits(r_, i);
  std::vector<std::uint16_t> recv(total(counts));
  world_->all_gather(send.data(), recv.data(), counts, DataType::kBFloat16).wait();
  for (int j = 0; j < n_; ++j) {
    const std::size_t uj = static_cast<std::size_t>(j);
    for (std::size_t i = 0; i < counts[uj]; ++i) {
      EXPECT_ELEMENT(recv[displs[uj] + i], bits(j, i), j << "/" << i);
    }
  }
  EXPECT_EQ(world_->trace().back().type, DataType::kBFloat16);
  EXPECT_EQ(world_->trace().back().bytes_received, (total(counts) - counts[ur]) * 2);

  std::vector<std::uint16_t> x(4);
  try {
    world_->all_reduce(x.data(), x.data(), x.size(), DataType::kBFloat16, ReduceOp::kMax);
    FAIL() << "no exception";
  } catch (const canzona::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reduce bfloat16 with max"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(world_->reduce(x.data(), x.data(), 4, DataType::kFloat16, ReduceOp::kSum, 0),
               canzona::ConfigError);
}

// bf16 sums: integers times a power of two are exact in bf16 whatever the association, so every
// rank gets the exact sum, in place and uneven; a pair that does not fit rounds to nearest even.
TEST_F(MpiComm, Bf16SumsReduceInFp32AndRoundToNearestEven) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed ^ 0xBF16);
  auto value = [&](int src, std::size_t i) {
    return static_cast<float>(
               static_cast<int>(mix(seed ^ mix(static_cast<std::uint64_t>(src)) ^ (i * 0x9E37)) %
                                33) -
               16) *
           0x1p-6f;
  };
  const std::size_t count = 37;
  std::vector<std::uint16_t> x(count);
  for (std::size_t i = 0; i < count; ++i) x[i] = canzona::float_to_bf16(value(r_, i));
  world_->all_reduce(x.data(), x.data(), count, DataType::kBFloat16, ReduceOp::kSum).wait();
  for (std::size_t i = 0; i < count; ++i) {
    float want = 0;
    for (int j = 0; j < n_; ++j) want += value(j, i);
    EXPECT_ELEMENT(canzona::bf16_to_float(x[i]), want, i);
  }
  EXPECT_EQ(world_->trace().back().type, DataType::kBFloat16);

  const std::vector<std::size_t> counts = draw_counts(rng, n_, 12);
  const std::vector<std::size_t> displs = prefix(counts);
  std::vector<std::uint16_t> buffer(total(counts));
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = canzona::float_to_bf16(value(r_, i));
  const std::size_t ur = static_cast<std::size_t>(r_);
  world_
      ->reduce_scatter(buffer.data(), buffer.data() + displs[ur], counts, DataType::kBFloat16,
                       ReduceOp::kSum)
      .wait();
  for (std::size_t i = 0; i < counts[ur]; ++i) {
    float want = 0;
    for (int j = 0; j < n_; ++j) want += value(j, displs[ur] + i);
    EXPECT_ELEMENT(canzona::bf16_to_float(buffer[displs[ur] + i]), want, i);
  }

  if (n_ == 2) {
    // 1 + 2^-8 is not a bf16 (8 significant bits): the tie rounds to even, 1.
    std::uint16_t y = canzona::float_to_bf16(r_ == 0 ? 1.0f : 0x1p-8f);
    world_->all_reduce(&y, &y, 1, DataType::kBFloat16, ReduceOp::kSum).wait();
    EXPECT_EQ(canzona::bf16_to_float(y), 1.0f);
  }
}

TEST_F(MpiComm, ArgumentValidation) {
  std::vector<float> buf(64);
  const std::size_t before = world_->trace().size();
  const std::vector<std::size_t> wrong(static_cast<std::size_t>(n_) + 1, 1);
  try {
    world_->reduce_scatter(buf.data(), buf.data(), wrong, DataType::kFloat32, ReduceOp::kSum);
    FAIL() << "no exception";
  } catch (const canzona::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("mpi communicator 'world'"), std::string::npos) << what;
    EXPECT_NE(what.find("reduce_scatter: counts has"), std::string::npos) << what;
  }
  EXPECT_THROW(world_->all_gather(buf.data(), buf.data(), wrong, DataType::kFloat32),
               canzona::ConfigError);
  EXPECT_THROW(world_->broadcast(buf.data(), 4, DataType::kFloat32, n_), canzona::ConfigError);
  EXPECT_THROW(world_->gather(buf.data(), 1, buf.data(), wrong, DataType::kFloat32, -1),
               canzona::ConfigError);
  EXPECT_THROW(world_->all_reduce(buf.data(), nullptr, 4, DataType::kFloat32, ReduceOp::kSum),
               canzona::ConfigError);
  // MPI counts are int: rejected before anything is read from the (too small) buffer.
  try {
    world_->all_reduce(buf.data(), buf.data(), static_cast<std::size_t>(INT_MAX) + 1,
                       DataType::kFloat32, ReduceOp::kSum);
    FAIL() << "no exception";
  } catch (const canzona::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("INT_MAX"), std::string::npos) << e.what();
  }
  EXPECT_EQ(world_->trace().size(), before);
  // The communicator still works after rejected calls.
  world_->barrier().wait();
}

}  // namespace
