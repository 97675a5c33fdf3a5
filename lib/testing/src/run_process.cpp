// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/testing/run_process.hpp"

#include <canzona/core/child_process.hpp>

#include <dirent.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

namespace canzona::testing {

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          double time_limit_s, const std::vector<std::string>& environment) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult result;
  ChildOutput output;
  output.on_stdout = [&](std::string_view chunk) { result.out.append(chunk); };
  output.on_stderr = [&](std::string_view chunk) { result.err.append(chunk); };
  const ChildExit exit = run_child(argv, {environment, time_limit_s}, output);
  result.exit_code = exit.exit_code;
  result.timed_out = exit.timed_out;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

namespace {
constexpr const char* kJobTagVariable = "CANZONA_TEST_JOB_TAG";
}  // namespace

ProcessResult TaggedMpiJob::run(const std::string& mpiexec, const std::vector<std::string>& args,
                                double time_limit_s) const {
  return run_process(mpiexec, args, time_limit_s,
                     {std::string(kJobTagVariable) + "=" + tag_, "OMPI_ALLOW_RUN_AS_ROOT=1",
                      "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_mpi_yield_when_idle=1",
                      "OPENBLAS_NUM_THREADS=1"});
}

std::vector<int> TaggedMpiJob::survivors() const {
  const std::string entry = std::string(kJobTagVariable) + "=" + tag_;
  std::vector<int> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* e = readdir(proc)) {
    const std::string name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    // NUL-separated NAME=value entries; empty for zombies, which have exited.
    std::ifstream file("/proc/" + name + "/environ", std::ios::binary);
    std::string environment((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    std::size_t begin = 0;
    while (begin < environment.size()) {
      std::size_t end = environment.find('\0', begin);
      if (end == std::string::npos) end = environment.size();
      if (environment.compare(begin, end - begin, entry) == 0) {
        pids.push_back(std::stoi(name));
        break;
      }
      begin = end + 1;
    }
  }
  closedir(proc);
  return pids;
}

std::vector<int> TaggedMpiJob::wait_for_survivors() const {
  std::vector<int> left;
  for (int i = 0; i < 50; ++i) {
    left = survivors();
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return left;
}

}  // namespace canzona::testing
