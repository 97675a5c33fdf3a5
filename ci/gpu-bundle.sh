#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The GPU bundle: one compressed archive that runs Canzona Bench on a GPU node which has a CUDA
# driver and CUDA libraries (a toolkit or PyTorch's NVIDIA wheels) but none of the Debian
# packages this project builds against, and no network.
usage() {
  cat <<'USAGE'
usage: ci/gpu-bundle.sh [--out FILE.tar.xz] [--skip-build]

Builds Release (ci/common.sh: CUDA and NCCL ON where the toolkit is installed; --skip-build uses
the build in BUILD_DIR), then makes FILE.tar.xz holding one folder, canzona-gpu-bundle/:
  bin/ lib/ libexec/canzona/tests/   `cmake --install` of components runtime and gpu_tests
                                      (relative run paths, stripped)
  lib/                               every library those programs load that is neither glibc /
                                      libstdc++ nor CUDA (Open MPI, OpenBLAS, LAPACKE, fmt, Google
                                      Benchmark, ...), and lib/openmpi/ the Open MPI components a
                                      one-rank singleton loads
  lib/canzona/ include/ deps/include/ lib/cmake/Canzona/ e2e/
                                      component e2e_dev: prebuilt static libraries, headers and a
                                      CMake package to build the end-to-end suite on the node
                                      against its own libtorch (build-e2e.sh)
  env.sh                             source it: library paths, the node's CUDA libraries, Open MPI
  first-contact.sh                   the first run on a new GPU node (bash first-contact.sh --help)
  build-e2e.sh                       builds and smokes the end-to-end suite (bash build-e2e.sh --help)
  gpu-step-compare.sh, npy_tool.py   canzona-bench step, cpu vs cuda (used by first-contact.sh)
  MANIFEST                           commit, build, the glibc / libstdc++ / CUDA it needs, files
The archive must stay within 16 MiB (the limit for carrying it to a GPU node); it fails otherwise.

options:
  --out FILE.tar.xz  the archive (default: $BUILD_DIR/canzona-gpu-bundle.tar.xz)
  --skip-build       use the existing build in BUILD_DIR
  -h, --help         this text

environment: BUILD_DIR, JOBS, CUDA_ARCHITECTURES as for ci/test.sh.
On the node:  tar -xJf canzona-gpu-bundle.tar.xz && bash canzona-gpu-bundle/first-contact.sh
              bash canzona-gpu-bundle/build-e2e.sh   (needs CMake, a C++20 compiler, PyTorch)
USAGE
}
out=""
skip_build=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --out) [ "$#" -ge 2 ] || { echo "error: --out needs a file" >&2; exit 2; }; out="$2"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${out:-${BUILD_DIR}/canzona-gpu-bundle.tar.xz}"
case "${out}" in *.tar.xz) ;; *) echo "error: --out must end in .tar.xz: ${out}" >&2; exit 2 ;; esac
[ -d "$(dirname "${out}")" ] || { echo "error: no folder for --out: $(dirname "${out}")" >&2; exit 2; }
if [ "${skip_build}" -eq 1 ]; then
  [ -f "${BUILD_DIR}/cmake_install.cmake" ] ||
    { echo "error: --skip-build but no build in ${BUILD_DIR}; run without it" >&2; exit 2; }
else
  setup_build
fi

readonly kMaxBytes=$((16 << 20))
# Open MPI components a one-rank singleton loads (ess singleton, isolated pmix, btl self/vader,
# pml ob1, the collectives), measured as enough on a GPU node without any Open MPI installed.
readonly kOmpiComponents=(
  allocator_basic allocator_bucket bml_r2 btl_self btl_vader coll_basic coll_inter coll_libnbc
  coll_monitoring coll_self coll_sm coll_sync coll_tuned errmgr_default_app errmgr_default_hnp
  errmgr_default_orted errmgr_default_tool ess_singleton mpool_hugepage op_avx osc_monitoring
  osc_pt2pt osc_sm pmix_isolated pml_ob1 rcache_grdma reachable_netlink reachable_weighted
  schizo_flux schizo_jsm schizo_ompi schizo_orte schizo_slurm shmem_mmap shmem_posix shmem_sysv
  state_app state_hnp state_novm state_orted state_tool)
# Never carried: the C runtime and compiler runtime (the node's, newer than Debian 12's; the
# versions needed are in MANIFEST), CUDA (the node's, matching its driver), our own module.
readonly kSystemLibs='^(ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libutil|libresolv|libgcc_s|libstdc\+\+)\.so'
readonly kCudaLibs='^(libcuda|libcudart|libcublas|libcublasLt|libcusolver|libcusparse|libnvJitLink|libnccl)\.so'

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
stage="${work}/canzona-gpu-bundle"

log "install (components runtime, gpu_tests, e2e_dev) into the bundle"
for component in runtime gpu_tests; do
  cmake --install "${BUILD_DIR}" --prefix "${stage}" --component "${component}" --strip >/dev/null
