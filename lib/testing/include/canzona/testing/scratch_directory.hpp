// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Temporary folders for tests that no other test can share.
#pragma once

#include <filesystem>
#include <string_view>

namespace canzona::testing {

/// Creates a new, empty folder `<temp>/<prefix>-XXXXXX` (mkdtemp) and returns its path. Unique
/// by construction across threads and processes: CTest runs a test executable's cases as
/// parallel processes with equal seeds (derived from the commit) and, under the sanitizers,
/// equal heap addresses, so a name drawn from either can repeat. Throws when it cannot.
std::filesystem::path make_scratch_directory(std::string_view prefix);

}  // namespace canzona::testing
