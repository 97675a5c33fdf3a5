// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/core/child_process.hpp>
#include <canzona/core/gpu_clocks.hpp>

#include <cctype>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace canzona {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool all_digits(std::string_view text) {
  if (text.empty() || text.size() > 6) return false;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// nvidia-smi's -i takes an index or a UUID, as CUDA_VISIBLE_DEVICES does.
std::string first_visible_gpu() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return "0";
  const std::string_view list = visible;
  return std::string(trimmed(list.substr(0, list.find(','))));
}

}  // namespace

std::string clocks_from_nvidia_smi(std::string_view line) {
  line = trimmed(line);
  const std::size_t comma = line.find(',');
  if (comma == std::string_view::npos) return {};
  const std::string_view sm = trimmed(line.substr(0, comma));
  const std::string_view memory = trimmed(line.substr(comma + 1));
  if (!all_digits(sm) || !all_digits(memory)) return {};
  return std::string(sm) + "/" + std::string(memory);
}

std::string gpu_application_clocks() {
  const std::vector<std::string> argv = {
      "nvidia-smi", "-i", first_visible_gpu(),
      "--query-gpu=clocks.applications.graphics,clocks.applications.memory",
      "--format=csv,noheader,nounits"};
  std::string first_line;
  LineSplitter lines([&](std::string_view line) {
    if (first_line.empty()) first_line = line;
  });
  ChildOutput output;
  output.on_stdout = [&](std::string_view chunk) { lines.feed(chunk); };
  output.on_stderr = [](std::string_view) {};
  try {
    ChildOptions options;
    options.time_limit_s = 10;
    const ChildExit exit = run_child(argv, options, output);
    lines.flush();
    if (exit.exit_code != 0 || exit.timed_out) return {};
  } catch (const std::exception&) {
    return {};  // no nvidia-smi here
  }
  return clocks_from_nvidia_smi(first_line);
}

}  // namespace canzona
