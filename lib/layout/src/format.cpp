// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Text tables of a ZeRO-1 layout.
#include "canzona/layout/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

namespace canzona::layout {
namespace {

std::string rank_range(const RankSpan& span) {
  return span.cut() ? fmt::format("{}-{}", span.first, span.last) : fmt::format("{}", span.first);
}

double percent(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

std::string format_zero1_layout(const Zero1Layout& layout, bool verbose) {
  std::string out;
  auto it = std::back_inserter(out);
  const ParallelConfig& c = layout.config;
  fmt::format_to(it,
                 "ZeRO-1 layout of {} (Megatron buffers, one TP rank's view)\n"
                 "dp={} tp={} world={} gpus_per_node={} bucket_size={} elements, param alignment "
                 "{}, bucket alignment {}\n",
                 layout.model, c.dp, c.tp, c.world(), c.gpus_per_node, layout.options.bucket_size,
                 kParamAlignment, bucket_alignment(c.dp, layout.options.pad_for_high_nccl_busbw));

  std::int64_t total = 0;
  std::int64_t padding = 0;
  std::size_t matrices = 0;
  std::size_t cut_matrices = 0;
  std::size_t cut_params = 0;
  for (const Buffer& buffer : layout.buffers) {
    fmt::format_to(it, "\nbuffer '{}': {} params, {} buckets, {} elements ({} padding)\n",
                   buffer.name, buffer.entries.size(), buffer.buckets.size(), buffer.total,
                   buffer.padding());
    fmt::format_to(it, "  {:>6}  {:>13}  {:>13}  {:>13}  {:>12}  {:>6}  {:>4}\n", "bucket", "start",
                   "end", "padded_size", "shard/rank", "params", "cut");
    for (const Bucket& b : buffer.buckets) {
      std::size_t cut = 0;
      for (std::size_t i = b.first_entry; i <= b.last_entry; ++i) {
        cut += entry_ranks(buffer, buffer.entries[i]).cut() ? 1 : 0;
      }
      fmt::format_to(it, "  {:>6}  {:>13}  {:>13}  {:>13}  {:>12}  {:>6}  {:>4}\n", b.index,
                     b.start, b.end, b.size(), b.shard_size(), b.num_entries(), cut);
      if (!verbose) {
        continue;
      }
      for (std::size_t i = b.first_entry; i <= b.last_entry; ++i) {
        const BufferEntry& e = buffer.entries[i];
        const RankSpan span = entry_ranks(buffer, e);
        fmt::format_to(it, "      {:<58} [{}] {:>13} {:>13} {:>11}  ranks {}{}\n", e.name,
                       fmt::join(e.shape, "x"), e.start, e.end, e.numel(), rank_range(span),
                       span.cut() ? (e.matrix ? "  CUT matrix" : "  cut") : "");
      }
    }
    total += buffer.total;
    padding += buffer.padding();
    for (const BufferEntry& e : buffer.entries) {
      matrices += e.matrix ? 1 : 0;
    }
    cut_matrices += count_cut_entries(buffer, true);
    cut_params += count_cut_entries(buffer, false);
  }
  fmt::format_to(it,
                 "\nsummary: {} elements in {} buffers, {} padding ({:.4f}%); {} of {} matrices "
                 "cut across DP ranks ({} params cut in all)\n",
                 total, layout.buffers.size(), padding, percent(padding, total), cut_matrices,
                 matrices, cut_params);
  return out;
}

}  // namespace canzona::layout
