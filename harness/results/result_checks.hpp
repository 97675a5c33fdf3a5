// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The checks every stored or merged run passes beyond its provenance (`validate`, `run`): names
// of their family's shape, projected rows that cannot pass for measurements, no failed rows,
// well-formed optimizer-step and end-to-end rows.
#pragma once

#include <canzona/bench/gbench_json.hpp>
#include <canzona/harness/run_series.hpp>

#include <ostream>
#include <string>

namespace canzona::harness {

/// ConfigError (naming the run's source) unless every benchmark's `projected` counter agrees
/// with its name (`/projected`) and every projected benchmark names a topology (label field or
/// context). Names are already checked by make_run.
void check_names_and_projections(const Run& run);

/// Prints "FAILED <name> <message>" for every row that failed and "INVALID <name> <problem>" for
/// every optimizer-step or end-to-end row check_step_row or check_e2e_row rejects; returns how
/// many it printed.
int report_bad_rows(const bench::BenchmarkFile& file, std::ostream& out);

/// ConfigError unless `build_type` is Release or RelWithDebInfo: benchmark numbers of any other
/// build are meaningless. `what` names what was built that way.
void require_release_build(const std::string& build_type, const std::string& what);

}  // namespace canzona::harness
