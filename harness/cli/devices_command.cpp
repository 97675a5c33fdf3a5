// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench devices [--require] [--json]`: what this build sees of the GPUs: the CUDA
// devices with their memory and the versions of the stack it loaded, or why it sees none (a
// build without CUDA, a device module whose libraries are not on the search path, the CUDA
// runtime's error). The first question on a new node, asked of the very binaries that will run.
#include "commands.hpp"

#include <canzona/config.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/device_module.hpp>
#include <canzona/harness/cli.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace canzona::harness {
namespace {

struct DeviceReport {
  int count = 0;
  std::string reason;                                   ///< why count is 0
  std::vector<std::pair<std::string, double>> devices;  ///< name, GiB
  std::vector<std::pair<std::string, std::string>> versions;
};

DeviceReport gather() {
  DeviceReport r;
  r.count = cuda_device_count();
  if (r.count == 0) r.reason = cuda_unavailable_reason();
  for (int i = 0; i < r.count; ++i) {
    r.devices.emplace_back(cuda_device_name(i),
                           static_cast<double>(cuda_total_memory_bytes(i)) / (1 << 30));
  }
  if (r.count > 0) {
    const DeviceModule* module = device_module();
    if (module != nullptr && module->stack_versions != nullptr) {
      r.versions = module->stack_versions();
    }
  }
  return r;
}

int print_devices(bool require, bool json, std::ostream& out) {
  const DeviceReport r = gather();
  const char* const build =
      CANZONA_WITH_CUDA ? (CANZONA_WITH_NCCL ? "cuda, nccl" : "cuda") : "cpu only";
  if (json) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& [name, gib] : r.devices) {
      devices.push_back({{"name", name}, {"memory_gib", gib}});
    }
    nlohmann::json versions = nlohmann::json::object();
    for (const auto& [key, version] : r.versions) versions[key] = version;
    out << nlohmann::json{{"build", build},       {"count", r.count},
                          {"devices", devices},   {"reason", r.reason},
                          {"versions", versions}, {"device_kind", device_kind()}}
               .dump(2)
        << "\n";
  } else {
    out << fmt::format("build: {}\n", build);
    if (r.count == 0) {
      out << fmt::format("cuda devices: none: {}\n", r.reason);
    } else {
      out << fmt::format("cuda devices: {} ({})\n", r.count, device_kind());
      for (std::size_t i = 0; i < r.devices.size(); ++i) {
        out << fmt::format("  {}: {}, {:.1f} GiB\n", i, r.devices[i].first, r.devices[i].second);
      }
      for (const auto& [key, version] : r.versions) out << fmt::format("{}: {}\n", key, version);
    }
  }
  return require && r.count == 0 ? kExitRegression : kExitOk;
}

}  // namespace

CommandAction add_devices_command(CLI::App& app) {
  auto require = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "devices",
      "The CUDA devices this build sees and the versions of the stack it loads, or "
      "why it sees none");
  cmd->add_flag("--require", *require, "Exit 1 when there is no usable CUDA device");
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  return [require, json](std::ostream& out) { return print_devices(*require, *json, out); };
}

}  // namespace canzona::harness
