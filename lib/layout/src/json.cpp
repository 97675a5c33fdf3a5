// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON serialisation of parallel configs and ZeRO-1 layouts.
#include "canzona/layout/json.hpp"

namespace canzona::layout {

void to_json(nlohmann::json& json, const ParallelConfig& config) {
  json = nlohmann::json{{"dp", config.dp},
                        {"tp", config.tp},
                        {"gpus_per_node", config.gpus_per_node},
                        {"world", config.world()}};
}

void to_json(nlohmann::json& json, const Zero1Options& options) {
  json = nlohmann::json{{"bucket_size", options.bucket_size},
                        {"pad_for_high_nccl_busbw", options.pad_for_high_nccl_busbw},
                        {"separate_matrix_buffer", options.separate_matrix_buffer}};
}

void to_json(nlohmann::json& json, const BufferEntry& entry) {
  json = nlohmann::json{
      {"param_index", entry.param_index}, {"name", entry.name},    {"shape", entry.shape},
      {"matrix", entry.matrix},           {"start", entry.start},  {"end", entry.end},
      {"numel", entry.numel()},           {"bucket", entry.bucket}};
}

void to_json(nlohmann::json& json, const Bucket& bucket) {
  nlohmann::json slices = nlohmann::json::array();
  for (int r = 0; r < bucket.dp; ++r) {
    const RankSlice s = rank_slice(bucket, r);
    slices.push_back({s.begin, s.end});
  }
  json = nlohmann::json{{"index", bucket.index},
                        {"start", bucket.start},
                        {"end", bucket.end},
                        {"data_end", bucket.data_end},
                        {"size", bucket.size()},
                        {"shard_size", bucket.shard_size()},
                        {"first_entry", bucket.first_entry},
                        {"last_entry", bucket.last_entry},
                        {"slices", std::move(slices)}};
}

void to_json(nlohmann::json& json, const Buffer& buffer) {
  nlohmann::json entries = nlohmann::json::array();
  for (const BufferEntry& e : buffer.entries) {
    nlohmann::json j = e;
    const RankSpan span = entry_ranks(buffer, e);
    j["ranks"] = {span.first, span.last};
    entries.push_back(std::move(j));
  }
  json = nlohmann::json{{"name", buffer.name},
                        {"total", buffer.total},
                        {"data_numel", buffer.data_numel()},
                        {"padding", buffer.padding()},
                        {"cut_matrices", count_cut_entries(buffer, true)},
                        {"buckets", buffer.buckets},
                        {"entries", std::move(entries)}};
}

void to_json(nlohmann::json& json, const Zero1Layout& layout) {
  json = nlohmann::json{{"model", layout.model},
                        {"config", layout.config},
                        {"options", layout.options},
                        {"buffers", layout.buffers}};
}

}  // namespace canzona::layout
