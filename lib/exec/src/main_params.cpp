// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "main_params.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "copies.hpp"

namespace canzona::exec::detail {

MainParams::MainParams(StepContext& ctx)
    : ctx_(ctx),
      copies_params_(ctx.param_type != comm::DataType::kFloat32),
      copies_grads_(ctx.grad_type != comm::DataType::kFloat32) {
  const plan::StepPlan& plan = ctx.plan;
  const auto r = static_cast<std::size_t>(ctx.dp_rank);
  for (const plan::BufferPlan& bp : plan.buffers) {
    first_.push_back(ranges_.size());
    const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
    switch (bp.param_sync) {
      case plan::ParamSync::kAllGather:
        for (const plan::BucketCuts& cuts : bp.partition.buckets) {
          add(bp.buffer, cuts.pos[r], cuts.pos[r + 1]);
        }
        break;
      case plan::ParamSync::kNone:
        for (const layout::Bucket& bucket : buffer.buckets)
          add(bp.buffer, bucket.start, bucket.end);
        break;
      case plan::ParamSync::kAllGatherOwned:
        for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
          if (bp.owner[e] == ctx.dp_rank) {
            add(bp.buffer, buffer.entries[e].start, buffer.entries[e].end);
          }
        }
        break;
    }
  }
  first_.push_back(ranges_.size());
}

void MainParams::add(std::size_t buffer, std::int64_t begin, std::int64_t end) {
  if (end <= begin) return;
  OwnedRange range{buffer, begin, end, nullptr, nullptr};
  if (copies_params_) {
    storage_.push_back(ctx_.allocate_floats(end - begin));
    range.param = storage_.back().as<float>();
  } else {
    range.param = static_cast<float*>(ctx_.params[buffer]) + begin;
  }
  if (copies_grads_) {
    storage_.push_back(ctx_.allocate_floats(end - begin));
    range.grad = storage_.back().as<float>();
  } else {
    range.grad = static_cast<float*>(ctx_.grads[buffer]) + begin;
  }
  ranges_.push_back(range);
}

std::span<const OwnedRange> MainParams::ranges(std::size_t buffer) const {
  return std::span<const OwnedRange>(ranges_).subspan(first_.at(buffer),
                                                      first_.at(buffer + 1) - first_[buffer]);
}

const OwnedRange& MainParams::find(std::size_t buffer, std::int64_t element) const {
  const std::span<const OwnedRange> own = ranges(buffer);
  const auto it =
      std::upper_bound(own.begin(), own.end(), element,
                       [](std::int64_t x, const OwnedRange& range) { return x < range.end; });
  if (it == own.end() || element < it->begin) {
    throw Error(fmt::format(
        "executor: DP rank {} does not step element {} of buffer '{}', so it has no main "
        "parameter for it",
        ctx_.dp_rank, element, ctx_.plan.layout.buffers.at(buffer).name));
  }
  return *it;
}

float* MainParams::param(std::size_t buffer, std::int64_t element) const {
  const OwnedRange& range = find(buffer, element);
  return range.param + (element - range.begin);
}

float* MainParams::grad(std::size_t buffer, std::int64_t element) const {
  const OwnedRange& range = find(buffer, element);
  return range.grad + (element - range.begin);
}

void MainParams::load() const {
  if (!copies_params_) return;
  const backend::ElementType type = element_type(ctx_.param_type);
  for (const OwnedRange& range : ranges_) {
    ctx_.backend.convert(
        range.param, backend::ElementType::kFloat32,
        offset(ctx_.params[range.buffer], range.begin, backend::element_size(type)), type,
        range.end - range.begin);
  }
}

void MainParams::import_grads() const {
  if (!copies_grads_) return;
  const backend::ElementType type = element_type(ctx_.grad_type);
  for (const OwnedRange& range : ranges_) {
    ctx_.backend.convert(range.grad, backend::ElementType::kFloat32,
                         offset(ctx_.grads[range.buffer], range.begin, backend::element_size(type)),
                         type, range.end - range.begin);
  }
}

void MainParams::publish() const {
  if (!copies_params_) return;
  const backend::ElementType type = element_type(ctx_.param_type);
  for (const OwnedRange& range : ranges_) {
    ctx_.backend.convert(
        offset(ctx_.params[range.buffer], range.begin, backend::element_size(type)), type,
        range.param, backend::ElementType::kFloat32, range.end - range.begin);
  }
}

}  // namespace canzona::exec::detail
