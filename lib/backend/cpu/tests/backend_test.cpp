// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cpu backend's memory and data movement, the factory, and Buffer ownership.
#include "cpu_backend.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/backend/cpu_backend.hpp>
#include <canzona/backend/host_values.hpp>
#include <canzona/core/bf16.hpp>
#include <canzona/core/error.hpp>
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace canzona::backend::cpu {
namespace {

/// Counts release() calls, to prove that a moved Buffer frees its memory exactly once.
class CountingBackend : public CpuBackend {
 public:
  int releases = 0;

 protected:
  void release(void* data) noexcept override {
    ++releases;
    CpuBackend::release(data);
  }
};

TEST(CpuBackendTest, FactoryMakesCpuAndRejectsUnknownNames) {
  const auto backend = make_backend("cpu");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "cpu");
  EXPECT_EQ(make_cpu_backend()->name(), "cpu");
  EXPECT_THROW(make_backend("tpu"), ConfigError);
}

TEST(CpuBackendTest, OpCountsCountEveryCallOnceInTheInterface) {
  CpuBackend backend;
  const OpCounts start = backend.op_counts();
  Buffer a = backend.allocate(64);
  Buffer b = backend.allocate(64);
  std::vector<float> host(16, 1.0f);
  backend.upload(a.data(), host.data(), 64);
  backend.copy(b.data(), a.data(), 64);
  // Same-type convert and a strided copy are one operation each, however they are carried out.
  backend.convert(b.data(), ElementType::kFloat32, a.data(), ElementType::kFloat32, 16);
  backend.copy_2d(b.data(), 16, a.data(), 16, 8, 4);
  backend.ema(a.as<float>(), b.as<float>(), 0, 0.5f);  // empty work still counts: same on GPUs
  backend.synchronize();
  backend.download(host.data(), b.data(), 64);
  (void)backend.eigh_workspace_bytes(4, 1);  // queries are not operations
  const OpCounts step = backend.op_counts() - start;
  EXPECT_EQ(step.operations, 6U);
  EXPECT_EQ(step.synchronizations, 2U);
  EXPECT_EQ(step.allocations, 2U);
  EXPECT_EQ(step.allocated_bytes, 128U);
}

TEST(CpuBackendTest, ElementSizes) {
  EXPECT_EQ(element_size(ElementType::kFloat32), 4U);
  EXPECT_EQ(element_size(ElementType::kBFloat16), 2U);
}

TEST(CpuBackendTest, AllocateIsAlignedAndZeroFilled) {
  CpuBackend backend;
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{4097}}) {
    SCOPED_TRACE(bytes);
    Buffer buffer = backend.allocate(bytes);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(buffer.bytes(), bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 256, 0U);
    const auto* p = buffer.as<unsigned char>();
    for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i;
  }
}

TEST(CpuBackendTest, UploadCopyFillZeroDownloadRoundTrip) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(1);
  CpuBackend backend;
  const std::vector<float> host = test::random_floats(rng, 1000);
  Buffer a = test::to_backend(backend, host);
  Buffer b = backend.allocate(host.size() * sizeof(float));
  backend.copy(b.data(), a.data(), host.size() * sizeof(float));
  backend.synchronize();
  EXPECT_EQ(test::to_host<float>(backend, b, host.size()), host);
  backend.fill_zero(a.data(), 100 * sizeof(float));
  const std::vector<float> zeroed = test::to_host<float>(backend, a, host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    ASSERT_EQ(zeroed[i], i < 100 ? 0.0f : host[i]) << "element " << i;
  }
}

TEST(CpuBackendTest, UploadValuesWritesTheBufferType) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(2);
  CpuBackend backend;
  std::vector<float> host = test::random_floats(rng, 257);
  host[0] = 1.00390625f;  // halfway between two bf16 values: rounds to the even one, 1.0
  Buffer fp32 = backend.allocate(host.size() * sizeof(float));
  upload_values(backend, fp32.data(), ElementType::kFloat32, host);
  EXPECT_EQ(test::to_host<float>(backend, fp32, host.size()), host);
  Buffer bf16 = backend.allocate(host.size() * sizeof(std::uint16_t));
  upload_values(backend, bf16.data(), ElementType::kBFloat16, host);
  const std::vector<std::uint16_t> bits = test::to_host<std::uint16_t>(backend, bf16, host.size());
  EXPECT_EQ(bits[0], 0x3f80);
  for (std::size_t i = 0; i < host.size(); ++i) {
    ASSERT_EQ(bits[i], float_to_bf16(host[i])) << "element " << i;
  }
  EXPECT_EQ(host_elements(host, ElementType::kBFloat16).size(), 2 * host.size());
}

TEST(CpuBackendTest, BufferMovesReleaseMemoryExactlyOnce) {
  CountingBackend backend;
  {
    Buffer a = backend.allocate(64);
    void* const data = a.data();
    Buffer b(std::move(a));
    EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checks the moved-from state
    EXPECT_EQ(a.bytes(), 0U);
    EXPECT_EQ(b.data(), data);
    EXPECT_EQ(b.bytes(), 64U);

    Buffer c;
    c = std::move(b);
    EXPECT_EQ(c.data(), data);
    EXPECT_EQ(backend.releases, 0);

    Buffer d = backend.allocate(32);
    d = std::move(c);  // d's own 32 bytes go back now
    EXPECT_EQ(backend.releases, 1);
    EXPECT_EQ(d.data(), data);
  }
  EXPECT_EQ(backend.releases, 2);
}

}  // namespace
}  // namespace canzona::backend::cpu
