// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// .npy files (`canzona-bench step --param/--grad`): parse, and re-encode what parsed.
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/io/npy.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("npy", [&] {
    const canzona::io::NpyArray array =
        canzona::io::parse_npy(canzona::fuzz::as_text(data, size), "fuzz.npy");
    const std::string bytes = canzona::io::encode_npy(array);
    const canzona::io::NpyArray again = canzona::io::parse_npy(bytes, "re-encoded");
    if (again.shape != array.shape || again.values.size() != array.values.size()) std::abort();
  });
  return 0;
}
