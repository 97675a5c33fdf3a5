// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// GPU tests of the CUDA RAII wrappers: round trips through streams and buffers, event timing and
// ordering, cuBLAS / cuSOLVER handles bound to a stream, move semantics and error reporting.
#include <canzona/cuda/blas_handle.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>
#include <canzona/cuda/event.hpp>
#include <canzona/cuda/solver_handle.hpp>
#include <canzona/cuda/stream.hpp>
#include <canzona/testing/gpu.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using canzona::testing::OneGpuTest;
namespace cc = canzona::cuda;

__global__ void scale_kernel(float* data, std::size_t n, float factor) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    data[i] *= factor;
  }
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

using CudaWrappersGpu = OneGpuTest;

TEST_F(CudaWrappersGpu, StreamBufferRoundTrip) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  const std::size_t n = 1000 + rng() % 5000;

  cc::Stream stream;
  EXPECT_TRUE(stream.owning());
  EXPECT_EQ(stream.device(), cc::current_device());
  cc::PinnedBuffer<float> host(n);
  for (std::size_t i = 0; i < n; ++i) {
    host[i] = dist(rng);
  }
  cc::DeviceBuffer<float> a(n);
  cc::DeviceBuffer<float> b(n, stream);  // stream-ordered allocation
  a.copy_from_host(host.data(), host.size(), stream);
  CANZONA_CUDA_CHECK(
      cudaMemcpyAsync(b.data(), a.data(), a.size_bytes(), cudaMemcpyDeviceToDevice, stream));
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  scale_kernel<<<blocks, 256, 0, stream>>>(b.data(), n, 2.0F);
  CANZONA_CUDA_CHECK_LAUNCH();
  std::vector<float> out(n);
  b.copy_to_host(out.data(), out.size(), stream);
  stream.synchronize();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], 2.0F * host[i]) << "element " << i;
  }

  b.zero(stream);
  b.copy_to_host(out.data(), out.size(), stream);
  stream.synchronize();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], 0.0F) << "element " << i;
  }
}

TEST_F(CudaWrappersGpu, CopyLargerThanBufferIsRejected) {
  cc::Stream stream;
  cc::DeviceBuffer<int> small(4);
  std::vector<int> host(8, 1);
  EXPECT_THROW(small.copy_from_host(host.data(), host.size(), stream), canzona::Error);
}

TEST_F(CudaWrappersGpu, EventsTimeAndOrderStreams) {
  cc::Stream producer;
  cc::Stream consumer;
  auto start = cc::Event::timing();
  auto stop = cc::Event::timing();
  auto done = cc::Event::sync();
  EXPECT_TRUE(start.timed());
  EXPECT_FALSE(done.timed());

  start.record(producer);
  spin_kernel<<<1, 1, 0, producer>>>(1000000);
  CANZONA_CUDA_CHECK_LAUNCH();
  stop.record(producer);
  done.record(producer);
  // The consumer waits on the event without a host sync; its own event completes after it.
  done.make_wait(consumer);
  auto after = cc::Event::sync();
  after.record(consumer);
  after.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(stop.query());
  EXPECT_GT(cc::elapsed_ms(start, stop), 0.0F);
  // A sync-only event has no timestamp.
  EXPECT_THROW((void)cc::elapsed_ms(start, done), canzona::CudaError);
}

