// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "context_cells.hpp"

#include <fmt/format.h>

namespace canzona::harness {

std::string context_value(const std::map<std::string, std::string>& context,
                          const std::string& key) {
  const auto it = context.find(key);
  return it == context.end() || it->second.empty() ? "-" : it->second;
}

std::string device_line(const std::map<std::string, std::string>& context) {
  std::string line = context_value(context, "device_kind");
  const std::string gpu = context_value(context, "gpu_name");
  if (gpu != "-" && gpu != "none") line += fmt::format(" ({})", gpu);
  // Clocks set lower on one side move every row: the report shows them beside the GPU.
  const std::string clocks = context_value(context, "gpu_clocks");
  if (clocks != "-") line += fmt::format(", clocks {} MHz", clocks);
  return line;
}

}  // namespace canzona::harness
