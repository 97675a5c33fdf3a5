// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CPU tests of the backend-independent half of comm: types, Request, argument validation and the
// trace's byte accounting (over a recording test double), trace formatting, NCCL error messages.
#include <canzona/comm/communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/comm/timeout.hpp>
#include <canzona/config.hpp>
#include <canzona/core/error.hpp>

#if CANZONA_WITH_NCCL
#include <canzona/comm/nccl_check.hpp>
#endif

#include <canzona/core/thread_cpu_time.hpp>

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace canzona::comm;  // NOLINT(google-build-using-namespace): test brevity

// Accepts every call and completes it at once; counts what reached the backend hooks.
class FakeCommunicator final : public Communicator {
 public:
  FakeCommunicator(int rank, int size) : Communicator(rank, size, "fake") {}
  MemorySpace memory_space() const noexcept override { return MemorySpace::kHost; }
  std::string_view backend() const noexcept override { return "fake"; }
  int hook_calls = 0;
  std::vector<std::size_t> last_displs;

 protected:
  std::unique_ptr<Communicator> do_split(int, int, std::string) override { return nullptr; }
  Request do_all_reduce(const void*, void*, std::size_t, DataType, ReduceOp) override {
    return hit();
  }
  Request do_reduce_scatter(const void*, void*, std::span<const std::size_t>,
                            std::span<const std::size_t> displs, DataType, ReduceOp) override {
    last_displs.assign(displs.begin(), displs.end());
    return hit();
  }
  Request do_all_gather(const void*, void*, std::span<const std::size_t>,
                        std::span<const std::size_t> displs, DataType) override {
    last_displs.assign(displs.begin(), displs.end());
    return hit();
  }
  Request do_all_to_all(const void*, std::span<const std::size_t>, std::span<const std::size_t>,
                        void*, std::span<const std::size_t>, std::span<const std::size_t>,
                        DataType) override {
    return hit();
  }
  Request do_broadcast(void*, std::size_t, DataType, int) override { return hit(); }
  Request do_reduce(const void*, void*, std::size_t, DataType, ReduceOp, int) override {
    return hit();
  }
  Request do_gather(const void*, std::size_t, void*, std::span<const std::size_t>,
                    std::span<const std::size_t>, DataType, int) override {
    return hit();
  }
  Request do_scatter(const void*, std::span<const std::size_t>, std::span<const std::size_t>, void*,
                     std::size_t, DataType, int) override {
    return hit();
  }
  Request do_barrier() override { return hit(); }

 private:
  Request hit() {
    ++hook_calls;
    return Request();
  }
};

TEST(CommTypes, SizesAndNames) {
  EXPECT_EQ(size_of(DataType::kFloat32), 4U);
  EXPECT_EQ(size_of(DataType::kFloat64), 8U);
  EXPECT_EQ(size_of(DataType::kBFloat16), 2U);
  EXPECT_EQ(size_of(DataType::kFloat16), 2U);
  EXPECT_EQ(size_of(DataType::kInt32), 4U);
  EXPECT_EQ(size_of(DataType::kInt64), 8U);
  EXPECT_EQ(size_of(DataType::kUInt8), 1U);
  EXPECT_THROW((void)size_of(static_cast<DataType>(99)), canzona::ConfigError);
  EXPECT_EQ(to_string(DataType::kBFloat16), "bfloat16");
  EXPECT_EQ(to_string(ReduceOp::kMax), "max");
  EXPECT_EQ(to_string(MemorySpace::kDevice), "device");
  EXPECT_EQ(to_string(CollectiveOp::kReduceScatter), "reduce_scatter");
  EXPECT_EQ(to_string(CollectiveOp::kAllToAll), "all_to_all");
}

// Counts completions, whether observed by a blocking wait() or by a test() that returned true
// (Request::wait polls test() against the collective timeout).
class CountingState final : public RequestState {
 public:
  explicit CountingState(int* completions, int polls_until_done = 0)
      : completions_(completions), polls_(polls_until_done) {}
  void wait() override { ++*completions_; }
  bool test() override {
    if (polls_-- > 0) return false;
    ++*completions_;
    return true;
  }

 private:
  int* completions_;
  int polls_;
};

// Never completes: a peer that stopped.
class StalledState final : public RequestState {
 public:
  void wait() override {}
  bool test() override { return false; }
};

