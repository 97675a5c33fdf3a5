# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Sourced from the root of an unpacked GPU bundle (ci/gpu-bundle.sh): makes its programs find
# the libraries it carries, the node's CUDA libraries and its device module, and lets Open MPI
# start one rank as a singleton (no mpirun, no daemons). Installs nothing.
#
# CUDA libraries (cudart, cuBLAS, cuSOLVER, NCCL) are the node's: $CANZONA_CUDA_LIB_DIRS when
# set (colon-separated), else the toolkit (CUDA_HOME, /usr/local/cuda), else the NVIDIA wheels of
# a Python environment (site-packages/nvidia/*/lib: PyTorch's cuBLAS, cuSOLVER and NCCL).
CANZONA_BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CANZONA_BUNDLE

canzona_cuda_lib_dirs() {
  if [ -n "${CANZONA_CUDA_LIB_DIRS:-}" ]; then
    echo "${CANZONA_CUDA_LIB_DIRS}"
    return
  fi
  local dirs="" d site
  # CUDA_HOME is usually /usr/local/cuda and the interpreter's site-packages one of the globbed
  # ones: each folder once, in the first place it is found.
  add_dir() {
    if [ -d "$1" ] && [[ ":${dirs}:" != *":$1:"* ]]; then dirs="${dirs:+${dirs}:}$1"; fi
  }
  for d in ${CUDA_HOME:+"${CUDA_HOME}/lib64" "${CUDA_HOME}/targets/x86_64-linux/lib"} \
           /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    add_dir "${d}"
  done
  # Python environments: the interpreter on PATH first, then where site-packages usually live.
  for site in $(python3 -c 'import site, sys; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null) \
              /opt/*/.venv/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages; do
    for d in "${site}"/nvidia/*/lib; do
      add_dir "${d}"
    done
  done
  echo "${dirs}"
}

CANZONA_CUDA_LIB_PATH="$(canzona_cuda_lib_dirs)"
export CANZONA_CUDA_LIB_PATH
# The bundle's own lib/ first: the programs' run paths already point there, and the libraries
# they pull in (Open MPI's own dependencies) are found there too, never the system's copies.
export LD_LIBRARY_PATH="${CANZONA_BUNDLE}/lib${CANZONA_CUDA_LIB_PATH:+:${CANZONA_CUDA_LIB_PATH}}${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
export PATH="${CANZONA_BUNDLE}/bin:${PATH}"
# The GPU tests live in libexec/canzona/tests, away from bin/: name the module for them.
[ -f "${CANZONA_BUNDLE}/lib/libcanzona_device.so" ] &&
  export CANZONA_DEVICE_MODULE="${CANZONA_BUNDLE}/lib/libcanzona_device.so"

# Open MPI 4.1 as a singleton: one process, no runtime daemons, only the components the bundle
# carries, shared memory and self transports; root is allowed (GPU nodes often run as root).
export OMPI_MCA_ess_singleton_isolated=1
export OMPI_MCA_mca_base_component_path="${CANZONA_BUNDLE}/lib/openmpi"
export OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# hwloc's plugins are not carried; its built-in topology discovery is enough for one rank.
export HWLOC_PLUGINS_PATH="${CANZONA_BUNDLE}/lib/none"
