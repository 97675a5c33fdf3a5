// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// GPU test fixture: skips with a reason when the machine has too few CUDA devices, and fails
// instead when CANZONA_REQUIRE_GPU=1 (GPU CI), so a GPU job can never pass by skipping.
#pragma once

#include <canzona/core/device.hpp>

#include <gtest/gtest.h>

namespace canzona::testing {

/// True when CANZONA_REQUIRE_GPU is set to a non-empty value other than "0".
bool gpu_required();

template <int kDevices>
class DevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const int have = cuda_device_count();
    if (have >= kDevices) return;
    if (gpu_required()) {
      FAIL() << "needs " << kDevices << " CUDA device(s), found " << have
             << " (CANZONA_REQUIRE_GPU=1 turns this skip into a failure)";
    }
    GTEST_SKIP() << "needs " << kDevices << " CUDA device(s), found " << have;
  }
};

using OneGpuTest = DevicesTest<1>;

}  // namespace canzona::testing
