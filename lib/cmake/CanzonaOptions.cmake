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

# Executables of the project land in <build>/bin; tests look for them there.
set(CANZONA_BIN_DIR ${PROJECT_BINARY_DIR}/bin)
