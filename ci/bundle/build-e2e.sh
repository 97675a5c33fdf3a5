#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Builds the end-to-end suite on a GPU node from the GPU bundle (ci/gpu-bundle.sh) against the
# node's own libtorch, which the bundle cannot carry (PyTorch's, with CUDA), then runs its smoke
# on one rank. Needs a C++20 compiler, CMake and libtorch's CMake package; nothing of this
# project's -dev dependencies (the bundle has their headers and libraries).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: bash build-e2e.sh [--torch-prefix DIR] [--build DIR] [--backend auto|cuda|cpu]
                         [--jobs N] [--no-smoke] [-- CMAKE_ARG...]

From the unpacked bundle (env.sh beside this script):
  1. configure <bundle>/e2e with CMAKE_PREFIX_PATH="<bundle>;TORCH_PREFIX" (Release, Ninja when
     installed) and build canzona_bench_e2e_iteration: only lib/torch_model and the suite's
     main and adapter compile (~20 s and ~1.3 GB a file), the rest is linked from the bundle
  2. install it into <bundle>/bin, beside canzona-bench (which then runs E2EIteration rows)
  3. smoke: one E2EIteration row (Muon, Canzona) on one rank, `canzona-bench validate`d

options:
  --torch-prefix DIR  libtorch's CMake prefix (default: python3 -c 'import torch;
                      print(torch.utils.cmake_prefix_path)')
  --build DIR         build folder (default: <bundle>/e2e-build)
  --backend B         the smoke's backend: cuda, cpu, or auto (default: cuda when
                      `canzona-bench devices --require` finds a GPU, else cpu)
  --jobs N            parallel compile jobs (default: 2; each takes ~1.3 GB)
  --no-smoke          build and install only
  -- CMAKE_ARG...     passed to the configure step (e.g. -DCANZONA_WERROR=ON)
exit code: 0 built (and the smoke passed), 1 a step failed, 2 bad arguments.
USAGE
}

torch_prefix=""
build=""
backend=auto
jobs=2
smoke=1
cmake_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --torch-prefix)
      [ -d "${2:-}" ] || { echo "error: --torch-prefix needs a folder, got '${2:-}'" >&2; exit 2; }
      torch_prefix="$2"; shift 2 ;;
    --build)
      [ -n "${2:-}" ] || { echo "error: --build needs a folder" >&2; exit 2; }
      build="$2"; shift 2 ;;
    --backend)
      [[ "${2:-}" =~ ^(auto|cuda|cpu)$ ]] ||
        { echo "error: --backend is auto, cuda or cpu, got '${2:-}'" >&2; exit 2; }
      backend="$2"; shift 2 ;;
    --jobs)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "error: --jobs needs a count, got '${2:-}'" >&2; exit 2; }
      jobs="$2"; shift 2 ;;
    --no-smoke) smoke=0; shift ;;
    --) shift; cmake_args=("$@"); break ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -f "${here}/env.sh" ] && [ -f "${here}/e2e/CMakeLists.txt" ] &&
  [ -f "${here}/lib/cmake/Canzona/CanzonaConfig.cmake" ] ||
  { echo "error: run build-e2e.sh from an unpacked GPU bundle that has e2e/ (env.sh, e2e/, lib/cmake/Canzona/ beside it)" >&2; exit 2; }
command -v cmake >/dev/null || { echo "error: no cmake on PATH" >&2; exit 2; }
if [ -z "${torch_prefix}" ]; then
  torch_prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)" ||
    { echo "error: no --torch-prefix and python3 cannot import torch" >&2; exit 2; }
fi
build="${build:-${here}/e2e-build}"

# shellcheck source=env.sh
source "${here}/env.sh"
say() { printf '[build-e2e %4ds] %s\n' "${SECONDS}" "$*"; }

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
say "configure ${build} against libtorch in ${torch_prefix}"
cmake -S "${here}/e2e" -B "${build}" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_PREFIX_PATH=${here};${torch_prefix}" "${cmake_args[@]}"
say "build canzona_bench_e2e_iteration (${jobs} jobs)"
cmake --build "${build}" --parallel "${jobs}"
cmake --install "${build}" --prefix "${here}" >/dev/null
say "installed ${here}/bin/canzona_bench_e2e_iteration"
[ "${smoke}" -eq 1 ] || exit 0

if [ "${backend}" = auto ]; then
  backend=cpu
  if canzona-bench devices --require >/dev/null 2>&1; then backend=cuda; fi
fi
out="${build}/e2e-smoke.json"
say "smoke: one E2EIteration row on one rank, backend ${backend}"
canzona-bench run --preset smoke --backend "${backend}" --ranks 1 --launcher env \
  --filter "E2EIteration/muon/canzona/.*gpus:1/" --repetitions 1 --out "${out}"
canzona-bench validate "${out}"
grep -q '"name": *"E2EIteration/' "${out}" ||
  { echo "error: the smoke wrote no E2EIteration row: ${out}" >&2; exit 1; }
say "smoke passed: ${out}"
