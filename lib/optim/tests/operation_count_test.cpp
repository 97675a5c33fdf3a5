// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Backend operations per optimizer step (DESIGN §5: O(shape groups), not O(matrices)). Every
// backend operation is a kernel launch, a library call or a copy on a GPU, so this count is the
// launch overhead of a step; the Backend interface counts it identically on every backend.
#include "optim_test_support.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace canzona::optim {
namespace {

using test::DeviceArray;

/// A backend that counts and runs nothing, so the operations of a whole Qwen3 rank's step can
/// be counted without its arithmetic or its memory (the interface counts every call before the
/// hook runs). Allocations are distinct addresses that are never dereferenced; download writes
/// zeros (a clean non-finite counter).
class CountOnlyBackend final : public backend::Backend {
 public:
  std::string_view name() const override { return "count-only"; }

 protected:
  void release(void* /*data*/) noexcept override {}
  backend::Buffer do_allocate(std::size_t bytes) override {
    const std::uintptr_t at = next_;
    next_ += (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
    return backend::Buffer(this, reinterpret_cast<void*>(at), bytes);  // NOLINT
  }
  void do_upload(void*, const void*, std::size_t) override {}
  void do_download(void* host, const void*, std::size_t bytes) override {
    std::memset(host, 0, bytes);
  }
  void do_synchronize() override {}
  void do_fill_zero(void*, std::size_t) override {}
  void do_copy(backend::Items<void>, backend::Items<const void>, std::size_t) override {}
  void do_convert(void*, backend::ElementType, const void*, backend::ElementType,
                  std::int64_t) override {}
  void do_gemm(const backend::GemmArgs&) override {}
  void do_eigh(std::int64_t, std::int64_t, float*, float*, void*) override {}
  std::size_t do_eigh_workspace_bytes(std::int64_t, std::int64_t) override { return 0; }
  void do_orthonormalize(std::int64_t, std::int64_t, float*, void*) override {}
  std::size_t do_orthonormalize_workspace_bytes(std::int64_t, std::int64_t) override { return 0; }
  void do_sum_squares(const void*, backend::ElementType, std::int64_t, std::int64_t,
                      float*) override {}
  void do_count_nonfinite(backend::Items<const float>, std::int64_t, int*) override {}
  void do_column_dots(const float*, const float*, std::int64_t, std::int64_t, float*) override {}
  void do_muon_momentum(backend::Items<float>, backend::Items<const float>, backend::Items<void>,
                        backend::ElementType, std::int64_t, float, bool) override {}
  void do_normalize(void*, backend::ElementType, std::int64_t, std::int64_t, const float*,
                    float) override {}
  void do_normalize_rms(backend::Items<float>, std::int64_t, const float*, float) override {}
  void do_axpby(void*, const void*, backend::ElementType, std::int64_t, float, float) override {}
  void do_ema(backend::Items<float>, backend::Items<const float>, std::int64_t, float) override {}
  void do_ema_square(backend::Items<float>, backend::Items<const float>, std::int64_t,
                     float) override {}
  void do_adam_direction(backend::Items<const float>, backend::Items<const float>,
                         backend::Items<float>, std::int64_t, float, float, float) override {}
  void do_divide_sqrt_eps(backend::Items<const float>, backend::Items<const float>,
                          backend::Items<float>, std::int64_t, float) override {}
  void do_apply_update(backend::Items<float>, backend::Items<const void>, backend::ElementType,
                       std::int64_t, float, float, float, backend::DecayOrder, const float*,
                       const float*) override {}
  void do_adamw_step(backend::Items<float>, backend::Items<const float>, backend::Items<float>,
                     backend::Items<float>, std::int64_t, float, float, float, float, float, float,
                     float) override {}
  void do_add_diagonal(float*, std::int64_t, std::int64_t, float) override {}
  void do_scale_columns_pow(const float*, const float*, float*, std::int64_t, std::int64_t, float,
                            float) override {}
  void do_reverse_columns(float*, std::int64_t, std::int64_t) override {}
  void do_argsort_descending(const float*, std::int64_t, std::int64_t, int*, void*) override {}
  std::size_t do_argsort_workspace_bytes(std::int64_t, std::int64_t) override { return 0; }
  void do_permute_columns(backend::Items<const float>, std::int64_t, std::int64_t, const int*,
                          backend::Items<float>) override {}
  void do_permute_rows(backend::Items<const float>, std::int64_t, std::int64_t, const int*,
                       backend::Items<float>) override {}

 private:
  std::uintptr_t next_ = std::uintptr_t{1} << 32;
};

/// Operations of every step 1..steps of one rank stepping `model` whole (dp = tp = 1): the
/// matrix parameters with `kind`'s optimizer, or the other parameters with AdamW.
std::vector<std::uint64_t> operations_per_step(const model::ModelSpec& model, OptimizerKind kind,
                                               int steps) {
  CountOnlyBackend be;
  OptimizerSpec spec;
  spec.kind = kind;
  auto opt = make_matrix_optimizer(spec, be);
  std::vector<std::unique_ptr<MatrixState>> states;
  std::vector<backend::Buffer> arrays;
  std::vector<StepTask> tasks;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> per_shape;
  for (const model::ParamSpec& p : model::parameters(model, model::ParamLayout::kMegatron)) {
    const bool matrix = p.uses_matrix_optimizer();
    if (matrix != (kind != OptimizerKind::kAdamW)) continue;
    const Shape s = matrix ? Shape{p.shape[0], p.shape[1]} : Shape{1, p.numel()};
    states.push_back(opt->make_state(s.rows, s.cols));
    arrays.push_back(be.allocate(static_cast<std::size_t>(s.rows * s.cols) * sizeof(float)));
    arrays.push_back(be.allocate(static_cast<std::size_t>(s.rows * s.cols) * sizeof(float)));
    tasks.push_back(StepTask{states.back().get(), arrays[arrays.size() - 2].as<float>(),
                             arrays.back().as<float>(), s, p.name});
    ++per_shape[{s.rows, s.cols}];
  }
  // One batch per shape, as the executor reserves for its rank's matrices.
  std::vector<Shape> shapes;
  std::int64_t largest_group = 1;
  for (const auto& [shape, count] : per_shape) {
    shapes.push_back(Shape{shape.first, shape.second});
    largest_group = std::max(largest_group, count);
  }
  opt->reserve(shapes, largest_group);
  std::vector<std::uint64_t> ops;
  for (int t = 1; t <= steps; ++t) {
    const backend::OpCounts before = be.op_counts();
    opt->step_batch(tasks);
    ops.push_back((be.op_counts() - before).operations);
  }
  return ops;
}

/// SOAP's QRs per eigenbasis refresh for a whole `model`: one per matrix side of at most
/// max_precond_dim (the one per-matrix operation left in a SOAP step).
std::uint64_t soap_refresh_qrs(const model::ModelSpec& model, const SoapOptions& o) {
  std::uint64_t qrs = 0;
  for (const model::ParamSpec& p : model::parameters(model, model::ParamLayout::kMegatron)) {
    if (!p.uses_matrix_optimizer()) continue;
    qrs +=
        (p.shape[0] <= o.max_precond_dim ? 1U : 0U) + (p.shape[1] <= o.max_precond_dim ? 1U : 0U);
  }
  return qrs;
}

/// `name` with its decoder cut to two layers: the same shapes, two matrices per layer shape.
model::ModelSpec two_layers_of(const char* name) {
  model::ModelSpec m = model::find_model(name);
  m.num_layers = 2;
  return m;
}

// A whole Qwen3 rank's step issues as many backend operations as the same model cut to two
// layers: batching makes the count a function of the shapes, not of the number of layers. The
// one per-matrix exception is SOAP's eigenbasis refresh (every precondition_frequency steps),
// and only by its QRs (orthonormalize is one matrix per call): a refresh step of the whole model
// exceeds the cut one by exactly the QRs of the extra layers. The counts are printed for
// results/tables/backend-operations.md.
TEST(OperationCountTest, Qwen3RankStepsCostTheOperationsOfTwoLayers) {
  constexpr int kSteps = 12;  // past Shampoo's and SOAP's default refresh intervals
  for (const char* name : {"qwen3-8b", "qwen3-32b"}) {
    for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                     OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
      SCOPED_TRACE(fmt::format("{} {}", name, to_string(kind)));
      const std::vector<std::uint64_t> whole =
          operations_per_step(model::find_model(name), kind, kSteps);
      const std::vector<std::uint64_t> cut = operations_per_step(two_layers_of(name), kind, kSteps);
      const std::uint64_t hot = whole[1];
      const std::uint64_t most = *std::max_element(whole.begin(), whole.end());
      fmt::print("{} {}: step 1 {}, step 2 {}, most {} backend operations\n", name, to_string(kind),
                 whole[0], hot, most);
      const SoapOptions soap;  // the defaults operations_per_step runs with
      const std::uint64_t extra_qrs = soap_refresh_qrs(model::find_model(name), soap) -
                                      soap_refresh_qrs(two_layers_of(name), soap);
      int refreshes = 0;
      for (int t = 1; t <= kSteps; ++t) {
        const auto i = static_cast<std::size_t>(t - 1);
        // Step t is SOAP's update t − 1 (its first step only initialises).
        const bool refresh =
            kind == OptimizerKind::kSoap && t > 1 && (t - 1) % soap.precondition_frequency == 0;
        refreshes += refresh ? 1 : 0;
        EXPECT_EQ(whole[i], cut[i] + (refresh ? extra_qrs : 0)) << "step " << t;
      }
      EXPECT_EQ(refreshes, kind == OptimizerKind::kSoap ? 1 : 0);
    }
  }
}

/// Backend operations of step `t` (1-based) of `k` same-shape matrices stepped as one batch.
std::uint64_t operations_of_step(const OptimizerSpec& spec, std::int64_t k, int t) {
  auto be = backend::make_backend("cpu");
  auto opt = make_matrix_optimizer(spec, *be);
  const Shape s{8, 6};
  opt->reserve(std::vector<Shape>{s}, k);
  std::vector<std::unique_ptr<MatrixState>> states;
  std::vector<DeviceArray> params, grads;
  std::vector<StepTask> tasks;
  for (std::int64_t i = 0; i < k; ++i) {
    states.push_back(opt->make_state(s.rows, s.cols));
    params.emplace_back(*be, s.rows * s.cols);
    grads.emplace_back(*be, s.rows * s.cols);
    grads.back().upload(test::test_gradient(s, 77 + static_cast<std::uint64_t>(i)));
  }
  for (std::int64_t i = 0; i < k; ++i) {
    const auto u = static_cast<std::size_t>(i);
    tasks.push_back(StepTask{states[u].get(), params[u].data(), grads[u].data(), s, "w"});
  }
  std::uint64_t ops = 0;
  for (int step = 1; step <= t; ++step) {
    const backend::OpCounts before = be->op_counts();
    opt->step_batch(tasks);
    ops = (be->op_counts() - before).operations;
  }
  return ops;
}

// A group of 3 and a group of 7 same-shape matrices issue the same operations (one batched call
// each), for every optimizer, on hot steps and on Shampoo's root refresh, on the cpu backend;
// a group adds to a single matrix only its fixed number of batched gather / scatter copies.
// SOAP's eigenbasis refresh adds one QR per matrix side and nothing else per matrix.
TEST(OperationCountTest, StepsCostTheSameOperationsForThreeOrSevenMatricesOfAShape) {
  for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                   OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
    SCOPED_TRACE(to_string(kind));
    const OptimizerSpec spec = test::test_spec(kind);
    // Shampoo refreshes on step 1 (and every k after), SOAP initialises on step 1; step 2 is a
    // hot step for both with the test spec's intervals.
    for (const int t : {1, 2}) {
      if (kind == OptimizerKind::kSoap && t == 1) continue;  // init: per-matrix eigh gathers
      const std::uint64_t one = operations_of_step(spec, 1, t);
      const std::uint64_t many = operations_of_step(spec, 7, t);
      EXPECT_GT(one, 0U);
      EXPECT_EQ(many, operations_of_step(spec, 3, t)) << "step " << t;
      EXPECT_LE(many, one + 12) << "step " << t;
    }
  }
  // SOAP's first refresh is update precondition_frequency, i.e. step precondition_frequency + 1.
  const OptimizerSpec soap = test::test_spec(OptimizerKind::kSoap);
  const int refresh = soap.soap.precondition_frequency + 1;
  const std::uint64_t sides = 2;  // 8 and 6 are both within max_precond_dim
  ASSERT_GE(soap.soap.max_precond_dim, 8);
  const std::uint64_t three = operations_of_step(soap, 3, refresh);
  EXPECT_EQ(operations_of_step(soap, 7, refresh), three + 4 * sides);
  EXPECT_GT(three, operations_of_step(soap, 3, refresh - 1)) << "step " << refresh;
}

}  // namespace
}  // namespace canzona::optim
