// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Output written to stdout is only known to have arrived once it is flushed: a full disk or a
// closed pipe shows up there, at exit, and must turn a success into a failure with a message.
#pragma once

namespace canzona {

/// Flushes std::cout and stdout and returns `exit_code` when that worked. Otherwise prints
/// "error: cannot write to standard output: <reason>" to stderr and returns `failure_code` (or
/// `exit_code` when that already signals a failure). Call it as the last thing main() does.
int finish_standard_output(int exit_code, int failure_code);

}  // namespace canzona