done
# Static libraries keep their symbol tables (the node links them): not stripped. A build without
# libtorch or MPI has no end-to-end suite and so no e2e_dev.
cmake --install "${BUILD_DIR}" --prefix "${stage}" --component e2e_dev >/dev/null
[ -x "${stage}/bin/canzona-bench" ] || die "the install has no bin/canzona-bench"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cp "${here}/bundle/env.sh" "${here}/bundle/first-contact.sh" "${here}/gpu-step-compare.sh" \
   "${here}/npy_tool.py" "${stage}/"
if [ -f "${stage}/e2e/CMakeLists.txt" ]; then
  cp "${here}/bundle/build-e2e.sh" "${stage}/"
fi

# Open MPI's component folder, as the installed Open MPI reports it.
ompi_dir="$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p' || true)"
if [ -n "${ompi_dir}" ] && [ -d "${ompi_dir}" ]; then
  mkdir -p "${stage}/lib/openmpi"
  for c in "${kOmpiComponents[@]}"; do
    [ -f "${ompi_dir}/mca_${c}.so" ] && cp "${ompi_dir}/mca_${c}.so" "${stage}/lib/openmpi/"
  done
fi

elf_files() { find "${stage}/bin" "${stage}/lib" "${stage}/libexec" -type f -exec sh -c \
  'head -c 4 "$1" | grep -q "ELF" && echo "$1"' _ {} \; 2>/dev/null | sort; }

log "runtime libraries: the ldd closure less glibc, libstdc++ and CUDA"
# ldd lists every library a program loads, transitively; the bundle's lib/ first, so what is
# already carried resolves there.
while read -r name path; do
  [ -e "${stage}/lib/${name}" ] || cp -L "${path}" "${stage}/lib/${name}"
done < <(for f in $(elf_files); do
           LD_LIBRARY_PATH="${stage}/lib" ldd "${f}" 2>/dev/null | awk '/=> \// {print $1, $3}'
         done | sort -u | grep -vE "${kSystemLibs}" | grep -vE "${kCudaLibs}" |
         grep -v '^libcanzona_device\.so')
strip --strip-unneeded "${stage}"/lib/*.so* "${stage}"/lib/openmpi/*.so 2>/dev/null || true

# The newest symbol version of glibc / libstdc++ any carried file needs: the node must have it.
newest_version() {
  for f in $(elf_files); do objdump -T "${f}" 2>/dev/null; done |
    grep -oE "\b$1_[0-9.]+\b" | sort -u -V | tail -n 1
}
cuda_needed="$(for f in $(elf_files); do objdump -p "${f}" 2>/dev/null | awk '/NEEDED/ {print $2}'; done |
               { grep -E "${kCudaLibs}" || true; } | sort -u | tr '\n' ' ')"
{
  echo "canzona-gpu-bundle"
  echo "commit: $(git -C "${CANZONA_ROOT}" rev-parse HEAD 2>/dev/null || echo unknown)$(
    git -C "${CANZONA_ROOT}" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}"), $(uname -m)"
  echo "build: $(sed -n 's/^#define CANZONA_WITH_\([A-Z]*\) \([01]\)$/\1=\2/p' \
                   "${BUILD_DIR}/generated/canzona/config.hpp" 2>/dev/null | tr 'A-Z\n' 'a-z ')"
  echo "cuda architectures: $(grep -E '^CMAKE_CUDA_ARCHITECTURES:' "${BUILD_DIR}/CMakeCache.txt" 2>/dev/null | sed 's/.*=//')"
  echo "nvcc: $(n="$(find_nvcc)"; [ -n "${n}" ] && "${n}" --version | tail -n 1 || echo none)"
  echo "needs glibc: $(newest_version GLIBC)"
  echo "needs libstdc++: $(newest_version GLIBCXX)"
  echo "needs cuda libraries: ${cuda_needed:-none (a build without CUDA)}"
  echo "end-to-end suite: $([ -f "${stage}/e2e/CMakeLists.txt" ] &&
    echo "build it on the node against its libtorch (build-e2e.sh)" || echo "none (a build without libtorch or MPI)")"
  echo "files:"
  (cd "${stage}" && find . -type f | sort | sed 's|^\./|  |')
} > "${stage}/MANIFEST"

log "compress"
# -9: its 64 MiB dictionary spans the whole tree, so the programs' common statically linked code
# is stored once (~20 % smaller than -6 here, twice the time; unpacking takes 65 MiB of memory).
tar -C "${work}" -cf - canzona-gpu-bundle | xz -T0 -9 > "${out}.partial"
bytes="$(stat -c %s "${out}.partial")"
if [ "${bytes}" -gt "${kMaxBytes}" ]; then
  rm -f "${out}.partial"
  die "the bundle is $((bytes >> 20)) MiB, over the 16 MiB limit for carrying it to a GPU node; see what grew in lib/"
fi
mv "${out}.partial" "${out}"
log "wrote ${out}: $(awk -v b="${bytes}" 'BEGIN {printf "%.1f MiB", b / 1048576}') ($(du -sm "${stage}" | cut -f1) MiB unpacked)"
