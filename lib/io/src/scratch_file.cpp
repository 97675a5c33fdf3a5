// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/scratch_file.hpp"

#include <canzona/core/interrupt_signals.hpp>

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace canzona::io {
namespace {

// What the handler reads must be usable from a signal handler: fixed storage, atomics, unlink.
enum SlotState : int { kFree = 0, kWriting = 1, kReady = 2 };
constexpr std::size_t kSlots = 64;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes];
};
std::array<Slot, kSlots> g_slots;

std::array<struct sigaction, kInterruptSignals.size()> g_previous;

void remove_scratch_files(int signal_number) {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kReady) unlink(slot.path);
  }
  // End the process as the signal would have: the previous handler if there was one, else the
  // default action, so the exit status still names the signal.
  for (std::size_t i = 0; i < kInterruptSignals.size(); ++i) {
    if (kInterruptSignals[i] != signal_number) continue;
    const struct sigaction& previous = g_previous[i];
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL &&
        previous.sa_handler != SIG_IGN) {
      previous.sa_handler(signal_number);
      return;
    }
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (std::size_t i = 0; i < kInterruptSignals.size(); ++i) {
      sigaction(kInterruptSignals[i], nullptr, &g_previous[i]);
      if (g_previous[i].sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup
      struct sigaction action {};
      action.sa_handler = remove_scratch_files;
      sigemptyset(&action.sa_mask);
      for (const int other : kInterruptSignals) sigaddset(&action.sa_mask, other);
      sigaction(kInterruptSignals[i], &action, nullptr);
    }
  });
}

}  // namespace

ScratchFileGuard::ScratchFileGuard(const std::string& path) {
  install_handler_once();
  if (path.size() >= kPathBytes) return;
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kReady, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

ScratchFileGuard::~ScratchFileGuard() {
  if (slot_ >= 0) g_slots[static_cast<std::size_t>(slot_)].state.store(kFree);
}

int registered_scratch_files() {
  int count = 0;
  for (const Slot& slot : g_slots) count += slot.state.load() == kReady ? 1 : 0;
  return count;
}

}  // namespace canzona::io
