// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Sharing DP partitions between the plans of one job. Projecting or running a grid plans one
// model for several strategies (Canzona, canzona+sc and asc cut their buffers alike), and on
// MoE models at hundreds of ranks one refined partition costs 0.1–0.5 s. The planner is a pure
// function of its inputs, so inside a RememberedPartitions scope alpha_balanced_partition
// answers equal inputs from memory. Opt-in, so that the planner benchmarks time real planning.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace canzona::plan {

struct DpPartition;

/// While one lives, alpha_balanced_partition on this thread remembers its last answers (a few)
/// and returns a copy for inputs equal in every field it reads. Scopes nest: the innermost one
/// holds the answers. Create and destroy on the same thread.
class RememberedPartitions {
 public:
  RememberedPartitions();
  ~RememberedPartitions();
  RememberedPartitions(const RememberedPartitions&) = delete;
  RememberedPartitions& operator=(const RememberedPartitions&) = delete;

  /// The innermost scope of this thread, or null.
  static RememberedPartitions* active();
  /// The answer for `key`, or null.
  const DpPartition* find(const std::vector<std::uint64_t>& key) const;
  void remember(std::vector<std::uint64_t> key, const DpPartition& answer);

 private:
  struct Entry;
  std::deque<Entry> answers_;  // newest first
  RememberedPartitions* outer_;
};

}  // namespace canzona::plan
