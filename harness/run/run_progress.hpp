// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Progress of a suite run, read from its console output: "case i of n, elapsed, estimate".
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

class RunProgress {
 public:
  /// `cases`: the names the suite listed (--benchmark_list_tests), in run order.
  RunProgress(const std::vector<std::string>& cases, std::ostream& err);
  /// A line of the suite's console output: a case's first result line moves the count on.
  void on_line(std::string_view line);
  /// Cases that have reported so far.
  int reported() const { return reported_; }

 private:
  std::ostream& err_;
  std::map<std::string, int> index_;  ///< base name -> position
  std::vector<bool> seen_;
  int reported_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace canzona::harness
