// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU time of the calling thread. On a shared CPU machine the wall time of a step moves with
// whatever else runs (a compiler, another job's ranks), while the CPU time the step's own thread
// spends moves far less: the regression gate judges cpu-backend rows by it.
#pragma once

namespace canzona {

/// Seconds of CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID): monotonic for the
/// thread, unrelated to wall time. Throws Error when the clock cannot be read.
double thread_cpu_seconds();

}  // namespace canzona
