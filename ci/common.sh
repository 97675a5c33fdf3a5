#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Shared helpers of the ci/ scripts (sourced, not run): dependency install, environment report,
# configure, build. Every script that sources this runs with `set -euo pipefail`.
set -euo pipefail

CANZONA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build}"
case "${BUILD_DIR}" in
  /*) ;;
  *) BUILD_DIR="${CANZONA_ROOT}/${BUILD_DIR}" ;;
esac
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Debian 12 packages the build and the tests need. Kept in one list so both README commands
# install exactly the same thing.
CANZONA_APT_PACKAGES=(
  cmake ninja-build g++ pkg-config git ca-certificates
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  libopenblas-dev liblapacke-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libre2-dev coinor-libcbc-dev
  libboost-math-dev
  python3-matplotlib
  texlive-latex-base texlive-latex-recommended
  libtorch-dev
  xz-utils binutils
  valgrind
)

log() { printf '[canzona] %s\n' "$*"; }
die() { printf '[canzona] error: %s\n' "$*" >&2; exit 1; }

# Installs whatever of CANZONA_APT_PACKAGES is missing; a no-op (one dpkg query) when all are
# there, so every CI run can call it.
ensure_deps() {
  local missing=()
  local pkg
  for pkg in "${CANZONA_APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("${pkg}")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "dependencies: all ${#CANZONA_APT_PACKAGES[@]} packages present"
    return 0
  fi
  log "dependencies: installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "missing packages (${missing[*]}) and not root; install them or run as root"
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Random test inputs follow the commit, so a failure in CI replays from its log and the next
# commit draws fresh ones; a seed already in the environment wins.
export_test_seed() {
  if [ -z "${CANZONA_TEST_SEED:-}" ] && git -C "${CANZONA_ROOT}" rev-parse HEAD >/dev/null 2>&1; then
    CANZONA_TEST_SEED="$((16#$(git -C "${CANZONA_ROOT}" rev-parse HEAD | cut -c1-15)))"
  fi
  export CANZONA_TEST_SEED="${CANZONA_TEST_SEED:-}"
  log "CANZONA_TEST_SEED=${CANZONA_TEST_SEED:-(none: each test draws its own and prints it)}"
}

# Path of nvcc when a CUDA toolkit is installed, empty otherwise.
find_nvcc() {
  if [ -n "${CUDACXX:-}" ] && [ -x "${CUDACXX}" ]; then
    echo "${CUDACXX}"
  elif command -v nvcc >/dev/null 2>&1; then
    command -v nvcc
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    echo /usr/local/cuda/bin/nvcc
  fi
}

gpu_present() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

fail_if_no_gpu() {
  gpu_present || die "this job needs a GPU but nvidia-smi finds none"
}

print_env() {
  log "host: $(uname -srm), $(nproc) cores"
  log "cmake: $(cmake --version | head -n1)"
  log "c++: $(c++ --version | head -n1)"
  local nvcc
  nvcc="$(find_nvcc)"
  if [ -n "${nvcc}" ]; then
    log "nvcc: $("${nvcc}" --version | tail -n1)"
  else
    log "nvcc: none (CPU-only build)"
  fi
  if gpu_present; then
    nvidia-smi -L | sed 's/^/[canzona] gpu: /'
  else
    log "gpu: none"
  fi
}

# configure [extra cmake args...]: Release, warnings as errors, and every backend whose toolkit
# is installed switched ON (not AUTO), so a break in CUDA or NCCL code fails the build even on a
# machine without a GPU.
configure() {
  local args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCANZONA_WERROR=ON -DCANZONA_ENABLE_MPI=ON)
  local nvcc
  nvcc="$(find_nvcc)"
  if [ -n "${nvcc}" ]; then
    args+=(-DCMAKE_CUDA_COMPILER="${nvcc}" -DCANZONA_ENABLE_CUDA=ON)
    local cuda_root
    cuda_root="$(dirname "$(dirname "${nvcc}")")"
    if [ -f "${cuda_root}/include/nccl.h" ] || [ -n "${NCCL_HOME:-}" ]; then
      args+=(-DCANZONA_ENABLE_NCCL=ON)
    fi
  else
    args+=(-DCANZONA_ENABLE_CUDA=OFF -DCANZONA_ENABLE_NCCL=OFF)
  fi
  if [ -n "${CUDA_ARCHITECTURES:-}" ]; then
    args+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES}")
  fi
  if command -v ccache >/dev/null 2>&1; then
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    if [ -n "${nvcc}" ]; then
      args+=(-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    fi
  fi
  log "configure ${BUILD_DIR}"
  cmake -S "${CANZONA_ROOT}" -B "${BUILD_DIR}" "${args[@]}" "$@"
}

build() {
  log "build ${BUILD_DIR} with ${JOBS} jobs"
  cmake --build "${BUILD_DIR}" --parallel "${JOBS}"
}

# Everything both README commands do before their own work: install, report, configure, build.
setup_build() {
  ensure_deps
  print_env
  configure
  build
}
