// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A real slowdown for the regression gate to find (`--canzona_inject_slowdown`): busy work on the
// rank's own thread, inside the step's time, so a gate's detection is measured on work that
// moves wall time and CPU time the way a slower build would, noise included, and not on numbers
// multiplied after the fact.
#pragma once

namespace canzona::bench {

/// Keeps this thread busy (arithmetic, no sleeping and no system calls but the clock) until
/// `seconds` of wall time have passed; returns the seconds it took. Nothing for seconds <= 0.
double busy_work(double seconds);

}  // namespace canzona::bench
