// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Newton–Schulz coefficient tables (a, b, c) per iteration, exactly as paper-spec §5.2
// (Megatron-Canzona muon.py). Valid C++17 as well as C++20: .cu translation units include it.
#pragma once

#include <canzona/optim/options.hpp>

#include <cstddef>

#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#endif

namespace canzona::optim {

/// One Newton–Schulz iteration X ← a·X + (b·S + c·S·S)·X with S = X·Xᵀ, i.e. the scalar map
/// σ ↦ a·σ + b·σ³ + c·σ⁵ on every singular value.
struct NsTuple {
  double a;
  double b;
  double c;
};

/// A read-only view of one coefficient table. A pointer + size pair rather than std::span so the
/// header stays C++17; it iterates like a span. The storage is static: the view never dangles.
struct NsTable {
  const NsTuple* data = nullptr;
  std::size_t size = 0;

  const NsTuple* begin() const { return data; }
  const NsTuple* end() const { return data + size; }
  const NsTuple& operator[](std::size_t i) const { return data[i]; }
};

/// The table of `set`: simple (1 tuple), quintic (5), polar_express (8), aol_nvidia (4),
/// qwen_express (8). Throws ConfigError for a value outside the enum.
NsTable ns_coefficients(NsCoefficients set);

/// Coefficients of iteration `step` (0-based): table[min(step, size − 1)], so the last tuple
/// repeats when there are more steps than tuples. Throws canzona::Error for step < 0.
NsTuple ns_tuple(NsCoefficients set, int step);

#if __cplusplus >= 202002L && __has_include(<span>)
/// The table as a std::span (C++20 translation units only).
inline std::span<const NsTuple> as_span(NsTable table) { return {table.data, table.size}; }
#endif

}  // namespace canzona::optim
