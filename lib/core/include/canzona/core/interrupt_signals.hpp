// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The signals that ask a process to stop (Ctrl-C, a CI system's timeout, a closed terminal):
// what the project passes on to the jobs it started and what removes its scratch files.
#pragma once

#include <array>
#include <csignal>

namespace canzona {

inline constexpr std::array<int, 3> kInterruptSignals = {SIGINT, SIGTERM, SIGHUP};

}  // namespace canzona
