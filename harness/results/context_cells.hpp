// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Provenance cells of the reports that put two runs side by side (compare, ab).
#pragma once

#include <map>
#include <string>

namespace canzona::harness {

/// The context value of `key`, or "-" when it is absent or empty.
std::string context_value(const std::map<std::string, std::string>& context,
                          const std::string& key);

/// The device as a reader needs it to trust a comparison: kind, GPU name and its clocks.
std::string device_line(const std::map<std::string, std::string>& context);

}  // namespace canzona::harness
