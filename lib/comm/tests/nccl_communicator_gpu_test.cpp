// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NcclCommunicator on one GPU (create_local({0})): every collective, checked element-wise
// against host expectations (uneven counts degenerate to a single part), requests and stream
// ordering, split and finalize. Skips without a GPU; fails under CANZONA_REQUIRE_GPU=1.
#include <canzona/comm/nccl_check.hpp>
#include <canzona/comm/nccl_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/event.hpp>
#include <canzona/cuda/stream.hpp>
#include <canzona/testing/gpu.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace canzona::comm;  // NOLINT(google-build-using-namespace): test brevity
namespace cc = canzona::cuda;

class NcclSingleGpu : public canzona::testing::OneGpuTest {
 protected:
  void SetUp() override {
    canzona::testing::OneGpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    const std::array<int, 1> devices = {0};
    auto comms = NcclCommunicator::create_local(devices);
    ASSERT_EQ(comms.size(), 1U);
    comm_ = std::move(comms[0]);
  }
  void TearDown() override {
    if (comm_) {
      comm_->finalize();
    }
  }

  // Host → device copy on the communicator's stream.
  template <typename T>
  cc::DeviceBuffer<T> upload(const std::vector<T>& host) {
    cc::DeviceBuffer<T> dev(std::max<std::size_t>(host.size(), 1));
    dev.copy_from_host(std::span<const T>(host), comm_->stream());
    return dev;
  }
  template <typename T>
  std::vector<T> download(const cc::DeviceBuffer<T>& dev, std::size_t count) {
    std::vector<T> host(count);
    dev.copy_to_host(std::span<T>(host), comm_->stream());
    comm_->stream().synchronize();
    return host;
  }

  std::unique_ptr<NcclCommunicator> comm_;
};

std::vector<float> random_values(std::mt19937_64& rng, std::size_t n) {
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng));
  return v;
}

TEST_F(NcclSingleGpu, Basics) {
  EXPECT_EQ(comm_->rank(), 0);
  EXPECT_EQ(comm_->size(), 1);
  EXPECT_EQ(comm_->name(), "world");
  EXPECT_EQ(comm_->backend(), "nccl");
  EXPECT_EQ(comm_->memory_space(), MemorySpace::kDevice);
  EXPECT_EQ(comm_->device(), 0);
  EXPECT_NE(comm_->stream().get(), nullptr);
  EXPECT_NE(comm_->nccl().get(), nullptr);
}

TEST_F(NcclSingleGpu, EveryCollectiveElementWise) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 1 + rng() % 1000;
  const std::vector<float> host = random_values(rng, n);
  const std::vector<std::size_t> counts = {n};
  const std::vector<std::size_t> zero = {0};
  constexpr auto kF32 = DataType::kFloat32;

  auto src = upload(host);
  cc::DeviceBuffer<float> dst(n);

  for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
    dst.zero(comm_->stream());
    comm_->all_reduce(src.data(), dst.data(), n, kF32, op).wait();
    EXPECT_EQ(download(dst, n), host);
    dst.zero(comm_->stream());
    comm_->reduce_scatter(src.data(), dst.data(), counts, kF32, op).wait();
    EXPECT_EQ(download(dst, n), host);
    dst.zero(comm_->stream());
    comm_->reduce(src.data(), dst.data(), n, kF32, op, 0).wait();
    EXPECT_EQ(download(dst, n), host);
  }
  dst.zero(comm_->stream());
  comm_->all_gather(src.data(), dst.data(), counts, kF32).wait();
  EXPECT_EQ(download(dst, n), host);

  dst.zero(comm_->stream());
  const std::vector<std::size_t> displ = {0};
  comm_->all_to_all(src.data(), counts, displ, dst.data(), counts, displ, kF32).wait();
  EXPECT_EQ(download(dst, n), host);

  dst.zero(comm_->stream());
  comm_->gather(src.data(), n, dst.data(), counts, kF32, 0).wait();
  EXPECT_EQ(download(dst, n), host);

  dst.zero(comm_->stream());
  comm_->scatter(src.data(), counts, dst.data(), n, kF32, 0).wait();
  EXPECT_EQ(download(dst, n), host);

  auto bcast = upload(host);
  comm_->broadcast(bcast.data(), n, kF32, 0).wait();
  EXPECT_EQ(download(bcast, n), host);

  // In place all-reduce; zero-size parts issue nothing and still complete.
  auto inplace = upload(host);
  comm_->all_reduce(inplace.data(), inplace.data(), n, kF32, ReduceOp::kSum).wait();
  EXPECT_EQ(download(inplace, n), host);
  comm_->reduce_scatter(nullptr, nullptr, zero, kF32, ReduceOp::kSum).wait();
  comm_->all_gather(nullptr, nullptr, zero, kF32).wait();
  comm_->barrier().wait();

  // Other types through the same paths.
  std::vector<std::int64_t> ints(n);
  for (std::size_t i = 0; i < n; ++i) ints[i] = static_cast<std::int64_t>(rng() % 1000) - 500;
  auto dints = upload(ints);
  cc::DeviceBuffer<std::int64_t> dints_out(n);
  comm_->all_reduce(dints.data(), dints_out.data(), n, DataType::kInt64, ReduceOp::kMax).wait();
  EXPECT_EQ(download(dints_out, n), ints);
  std::vector<std::uint16_t> halves(n);
  for (std::size_t i = 0; i < n; ++i) halves[i] = static_cast<std::uint16_t>(rng());
  auto dhalves = upload(halves);
  cc::DeviceBuffer<std::uint16_t> dhalves_out(n);
  comm_->all_gather(dhalves.data(), dhalves_out.data(), counts, DataType::kBFloat16).wait();
  EXPECT_EQ(download(dhalves_out, n), halves);

  // One trace entry per call; a single rank moves no bytes.
  const Trace& trace = comm_->trace();
  EXPECT_EQ(trace.size(), 20U);
  EXPECT_EQ(total_bytes_sent(trace), 0U);
  EXPECT_EQ(total_bytes_received(trace), 0U);
  EXPECT_EQ(trace.front().op, CollectiveOp::kAllReduce);
  EXPECT_EQ(trace.front().count, n);
}

