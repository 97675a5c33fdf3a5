#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The README's main command: installs what is missing, builds (CUDA where the toolkit is
# installed), then shows the model catalog, the ZeRO-1 plan of Qwen3-32B on 256 GPUs, and one
# Muon step per Qwen3 matrix shape on the local backends (CUDA when there is a GPU).
usage() {
  cat <<'USAGE'
usage: ci/quickstart.sh

Builds Canzona Bench and runs the main job: the Qwen3 catalog, Canzona's step plan of
Qwen3-32B on 256 GPUs (DP 32 x TP 8), the projected Muon step of Canzona, DP-SC and layer-wise
on a DGX H100 cluster (a projection), and the kernels suite for Muon (every Qwen3 matrix shape
on a GPU; on a CPU-only machine the shapes whose step costs at most 50 GFLOP).

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
log "canzona-bench plan --model qwen3-32b --dp 32 --tp 8 --strategy canzona"
"${bench}" plan --model qwen3-32b --dp 32 --tp 8 --strategy canzona
log "canzona-bench project --model qwen3-32b --gpus 256 --tp 8 --optimizer muon --strategy canzona,sc,layerwise"
"${bench}" project --model qwen3-32b --gpus 256 --tp 8 --optimizer muon \
  --strategy canzona,sc,layerwise --topology dgx-h100
log "canzona_bench_kernels --benchmark_filter=Kernels/muon/"
"${BUILD_DIR}/bin/canzona_bench_kernels" --benchmark_filter=Kernels/muon/ \
  --benchmark_counters_tabular=true
