#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The CTest fixture behind gpu_bundle_test.sh and gpu_bundle_e2e_test.sh: the GPU bundle made
# once from the build (ci/gpu-bundle.sh --skip-build, which fails past the 16 MiB carry limit),
# so that each test unpacks the same archive instead of compressing its own.
# Usage: gpu_bundle_make.sh BUILD_DIR ARCHIVE.tar.xz
set -euo pipefail
[ "$#" -eq 2 ] && [ -d "$1" ] ||
  { echo "usage: gpu_bundle_make.sh BUILD_DIR ARCHIVE.tar.xz" >&2; exit 2; }
build="$(cd "$1" && pwd)"
archive="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$(dirname "${archive}")"
rm -f "${archive}"
BUILD_DIR="${build}" bash "${root}/ci/gpu-bundle.sh" --skip-build --out "${archive}"
