// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The checks every stored or merged run passes (`validate`, `run`): Canzona's provenance, a
// Release build, no failed rows, well-formed optimizer-step rows.
#pragma once

#include <canzona/harness/gbench_json.hpp>

#include <ostream>
#include <string>

namespace canzona::harness {

/// ConfigError (naming `source`) when the context lacks Canzona's provenance keys, when the
/// suites were not a Release (or RelWithDebInfo) build unless `allow_debug`, or when there are
/// no rows.
void check_provenance(const BenchmarkFile& file, const std::string& source, bool allow_debug);

/// Prints "FAILED <name> <message>" for every row that failed and "INVALID <name> <problem>" for
/// every optimizer-step row check_step_row rejects; returns how many it printed.
int report_bad_rows(const BenchmarkFile& file, std::ostream& out);

/// ConfigError unless `build_type` is Release or RelWithDebInfo: benchmark numbers of any other
/// build are meaningless. `what` names what was built that way.
void require_release_build(const std::string& build_type, const std::string& what);

}  // namespace canzona::harness
