// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/testing/run_process.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace canzona::testing {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    if (read_end >= 0) close(read_end);
    if (write_end >= 0) close(write_end);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

}  // namespace

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          double time_limit_s, const std::vector<std::string>& environment) {
  const auto start = std::chrono::steady_clock::now();
  Pipe out_pipe;
  Pipe err_pipe;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe.write_end, STDERR_FILENO);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // This process's environment, with `environment` added (an entry replaces the same name).
  std::vector<std::string> env_entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& extra : environment) {
      replaced = replaced || extra.substr(0, extra.find('=')) == name;
    }
    if (!replaced) env_entries.push_back(entry);
  }
  env_entries.insert(env_entries.end(), environment.begin(), environment.end());
  std::vector<char*> envp;
  for (std::string& entry : env_entries) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (time_limit_s > 0) {
    // Its own process group, so everything it started can be killed together.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  const int rc =
      posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw std::runtime_error("posix_spawn " + program + ": " + std::strerror(rc));
  close(out_pipe.write_end);
  out_pipe.write_end = -1;
  close(err_pipe.write_end);
  err_pipe.write_end = -1;

  // Drain both pipes together so a chatty stderr cannot block the child on a full stdout pipe.
  ProcessResult result;
  std::array<pollfd, 2> fds{pollfd{out_pipe.read_end, POLLIN, 0},
                            pollfd{err_pipe.read_end, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  char buffer[4096];
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (open_fds > 0) {
    if (time_limit_s > 0 && !result.timed_out && elapsed() > time_limit_s) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
    }
    // A descendant that left the group may keep the pipes open; stop reading a while later.
    if (result.timed_out && elapsed() > time_limit_s + 5) break;
    const int ready = poll(fds.data(), fds.size(), time_limit_s > 0 ? 100 : -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.seconds = elapsed();
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
