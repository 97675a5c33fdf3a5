// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The error vocabulary of the whole project. Library code throws and never exits; the CLI maps
// ConfigError to exit code 2 and anything else to 3. Host-clean: no CUDA, NCCL or MPI types.
#pragma once

#include <stdexcept>
#include <string>

namespace canzona {

/// Base of every error the project throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: model spec, parallel config, CLI flag, input or result file. The message says
/// what is wrong, where, and how to fix it. Mapped to exit code 2 by the CLI.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// The user or a CI system ended the work with a signal (SIGINT, SIGTERM, SIGHUP) that was
/// passed on to what was running. Mapped to exit code 128 + signal by the CLI (130, 143, 129).
class InterruptedError : public Error {
 public:
  InterruptedError(const std::string& what, int signal_number)
      : Error(what), signal_number_(signal_number) {}
  int signal_number() const noexcept { return signal_number_; }

 private:
  int signal_number_;
};

/// A failed call into an external runtime (CUDA, cuBLAS, cuSOLVER, NCCL, MPI). `code` is the
/// library's own status value, kept so callers can branch on it without the library's headers.
class RuntimeCallError : public Error {
 public:
  RuntimeCallError(const std::string& what, int code) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

class CudaError : public RuntimeCallError {
 public:
  using RuntimeCallError::RuntimeCallError;
};
class BlasError : public RuntimeCallError {
 public:
  using RuntimeCallError::RuntimeCallError;
};
class SolverError : public RuntimeCallError {
 public:
  using RuntimeCallError::RuntimeCallError;
};
class NcclError : public RuntimeCallError {
 public:
  using RuntimeCallError::RuntimeCallError;
};
class MpiError : public RuntimeCallError {
 public:
  using RuntimeCallError::RuntimeCallError;
};

namespace detail {
/// Out-of-line formatter of CANZONA_CHECK, keeping the macro small.
[[noreturn]] void throw_check_failure(const char* expr, const std::string& message,
                                      const char* file, int line);
}  // namespace detail

}  // namespace canzona

/// Internal invariant: throws canzona::Error naming the condition, the message and the location.
/// Not for user input; that gets a ConfigError with a fix-it message.
#define CANZONA_CHECK(cond, message)                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      ::canzona::detail::throw_check_failure(#cond, (message), __FILE__, __LINE__); \
    }                                                                               \
  } while (0)
