// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// nccl-tests output parsing, the alpha-beta fit and topology calibration.
#include "canzona/sim/nccl_tests.hpp"

#include "canzona/sim/collective_model.hpp"

#include <canzona/core/error.hpp>
#include <canzona/io/input_file.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <sstream>

namespace canzona::sim {
namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

bool parse_double(const std::string& text, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

bool parse_int(const std::string& text, std::int64_t& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

// Ranks from the bus factor busbw / algbw of the largest row: 2(n−1)/n or (n−1)/n.
int ranks_from_factor(const NcclTestsRun& run) {
  const auto largest = std::max_element(
      run.rows.begin(), run.rows.end(),
      [](const NcclTestsRow& a, const NcclTestsRow& b) { return a.bytes < b.bytes; });
  if (largest == run.rows.end() || largest->algbw_gbps <= 0) return 0;
  const double f = largest->busbw_gbps / largest->algbw_gbps;
  double n = 0;
  switch (run.op) {
    case CollectiveClass::kAllReduce:
      n = f < 2 ? 2.0 / (2.0 - f) : 0;
      break;
    case CollectiveClass::kBroadcast:
      return 0;  // factor 1 says nothing about n
    default:
      n = f < 1 ? 1.0 / (1.0 - f) : 0;
      break;
  }
  return n >= 1 ? static_cast<int>(std::lround(n)) : 0;
}

// Latency the model gives this run's group with `topology` (zero bytes: alpha only).
double model_alpha_us(const Topology& topology, const NcclTestsRun& run) {
  const int per_node = run.ranks / run.nodes;
  GroupPlacement p;
  p.size = run.ranks;
  p.nodes = run.nodes;
  p.min_ranks_per_node = per_node;
  p.max_ranks_per_node = per_node;
  return estimate_collective(topology, run.op, 0.0, p).latency_seconds * 1e6;
}

}  // namespace

NcclTestsRun parse_nccl_tests(std::string_view text, std::string source,
                              std::optional<CollectiveClass> op_hint) {
  NcclTestsRun run;
  run.source = std::move(source);
  std::set<std::string> hosts;
  int rank_lines = 0;
  bool have_op = false;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> w = split_words(line);
    if (w.empty()) continue;
    if (w[0].starts_with("#")) {
      const auto starting = line.find("Collective test starting:");
      if (starting != std::string::npos) {
        const std::vector<std::string> rest =
            split_words(std::string_view(line).substr(starting + 25));
        if (!rest.empty()) {
          run.op_name = rest[0];
          run.op = parse_collective_class(rest[0]);
          have_op = true;
        }
      }
      // "#  Rank  0 Group  0 Pid  1234 on  host-a device  0 [0x18] NVIDIA H100 80GB HBM3"
      if (w.size() >= 3 && w[0] == "#" && w[1] == "Rank") {
        ++rank_lines;
        const auto on = std::find(w.begin(), w.end(), "on");
        if (on != w.end() && std::next(on) != w.end()) hosts.insert(*std::next(on));
        const auto bracket = std::find_if(
            w.begin(), w.end(), [](const std::string& s) { return s.starts_with("[0x"); });
        if (bracket != w.end() && run.device.empty()) {
          std::vector<std::string> name(std::next(bracket), w.end());
          run.device = fmt::format("{}", fmt::join(name, " "));
        }
      }
      continue;
    }
    // Data row: size count type redop root time algbw busbw #wrong [in-place ...]
    if (w.size() < 8) {
      throw ConfigError(fmt::format(
          "nccl-tests output {}: line {} is not a results row (expected size count type redop "
          "root time algbw busbw ...): '{}'",
          run.source, line_no, line));
    }
    NcclTestsRow row;
    std::int64_t size = 0;
    std::int64_t root = 0;
    if (!parse_int(w[0], size) || !parse_int(w[1], row.count) || !parse_int(w[4], root) ||
        !parse_double(w[5], row.time_us) || !parse_double(w[6], row.algbw_gbps) ||
        !parse_double(w[7], row.busbw_gbps) || size < 0 || row.time_us <= 0) {
      throw ConfigError(fmt::format(
          "nccl-tests output {}: line {} has a malformed number (size, count, root, time, algbw "
          "and busbw must be numeric; time > 0): '{}'",
          run.source, line_no, line));
    }
    row.bytes = static_cast<double>(size);
    row.type = w[2];
    run.rows.push_back(row);
  }
  if (run.rows.empty()) {
    throw ConfigError(fmt::format(
        "nccl-tests output {}: no results rows found; pass the stdout of an nccl-tests binary "
        "(e.g. all_reduce_perf -b 8 -e 4G -f 2 -g 8)",
        run.source));
  }
  if (!have_op) {
    if (!op_hint) {
      throw ConfigError(fmt::format(
          "nccl-tests output {}: the collective is not named (no 'Collective test starting:' "
          "line); say which it is (all_reduce, reduce_scatter, all_gather, all_to_all, "
          "broadcast)",
          run.source));
    }
    run.op = *op_hint;
    run.op_name = std::string(to_string(*op_hint));
  }
  run.ranks = rank_lines > 0 ? rank_lines : ranks_from_factor(run);
  if (run.ranks < 2) {
    throw ConfigError(fmt::format(
        "nccl-tests output {}: cannot tell how many ranks ran (no '#  Rank' lines and busbw / "
        "algbw gives no group size); rerun nccl-tests without suppressing its header",
        run.source));
  }
  run.nodes = hosts.empty() ? 1 : static_cast<int>(hosts.size());
  if (run.ranks % run.nodes != 0) {
    throw ConfigError(fmt::format(
        "nccl-tests output {}: {} ranks over {} hosts is not a whole number of ranks per node; "
        "calibrate from runs with the same number of GPUs on every node",
        run.source, run.ranks, run.nodes));
  }
  return run;
}

NcclTestsRun read_nccl_tests(const std::string& path, std::optional<CollectiveClass> op_hint) {
  return parse_nccl_tests(io::read_input_file(path, "nccl-tests output"), path, op_hint);
}

AlphaBetaFit fit_alpha_beta(const NcclTestsRun& run) {
  const double factor = bus_factor(run.op, run.ranks);
  std::vector<std::pair<double, double>> xy;  // (bus bytes, seconds), ascending
  for (const NcclTestsRow& row : run.rows) {
    if (row.bytes > 0) xy.emplace_back(row.bytes * factor, row.time_us * 1e-6);
  }
  std::sort(xy.begin(), xy.end());
  std::set<double> distinct;
  for (const auto& p : xy) distinct.insert(p.first);
  if (distinct.size() < 2) {
    throw ConfigError(fmt::format(
        "nccl-tests output {}: the fit needs at least two distinct message sizes, got {}; run "
        "nccl-tests over a size sweep (-b 8 -e 1G -f 2)",
        run.source, distinct.size()));
  }
  // Two regimes, each fitted where it dominates: alpha is the time of the smallest message
  // (latency-bound), busbw the least-squares slope of (time − alpha) over the larger half of the
  // sizes (bandwidth-bound). A single straight line through all sizes lets the small, cache-
  // resident messages bend the slope, which mispredicts exactly the large buckets that matter.
  const double a = xy.front().second;
  const std::size_t half = xy.size() / 2;
  double sxx = 0, sxy = 0;
  for (std::size_t i = half; i < xy.size(); ++i) {
    sxx += xy[i].first * xy[i].first;
    sxy += xy[i].first * (xy[i].second - a);
  }
  const double b = sxy / sxx;
  if (!(b > 0)) {
    throw ConfigError(fmt::format(
        "nccl-tests output {}: time does not grow with message size (fitted slope {}); the "
        "table looks corrupt or latency-bound throughout; include sizes of at least a few MiB",
        run.source, b));
  }
  AlphaBetaFit fit;
  fit.alpha_us = a * 1e6;
  fit.busbw_gbps = 1.0 / b / 1e9;
  fit.samples = static_cast<int>(xy.size());
  for (const auto& [x, y] : xy) {
    fit.max_relative_error = std::max(fit.max_relative_error, std::abs(a + b * x - y) / y);
  }
  return fit;
}

Topology calibrate_topology(Topology t, const std::vector<NcclTestsRun>& runs) {
  // One base latency serves every class, so single-node runs vote: the mean of their implied
  // values (each relative to the base latency the topology started with).
  const double start_base = t.intra_node.base_latency_us;
  double base_sum = 0;
  int base_votes = 0;
  for (const NcclTestsRun& run : runs) {
    const AlphaBetaFit fit = fit_alpha_beta(run);
    const int per_node = run.ranks / run.nodes;
    std::string what;
    if (run.nodes == 1) {
      t.intra_node.busbw_gbps[run.op] = fit.busbw_gbps;
      // The base latency enters every collective once, so shifting it by the residual makes the
      // model reproduce the fitted alpha at this group size exactly.
      Topology probe = t;
      probe.intra_node.base_latency_us = start_base;
      const double implied = std::max(0.0, start_base + fit.alpha_us - model_alpha_us(probe, run));
      base_sum += implied;
      ++base_votes;
      t.intra_node.base_latency_us = base_sum / base_votes;
      what = fmt::format("intra-node busbw {:.1f} GB/s, implied base latency {:.2f} us",
                         fit.busbw_gbps, implied);
      if (t.gpus_per_node < run.ranks) t.gpus_per_node = run.ranks;
    } else {
      const CollectiveClass cap_class =
          run.op == CollectiveClass::kAllReduce ? CollectiveClass::kReduceScatter : run.op;
      if (fit.busbw_gbps >= t.intra_node.busbw_gbps[cap_class]) {
        what = fmt::format(
            "busbw {:.1f} GB/s is at or above the NVLink cap ({:.1f}); the NICs are not the "
            "bottleneck, inter-node bandwidth left unchanged",
            fit.busbw_gbps, t.intra_node.busbw_gbps[cap_class]);
      } else {
        t.inter_node.busbw_gbps[run.op] = fit.busbw_gbps / per_node;
        what = fmt::format("inter-node busbw {:.1f} GB/s per NIC ({} ranks per node)",
                           t.inter_node.busbw_gbps[run.op], per_node);
        if (!t.inter_node.busbw_by_nodes.empty()) {
          // The measured cluster replaces the published node-count table.
          t.inter_node.busbw_by_nodes.clear();
          what += "; the busbw-by-node-count table of the base is dropped";
        }
      }
      // Latency grows linearly with the inter-node step latency; bisect for the value that
      // reproduces the fitted alpha.
      double lo = 0, hi = 1e5;
      for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        t.inter_node.step_latency_us = mid;
        (model_alpha_us(t, run) < fit.alpha_us ? lo : hi) = mid;
      }
      t.inter_node.step_latency_us = 0.5 * (lo + hi);
      what += fmt::format(", inter-node step latency {:.2f} us", t.inter_node.step_latency_us);
      t.gpus_per_node = per_node;
    }
    t.provenance.push_back(fmt::format(
        "calibrated from {} ({}, {} ranks on {} node(s){}): alpha {:.2f} us, busbw {:.1f} GB/s "
        "over {} sizes (max rel. error {:.0f}%) -> {}",
        run.source, run.op_name, run.ranks, run.nodes,
        run.device.empty() ? std::string() : fmt::format(", {}", run.device), fit.alpha_us,
        fit.busbw_gbps, fit.samples, 100 * fit.max_relative_error, what));
  }
  validate(t);
  return t;
}

}  // namespace canzona::sim
