// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The clocks recorded beside GPU timings: nvidia-smi's answer is read strictly (two whole numbers
// or nothing), and a machine without nvidia-smi or without a GPU records nothing.
#include <canzona/core/device.hpp>
#include <canzona/core/gpu_clocks.hpp>

#include <gtest/gtest.h>

namespace canzona {
namespace {

TEST(GpuClocksTest, ReadsNvidiaSmiCsvLines) {
  EXPECT_EQ(clocks_from_nvidia_smi("1980, 2619"), "1980/2619");
  EXPECT_EQ(clocks_from_nvidia_smi("  1410,1593 \n"), "1410/1593");
}

TEST(GpuClocksTest, AnythingElseIsNoClocks) {
  for (const char* line :
       {"", "1980", "[N/A], [N/A]", "1980, [N/A]", "1980, 2619, 300", "No devices were found",
        "-1, 2619", "1980 MHz, 2619 MHz", "19800000, 2619"}) {
    EXPECT_EQ(clocks_from_nvidia_smi(line), "") << line;
  }
}

TEST(GpuClocksTest, AMachineWithoutAGpuRecordsNoClocks) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a GPU is present: its clocks are readable";
  // nvidia-smi may be installed without a usable GPU (a driver without a device): no clocks.
  EXPECT_EQ(gpu_application_clocks(), "");
}

}  // namespace
}  // namespace canzona
