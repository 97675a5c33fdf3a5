// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The NCCL issue schedules on the CPU: every rank's schedule of a group of 1–8 ranks replayed with
// NCCL's semantics (nccl_schedule_replay.hpp) for random uneven counts (zeros included, equal
// counts too), in place and out of place, checked against each collective's definition; plus the
// shape of the schedules themselves (grouping, one call per nonzero part, nothing for empty
// parts). nccl_schedule_mpi_test.cpp checks the same replays against the MPI communicator.
#include "nccl_schedule_replay.hpp"

#include <canzona/comm/nccl_schedule.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace canzona::comm::test {
namespace {

using Counts = std::vector<std::size_t>;

std::int64_t value(int rank, std::size_t index) {
  return static_cast<std::int64_t>((rank + 1) * 1000 + static_cast<int>(index % 997)) - 4000;
}

std::vector<std::int64_t> data(int rank, std::size_t n) {
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(rank, i);
  return v;
}

Counts displs_of(const Counts& counts) {
  Counts d(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), d.begin(), std::size_t{0});
  return d;
}

std::size_t total(const Counts& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

class NcclScheduleTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng_{canzona::testing::test_seed() ^ 0x5ced5ced};

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  /// Uneven counts with zeros, sometimes all equal (the single-call path).
  Counts counts(int n) {
    Counts c(static_cast<std::size_t>(n));
    if (pick(0, 3) == 0) {
      const auto same = static_cast<std::size_t>(pick(0, 5));
      std::fill(c.begin(), c.end(), same);
      return c;
    }
    for (auto& x : c) x = pick(0, 2) == 0 ? 0 : static_cast<std::size_t>(pick(1, 9));
    return c;
  }
};

TEST_F(NcclScheduleTest, ReduceScatterAndAllGatherInAndOutOfPlace) {
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(canzona::testing::test_seed()));
  for (int trial = 0; trial < 200; ++trial) {
    const int n = pick(1, 8);
    const Counts c = counts(n);
    const Counts d = displs_of(c);
    const std::size_t sum = total(c);
    for (bool in_place : {false, true}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + (in_place ? " in place" : ""));
      // reduce_scatter: rank r keeps the sum of part r.
      std::vector<RankBuffers> ranks(static_cast<std::size_t>(n));
      std::vector<NcclSchedule> schedules;
      for (int r = 0; r < n; ++r) {
        RankBuffers& b = ranks[static_cast<std::size_t>(r)];
        if (in_place) {
          // recv == send + offset(rank): the buffer is the whole send array.
          b.recv = data(r, sum);
          b.send_in_recv = true;
          b.send_offset = 0;
        } else {
          b.send = data(r, sum);
          b.recv.assign(c[static_cast<std::size_t>(r)], -7);
        }
        schedules.push_back(nccl_reduce_scatter(r, c, d));
      }
      // In place, the caller's recv pointer is send + displs[rank]: shift the replay's view.
      if (in_place) {
        for (int r = 0; r < n; ++r) {
          for (NcclCall& call : schedules[static_cast<std::size_t>(r)].calls) {
            if (call.out.buffer == NcclBuffer::kRecv)
              call.out.offset += d[static_cast<std::size_t>(r)];
          }
        }
      }
      replay(schedules, ranks);
      for (int r = 0; r < n; ++r) {
        const auto ur = static_cast<std::size_t>(r);
        const std::size_t base = in_place ? d[ur] : 0;
        for (std::size_t i = 0; i < c[ur]; ++i) {
          std::int64_t want = 0;
          for (int s = 0; s < n; ++s) want += value(s, d[ur] + i);
          ASSERT_EQ(ranks[ur].recv[base + i], want) << "reduce_scatter rank " << r << " i " << i;
        }
      }

      // all_gather: every rank ends with every part, rank-major.
      std::vector<RankBuffers> g(static_cast<std::size_t>(n));
      schedules.clear();
      for (int r = 0; r < n; ++r) {
        RankBuffers& b = g[static_cast<std::size_t>(r)];
        b.recv.assign(sum, -7);
        const auto ur = static_cast<std::size_t>(r);
        const std::vector<std::int64_t> mine = data(r, c[ur]);
        if (in_place) {
          // send == recv + offset(rank): the rank's part already sits in its slot.
          std::copy(mine.begin(), mine.end(), b.recv.begin() + static_cast<std::ptrdiff_t>(d[ur]));
          b.send_in_recv = true;
          b.send_offset = d[ur];
        } else {
          b.send = mine;
        }
        schedules.push_back(nccl_all_gather(r, c, d));
      }
      replay(schedules, g);
      for (int r = 0; r < n; ++r) {
        for (int s = 0; s < n; ++s) {
          const auto us = static_cast<std::size_t>(s);
          for (std::size_t i = 0; i < c[us]; ++i) {
            ASSERT_EQ(g[static_cast<std::size_t>(r)].recv[d[us] + i], value(s, i))
                << "all_gather rank " << r << " part " << s << " i " << i;
          }
        }
      }
    }
  }
}

