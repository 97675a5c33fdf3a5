// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Start-up agreement of a multi-rank run: before any rank calibrates, measures or steps, every
// rank shows the others the options that shape the run and whether its own preparation worked.
// A rank given other flags, or one that could not read its model file, then stops every rank
// with the same message, instead of leaving the others blocked in a mismatched collective.
#pragma once

#include "canzona/comm/communicator.hpp"

#include <canzona/core/error.hpp>

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace canzona::comm {

/// The options that shape a run, in a fixed order: (flag or name, value as text), e.g.
/// {"--steps", "5"}, {"--model", "qwen3-8b"}. Everything whose difference across ranks would
/// make them issue different collectives (or compute different things) belongs here.
using RunOptions = std::vector<std::pair<std::string, std::string>>;

/// An error every rank of the job throws together, after a collective that all of them
/// completed: no rank is left waiting, so each can exit normally with exit_code() and only one
/// needs to print the message (see run_mpi_job).
class AgreedError : public ConfigError {
 public:
  AgreedError(const std::string& what, int exit_code) : ConfigError(what), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

/// Collective over `world` (a host-memory communicator: MPI; NCCL jobs agree over their MPI
/// bootstrap communicator). `local_error` is this rank's failure to prepare (null when it
/// succeeded); ConfigError counts as bad input (exit 2), anything else as exit 3. Throws
/// AgreedError on every rank alike:
///  - when some rank failed: that rank's message, naming it ("rank 1 of 2 failed to start: ...",
///    or "every rank failed to start: ..." when all failed the same way);
///  - when ranks disagree on an option: its name and both values ("ranks disagree on --steps:
///    rank 0 has 5, rank 1 has 7; ...").
/// Returns normally on every rank otherwise.
void agree_on_start(Communicator& world, const RunOptions& options,
                    std::exception_ptr local_error = nullptr);

}  // namespace canzona::comm
