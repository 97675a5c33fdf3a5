// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/bench/launch_report.hpp"

#include <canzona/io/atomic_file.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

namespace canzona::bench {

void write_launch_report(int ranks) {
  const char* file = std::getenv(kLaunchReportVariable);
  if (file == nullptr || *file == '\0') return;
  io::write_file_atomically(file, std::to_string(ranks) + "\n");
}

std::optional<int> read_launch_report(const std::filesystem::path& file) {
  std::ifstream in(file);
  int ranks = 0;
  if (in >> ranks && ranks > 0) return ranks;
  return std::nullopt;
}

}  // namespace canzona::bench