TEST(CommRequest, CompletionAndMoves) {
  Request done;
  EXPECT_FALSE(done.pending());
  EXPECT_TRUE(done.test());
  done.wait();

  int waits = 0;
  Request polled(std::make_unique<CountingState>(&waits, 2));
  EXPECT_TRUE(polled.pending());
  EXPECT_FALSE(polled.test());
  EXPECT_FALSE(polled.test());
  EXPECT_TRUE(polled.test());
  EXPECT_FALSE(polled.pending());
  EXPECT_EQ(waits, 1);
  waits = 0;

  {
    Request a(std::make_unique<CountingState>(&waits));
    Request b(std::move(a));
    EXPECT_FALSE(a.pending());  // NOLINT(bugprone-use-after-move): checking moved-from state
    EXPECT_TRUE(b.pending());
  }  // dropping a pending request waits for it
  EXPECT_EQ(waits, 1);

  std::array<Request, 2> many = {Request(std::make_unique<CountingState>(&waits)),
                                 Request(std::make_unique<CountingState>(&waits))};
  wait_all(many);
  EXPECT_EQ(waits, 3);
  EXPECT_FALSE(many[0].pending());
}

TEST(CommRequest, WaitTimesOutNamingTheCollectiveGroupAndRank) {
  set_collective_timeout(0.05);
  Request stalled(std::make_unique<StalledState>());
  stalled.set_origin(RequestOrigin{"reduce_scatter", "mpi", "dp", 1, 4});
  try {
    stalled.wait();
    ADD_FAILURE() << "expected CollectiveTimeoutError";
  } catch (const CollectiveTimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("collective timeout: reduce_scatter on mpi group 'dp' "
                                         "(rank 1 of 4) did not complete within 0.05 s"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(stalled.pending());
  // Once a wait failed, dropping another pending request does not wait (the job is ending).
  { Request other(std::make_unique<StalledState>()); }
  set_collective_timeout(-1);
  EXPECT_EQ(collective_timeout().count(), kDefaultCollectiveTimeoutSeconds);
}

// Burns `seconds` of this thread's CPU time in every wait() or test(): a peer that keeps the
// rank spinning for a while.
class SpinningState final : public RequestState {
 public:
  explicit SpinningState(double seconds) : seconds_(seconds) {}
  void wait() override { spin(); }
  bool test() override {
    spin();
    return true;
  }

 private:
  void spin() const {
    const double start = canzona::thread_cpu_seconds();
    volatile double sink = 0;
    while (canzona::thread_cpu_seconds() - start < seconds_) sink = sink + 1;
  }
  double seconds_;
};

// What the optimizer-step suite's cpu_ms relies on: CPU time spent inside Request::wait, on
// either path (blocking wait with no timeout, polling against one), is counted by the thread's
// wait clock, and CPU time outside it is not.
TEST(CommRequest, TheWaitClockCountsCpuTimeInsideWaitsOnly) {
  for (const double timeout : {0.0, 600.0}) {
    set_collective_timeout(timeout);
    const double before = thread_wait_cpu_seconds();
    {
      SpinningState outside(0.02);
      outside.wait();
    }  // not through a Request: not counted
    EXPECT_LT(thread_wait_cpu_seconds() - before, 0.02) << "timeout " << timeout;
    Request spinning(std::make_unique<SpinningState>(0.03));
    spinning.wait();
    EXPECT_GE(thread_wait_cpu_seconds() - before, 0.03) << "timeout " << timeout;
  }
  set_collective_timeout(-1);
}

// A timeout too large for a steady_clock deadline would overflow into an immediate false
// timeout; such values, and anything that is not seconds >= 0, are bad input.
TEST(CommRequest, TimeoutValuesAreCheckedBeforeAnyWait) {
  EXPECT_EQ(parse_collective_timeout("600"), 600);
  EXPECT_EQ(parse_collective_timeout("0"), 0);
  EXPECT_EQ(parse_collective_timeout("1e9"), kMaxCollectiveTimeoutSeconds);
  for (const char* bad : {"1e10", "1e308", "inf", "nan", "-1", "abc", "10s"}) {
    try {
      parse_collective_timeout(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const canzona::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("CANZONA_COLLECTIVE_TIMEOUT_S"), std::string::npos)
          << e.what();
    }
  }
}

TEST(CommTrace, DirectExchangeBytesPerCollective) {
  // 4 ranks, rank 1, float64 (8 bytes); uneven counts with a zero part.
  FakeCommunicator comm(1, 4);
  std::vector<double> buf(100);
  const std::array<std::size_t, 4> counts = {3, 5, 0, 7};  // Σ = 15, mine = 5
  const std::array<std::size_t, 4> displs = {0, 10, 20, 30};
  const std::array<std::size_t, 4> a2a_recv = {2, 5, 4, 1};  // own part 5 == send_counts[1]
  constexpr auto kF64 = DataType::kFloat64;

  comm.all_reduce(buf.data(), buf.data(), 10, kF64, ReduceOp::kSum).wait();
  comm.reduce_scatter(buf.data(), buf.data() + 50, counts, kF64, ReduceOp::kMax).wait();
  EXPECT_EQ(comm.last_displs, (std::vector<std::size_t>{0, 3, 8, 8}));
  comm.all_gather(buf.data(), buf.data() + 50, counts, kF64).wait();
  comm.all_to_all(buf.data(), counts, displs, buf.data() + 50, a2a_recv, displs, kF64).wait();
  comm.broadcast(buf.data(), 6, kF64, 1).wait();
  comm.broadcast(buf.data(), 6, kF64, 0).wait();
  comm.reduce(buf.data(), buf.data(), 6, kF64, ReduceOp::kMin, 1).wait();
  comm.reduce(buf.data(), nullptr, 6, kF64, ReduceOp::kMin, 3).wait();
  comm.gather(buf.data(), 5, buf.data() + 50, counts, kF64, 1).wait();
  comm.gather(buf.data(), 5, nullptr, counts, kF64, 2).wait();
  comm.scatter(buf.data(), counts, buf.data() + 50, 5, kF64, 1).wait();
  comm.scatter(nullptr, counts, buf.data() + 50, 5, kF64, 0).wait();
  comm.barrier().wait();
  EXPECT_EQ(comm.hook_calls, 13);

  const Trace& t = comm.trace();
  ASSERT_EQ(t.size(), 13U);
  struct Expect {
    CollectiveOp op;
    std::size_t count;
    int root;
    std::uint64_t sent;
    std::uint64_t received;
  };
  // all_reduce of 10 over 4: chunks 3,3,2,2 -> rank 1 has 3: (10-3) + 3*3 = 16 elements each way.
  const std::vector<Expect> expect = {
      {CollectiveOp::kAllReduce, 10, -1, 16, 16}, {CollectiveOp::kReduceScatter, 15, -1, 10, 15},
      {CollectiveOp::kAllGather, 15, -1, 15, 10}, {CollectiveOp::kAllToAll, 15, -1, 10, 7},
      {CollectiveOp::kBroadcast, 6, 1, 18, 0},    {CollectiveOp::kBroadcast, 6, 0, 0, 6},
      {CollectiveOp::kReduce, 6, 1, 0, 18},       {CollectiveOp::kReduce, 6, 3, 6, 0},
      {CollectiveOp::kGather, 15, 1, 0, 10},      {CollectiveOp::kGather, 15, 2, 5, 0},
      {CollectiveOp::kScatter, 15, 1, 10, 0},     {CollectiveOp::kScatter, 15, 0, 0, 5},
      {CollectiveOp::kBarrier, 0, -1, 0, 0},
  };
  for (std::size_t i = 0; i < expect.size(); ++i) {
    SCOPED_TRACE("entry " + std::to_string(i));
    EXPECT_EQ(t[i].op, expect[i].op);
    EXPECT_EQ(t[i].group, "fake");
    EXPECT_EQ(t[i].group_size, 4);
    EXPECT_EQ(t[i].rank, 1);
    EXPECT_EQ(t[i].count, expect[i].count);
    EXPECT_EQ(t[i].root, expect[i].root);
    const std::uint64_t e = t[i].op == CollectiveOp::kBarrier ? 1 : 8;
    EXPECT_EQ(t[i].bytes_sent, expect[i].sent * e);
    EXPECT_EQ(t[i].bytes_received, expect[i].received * e);
  }
  EXPECT_EQ(t[0].type, kF64);
  EXPECT_EQ(t[0].op_name(), "all_reduce");

  const std::string table = format_trace(t);
  EXPECT_NE(table.find("reduce_scatter"), std::string::npos) << table;
  EXPECT_NE(table.find("13 calls"), std::string::npos) << table;
  EXPECT_NE(table.find(std::to_string(total_bytes_sent(t))), std::string::npos) << table;
  comm.clear_trace();
  EXPECT_TRUE(comm.trace().empty());
}

TEST(CommTrace, EvenCaseMatchesNcclTestsBusBytes) {
  // Even counts: sent bytes equal nccl-tests' S·busbw factor.
  for (int n : {1, 2, 4, 8}) {
    for (int r = 0; r < n; ++r) {
      FakeCommunicator comm(r, n);
      const std::size_t per = 6;
      const std::size_t total = per * static_cast<std::size_t>(n);
      std::vector<float> buf(2 * total);
      const std::vector<std::size_t> counts(static_cast<std::size_t>(n), per);
      comm.all_reduce(buf.data(), buf.data(), total, DataType::kFloat32, ReduceOp::kSum);
      comm.reduce_scatter(buf.data(), buf.data() + total, counts, DataType::kFloat32,
                          ReduceOp::kSum);
      comm.all_gather(buf.data(), buf.data() + total, counts, DataType::kFloat32);
      const std::uint64_t s = total * 4;
      const std::uint64_t nn = static_cast<std::uint64_t>(n);
      EXPECT_EQ(comm.trace()[0].bytes_sent, 2 * (nn - 1) * s / nn);
      EXPECT_EQ(comm.trace()[1].bytes_sent, (nn - 1) * s / nn);
      EXPECT_EQ(comm.trace()[2].bytes_received, (nn - 1) * s / nn);
    }
  }
}

TEST(CommValidation, ClearErrorsAndNothingTraced) {
  FakeCommunicator comm(0, 3);
  std::vector<float> buf(64);
  const std::array<std::size_t, 2> two = {1, 2};
  const std::array<std::size_t, 3> three = {1, 2, 3};
  auto expect_config_error = [&](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "no ConfigError; expected one mentioning '" << needle << "'";
    } catch (const canzona::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fake communicator 'fake' (rank 0 of 3)"),
                std::string::npos)
          << e.what();
    }
  };
  expect_config_error(
      [&] { comm.reduce_scatter(buf.data(), buf.data(), two, DataType::kFloat32, ReduceOp::kSum); },
      "counts has 2 entries, expected one per rank (3)");
  expect_config_error([&] { comm.all_gather(buf.data(), buf.data(), two, DataType::kInt32); },
                      "counts has 2 entries");
  expect_config_error([&] { comm.broadcast(buf.data(), 4, DataType::kFloat32, 3); },
                      "root 3 is out of range [0, 3)");
  expect_config_error(
      [&] { comm.reduce(buf.data(), buf.data(), 4, DataType::kFloat32, ReduceOp::kSum, -1); },
      "root -1 is out of range");
  expect_config_error(
      [&] { comm.all_reduce(nullptr, buf.data(), 4, DataType::kFloat32, ReduceOp::kSum); },
      "null buffer with count 4");
  expect_config_error(
      [&] { comm.reduce_scatter(buf.data(), nullptr, three, DataType::kFloat32, ReduceOp::kSum); },
      "null receive buffer with counts[0] = 1");
  expect_config_error([&] { comm.gather(buf.data(), 2, buf.data(), three, DataType::kFloat32, 0); },
                      "send_count 2 differs from recv_counts[0] = 1");
  expect_config_error([&] { comm.scatter(nullptr, three, buf.data(), 1, DataType::kFloat32, 0); },
                      "null send buffer on the root");
  expect_config_error(
      [&] {
        comm.all_to_all(buf.data(), three, three, buf.data(), two, three, DataType::kFloat32);
      },
      "recv_counts has 2 entries");
  expect_config_error(
      [&] {
        const std::array<std::size_t, 3> other = {2, 2, 3};
        comm.all_to_all(buf.data(), three, three, buf.data(), other, three, DataType::kFloat32);
      },
      "send_counts[0] = 1 differs from recv_counts[0] = 2");
  EXPECT_THROW(comm.broadcast(buf.data(), 1, static_cast<DataType>(42), 0), canzona::ConfigError);
  // Zero counts accept null buffers.
  const std::array<std::size_t, 3> zeros = {0, 0, 0};
  comm.reduce_scatter(nullptr, nullptr, zeros, DataType::kFloat32, ReduceOp::kSum).wait();
  comm.all_reduce(nullptr, nullptr, 0, DataType::kFloat32, ReduceOp::kSum).wait();
  EXPECT_EQ(comm.hook_calls, 2);
  EXPECT_EQ(comm.trace().size(), 2U);
}