TEST_F(NcclSingleGpu, RequestsOrderOtherStreamsWithoutHostSync) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 1 << 16;
  const std::vector<float> host = random_values(rng, n);

  cc::Stream producer;
  cc::DeviceBuffer<float> src(n);
  src.copy_from_host(std::span<const float>(host), producer);
  comm_->order_after(producer);  // the collective must see the producer's copy
  cc::DeviceBuffer<float> dst(n);
  Request req = comm_->all_reduce(src.data(), dst.data(), n, DataType::kFloat32, ReduceOp::kSum);

  cc::Stream consumer;
  NcclCommunicator::make_wait(req, consumer);
  std::vector<float> out(n);
  dst.copy_to_host(std::span<float>(out), consumer);
  consumer.synchronize();
  EXPECT_EQ(out, host);
  EXPECT_TRUE(req.test());
  req.wait();
  EXPECT_FALSE(req.pending());
  NcclCommunicator::make_wait(req, consumer);  // complete: a no-op
}

TEST_F(NcclSingleGpu, SplitAndProcessGroups) {
  std::unique_ptr<Communicator> sub = comm_->split(0, 0, "sub");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->size(), 1);
  EXPECT_EQ(sub->name(), "sub");
  sub->barrier().wait();
  static_cast<NcclCommunicator&>(*sub).finalize();

  ProcessGroups groups = split_dp_tp(*comm_, 1);
  ASSERT_NE(groups.dp, nullptr);
  ASSERT_NE(groups.tp, nullptr);
  groups.dp->barrier().wait();
  groups.tp->barrier().wait();
  static_cast<NcclCommunicator&>(*groups.tp).finalize();
  static_cast<NcclCommunicator&>(*groups.dp).finalize();
  EXPECT_THROW(groups.dp->barrier(), canzona::ConfigError);  // finalized
}

TEST_F(NcclSingleGpu, NcclErrorsCarryStringAndVersion) {
  // An invalid root is caught by our validation before NCCL sees it.
  cc::DeviceBuffer<float> buf(4);
  EXPECT_THROW(comm_->broadcast(buf.data(), 4, DataType::kFloat32, 1), canzona::ConfigError);
  // A raw NCCL call rejected by NCCL surfaces as NcclError. A null communicator is refused
  // before any state is touched, so the fixture's communicator stays healthy for finalize().
  int count = 0;
  try {
    CANZONA_NCCL_CHECK(ncclCommCount(nullptr, &count), comm_->nccl().get());
    FAIL() << "no exception";
  } catch (const canzona::NcclError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), static_cast<int>(ncclInvalidArgument));
    EXPECT_NE(what.find("NCCL error ncclInvalidArgument (4): "), std::string::npos) << what;
    EXPECT_NE(what.find("in 'ncclCommCount(nullptr, &count)'"), std::string::npos) << what;
    EXPECT_NE(what.find("(NCCL 2."), std::string::npos) << what;
  }
}

}  // namespace
