// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// nlohmann to_json for the layout types. A Zero1Layout's JSON carries every bucket, every entry
// (start, end, bucket, shape, ranks) and each rank's slice of each bucket.
#pragma once

#include <nlohmann/json.hpp>

#include "canzona/layout/parallel_config.hpp"
#include "canzona/layout/zero1.hpp"

namespace canzona::layout {

void to_json(nlohmann::json& json, const ParallelConfig& config);
void to_json(nlohmann::json& json, const Zero1Options& options);
/// Entry fields plus "ranks": [first, last] of the DP slices it overlaps (needs the buffer, so
/// entries are written by the Buffer overload; this one omits "ranks").
void to_json(nlohmann::json& json, const BufferEntry& entry);
/// Bucket fields plus "slices": [[begin, end], …] per DP rank.
void to_json(nlohmann::json& json, const Bucket& bucket);
void to_json(nlohmann::json& json, const Buffer& buffer);
void to_json(nlohmann::json& json, const Zero1Layout& layout);

}  // namespace canzona::layout
