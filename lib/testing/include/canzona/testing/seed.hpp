// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Fresh random inputs for every test run, reproducible on demand: the seed comes from
// std::random_device unless CANZONA_TEST_SEED is set, and every test that uses it prints it.
#pragma once

#include <cstdint>

namespace canzona::testing {

/// Seed for this process: CANZONA_TEST_SEED if set, otherwise drawn once from random_device.
/// Tests put it into SCOPED_TRACE so a failure names the seed that reproduces it.
std::uint64_t test_seed();

}  // namespace canzona::testing
