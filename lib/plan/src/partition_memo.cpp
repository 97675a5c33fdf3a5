// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "partition_memo.hpp"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace canzona::plan::detail {
namespace {

// Every input as 64-bit words, compared exactly (no hash that could collide).
std::vector<std::uint64_t> key_of(const layout::Buffer& buffer, double alpha,
                                  std::span<const double> costs, BalanceUnit balance) {
  std::vector<std::uint64_t> key;
  key.reserve(8 + 4 * buffer.entries.size() + 7 * buffer.buckets.size() + costs.size());
  const auto add = [&key](auto value) { key.push_back(static_cast<std::uint64_t>(value)); };
  const auto add_double = [&key](double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    key.push_back(bits);
  };
  add(buffer.dp);
  add(buffer.total);
  add(buffer.expert);
  add(static_cast<int>(balance));
  add_double(alpha);
  add(buffer.entries.size());
  for (const layout::BufferEntry& e : buffer.entries) {
    add(e.start);
    add(e.end);
    add(e.bucket);
    add(e.matrix);
  }
  add(buffer.buckets.size());
  for (const layout::Bucket& b : buffer.buckets) {
    add(b.index);
    add(b.start);
    add(b.end);
    add(b.data_end);
    add(b.first_entry);
    add(b.last_entry);
    add(b.dp);
  }
  add(costs.size());
  for (const double c : costs) add_double(c);
  return key;
}

constexpr std::size_t kRemembered = 16;

thread_local RememberedPartitions* innermost = nullptr;

}  // namespace

DpPartition remembered_partition(const layout::Buffer& buffer, double alpha,
                                 std::span<const double> costs, BalanceUnit balance,
                                 const std::function<DpPartition()>& plan) {
  RememberedPartitions* scope = RememberedPartitions::active();
  if (scope == nullptr) return plan();
  std::vector<std::uint64_t> key = key_of(buffer, alpha, costs, balance);
  if (const DpPartition* known = scope->find(key)) return *known;
  DpPartition answer = plan();
  scope->remember(std::move(key), answer);
  return answer;
}

}  // namespace canzona::plan::detail

namespace canzona::plan {

struct RememberedPartitions::Entry {
  std::vector<std::uint64_t> key;
  DpPartition answer;
};

RememberedPartitions::RememberedPartitions() : outer_(detail::innermost) {
  detail::innermost = this;
}

RememberedPartitions::~RememberedPartitions() { detail::innermost = outer_; }

RememberedPartitions* RememberedPartitions::active() { return detail::innermost; }

const DpPartition* RememberedPartitions::find(const std::vector<std::uint64_t>& key) const {
  for (const Entry& e : answers_) {
    if (e.key == key) return &e.answer;
  }
  return nullptr;
}

void RememberedPartitions::remember(std::vector<std::uint64_t> key, const DpPartition& answer) {
  answers_.push_front(Entry{std::move(key), answer});
  if (answers_.size() > detail::kRemembered) answers_.pop_back();
}

}  // namespace canzona::plan
