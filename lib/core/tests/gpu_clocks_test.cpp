// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The clocks recorded beside GPU timings: nvidia-smi's answer is read strictly (two whole numbers
// or nothing), and a machine without nvidia-smi records nothing.
#include <canzona/core/gpu_clocks.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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

TEST(GpuClocksTest, AMachineWithoutNvidiaSmiRecordsNoClocks) {
  // An empty PATH: nvidia-smi cannot be found, whatever this machine has installed.
  const char* saved = std::getenv("PATH");
  const std::string path = saved == nullptr ? "" : saved;
  ASSERT_EQ(setenv("PATH", "", 1), 0);
  const std::string clocks = gpu_application_clocks();
  ASSERT_EQ(setenv("PATH", path.c_str(), 1), 0);
  EXPECT_EQ(clocks, "");
}

}  // namespace
}  // namespace canzona
