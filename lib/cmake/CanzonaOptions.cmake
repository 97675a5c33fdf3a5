# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# canzona_options: the INTERFACE target every Canzona target links. It carries the language
# standard, the warning set per language and the include directory of the generated
# canzona/config.hpp, so no flag or include directory is ever set globally.

set(CANZONA_GENERATED_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated)
configure_file(${PROJECT_SOURCE_DIR}/lib/cmake/config.hpp.in
               ${CANZONA_GENERATED_INCLUDE_DIR}/canzona/config.hpp @ONLY)

add_library(canzona_options INTERFACE)
add_library(canzona::options ALIAS canzona_options)
target_compile_features(canzona_options INTERFACE cxx_std_20)
target_include_directories(canzona_options INTERFACE ${CANZONA_GENERATED_INCLUDE_DIR})
# Source locations in messages are relative to the project root, not to this machine.
target_compile_options(canzona_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${CANZONA_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>
  # Static gate of the device code: ptxas reports register spills and local-memory use (both
  # mean slow kernels that only a profiler would otherwise reveal); CI makes them errors.
  $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills,-warn-lmem-usage>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CANZONA_WERROR}>>:-Werror=all-warnings -Xptxas=-Werror>)

# Sanitizers (ci/sanitize.sh): every target is instrumented, and undefined behaviour is fatal so
# a test that triggers it fails instead of printing a warning nobody reads. With fuzzers, every
# library also gets libFuzzer's coverage instrumentation, so the fuzz targets see inside the
# parsers they drive.
if(CANZONA_SANITIZE)
  set(canzona_sanitize_flags -fsanitize=${CANZONA_SANITIZE} -fno-omit-frame-pointer
                             -fno-sanitize-recover=all)
  target_compile_options(canzona_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:${canzona_sanitize_flags}>)
  target_link_options(canzona_options INTERFACE ${canzona_sanitize_flags})
endif()
if(CANZONA_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CANZONA_BUILD_FUZZERS needs Clang (libFuzzer); configure with "
                        "CXX=clang++-14 (see ci/sanitize.sh)")
  endif()
  target_compile_options(canzona_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()

# Executables of the project land in <build>/bin; tests look for them there.
set(CANZONA_BIN_DIR ${PROJECT_BINARY_DIR}/bin)
