// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Loading libcanzona_device.so on first use (dlopen), once per process.
#include "canzona/core/device_module.hpp"

#include "canzona/core/error.hpp"

#include <canzona/config.hpp>

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace canzona {
namespace {

constexpr const char* kModuleFile = "libcanzona_device.so";
constexpr const char* kEntryPoint = "canzona_device_module";

struct Loaded {
  const DeviceModule* module = nullptr;
  std::string error;
};

/// Where to look, in order: the explicit path, the lib/ directory beside the executable's bin/
/// (build and install trees), the dynamic loader's own search path.
std::vector<std::string> candidates() {
  if (const char* env = std::getenv("CANZONA_DEVICE_MODULE"); env != nullptr && *env != '\0') {
    return {env};
  }
  std::vector<std::string> paths;
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) paths.push_back((exe.parent_path().parent_path() / "lib" / kModuleFile).string());
  paths.emplace_back(kModuleFile);
  return paths;
}

Loaded load() {
  if (!CANZONA_WITH_CUDA) return {};
  std::string tried;
  for (const std::string& path : candidates()) {
    // RTLD_LOCAL: the module's symbols serve only itself. Never closed: objects it made may
    // live until exit.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += fmt::format("\n  {}: {}", path, why != nullptr ? why : "not loadable");
      continue;
    }
    using Entry = const DeviceModule* (*)();
    auto* entry = reinterpret_cast<Entry>(dlsym(handle, kEntryPoint));
    if (entry == nullptr) {
      tried += fmt::format("\n  {}: no entry point {}", path, kEntryPoint);
      continue;
    }
    const DeviceModule* module = entry();
    if (module == nullptr || module->abi != kDeviceModuleAbi) {
      tried += fmt::format("\n  {}: interface version {}, this build needs {} (rebuild both)", path,
                           module == nullptr ? 0U : module->abi, kDeviceModuleAbi);
      continue;
    }
    return {module, ""};
  }
  return {nullptr, fmt::format("the CUDA module {} of this build could not be loaded:{}\nset "
                               "CANZONA_DEVICE_MODULE to its path, or use the cpu backend",
                               kModuleFile, tried)};
}

const Loaded& loaded() {
  static const Loaded once = load();
  return once;
}

}  // namespace

const DeviceModule* device_module() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw ConfigError(l.error);
  return l.module;
}

const DeviceModule& require_device_module(const char* what) {
  const DeviceModule* module = device_module();
  if (module == nullptr) {
    throw ConfigError(
        fmt::format("{} needs a build with CUDA (configure with -DCANZONA_ENABLE_CUDA=ON)", what));
  }
  return *module;
}

}  // namespace canzona
