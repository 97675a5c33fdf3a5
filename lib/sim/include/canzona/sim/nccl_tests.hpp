// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Calibrating a topology from nccl-tests output: parse the standard results table (size, count,
// type, redop, root, time, algbw, busbw, #wrong per out-of-place / in-place half), fit the
// alpha-beta model t = alpha + S·factor / busbw by least squares, and write the fitted constants
// into the matching level (intra- or inter-node) of a base topology.
#pragma once

#include "canzona/sim/topology.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::sim {

/// One row of an nccl-tests table (the out-of-place half).
struct NcclTestsRow {
  double bytes = 0;  ///< S, the "size" column (nccl-tests' definition per collective)
  std::int64_t count = 0;
  std::string type;
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

/// One nccl-tests run: which collective, on how many ranks over how many nodes, and its rows.
struct NcclTestsRun {
  std::string source;  ///< file name, for messages and provenance
  CollectiveClass op = CollectiveClass::kAllReduce;
  std::string op_name;  ///< as printed ("all_reduce_perf") or as given
  int ranks = 0;
  int nodes = 1;       ///< distinct host names in the "#  Rank ... on <host>" lines (1 if absent)
  std::string device;  ///< GPU name from the rank lines, when printed
  std::vector<NcclTestsRow> rows;
};

/// Parses nccl-tests output text. The collective comes from the "Collective test starting:
/// <name>" line or, when the output lacks it, from `op_hint`; the rank count from the
/// "#  Rank N ..." device lines or else from busbw / algbw (which is the bus factor of the
/// collective). ConfigError (naming `source` and the line) when no table is found, a data line is
/// malformed, or the collective cannot be determined.
NcclTestsRun parse_nccl_tests(std::string_view text, std::string source,
                              std::optional<CollectiveClass> op_hint = std::nullopt);

/// Reads and parses a file (see parse_nccl_tests).
NcclTestsRun read_nccl_tests(const std::string& path,
                             std::optional<CollectiveClass> op_hint = std::nullopt);

/// The alpha-beta fit of one run.
struct AlphaBetaFit {
  double alpha_us = 0;            ///< intercept: latency of one collective at this group size
  double busbw_gbps = 0;          ///< 1 / slope over bus bytes (S × bus factor)
  double max_relative_error = 0;  ///< worst |model − measured| / measured over the rows used
  int samples = 0;
};

/// Fit of time = alpha + (S · bus_factor) / busbw over the rows with S > 0, each constant where
/// it dominates: alpha = the time of the smallest message, busbw = 1 / the least-squares slope of
/// (time − alpha) against bus bytes over the larger half of the sizes. (A single line through
/// every size lets small, cache-resident messages bend the slope and mispredicts large
/// buckets.) ConfigError with fewer than two distinct sizes or a non-increasing time.
AlphaBetaFit fit_alpha_beta(const NcclTestsRun& run);

/// `base` with the fitted constants of each run written into it:
///  - a run on one node sets intra_node.busbw_gbps[op]; the intra-node base latency becomes the
///    mean over one-node runs of the value that reproduces each run's fitted alpha (alpha minus
///    the model's step latencies, clamped at 0), since one base latency serves every class;
///  - a run over several nodes sets inter_node.busbw_gbps[op] to the fitted busbw divided by the
///    ranks per node (one NIC per GPU) and the inter-node step latency implied by alpha. A fit
///    above the NVLink cap cannot say anything about the NICs and is reported as such.
/// Every change is recorded in provenance (file, op, fit, error). The result is validated.
Topology calibrate_topology(Topology base, const std::vector<NcclTestsRun>& runs);

}  // namespace canzona::sim