TEST(CommProcessGroups, RejectsTpNotDividingWorld) {
  FakeCommunicator comm(0, 4);
  EXPECT_THROW(split_dp_tp(comm, 3), canzona::ConfigError);
  EXPECT_THROW(split_dp_tp(comm, 0), canzona::ConfigError);
  try {
    split_dp_tp(comm, 8);
    FAIL() << "no exception";
  } catch (const canzona::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor-parallel size 8 does not divide the 4 ranks"),
              std::string::npos)
        << e.what();
  }
}

#if CANZONA_WITH_NCCL
TEST(NcclCheck, MessageNamesResultLocationAndVersion) {
  const std::string message = canzona::comm::detail::format_nccl_error(
      ncclInvalidArgument, nullptr, "ncclAllReduce(x)", "lib/comm/src/f.cpp", 12);
  EXPECT_EQ(message.rfind("NCCL error ncclInvalidArgument (4): ", 0), 0U) << message;
  EXPECT_NE(message.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << message;
  EXPECT_NE(message.find("at lib/comm/src/f.cpp:12 in 'ncclAllReduce(x)'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("[last NCCL error: "), std::string::npos) << message;
  EXPECT_NE(message.find("(NCCL 2."), std::string::npos) << message;
  try {
    CANZONA_NCCL_CHECK(ncclInvalidUsage, nullptr);
    FAIL() << "no exception";
  } catch (const canzona::NcclError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(ncclInvalidUsage));
  }
  EXPECT_STREQ(canzona::comm::detail::nccl_result_name(static_cast<ncclResult_t>(77)),
               "ncclUnknownResult");
}
#endif

}  // namespace
