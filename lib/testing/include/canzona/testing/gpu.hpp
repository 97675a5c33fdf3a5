// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// GPU test fixture: skips with a reason when the machine has too few CUDA devices. With
// CANZONA_REQUIRE_GPU=1 (GPU CI) a machine with no usable GPU at all fails instead, so a GPU job
// can never pass by skipping; a test that needs more GPUs than a GPU machine has still skips
// (a one-GPU node runs every one-GPU test and says which multi-GPU tests it could not run).
#pragma once

#include <canzona/core/device.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::testing {

/// True when CANZONA_REQUIRE_GPU is set to a non-empty value other than "0".
bool gpu_required();

template <int kDevices>
class DevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const int have = cuda_device_count();
    if (have >= kDevices) return;
    if (have == 0) {
      // The reason (the device module's loader message, the runtime's error) is what a user
      // needs on a GPU node whose CUDA libraries are not on the search path.
      const std::string why = cuda_unavailable_reason();
      if (gpu_required()) {
        FAIL() << "needs " << kDevices << " CUDA device(s), found none: " << why
               << " (CANZONA_REQUIRE_GPU=1 turns this skip into a failure)";
      }
      GTEST_SKIP() << "needs " << kDevices << " CUDA device(s), found none: " << why;
    }
    GTEST_SKIP() << "needs " << kDevices << " CUDA devices, this machine has " << have;
  }
};

using OneGpuTest = DevicesTest<1>;

}  // namespace canzona::testing
