// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Newton–Schulz coefficient tables, copied digit for digit from paper-spec §5.2.
#include "canzona/optim/coefficients.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace canzona::optim {
namespace {

// KellerJordan Muon's single quintic, repeated for every step.
constexpr NsTuple kSimple[] = {{3.4445, -4.7750, 2.0315}};

constexpr NsTuple kQuintic[] = {{4.0848, -6.8946, 2.9270},
                                {3.9505, -6.3029, 2.6377},
                                {3.7418, -5.5913, 2.3037},
                                {2.8769, -3.1427, 1.2046},
                                {2.8366, -3.0525, 1.2012}};

// Polar Express (Amsel et al. 2025); the last tuple (15/8, −5/4, 3/8) has σ = 1 as fixed point.
constexpr NsTuple kPolarExpress[] = {{8.2051, -22.9019, 16.4607}, {4.0664, -2.8612, 0.5184},
                                     {3.9096, -2.8234, 0.5250},   {3.2856, -2.4153, 0.4853},
                                     {2.2779, -1.6198, 0.3985},   {1.8726, -1.2307, 0.3585},
                                     {1.8564, -1.2132, 0.3568},   {1.8750, -1.2500, 0.3750}};

constexpr NsTuple kAolNvidia[] = {{4.0098, -7.0585, 2.4635},
                                  {3.4585, -5.5479, 2.5959},
                                  {2.7573, -3.2939, 1.4254},
                                  {2.7215, -3.0494, 1.3169}};

// Qwen-tuned Polar Express (l0 = 1e-3, cushion = 0, safety = 1.01).
constexpr NsTuple kQwenExpress[] = {{8.3865, -24.3696, 17.7251}, {4.1414, -3.0173, 0.5524},
                                    {3.9226, -2.8672, 0.5357},   {3.2540, -2.3922, 0.4827},
                                    {2.2512, -1.5963, 0.3960},   {1.8700, -1.2279, 0.3582},
                                    {1.8564, -1.2132, 0.3568},   {1.8750, -1.2500, 0.3750}};

template <std::size_t N>
constexpr NsTable table_of(const NsTuple (&tuples)[N]) {
  return NsTable{tuples, N};
}

}  // namespace

NsTable ns_coefficients(NsCoefficients set) {
  switch (set) {
    case NsCoefficients::kSimple:
      return table_of(kSimple);
    case NsCoefficients::kQuintic:
      return table_of(kQuintic);
    case NsCoefficients::kPolarExpress:
      return table_of(kPolarExpress);
    case NsCoefficients::kAolNvidia:
      return table_of(kAolNvidia);
    case NsCoefficients::kQwenExpress:
      return table_of(kQwenExpress);
  }
  throw ConfigError(
      fmt::format("unknown Newton-Schulz coefficient set (enum value {})", static_cast<int>(set)));
}

NsTuple ns_tuple(NsCoefficients set, int step) {
  CANZONA_CHECK(step >= 0, fmt::format("Newton-Schulz step {} is negative", step));
  const NsTable table = ns_coefficients(set);
  return table[std::min(static_cast<std::size_t>(step), table.size - 1)];
}

}  // namespace canzona::optim
