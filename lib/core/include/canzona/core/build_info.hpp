// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What a binary was built from, for the provenance of every result it writes.
#pragma once

namespace canzona {

/// The commit the binary was built from (12 hex digits), with "-dirty" when tracked files had
/// uncommitted changes, or "unknown" outside a git checkout. Refreshed at every build.
const char* build_git_sha();

}  // namespace canzona
