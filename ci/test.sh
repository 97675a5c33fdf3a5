#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The README's test command: installs what is missing, configures (CUDA and NCCL ON wherever the
# toolkit is installed), builds, and runs CTest.
usage() {
  cat <<'USAGE'
usage: ci/test.sh [ctest args...]

Builds Canzona Bench and runs its tests with CTest. Labels: cpu, mpi, bench_smoke and gpu
(gpu tests skip with a reason on machines without a GPU).

environment:
  BUILD_DIR             build directory (default: build)
  JOBS                  build parallelism (default: number of cores)
  CUDA_ARCHITECTURES    CMAKE_CUDA_ARCHITECTURES (default: 80;90)
  CANZONA_REQUIRE_GPU=1 make every gpu test fail instead of skipping when no GPU is present
  CANZONA_TEST_SEED     the tests' random inputs (default: derived from the commit; each test
                        prints its seed)
  CTEST_LABELS          label regex to run (default: cpu|mpi|bench_smoke|gpu)
USAGE
}
case "${1:-}" in -h|--help) usage; exit 0 ;; esac

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

setup_build
export_test_seed
# The LaTeX tables compile with the pdflatex the dependency list installs, or the test fails.
export CANZONA_REQUIRE_PDFLATEX=1
labels="${CTEST_LABELS:-cpu|mpi|bench_smoke|gpu}"
log "ctest -L '${labels}'"
ctest --test-dir "${BUILD_DIR}" --output-on-failure --parallel "${JOBS}" -L "${labels}" "$@"
