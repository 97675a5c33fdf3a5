#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Example: the optimizer-step suite across nodes with Open MPI and a host file, one process per
# GPU, NCCL bootstrapped over MPI (rank 0's NCCL unique id is broadcast with MPI; each process
# drives the GPU of its node-local rank).
#   ci/examples/mpirun-hostfile.sh ci/examples/hosts.example
# The build directory must be at the same path on every node (shared file system or a copy).
# Set for your cluster:
#   GPUS_PER_NODE       slots per host = GPUs per node (8 on a DGX); the host file's slots= too
#   NCCL_SOCKET_IFNAME  the interface for NCCL's bootstrap and socket transport (ip -br addr)
#   NCCL_IB_HCA         InfiniBand adapters for the data (omit to let NCCL pick)
#   MPI_IFACE           the interface Open MPI itself uses (btl_tcp_if_include, oob_tcp_if_include)
set -euo pipefail
hostfile="${1:?usage: $0 HOSTFILE [OUT.json]}"
out="${2:-results-multinode.json}"
GPUS_PER_NODE="${GPUS_PER_NODE:-8}"
NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-eth0}"
MPI_IFACE="${MPI_IFACE:-${NCCL_SOCKET_IFNAME}}"
nodes="$(grep -cv '^\s*\(#\|$\)' "${hostfile}")"
ranks="$((nodes * GPUS_PER_NODE))"
build="${BUILD_DIR:-build}"

launcher=(mpirun --hostfile "${hostfile}" --map-by "ppr:${GPUS_PER_NODE}:node" --bind-to numa
          --mca btl_tcp_if_include "${MPI_IFACE}" --mca oob_tcp_if_include "${MPI_IFACE}"
          -x NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME}" -x NCCL_DEBUG="${NCCL_DEBUG:-WARN}"
          -x LD_LIBRARY_PATH)
if [ -n "${NCCL_IB_HCA:-}" ]; then launcher+=(-x NCCL_IB_HCA="${NCCL_IB_HCA}"); fi

# The harness spawns the suite under this launcher and merges the ranks' results into one run.
"${build}/bin/canzona-bench" run --preset paper --backend cuda --ranks "${ranks}" \
  --launcher "${launcher[*]}" --out "${out}"

# The same suite by hand:
# "${launcher[@]}" -np "${ranks}" "${build}/bin/canzona_bench_optimizer_step" \
#   --benchmark_repetitions=9 --benchmark_out="${out}" --benchmark_out_format=json

"${build}/bin/canzona-bench" validate "${out}"
"${build}/bin/canzona-bench" table "${out}"
