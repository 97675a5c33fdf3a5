#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The GPU bundle's end-to-end part built as a GPU node would build it, on this machine against
# this build's libtorch (the node uses PyTorch's; both have the C++11 ABI): the bundle made from
# the build once (gpu_bundle_make.sh), unpacked into a fresh folder, then from a scrubbed
# environment (env -i, a HOME of its own, no path into this tree)
#   1. build-e2e.sh configures <bundle>/e2e against <bundle> and libtorch only, compiles the
#      ATen part and the suite's main, links the rest prebuilt, warnings as errors, installs the
#      suite into <bundle>/bin and runs its smoke (one E2EIteration row, one rank, cpu);
#   2. the compiler's own record (ninja's dependency log) shows the project's headers and those
#      of its dependencies (fmt, Google Benchmark, ...) read from the bundle, none from this tree
#      or from the -dev packages' include folders, and no build file names this tree;
#   3. the suite resolves the project's dependencies' libraries from the bundle.
# Usage: gpu_bundle_e2e_test.sh ARCHIVE.tar.xz TORCH_DIR (the archive made by gpu_bundle_make.sh;
# TORCH_DIR: the folder of TorchConfig.cmake)
set -euo pipefail
[ "$#" -eq 2 ] && [ -f "$1" ] && [ -f "$2/TorchConfig.cmake" ] ||
  { echo "usage: gpu_bundle_e2e_test.sh ARCHIVE.tar.xz TORCH_DIR (with TorchConfig.cmake)" >&2; exit 2; }
archive="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
torch_dir="$(cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

t0=${SECONDS}
mkdir "${work}/node"
tar -C "${work}/node" -xJf "${archive}"
b="${work}/node/canzona-gpu-bundle"
for f in build-e2e.sh e2e/CMakeLists.txt lib/cmake/Canzona/CanzonaConfig.cmake \
         include/canzona/config.hpp deps/include/fmt/format.h deps/include/mpi.h; do
  [ -e "${b}/${f}" ] || fail "the bundle has no ${f}"
done
! grep -rlF "${root}" "${b}/e2e" "${b}/lib/cmake" "${b}/include" "${b}/deps" ||
  fail "the bundle's build files or headers name the source tree"
bundle_s=$((SECONDS - t0))

# 1. The node's build and smoke. torch.utils.cmake_prefix_path is the folder above Torch/.
t1=${SECONDS}
env -i HOME="${work}" PATH=/usr/bin:/bin bash "${b}/build-e2e.sh" \
  --torch-prefix "$(dirname "${torch_dir}")" --build "${work}/e2e-build" --backend cpu --jobs 2 \
  -- -DCANZONA_WERROR=ON >"${work}/build-e2e.log" 2>&1 ||
  fail "build-e2e.sh: $(tail -n 40 "${work}/build-e2e.log")"
node_s=$((SECONDS - t1))
compiled="$(find "${work}/e2e-build" -name '*.o' -printf '%f\n' | sort | tr '\n' ' ')"
[ -x "${b}/bin/canzona_bench_e2e_iteration" ] || fail "no suite installed into the bundle's bin/"
grep -q '"name": *"E2EIteration/muon/canzona/' "${work}/e2e-build/e2e-smoke.json" ||
  fail "the smoke has no E2EIteration row"

# 2. What the compiler read, and what the build files name.
ninja -C "${work}/e2e-build" -t deps >"${work}/deps.txt"
headers="$(grep -E '^    /' "${work}/deps.txt" | sed 's/^ *//' | sort -u)"
# Outside the bundle: nothing of this tree, no header of the project's dependencies.
bad="$(grep -vF "${b}/" <<<"${headers}" |
       grep -E "^${root}/|/(fmt|nlohmann|CLI|benchmark|openmpi|mpich)/|/mpi[^/]*\.h$" || true)"
[ -z "${bad}" ] || fail "headers read from outside the bundle: $(head -n 5 <<<"${bad}")"
for h in fmt/format.h benchmark/benchmark.h; do
  grep -qx "${b}/deps/include/${h}" <<<"${headers}" || fail "${h} not read from the bundle"
done
for h in canzona/exec/executor.hpp canzona/torch_model/qwen3.hpp canzona_suites/case_plan.hpp; do
  grep -qx "${b}/include/${h}" <<<"${headers}" || fail "${h} not read from the bundle"
done
! grep -rlF "${root}" "${work}/e2e-build/build.ninja" "${work}/e2e-build/CMakeCache.txt" ||
  fail "the node's build files name the source tree"

# 3. The project's dependencies resolve from the bundle, by the suite's own run path.
ldd "${b}/bin/canzona_bench_e2e_iteration" >"${work}/ldd.txt"
for lib in libfmt libbenchmark libmpi libopenblas liblapacke libre2; do
  grep -E "^\s*${lib}\.so" "${work}/ldd.txt" | grep -qF -e "=> ${b}/lib/" -e "=> ${b}/bin/../lib/" ||
    fail "${lib} not resolved from the bundle: $(grep -E "${lib}\.so" "${work}/ldd.txt" || echo missing)"
done
echo "PASS: bundle $(du -h "${archive}" | cut -f1) unpacked in ${bundle_s} s;" \
     "node build + smoke ${node_s} s, compiled: ${compiled}"
