// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The NCCL issue schedules against the MPI communicator, under mpiexec at 2–8 ranks: every rank
// runs a collective through MpiCommunicator on real processes, replays the NCCL schedules of the
// whole group in-process (nccl_schedule_replay.hpp), and expects its own receive buffer to hold
// the same elements. So what the NCCL communicator issues on GPUs computes what the tested MPI
// path computes, though no GPU ever ran it. Inputs are the same on every rank (agreed seed).
#include "nccl_schedule_replay.hpp"

#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/nccl_schedule.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace canzona::comm::test {
namespace {

using Counts = std::vector<std::size_t>;

std::int64_t value(int rank, std::size_t index) {
  return static_cast<std::int64_t>(rank * 131 + static_cast<int>(index % 113)) - 500;
}

std::vector<std::int64_t> data(int rank, std::size_t n, std::size_t salt = 0) {
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(rank, i + salt);
  return v;
}

Counts displs_of(const Counts& counts) {
  Counts d(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), d.begin(), std::size_t{0});
  return d;
}

class NcclScheduleMpiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = MpiCommunicator::world();
    n_ = world_->size();
    me_ = world_->rank();
  }

  /// Uneven counts (zeros included), sometimes all equal; the same on every rank.
  Counts counts() {
    Counts c(static_cast<std::size_t>(n_));
    if (rng_() % 4 == 0) {
      std::fill(c.begin(), c.end(), static_cast<std::size_t>(rng_() % 6));
      return c;
    }
    for (auto& x : c) x = rng_() % 3 == 0 ? 0 : 1 + rng_() % 40;
    return c;
  }

  /// Replays `schedule_of(r)` on `ranks` and expects this rank's receive buffer to equal `mpi`.
  template <typename ScheduleOf>
  void expect_matches(const char* what, ScheduleOf schedule_of, std::vector<RankBuffers> ranks,
                      const std::vector<std::int64_t>& mpi, std::size_t offset = 0) {
    std::vector<NcclSchedule> schedules;
    for (int r = 0; r < n_; ++r) schedules.push_back(schedule_of(r));
    replay(schedules, ranks);
    const std::vector<std::int64_t>& mine = ranks[static_cast<std::size_t>(me_)].recv;
    ASSERT_GE(mine.size(), offset + mpi.size()) << what;
    for (std::size_t i = 0; i < mpi.size(); ++i) {
      if (mine[offset + i] != mpi[i]) {
        ADD_FAILURE() << what << ": rank " << me_ << " element " << i << ": NCCL schedule gives "
                      << mine[offset + i] << ", MPI gives " << mpi[i];
        break;
      }
    }
  }

  std::unique_ptr<MpiCommunicator> world_;
  int n_ = 1;
  int me_ = 0;
  std::mt19937_64 rng_{canzona::testing::test_seed() ^ 0x6e63636c};
};

TEST_F(NcclScheduleMpiTest, ReduceScatterAndAllGather) {
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Counts c = counts();
    const Counts d = displs_of(c);
    const std::size_t sum = std::accumulate(c.begin(), c.end(), std::size_t{0});
    const auto mine = static_cast<std::size_t>(me_);

    std::vector<std::int64_t> send = data(me_, sum);
    std::vector<std::int64_t> recv(c[mine], -7);
    world_->reduce_scatter(send.data(), recv.data(), c, DataType::kInt64, ReduceOp::kSum).wait();
    std::vector<RankBuffers> ranks(static_cast<std::size_t>(n_));
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send = data(r, sum);
      ranks[static_cast<std::size_t>(r)].recv.assign(c[static_cast<std::size_t>(r)], -7);
    }
    expect_matches(
        "reduce_scatter", [&](int r) { return nccl_reduce_scatter(r, c, d); }, ranks, recv);

    std::vector<std::int64_t> part = data(me_, c[mine], 1);
    std::vector<std::int64_t> gathered(sum, -7);
    world_->all_gather(part.data(), gathered.data(), c, DataType::kInt64).wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send = data(r, c[static_cast<std::size_t>(r)], 1);
      ranks[static_cast<std::size_t>(r)].recv.assign(sum, -7);
    }
    expect_matches(
        "all_gather", [&](int r) { return nccl_all_gather(r, c, d); }, ranks, gathered);

    std::vector<std::int64_t> whole = data(me_, 1 + trial % 17, 2);
    std::vector<std::int64_t> reduced(whole.size(), -7);
    world_->all_reduce(whole.data(), reduced.data(), whole.size(), DataType::kInt64, ReduceOp::kSum)
        .wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send = data(r, whole.size(), 2);
      ranks[static_cast<std::size_t>(r)].recv.assign(whole.size(), -7);
    }
    expect_matches(
        "all_reduce", [&](int) { return nccl_all_reduce(whole.size()); }, ranks, reduced);
  }
}

