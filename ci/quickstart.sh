#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The README's main command: installs what is missing, builds (CUDA where the toolkit is
# installed), then shows the model catalog, the ZeRO-1 plan of Qwen3-32B on 256 GPUs, its
# projected step, and ends with `canzona-bench run --preset smoke`: every strategy's optimizer
# step measured on this machine's ranks (MPI; one rank per GPU where there are GPUs), with
# Qwen3-32B projected on 256 GPUs, and its table from `canzona-bench table`.
usage() {
  cat <<'USAGE'
usage: ci/quickstart.sh

Builds Canzona Bench and runs the main job: the Qwen3 catalog, Canzona's step plan of
Qwen3-32B on 256 GPUs (DP 32 x TP 8), the projected Muon step of Canzona, DP-SC and layer-wise
on a DGX H100 cluster (a projection), and the smoke preset of `canzona-bench run`: the Muon
step of every strategy measured on 2 MPI ranks (Qwen3-0.6B's shapes scaled down 16x on a CPU;
one rank per GPU and full shapes on a GPU machine) plus Qwen3-32B projected on 256 GPUs,
written to $BUILD_DIR/smoke.json, and that run as a table (`canzona-bench table`).

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
log "canzona-bench run --preset smoke --out ${BUILD_DIR}/smoke.json"
"${bench}" run --preset smoke --out "${BUILD_DIR}/smoke.json"
log "canzona-bench table ${BUILD_DIR}/smoke.json"
"${bench}" table "${BUILD_DIR}/smoke.json"
