# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Resolution of the optional dependencies. Each CANZONA_ENABLE_<X> is AUTO, ON or OFF and
# resolves to CANZONA_WITH_<X> (0/1). AUTO degrades with a STATUS line; ON is a hard error when
# the dependency is missing, so CI and GPU jobs can never silently lose a backend.

function(canzona_tristate_option name help default)
  set(${name} ${default} CACHE STRING "${help} (AUTO/ON/OFF)")
  set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${name}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${name}='${${name}}' is not one of AUTO, ON, OFF")
  endif()
  set(${name} ${value} PARENT_SCOPE)
endfunction()

# Reports a missing dependency: fatal when the user asked for it, a status line under AUTO.
function(canzona_dependency_missing option what how)
  if(${option} STREQUAL "ON")
    message(FATAL_ERROR "${option}=ON but ${what} was not found. ${how}")
  endif()
  message(STATUS "canzona: ${what} not found, building without it (${option}=AUTO). ${how}")
endfunction()

macro(canzona_resolve_cuda)
  set(CANZONA_WITH_CUDA 0)
  if(NOT CANZONA_ENABLE_CUDA STREQUAL "OFF")
    include(CheckLanguage)
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
      # check_language(CUDA) only looks on PATH; the toolkit's default prefix is a safe hint.
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        # Never 'native': it fails at configure time on machines without a GPU.
        set(CMAKE_CUDA_ARCHITECTURES 80 90)
        message(STATUS "canzona: CMAKE_CUDA_ARCHITECTURES not given, using 80;90 (A100, H100/H200)")
      endif()
      set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
      enable_language(CUDA)
      find_package(CUDAToolkit REQUIRED)
      set(CMAKE_CUDA_STANDARD 17)
      set(CMAKE_CUDA_STANDARD_REQUIRED ON)
      set(CANZONA_WITH_CUDA 1)
    else()
      canzona_dependency_missing(CANZONA_ENABLE_CUDA "a CUDA compiler (nvcc)"
                                 "Put nvcc on PATH or set CUDACXX.")
    endif()
  endif()
endmacro()

macro(canzona_resolve_nccl)
  set(CANZONA_WITH_NCCL 0)
  if(NOT CANZONA_ENABLE_NCCL STREQUAL "OFF")
    if(NOT CANZONA_WITH_CUDA)
      canzona_dependency_missing(CANZONA_ENABLE_NCCL "CUDA (required by NCCL)"
                                 "Enable CUDA first.")
    else()
      find_package(NCCL)
      if(NCCL_FOUND)
        set(CANZONA_WITH_NCCL 1)
      else()
        canzona_dependency_missing(CANZONA_ENABLE_NCCL "NCCL (nccl.h, libnccl)"
                                   "Set NCCL_HOME to the NCCL install prefix.")
      endif()
    endif()
  endif()
endmacro()

macro(canzona_resolve_mpi)
  set(CANZONA_WITH_MPI 0)
  if(NOT CANZONA_ENABLE_MPI STREQUAL "OFF")
    find_package(MPI COMPONENTS C)
    if(MPI_C_FOUND)
      set(CANZONA_WITH_MPI 1)
    else()
      canzona_dependency_missing(CANZONA_ENABLE_MPI "MPI"
                                 "Install Open MPI (apt-get install libopenmpi-dev openmpi-bin).")
    endif()
  endif()
endmacro()

# libtorch: Debian's libtorch-dev (1.13, CPU) or PyTorch's bundled libtorch 2.x (CUDA), found
# through Torch_DIR / CMAKE_PREFIX_PATH. Sets CANZONA_TORCH_CUDA when libtorch itself has CUDA.
# A libtorch built with the pre-C++11 ABI cannot share std::string with the rest of the project,
# so it counts as missing.
macro(canzona_resolve_torch)
  set(CANZONA_WITH_TORCH 0)
  set(CANZONA_TORCH_CUDA 0)
  if(NOT CANZONA_ENABLE_TORCH STREQUAL "OFF")
    find_package(Torch CONFIG QUIET)
    set(_canzona_torch_how
        "Install libtorch-dev (Debian) or pass -DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')\"; lib/torch_model and its tests are skipped.")
    if(Torch_FOUND AND "${TORCH_CXX_FLAGS}" MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
      canzona_dependency_missing(CANZONA_ENABLE_TORCH
        "a libtorch built with the C++11 ABI (found one with _GLIBCXX_USE_CXX11_ABI=0 in ${Torch_DIR})"
        "${_canzona_torch_how}")
    elseif(Torch_FOUND)
      set(CANZONA_WITH_TORCH 1)
      if(TARGET torch_cuda)
        set(CANZONA_TORCH_CUDA 1)
      endif()
      message(STATUS "canzona: libtorch ${Torch_VERSION} (CUDA=${CANZONA_TORCH_CUDA}) in ${Torch_DIR}")
    else()
      canzona_dependency_missing(CANZONA_ENABLE_TORCH "libtorch (TorchConfig.cmake)"
                                 "${_canzona_torch_how}")
    endif()
  endif()
endmacro()

# Dependencies every build needs.
macro(canzona_find_required_packages)
  find_package(fmt REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(CLI11 REQUIRED)
  # RE2: every pattern a user gives over benchmark names is matched in linear time.
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
  # COIN-OR CBC (Debian coinor-libcbc-dev): the exact solver the DP planners are judged against.
  pkg_check_modules(CBC REQUIRED IMPORTED_TARGET cbc)
  # Boost.Math (header-only, Debian libboost-math-dev): distributions for the regression gate.
  find_package(Boost 1.74 REQUIRED CONFIG COMPONENTS headers)
  find_package(Threads REQUIRED)
  if(CANZONA_BUILD_TESTS)
    find_package(GTest REQUIRED)
  endif()
  if(CANZONA_BUILD_SUITES)
    find_package(benchmark REQUIRED)
  endif()
endmacro()
