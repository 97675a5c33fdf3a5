// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Element types, reduction operators and memory spaces shared by every communicator backend.
// Host-clean: no CUDA, NCCL or MPI types.
#pragma once

#include <cstddef>
#include <string_view>

namespace canzona::comm {

/// Element type of a collective's buffers. Counts are always in elements of this type.
enum class DataType { kFloat32, kFloat64, kBFloat16, kFloat16, kInt32, kInt64, kUInt8 };

/// Reduction applied element-wise by all_reduce, reduce_scatter and reduce.
enum class ReduceOp { kSum, kMax, kMin };

/// Where a communicator's buffers live: host memory (MPI) or device memory of the
/// communicator's GPU (NCCL).
enum class MemorySpace { kHost, kDevice };

/// Bytes per element (4, 8, 2, 2, 4, 8, 1). Throws canzona::ConfigError for an invalid value.
std::size_t size_of(DataType type);

/// "float32", "float64", "bfloat16", "float16", "int32", "int64", "uint8".
std::string_view to_string(DataType type);
/// "sum", "max", "min".
std::string_view to_string(ReduceOp op);
/// "host", "device".
std::string_view to_string(MemorySpace space);

}  // namespace canzona::comm
