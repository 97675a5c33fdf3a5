// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "partition_memo.hpp"

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
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

struct Memo {
  std::mutex mutex;
  std::deque<std::pair<std::vector<std::uint64_t>, DpPartition>> answers;  // newest first
};

Memo& memo() {
  static Memo instance;
  return instance;
}

}  // namespace

DpPartition remembered_partition(const layout::Buffer& buffer, double alpha,
                                 std::span<const double> costs, BalanceUnit balance,
                                 const std::function<DpPartition()>& plan) {
  std::vector<std::uint64_t> key = key_of(buffer, alpha, costs, balance);
  Memo& m = memo();
  {
    const std::lock_guard lock(m.mutex);
    for (const auto& [known, answer] : m.answers) {
      if (known == key) return answer;
    }
  }
  DpPartition answer = plan();  // outside the lock: other threads may plan other buffers
  const std::lock_guard lock(m.mutex);
  m.answers.emplace_front(std::move(key), answer);
  if (m.answers.size() > kRemembered) m.answers.pop_back();
  return answer;
}

}  // namespace canzona::plan::detail