TEST_F(NcclScheduleTest, AllToAllWithGapsBetweenParts) {
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(canzona::testing::test_seed()));
  for (int trial = 0; trial < 200; ++trial) {
    const int n = pick(1, 8);
    const auto un = static_cast<std::size_t>(n);
    // matrix[s][t]: elements rank s sends to rank t.
    std::vector<Counts> matrix(un, Counts(un));
    for (auto& row : matrix) {
      for (auto& x : row) x = pick(0, 2) == 0 ? 0 : static_cast<std::size_t>(pick(1, 6));
    }
    std::vector<RankBuffers> ranks(un);
    std::vector<NcclSchedule> schedules;
    std::vector<Counts> recv_displs(un);
    for (std::size_t r = 0; r < un; ++r) {
      Counts sc(un), sd(un), rc(un), rd(un);
      std::size_t send_end = 0, recv_end = 0;
      for (std::size_t j = 0; j < un; ++j) {
        // Parts in reverse rank order with a gap of one element: displacements are not a scan.
        const std::size_t k = un - 1 - j;
        sc[k] = matrix[r][k];
        sd[k] = send_end + 1;
        send_end = sd[k] + sc[k];
        rc[k] = matrix[k][r];
        rd[k] = recv_end + 1;
        recv_end = rd[k] + rc[k];
      }
      ranks[r].send.assign(send_end, 0);
      for (std::size_t k = 0; k < un; ++k) {
        for (std::size_t i = 0; i < sc[k]; ++i) {
          ranks[r].send[sd[k] + i] = value(static_cast<int>(r), k * 100 + i);
        }
      }
      ranks[r].recv.assign(recv_end, -7);
      recv_displs[r] = rd;
      schedules.push_back(nccl_all_to_all(static_cast<int>(r), sc, sd, rc, rd));
    }
    replay(schedules, ranks);
    for (std::size_t r = 0; r < un; ++r) {
      for (std::size_t s = 0; s < un; ++s) {
        for (std::size_t i = 0; i < matrix[s][r]; ++i) {
          ASSERT_EQ(ranks[r].recv[recv_displs[r][s] + i], value(static_cast<int>(s), r * 100 + i))
              << "trial " << trial << ": rank " << r << " from " << s << " i " << i;
        }
      }
    }
  }
}

