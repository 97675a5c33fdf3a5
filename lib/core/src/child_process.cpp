// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/child_process.hpp"

#include <canzona/core/error.hpp>
#include <canzona/core/interrupt_signals.hpp>

#include <fmt/format.h>

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <optional>

extern char** environ;

namespace canzona {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (pipe(fds) != 0) throw Error(fmt::format("pipe: {}", std::strerror(errno)));
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    if (read_end >= 0) close(read_end);
    if (write_end >= 0) close(write_end);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_write() {
    close(write_end);
    write_end = -1;
  }
};

// This process's environment with `extra` entries replacing those of the same name.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> entries;
  const auto add = [&](const std::string& entry) {
    entries[entry.substr(0, entry.find('='))] = entry;
  };
  for (char** e = environ; *e != nullptr; ++e) add(*e);
  for (const std::string& entry : extra) add(entry);
  std::vector<std::string> out;
  for (auto& [name, entry] : entries) out.push_back(std::move(entry));
  return out;
}

// The interrupt noted while an InterruptScope lived (0: none).
volatile std::sig_atomic_t g_interrupt = 0;

void note_interrupt(int signal_number) { g_interrupt = signal_number; }

// The handlers the outermost scope replaced, and how many scopes live (one thread starts jobs).
int g_scope_depth = 0;
std::array<struct sigaction, kInterruptSignals.size()> g_previous{};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

InterruptScope::InterruptScope() {
  if (g_scope_depth++ > 0) return;
  g_interrupt = 0;
  for (std::size_t i = 0; i < kInterruptSignals.size(); ++i) {
    sigaction(kInterruptSignals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = note_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(kInterruptSignals[i], &action, nullptr);
  }
}

InterruptScope::~InterruptScope() {
  if (--g_scope_depth > 0) return;
  for (std::size_t i = 0; i < kInterruptSignals.size(); ++i)
    sigaction(kInterruptSignals[i], &g_previous[i], nullptr);
}

int InterruptScope::pending() { return g_interrupt; }

ChildExit run_child(const std::vector<std::string>& argv, const ChildOptions& options,
                    const ChildOutput& output) {
  if (argv.empty()) throw Error("run_child: empty command");
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double limit = options.time_limit_s;
  Pipe out_pipe;
  Pipe err_pipe;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe.write_end, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  std::optional<InterruptScope> catcher;
  if (options.forward_interrupts) {
    catcher.emplace();
    if (const int signal_number = InterruptScope::pending(); signal_number != 0) {
      // Asked to stop before this child began: it never starts.
      posix_spawn_file_actions_destroy(&actions);
      posix_spawnattr_destroy(&attributes);
      ChildExit never_started;
      never_started.exit_code = 128 + signal_number;
      never_started.interrupted_by = signal_number;
      return never_started;
    }
  }
  if (limit > 0 || options.forward_interrupts) {
    // Its own process group, so everything it started can be killed together.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(options.extra_env);
  std::vector<char*> c_args = c_strings(args);
  std::vector<char*> c_env = c_strings(env);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, c_args[0], &actions, &attributes, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    throw ConfigError(fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc)));
  }
  out_pipe.close_write();
  err_pipe.close_write();

  ChildExit result;
  std::array<pollfd, 2> fds{pollfd{out_pipe.read_end, POLLIN, 0},
                            pollfd{err_pipe.read_end, POLLIN, 0}};
  const std::array<const std::function<void(std::string_view)>*, 2> sinks{&output.on_stdout,
                                                                          &output.on_stderr};
  int open_fds = 2;
  std::array<char, 4096> buffer{};
  double interrupted_at = 0;
  bool killed_after_interrupt = false;
  while (open_fds > 0) {
    if (limit > 0 && !result.timed_out && elapsed() > limit) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
    }
    // A descendant that left the group may keep the pipes open; stop reading a while later.
    if (result.timed_out && elapsed() > limit + 5) break;
    if (catcher && g_interrupt != 0 && result.interrupted_by == 0) {
      result.interrupted_by = g_interrupt;
      interrupted_at = elapsed();
      kill(-pid, result.interrupted_by);
    }
    if (result.interrupted_by != 0 && !killed_after_interrupt &&
        elapsed() > interrupted_at + options.interrupt_grace_s) {
      killed_after_interrupt = true;
      kill(-pid, SIGKILL);
    }
    if (killed_after_interrupt && elapsed() > interrupted_at + options.interrupt_grace_s + 5) break;
    const bool timed = limit > 0 || catcher.has_value();
    if (poll(fds.data(), fds.size(), timed ? 100 : -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("poll: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        if (*sinks[i]) (*sinks[i])(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(fmt::format("waitpid: {}", std::strerror(errno)));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

void LineSplitter::feed(std::string_view chunk) {
  pending_.append(chunk);
  std::size_t start = 0;
  for (std::size_t end; (end = pending_.find('\n', start)) != std::string::npos; start = end + 1) {
    on_line_(std::string_view(pending_).substr(start, end - start));
  }
  pending_.erase(0, start);
}

void LineSplitter::flush() {
  if (!pending_.empty()) on_line_(pending_);
  pending_.clear();
}

}  // namespace canzona
