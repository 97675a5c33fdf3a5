// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The agreement is two all-gathers: each rank's record length, then the records themselves. A
// record is "E<exit code><message>" for a rank that failed to prepare, or "O" followed by its
// options as name US value RS pairs.
#include "canzona/comm/agreement.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

namespace canzona::comm {
namespace {

constexpr char kUnit = '\x1f';
constexpr char kRecord = '\x1e';

struct RankRecord {
  bool failed = false;
  int exit_code = 0;
  std::string message;
  RunOptions options;
};

std::string encode(const RunOptions& options, std::exception_ptr local_error) {
  if (local_error) {
    try {
      std::rethrow_exception(local_error);
    } catch (const ConfigError& e) {
      return std::string("E2") + e.what();
    } catch (const std::exception& e) {
      return std::string("E3") + e.what();
    } catch (...) {
      return "E3unknown error";
    }
  }
  std::string text = "O";
  for (const auto& [name, value] : options) text += name + kUnit + value + kRecord;
  return text;
}

RankRecord decode(const std::string& text) {
  RankRecord record;
  if (text.size() >= 2 && text[0] == 'E') {
    record.failed = true;
    record.exit_code = text[1] - '0';
    record.message = text.substr(2);
    return record;
  }
  std::size_t pos = 1;
  while (pos < text.size()) {
    const std::size_t unit = text.find(kUnit, pos);
    const std::size_t end = text.find(kRecord, pos);
    if (unit == std::string::npos || end == std::string::npos || unit > end) break;
    record.options.emplace_back(text.substr(pos, unit - pos),
                                text.substr(unit + 1, end - unit - 1));
    pos = end + 1;
  }
  return record;
}

std::vector<RankRecord> exchange_records(Communicator& world, const std::string& mine) {
  const auto ranks = static_cast<std::size_t>(world.size());
  const std::int64_t length = static_cast<std::int64_t>(mine.size());
  std::vector<std::int64_t> lengths(ranks);
  world.all_gather(&length, lengths.data(), std::vector<std::size_t>(ranks, 1), DataType::kInt64)
      .wait();
  std::vector<std::size_t> counts(ranks);
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    counts[r] = static_cast<std::size_t>(lengths[r]);
    total += counts[r];
  }
  std::string all(total, '\0');
  world.all_gather(mine.data(), all.data(), counts, DataType::kUInt8).wait();
  std::vector<RankRecord> records;
  std::size_t offset = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    records.push_back(decode(all.substr(offset, counts[r])));
    offset += counts[r];
  }
  return records;
}

std::string value_or_missing(const RunOptions& options, const std::string& name) {
  for (const auto& [n, v] : options) {
    if (n == name) return v.empty() ? "''" : v;
  }
  return "(not set)";
}

}  // namespace

void agree_on_start(Communicator& world, const RunOptions& options,
                    std::exception_ptr local_error) {
  const std::vector<RankRecord> records = exchange_records(world, encode(options, local_error));
  const int ranks = world.size();

  std::vector<int> failed;
  for (int r = 0; r < ranks; ++r) {
    if (records[static_cast<std::size_t>(r)].failed) failed.push_back(r);
  }
  if (!failed.empty()) {
    const RankRecord& first = records[static_cast<std::size_t>(failed.front())];
    bool same = static_cast<int>(failed.size()) == ranks;
    for (const int r : failed)
      same = same && records[static_cast<std::size_t>(r)].message == first.message;
    if (same) {
      throw AgreedError(fmt::format("every rank failed to start: {}", first.message),
                        first.exit_code);
    }
    throw AgreedError(
        fmt::format("rank {} of {} failed to start: {}{}", failed.front(), ranks, first.message,
                    failed.size() > 1
                        ? fmt::format(" (ranks that failed: {})", fmt::join(failed, ", "))
                        : std::string()),
        first.exit_code);
  }

  const RunOptions& reference = records.front().options;
  for (int r = 1; r < ranks; ++r) {
    const RunOptions& theirs = records[static_cast<std::size_t>(r)].options;
    RunOptions names = reference;
    for (const auto& option : theirs) names.push_back(option);
    for (const auto& [name, unused] : names) {
      const std::string a = value_or_missing(reference, name);
      const std::string b = value_or_missing(theirs, name);
      if (a != b) {
        throw AgreedError(fmt::format("ranks disagree on {}: rank 0 has {}, rank {} has {}; every "
                                      "rank of the job must be given the same {}",
                                      name, a, r, b, name),
                          2);
      }
    }
  }
}

}  // namespace canzona::comm