TEST_F(CudaWrappersGpu, MoveSemantics) {
  cc::DeviceBuffer<double> a(16);
  double* raw = a.data();
  cc::DeviceBuffer<double> b(std::move(a));
  EXPECT_EQ(b.data(), raw);
  EXPECT_EQ(b.size(), 16U);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking moved-from state
  EXPECT_TRUE(a.empty());
  a = std::move(b);
  EXPECT_EQ(a.data(), raw);

  cc::Stream s1;
  cudaStream_t raw_stream = s1.get();
  cc::Stream s2(std::move(s1));
  EXPECT_EQ(s2.get(), raw_stream);
  EXPECT_EQ(s1.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(s1.owning());
  cc::StreamView view = s2;
  EXPECT_EQ(view.get(), raw_stream);
  cc::Stream borrowed = cc::Stream::borrow(raw_stream, s2.device());
  EXPECT_FALSE(borrowed.owning());

  auto e1 = cc::Event::sync();
  cudaEvent_t raw_event = e1.get();
  cc::Event e2(std::move(e1));
  EXPECT_EQ(e2.get(), raw_event);
  EXPECT_EQ(e1.get(), nullptr);  // NOLINT(bugprone-use-after-move)

  cc::BlasHandle h1(1 << 20);
  cublasHandle_t raw_blas = h1.get();
  cc::BlasHandle h2(std::move(h1));
  EXPECT_EQ(h2.get(), raw_blas);
  EXPECT_EQ(h1.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(h2.workspace_bytes(), std::size_t{1} << 20);
}

TEST_F(CudaWrappersGpu, DeviceGuardOnTheCurrentDeviceIsANoOp) {
  cc::use_device(0);
  {
    cc::DeviceGuard guard(0);
    EXPECT_EQ(cc::current_device(), 0);
    EXPECT_EQ(guard.previous(), -1) << "nothing to restore";
  }
  EXPECT_EQ(cc::current_device(), 0);
  EXPECT_THROW(cc::DeviceGuard bad(1 << 20), canzona::CudaError);
  EXPECT_EQ(cc::current_device(), 0);
}

TEST_F(CudaWrappersGpu, AFreshThreadHasNoContextUntilItChoosesADevice) {
  // The guard's context-safety rests on this: cudaGetDevice creates nothing, cudaSetDevice does.
  bool before = true;
  bool after = false;
  std::thread worker([&] {
    before = cc::thread_has_context();
    (void)cc::current_device();
    cc::use_device(0);
    after = cc::thread_has_context();
  });
  worker.join();
  EXPECT_FALSE(before);
  EXPECT_TRUE(after);
}

using CudaWrappersTwoGpus = canzona::testing::DevicesTest<2>;

TEST_F(CudaWrappersTwoGpus, GuardRestoresOnlyAContextThatExisted) {
  std::thread fresh([] {
    {
      cc::DeviceGuard guard(1);
      EXPECT_EQ(guard.previous(), -1) << "no context before: restoring would create one on GPU 0";
    }
    EXPECT_EQ(cc::current_device(), 1);
  });
  fresh.join();
  std::thread rank([] {
    cc::use_device(0);
    {
      cc::DeviceGuard guard(1);
      EXPECT_EQ(cc::current_device(), 1);
      EXPECT_EQ(guard.previous(), 0);
    }
    EXPECT_EQ(cc::current_device(), 0);
  });
  rank.join();
}

TEST_F(CudaWrappersGpu, BlasHandleBoundToStreamRunsGemm) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Small integers keep the fp32 products exact, so the check is element-wise equality.
  std::uniform_int_distribution<int> dist(-4, 4);
  const int m = 5;
  const int k = 7;
  const int n = 3;
  std::vector<float> a(static_cast<std::size_t>(m * k));
  std::vector<float> b(static_cast<std::size_t>(k * n));
  for (float& v : a) v = static_cast<float>(dist(rng));
  for (float& v : b) v = static_cast<float>(dist(rng));

  cc::Stream stream;
  cc::BlasHandle blas;
  blas.bind(stream);
  EXPECT_EQ(blas.stream().get(), stream.get());
  cc::DeviceBuffer<float> da(a.size());
  cc::DeviceBuffer<float> db(b.size());
  cc::DeviceBuffer<float> dc(static_cast<std::size_t>(m * n));
  da.copy_from_host(a.data(), a.size(), stream);
  db.copy_from_host(b.data(), b.size(), stream);
  const float one = 1.0F;
  const float zero = 0.0F;
  // Column-major: C(m×n) = A(m×k) · B(k×n).
  CANZONA_CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da.data(), m,
                                   db.data(), k, &zero, dc.data(), m));
  std::vector<float> c(static_cast<std::size_t>(m * n));
  dc.copy_to_host(c.data(), c.size(), stream);
  stream.synchronize();
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float expect = 0.0F;
      for (int p = 0; p < k; ++p) {
        expect += a[static_cast<std::size_t>(i + p * m)] * b[static_cast<std::size_t>(p + j * k)];
      }
      ASSERT_EQ(c[static_cast<std::size_t>(i + j * m)], expect) << i << "," << j;
    }
  }
  // Bad arguments surface as BlasError.
  EXPECT_THROW(CANZONA_CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, -1, n, k, &one,
                                                da.data(), m, db.data(), k, &zero, dc.data(), m)),
               canzona::BlasError);
}

TEST_F(CudaWrappersGpu, SolverHandleBatchedEigensolverOnDiagonals) {
  cc::Stream stream;
  cc::SolverHandle solver;
  solver.bind(stream);
  const int n = 3;
  const int batch = 2;
  const std::vector<float> a = {3.0F, 0.0F, 0.0F, 0.0F, 1.0F, 0.0F, 0.0F, 0.0F, 2.0F,
                                5.0F, 0.0F, 0.0F, 0.0F, 4.0F, 0.0F, 0.0F, 0.0F, 6.0F};
  cc::DeviceBuffer<float> da(a.size());
  cc::DeviceBuffer<float> dw(static_cast<std::size_t>(n * batch));
  cc::DeviceBuffer<int> info(static_cast<std::size_t>(batch));
  da.copy_from_host(a.data(), a.size(), stream);
  std::size_t device_bytes = 0;
  std::size_t host_bytes = 0;
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevBatched_bufferSize(
      solver, solver.params(), CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_32F,
      da.data(), n, CUDA_R_32F, dw.data(), CUDA_R_32F, &device_bytes, &host_bytes, batch));
  cc::DeviceBuffer<std::byte> work(device_bytes);
  std::vector<std::byte> host_work(host_bytes);
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevBatched(
      solver, solver.params(), CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_32F,
      da.data(), n, CUDA_R_32F, dw.data(), CUDA_R_32F, work.data(), device_bytes, host_work.data(),
      host_bytes, info.data(), batch));
  std::vector<float> w(static_cast<std::size_t>(n * batch));
  std::vector<int> host_info(static_cast<std::size_t>(batch), -1);
  dw.copy_to_host(w.data(), w.size(), stream);
  info.copy_to_host(host_info.data(), host_info.size(), stream);
  stream.synchronize();
  EXPECT_EQ(host_info, (std::vector<int>{0, 0}));
  const std::vector<float> expected = {1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F};
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(w[i], expected[i], 1e-5F) << i;
}

TEST_F(CudaWrappersGpu, ErrorsCarryCodeAndClearLastError) {
  void* p = nullptr;
  try {
    // Far more than any GPU has: a clean, non-sticky allocation failure.
    CANZONA_CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 62));
    FAIL() << "no exception";
  } catch (const canzona::CudaError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorMemoryAllocation));
    EXPECT_NE(std::string(e.what()).find("CUDA error cudaErrorMemoryAllocation (2): "),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  // An impossible launch configuration is reported by CANZONA_CUDA_CHECK_LAUNCH and cleared.
  scale_kernel<<<1, 4096>>>(nullptr, 0, 1.0F);
  EXPECT_THROW(CANZONA_CUDA_CHECK_LAUNCH(), canzona::CudaError);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_THROW(canzona::cuda::DeviceBuffer<char>(std::size_t{1} << 62), canzona::CudaError);
}

}  // namespace