TEST_F(NcclScheduleTest, RootedCollectivesAndBarrier) {
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(canzona::testing::test_seed()));
  for (int trial = 0; trial < 200; ++trial) {
    const int n = pick(1, 8);
    const auto un = static_cast<std::size_t>(n);
    const int root = pick(0, n - 1);
    const auto uroot = static_cast<std::size_t>(root);
    const Counts c = counts(n);
    const Counts d = displs_of(c);
    const std::size_t sum = total(c);
    const auto count = static_cast<std::size_t>(pick(0, 9));
    SCOPED_TRACE("trial " + std::to_string(trial) + " root " + std::to_string(root));

    std::vector<RankBuffers> bc(un), rd(un), ga(un), sc(un), ba(un);
    std::vector<NcclSchedule> s_bc, s_rd, s_ga, s_sc, s_ba;
    for (int r = 0; r < n; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      bc[ur].recv = r == root ? data(r, count) : std::vector<std::int64_t>(count, -7);
      s_bc.push_back(nccl_broadcast(count, root));
      rd[ur].send = data(r, count);
      rd[ur].recv.assign(r == root ? count : 0, -7);
      s_rd.push_back(nccl_reduce(r, count, root));
      ga[ur].send = data(r, c[ur]);
      ga[ur].recv.assign(r == root ? sum : 0, -7);
      s_ga.push_back(nccl_gather(r, c[ur], c, d, root));
      sc[ur].send = r == root ? data(r, sum) : std::vector<std::int64_t>{};
      sc[ur].recv.assign(c[ur], -7);
      s_sc.push_back(nccl_scatter(r, c, d, c[ur], root));
      ba[ur].scratch = {r + 1};
      s_ba.push_back(nccl_barrier());
    }
    replay(s_bc, bc);
    replay(s_rd, rd);
    replay(s_ga, ga);
    replay(s_sc, sc);
    replay(s_ba, ba);
    const std::vector<std::int64_t> scattered = data(root, sum);
    for (std::size_t r = 0; r < un; ++r) {
      ASSERT_EQ(bc[r].recv, data(root, count)) << "broadcast at rank " << r;
      const auto first = scattered.begin() + static_cast<std::ptrdiff_t>(d[r]);
      ASSERT_EQ(sc[r].recv,
                std::vector<std::int64_t>(first, first + static_cast<std::ptrdiff_t>(c[r])))
          << "scatter at rank " << r;
      ASSERT_EQ(ba[r].scratch[0], static_cast<std::int64_t>(n * (n + 1) / 2)) << "barrier word";
    }
    for (std::size_t i = 0; i < count; ++i) {
      std::int64_t want = 0;
      for (int s = 0; s < n; ++s) want += value(s, i);
      ASSERT_EQ(rd[uroot].recv[i], want) << "reduce i " << i;
    }
    for (std::size_t s = 0; s < un; ++s) {
      for (std::size_t i = 0; i < c[s]; ++i) {
        ASSERT_EQ(ga[uroot].recv[d[s] + i], value(static_cast<int>(s), i)) << "gather part " << s;
      }
    }
  }
}

TEST(NcclScheduleShapeTest, UnevenPartsAreOneGroupedCallPerNonzeroPart) {
  const std::vector<std::size_t> counts{3, 0, 5, 1};
  const std::vector<std::size_t> displs{0, 3, 3, 8};
  const NcclSchedule rs = nccl_reduce_scatter(2, counts, displs);
  ASSERT_TRUE(rs.grouped);
  ASSERT_EQ(rs.calls.size(), 3U) << "no call for the empty part";
  EXPECT_EQ(rs.calls[1],
            (NcclCall{NcclCallKind::kReduce, {NcclBuffer::kSend, 3}, {NcclBuffer::kRecv, 0}, 5, 2}))
      << "the root writes its own receive buffer";
  EXPECT_EQ(rs.calls[0].out, (NcclRef{NcclBuffer::kSend, 0}))
      << "off the root recvbuff is the part itself (never written)";
  const NcclSchedule ag = nccl_all_gather(0, counts, displs);
  ASSERT_EQ(ag.calls.size(), 3U);
  EXPECT_EQ(
      ag.calls[0],
      (NcclCall{NcclCallKind::kBroadcast, {NcclBuffer::kSend, 0}, {NcclBuffer::kRecv, 0}, 3, 0}));
  EXPECT_EQ(ag.calls[2].in, (NcclRef{NcclBuffer::kRecv, 8})) << "off the root: the slot itself";

  const std::vector<std::size_t> equal{4, 4, 4};
  const std::vector<std::size_t> equal_displs{0, 4, 8};
  const NcclSchedule one = nccl_reduce_scatter(1, equal, equal_displs);
  EXPECT_FALSE(one.grouped);
  ASSERT_EQ(one.calls.size(), 1U);
  EXPECT_EQ(one.calls[0].kind, NcclCallKind::kReduceScatter);
  EXPECT_EQ(one.calls[0].count, 4U);
  EXPECT_TRUE(nccl_all_gather(0, std::vector<std::size_t>{0, 0}, std::vector<std::size_t>{0, 0})
                  .calls.empty())
      << "an empty collective issues nothing";
  EXPECT_TRUE(nccl_all_reduce(0).calls.empty());
  EXPECT_EQ(nccl_barrier().calls.size(), 1U) << "a barrier always synchronises";
}

}  // namespace
}  // namespace canzona::comm::test
