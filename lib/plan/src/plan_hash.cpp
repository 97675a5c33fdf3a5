// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// plan_hash: FNV-1a 64 over a canonical byte stream of everything the executor acts on. Fixed
// widths and little-endian order, so the value does not depend on the host or the compiler.
#include <bit>
#include <cstdint>
#include <string_view>

#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {
namespace {

class Fnv1a {
 public:
  void bytes(std::uint64_t value, int count) {
    for (int i = 0; i < count; ++i) {
      state_ ^= (value >> (8 * i)) & 0xffU;
      state_ *= kPrime;
    }
  }
  void u64(std::uint64_t v) { bytes(v, 8); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void text(std::string_view s) {
    u64(s.size());
    for (char c : s) bytes(static_cast<unsigned char>(c), 1);
  }
  std::uint64_t value() const { return state_; }

 private:
  static constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

void hash_options(Fnv1a& h, const StrategyOptions& o) {
  h.text(to_string(o.dp));
  h.text(to_string(o.tp));
  h.f64(o.alpha);
  h.text(to_string(o.cost));
  h.text(to_string(o.tp_schedule));
  h.f64(o.slot_mib);
  h.text(to_string(o.transport));
  h.text(to_string(o.tp_execution));
  h.text(dtype_name(o.precision.params));
  h.text(dtype_name(o.precision.grad_reduce));
  h.u64(o.split.qkv);
  h.u64(o.split.qkv_per_head);
  h.u64(o.split.fc1);
  h.text(optim::to_string(o.optimizer.kind));
}

void hash_layout(Fnv1a& h, const layout::Zero1Layout& layout) {
  h.text(layout.model);
  h.i64(layout.config.dp);
  h.i64(layout.config.tp);
  for (const layout::Buffer& buffer : layout.buffers) {
    h.text(buffer.name);
    h.i64(buffer.total);
    for (const layout::BufferEntry& e : buffer.entries) {
      h.u64(e.param_index);
      h.i64(e.start);
      h.i64(e.end);
      h.i64(e.bucket);
    }
    for (const layout::Bucket& bucket : buffer.buckets) {
      h.i64(bucket.start);
      h.i64(bucket.end);
    }
  }
}

}  // namespace

std::uint64_t plan_hash(const StepPlan& plan) {
  Fnv1a h;
  h.text(plan.strategy);
  hash_options(h, plan.options);
  hash_layout(h, plan.layout);
  for (const BufferPlan& bp : plan.buffers) {
    h.u64(bp.buffer);
    h.u64(bp.matrix);
    h.text(to_string(bp.grad_sync));
    h.text(to_string(bp.param_sync));
    for (const BucketCuts& cuts : bp.partition.buckets) {
      for (std::int64_t pos : cuts.pos) h.i64(pos);
    }
    for (int owner : bp.owner) h.i64(owner);
  }
  for (const MatrixPlan& m : plan.matrices) {
    h.u64(m.param_index);
    h.i64(m.dp_owner);
    h.i64(m.tp_host);
    h.i64(m.micro_group);
    for (const model::Fragment& f : m.fragments) {
      h.text(f.name);
      for (const model::RowRange& r : f.rows) {
        h.i64(r.begin);
        h.i64(r.end);
      }
    }
  }
  for (const auto& groups : plan.micro_groups) {
    h.u64(groups.size());
    for (const MicroGroupPlan& group : groups) {
      for (const auto& slot : group.slots) {
        h.u64(slot.size());
        for (std::size_t i : slot) h.u64(i);
      }
    }
  }
  for (const auto& list : plan.replicated_matrices) {
    h.u64(list.size());
    for (std::size_t i : list) h.u64(i);
  }
  return h.value();
}

}  // namespace canzona::plan
