// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CPU tests of the bounded host wait: a query that finishes, one that never does, one that fails.
// The queries are stand-ins for cudaStreamQuery / cudaEventQuery; no device or driver is needed.
#include <canzona/cuda/host_wait.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

using canzona::cuda::DeviceWaitTimeout;
using canzona::cuda::wait_on_host;
using namespace std::chrono_literals;

TEST(HostWait, ReturnsOnceTheWorkIsDone) {
  int polls = 0;
  wait_on_host([&] { return ++polls < 4 ? cudaErrorNotReady : cudaSuccess; }, 10s, "work");
  EXPECT_EQ(polls, 4);
}

TEST(HostWait, WorkThatNeverFinishesEndsInATimeoutNamingIt) {
  const auto began = std::chrono::steady_clock::now();
  try {
    wait_on_host([] { return cudaErrorNotReady; }, 50ms, "the backend stream");
    FAIL() << "no exception";
  } catch (const DeviceWaitTimeout& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the backend stream did not finish within 0.05 s"), std::string::npos)
        << what;
  }
  EXPECT_GE(std::chrono::steady_clock::now() - began, 50ms);
}

TEST(HostWait, ZeroTimeoutWaitsUntilDone) {
  int polls = 0;
  wait_on_host([&] { return ++polls < 30 ? cudaErrorNotReady : cudaSuccess; }, 0s, "work");
  EXPECT_EQ(polls, 30);
}

TEST(HostWait, AnErrorOfTheWorkIsThrownAsIs) {
  try {
    wait_on_host([] { return cudaErrorIllegalAddress; }, 10s, "work");
    FAIL() << "no exception";
  } catch (const canzona::CudaError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorIllegalAddress));
  }
}

}  // namespace
