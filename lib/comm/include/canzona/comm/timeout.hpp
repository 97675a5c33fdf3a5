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

namespace canzona::comm {

/// The default: 10 minutes, PyTorch's NCCL default, far above any collective of a healthy step.
inline constexpr double kDefaultCollectiveTimeoutSeconds = 600;

/// The timeout of Request::wait and of every blocking collective: CANZONA_COLLECTIVE_TIMEOUT_S
/// (seconds, a finite number >= 0; 0 = wait forever), read once per process, or
/// kDefaultCollectiveTimeoutSeconds when unset. ConfigError for a value that is not a number >= 0.
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
