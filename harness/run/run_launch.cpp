// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_launch.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace canzona::harness {

Launch make_launch(const std::string& launcher, int ranks, bool oversubscribe, bool cpu_backend) {
  Launch launch;
  if (launcher == "mpirun") {
    launch.prefix = {"mpirun", "-np", std::to_string(ranks)};
    if (oversubscribe) launch.prefix.push_back("--oversubscribe");
    // Ranks waiting in a collective give their core back to the ranks still computing.
    if (oversubscribe) launch.env.push_back("OMPI_MCA_mpi_yield_when_idle=1");
  } else if (launcher == "srun") {
    launch.prefix = {"srun", "-n", std::to_string(ranks)};
  } else {
    std::istringstream words(launcher);
    for (std::string word; words >> word;) launch.prefix.push_back(word);
    if (launch.prefix.empty()) throw ConfigError("--launcher is empty");
  }
  // Open MPI refuses to start as root without these (containers, CI); other launchers ignore them.
  if (geteuid() == 0) {
    launch.env.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
    launch.env.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  }
  if (cpu_backend && std::getenv("OPENBLAS_NUM_THREADS") == nullptr) {
    launch.env.push_back("OPENBLAS_NUM_THREADS=1");
  }
  // Open MPI's shared-memory transport copies large messages once, by the receiver (CMA); on a
  // 2-core virtual machine that made a step of a two-rank job take either ~1x or ~2x (one
  // process of `run` held both modes, 110 vs 220 ms for a tp 2 Muon step, the mode drawn per
  // step), which no gate can tell from a regression. The copy through shared-memory fragments
  // gave one mode (109-127 ms over 14 steps). The cpu backend's ranks use it unless told else.
  if (cpu_backend && std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism") == nullptr) {
    launch.env.push_back("OMPI_MCA_btl_vader_single_copy_mechanism=none");
  }
  return launch;
}

void check_ranks(const std::string& launcher, int ranks, const std::string& backend,
                 bool oversubscribe, int cores, int gpus) {
  if (launcher != "mpirun") return;
  if (backend == "cuda" && ranks > gpus) {
    throw ConfigError(fmt::format(
        "--ranks {}: this machine has {} GPU(s) and the cuda backend runs one rank per GPU; use "
        "--ranks {} or fewer, or --launcher srun / a multi-node mpirun prefix",
        ranks, gpus, gpus));
  }
  if (backend == "cpu" && ranks > cores && !oversubscribe) {
    throw ConfigError(fmt::format(
        "--ranks {}: this machine has {} core(s); more ranks than cores share them and the "
        "timings mean little; use --ranks {} or fewer, or pass --oversubscribe to run anyway",
        ranks, cores, cores));
  }
}

namespace {

std::filesystem::path suite_path(const std::string& name, const std::string& dir) {
  std::filesystem::path folder = dir;
  if (folder.empty()) {
    std::error_code error;
    folder = std::filesystem::read_symlink("/proc/self/exe", error).parent_path();
  }
  return folder / name;
}

}  // namespace

bool suite_exists(const std::string& name, const std::string& dir) {
  return access(suite_path(name, dir).c_str(), X_OK) == 0;
}

std::filesystem::path find_suite(const std::string& name, const std::string& dir) {
  const std::filesystem::path suite = suite_path(name, dir);
  const std::filesystem::path folder = suite.parent_path();
  if (access(suite.c_str(), X_OK) != 0) {
    throw ConfigError(fmt::format(
        "no suite executable '{}' (looked in '{}'); build the suites (a Release build with MPI and "
        "-DCANZONA_BUILD_SUITES=ON) or point --suite-dir at their folder",
        name, folder.string()));
  }
  return suite;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    const bool plain =
        !word.empty() && word.find_first_of(" \t\"'\\$`|&;<>()*?[]{}") == std::string::npos;
    if (plain) {
      line += word;
      continue;
    }
    line += '\'';
    for (const char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace canzona::harness
