// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CPU tests of the cuda backend's factory: asking for "cuda" without a usable device is a
// ConfigError that says what is missing and how to fix it, never a crash inside CUDA.
#include <canzona/backend/backend.hpp>
#include <canzona/backend/cuda_backend.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using canzona::ConfigError;
namespace cb = canzona::backend;

TEST(CudaBackendFactory, NoGpuGivesConfigError) {
  if (canzona::cuda_device_count() > 0) {
    GTEST_SKIP() << "a CUDA device is present; this test covers machines without one";
  }
  try {
    (void)cb::make_backend("cuda", 0);
    FAIL() << "make_backend(\"cuda\", 0) succeeded without a GPU";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuda"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend cpu"), std::string::npos) << what;
  }
}

TEST(CudaBackendFactory, DirectFactoryNoGpuGivesConfigError) {
  if (canzona::cuda_device_count() > 0) {
    GTEST_SKIP() << "a CUDA device is present; this test covers machines without one";
  }
  try {
    (void)cb::make_cuda_backend(0);
    FAIL() << "make_cuda_backend(0) succeeded without a GPU";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("device 0"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend cpu"), std::string::npos) << what;
  }
}

TEST(CudaBackendFactory, NegativeDeviceIsAConfigErrorForTheDirectFactory) {
  // make_backend reads a negative device as "the current one"; make_cuda_backend takes only an
  // existing device index.
  EXPECT_THROW((void)cb::make_cuda_backend(-1), ConfigError);
}

TEST(CudaBackendFactory, DefaultDeviceIsTheCurrentOneOrAClearError) {
  if (canzona::cuda_device_count() > 0) {
    const auto backend = cb::make_backend("cuda");
    EXPECT_EQ(backend->device(), canzona::cuda_current_device());
    return;
  }
  EXPECT_EQ(canzona::cuda_current_device(), -1);
  try {
    (void)cb::make_backend("cuda");
    FAIL() << "make_backend(\"cuda\") succeeded without a GPU";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--backend cpu"), std::string::npos) << e.what();
  }
}

}  // namespace