TEST_F(NcclScheduleMpiTest, AllToAll) {
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const auto un = static_cast<std::size_t>(n_);
    std::vector<Counts> matrix(un, Counts(un));
    for (auto& row : matrix) {
      for (auto& x : row) x = rng_() % 3 == 0 ? 0 : 1 + rng_() % 20;
    }
    auto args_of = [&](std::size_t r) {
      Counts sc(un), rc(un);
      for (std::size_t j = 0; j < un; ++j) {
        sc[j] = matrix[r][j];
        rc[j] = matrix[j][r];
      }
      return std::pair{sc, rc};
    };
    std::vector<RankBuffers> ranks(un);
    for (std::size_t r = 0; r < un; ++r) {
      const auto [sc, rc] = args_of(r);
      ranks[r].send =
          data(static_cast<int>(r), std::accumulate(sc.begin(), sc.end(), std::size_t{0}));
      ranks[r].recv.assign(std::accumulate(rc.begin(), rc.end(), std::size_t{0}), -7);
    }
    const auto [sc, rc] = args_of(static_cast<std::size_t>(me_));
    const Counts sd = displs_of(sc);
    const Counts rd = displs_of(rc);
    std::vector<std::int64_t> recv(ranks[static_cast<std::size_t>(me_)].recv.size(), -7);
    world_
        ->all_to_all(ranks[static_cast<std::size_t>(me_)].send.data(), sc, sd, recv.data(), rc, rd,
                     DataType::kInt64)
        .wait();
    expect_matches(
        "all_to_all",
        [&](int r) {
          const auto [s, t] = args_of(static_cast<std::size_t>(r));
          return nccl_all_to_all(r, s, displs_of(s), t, displs_of(t));
        },
        ranks, recv);
  }
}

TEST_F(NcclScheduleMpiTest, RootedCollectives) {
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int root = static_cast<int>(rng_() % static_cast<std::uint64_t>(n_));
    const Counts c = counts();
    const Counts d = displs_of(c);
    const std::size_t sum = std::accumulate(c.begin(), c.end(), std::size_t{0});
    const std::size_t count = 1 + rng_() % 30;
    const auto un = static_cast<std::size_t>(n_);
    const auto mine = static_cast<std::size_t>(me_);
    std::vector<RankBuffers> ranks(un);

    std::vector<std::int64_t> buf =
        me_ == root ? data(root, count) : std::vector<std::int64_t>(count, -7);
    world_->broadcast(buf.data(), count, DataType::kInt64, root).wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].recv =
          r == root ? data(root, count) : std::vector<std::int64_t>(count, -7);
    }
    expect_matches(
        "broadcast", [&](int) { return nccl_broadcast(count, root); }, ranks, buf);

    std::vector<std::int64_t> send = data(me_, count, 3);
    std::vector<std::int64_t> reduced(count, -7);
    world_->reduce(send.data(), reduced.data(), count, DataType::kInt64, ReduceOp::kSum, root)
        .wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send = data(r, count, 3);
      ranks[static_cast<std::size_t>(r)].recv.assign(r == root ? count : 0, -7);
    }
    expect_matches(
        "reduce", [&](int r) { return nccl_reduce(r, count, root); }, ranks,
        me_ == root ? reduced : std::vector<std::int64_t>{});

    std::vector<std::int64_t> part = data(me_, c[mine], 4);
    std::vector<std::int64_t> gathered(me_ == root ? sum : 0, -7);
    world_->gather(part.data(), c[mine], gathered.data(), c, DataType::kInt64, root).wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send = data(r, c[static_cast<std::size_t>(r)], 4);
      ranks[static_cast<std::size_t>(r)].recv.assign(r == root ? sum : 0, -7);
    }
    expect_matches(
        "gather", [&](int r) { return nccl_gather(r, c[static_cast<std::size_t>(r)], c, d, root); },
        ranks, gathered);

    std::vector<std::int64_t> whole =
        me_ == root ? data(root, sum, 5) : std::vector<std::int64_t>{};
    std::vector<std::int64_t> scattered(c[mine], -7);
    world_->scatter(whole.data(), c, scattered.data(), c[mine], DataType::kInt64, root).wait();
    for (int r = 0; r < n_; ++r) {
      ranks[static_cast<std::size_t>(r)].send =
          r == root ? data(root, sum, 5) : std::vector<std::int64_t>{};
      ranks[static_cast<std::size_t>(r)].recv.assign(c[static_cast<std::size_t>(r)], -7);
    }
    expect_matches(
        "scatter",
        [&](int r) { return nccl_scatter(r, c, d, c[static_cast<std::size_t>(r)], root); }, ranks,
        scattered);
  }
}

}  // namespace
}  // namespace canzona::comm::test
