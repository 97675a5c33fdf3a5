// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The contract between the shared benchmark main and each suite executable.
#pragma once

namespace canzona::bench {

/// Registers the suite's benchmark families. Each suite executable defines it exactly once; the
/// shared main calls it after flags are parsed and the provenance context is recorded, so a
/// suite may decide what to register from the devices it finds.
void register_suite();

}  // namespace canzona::bench
