// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NumPy .npy files (format versions 1.0–3.0): how users hand parameters and gradients to
// `canzona-bench step` and compare its output with PyTorch's. Little-endian float32 / float64 in
// C order only; everything else is rejected with a message that says how to convert.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::io {

enum class NpyDType { kFloat32, kFloat64 };

/// An array read from or written to .npy. Values are held as double (float32 converts exactly).
struct NpyArray {
  std::vector<std::int64_t> shape;  ///< () for a scalar
  NpyDType dtype = NpyDType::kFloat32;
  std::vector<double> values;  ///< C order, product(shape) entries

  std::int64_t numel() const;
};

/// Parses the bytes of a .npy file; `source` names it in errors. Throws ConfigError for a bad
/// magic string, an unsupported version, a malformed header, a dtype other than '<f4'/'<f8'
/// (big-endian, integers, float16 …), fortran_order True, or a data size that does not match.
NpyArray parse_npy(std::string_view bytes, std::string_view source);

/// Reads and parses a .npy file (ConfigError when it cannot be read).
NpyArray read_npy(const std::filesystem::path& path);

/// The bytes of a version 1.0 .npy file holding `array` in its dtype (float32 values are rounded
/// to nearest). Throws ConfigError when values.size() does not match the shape.
std::string encode_npy(const NpyArray& array);

/// encode_npy + write_file_atomically.
void write_npy(const std::filesystem::path& path, const NpyArray& array);

std::string_view to_string(NpyDType dtype);  ///< "float32", "float64"

}  // namespace canzona::io
