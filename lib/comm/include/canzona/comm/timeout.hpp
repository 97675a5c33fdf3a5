// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How long one rank waits for one collective before it declares the job stalled (a peer stopped,
// deadlocked, or waiting in a different collective) and ends it with an error naming the
// collective, the group and the rank, instead of waiting forever. Host-clean.
#pragma once

#include <canzona/core/error.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace canzona::comm {

/// The default: 10 minutes, PyTorch's NCCL default, far above any collective of a healthy step.
inline constexpr double kDefaultCollectiveTimeoutSeconds = 600;

/// The largest timeout: a deadline on std::chrono::steady_clock (64-bit nanoseconds) overflows
/// past about 292 years, and an overflowed deadline reports a timeout at once; 1e9 s (31 years)
/// stays far below that.
inline constexpr double kMaxCollectiveTimeoutSeconds = 1e9;

/// A value of CANZONA_COLLECTIVE_TIMEOUT_S read as collective_timeout() reads it: seconds from 0
/// (wait forever) to kMaxCollectiveTimeoutSeconds. ConfigError naming the variable otherwise.
double parse_collective_timeout(std::string_view text);

/// CANZONA_COLLECTIVE_TIMEOUT_S checked now (kDefaultCollectiveTimeoutSeconds when unset): a
/// launcher calls it before starting ranks, so a bad value is its bad input (exit 2), not every
/// rank's failure after launch.
double collective_timeout_from_environment();

/// The timeout of Request::wait and of every blocking collective:
/// collective_timeout_from_environment(), read once per process, unless set_collective_timeout
/// replaced it.
std::chrono::duration<double> collective_timeout();

/// Replaces the timeout for this process (tests; programs with a --timeout flag); < 0 restores
/// the environment's value.
void set_collective_timeout(double seconds);

/// A collective that did not complete within collective_timeout(). Every rank of the job must
/// stop: the operation may still be writing into the caller's buffers.
class CollectiveTimeoutError : public Error {
 public:
  using Error::Error;
};

}  // namespace canzona::comm
