// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The contract between the shared benchmark main and each suite executable.
#pragma once

#include <cstddef>
#include <string_view>

namespace canzona::bench {

/// Registers the suite's benchmark families. Each suite executable defines it exactly once; the
/// shared main calls it after flags are parsed and the provenance context is recorded, so a
/// suite may decide what to register from the devices it finds.
void register_suite();

/// Whether a case is selected by --benchmark_filter: a suite registers only the cases this
/// accepts. The pattern is a bench::NamePattern (RE2, linear time) searched in the name as
/// registered, without Google Benchmark's `/manual_time` or `/repeats:N`; a leading '-' selects
/// the names that do not match. Defined by the shared main (benchmark_args.cpp).
bool case_selected(std::string_view registered_name);

/// How many cases case_selected() accepted on this rank so far.
std::size_t selected_case_count();

}  // namespace canzona::bench
