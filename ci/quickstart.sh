#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The README's main command: installs what is missing, builds (CUDA where the toolkit is
# installed), then shows the model catalog and the ZeRO-1 plan of Qwen3-32B on 256 GPUs.
usage() {
  cat <<'USAGE'
usage: ci/quickstart.sh

Builds Canzona Bench and runs the main job: the Qwen3 catalog and a ZeRO-1 plan of
Qwen3-32B on 256 GPUs (DP 32 x TP 8).

environment:
  BUILD_DIR            build directory (default: build)
  JOBS                 build parallelism (default: number of cores)
  CUDA_ARCHITECTURES   CMAKE_CUDA_ARCHITECTURES (default: 80;90)
USAGE
}
case "${1:-}" in -h|--help) usage; exit 0 ;; esac

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

setup_build
bench="${BUILD_DIR}/bin/canzona-bench"
log "canzona-bench models"
"${bench}" models
log "canzona-bench plan --model qwen3-32b --dp 32 --tp 8 --strategy zero1"
"${bench}" plan --model qwen3-32b --dp 32 --tp 8 --strategy zero1
