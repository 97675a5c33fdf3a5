// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Per-rank measurements reduced the way a distributed step is reported: it ends when the slowest
// rank ends, so the step is the maximum over ranks; minimum, mean and the slowest rank say how
// the ranks spread.
#pragma once

#include <canzona/comm/communicator.hpp>

#include <span>
#include <vector>

namespace canzona::bench {

/// One quantity over the ranks of a job.
struct RankSpread {
  double max = 0;
  double min = 0;
  double mean = 0;
  int max_rank = 0;  ///< the lowest rank holding the maximum (the straggler)
};

/// The spread of values[r] over r. Empty input gives all zeros.
RankSpread spread(std::span<const double> values);

/// Per-rank records of a fixed width, gathered to every rank.
class RankRecords {
 public:
  /// Collective over `world` (a host-memory communicator, e.g. MPI): all-gathers `mine`, which
  /// must have the same size on every rank.
  static RankRecords gather(comm::Communicator& world, std::span<const double> mine);

  int ranks() const { return ranks_; }
  /// Rank r's record.
  std::span<const double> of(int rank) const;
  /// Field `field` of every rank's record, rank order.
  std::vector<double> field(std::size_t field) const;

 private:
  int ranks_ = 0;
  std::size_t width_ = 0;
  std::vector<double> values_;  ///< rank-major
};

}  // namespace canzona::bench
