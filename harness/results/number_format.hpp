// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Numbers as the reports (compare, table) print them: short, with the precision a reader needs
// to see a few-percent change, and never in exponent notation.
#pragma once

#include <string>

namespace canzona::harness {

/// A duration in ms with four significant digits ("57.79", "0.1234", "6303.6").
std::string format_ms(double ms);

/// A signed relative change as a percentage with one decimal ("+20.0%", "-3.1%").
std::string format_change(double relative);

/// A fraction as a percentage with one decimal ("1.2%").
std::string format_percent(double fraction);

/// A ratio with two decimals and a multiplication sign ("9.14×").
std::string format_ratio(double ratio);

/// Bytes as MiB with the precision of format_ms ("1234", "0.5").
std::string format_mib(double bytes);

}  // namespace canzona::harness
