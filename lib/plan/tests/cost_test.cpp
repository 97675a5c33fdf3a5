// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Per-entry costs: numel is the TP-local element count; flops is our optimizer's cost of the
// FULL matrix (checked by hand for one Muon step), AdamW for everything else.
#include <canzona/core/error.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/plan/cost.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::plan {
namespace {

TEST(CostTest, NamesRoundTripAndUnknownNamesListTheChoices) {
  EXPECT_EQ(parse_cost_kind("numel"), CostKind::kNumel);
  EXPECT_EQ(parse_cost_kind("FLOPS"), CostKind::kFlops);
  EXPECT_EQ(to_string(CostKind::kNumel), "numel");
  EXPECT_EQ(to_string(CostKind::kFlops), "flops");
  try {
    parse_cost_kind("memory");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("numel, flops"), std::string::npos);
  }
}

TEST(CostTest, NumelIsTheTpLocalElementCount) {
  const auto zero1 = layout::build_zero1_layout(model::find_model("Qwen3-8B"), {8, 8, 8});
  const optim::OptimizerSpec muon;
  for (const auto& buffer : zero1.buffers) {
    const auto costs = entry_costs(zero1, buffer, CostKind::kNumel, muon);
    ASSERT_EQ(costs.size(), buffer.entries.size());
    for (std::size_t e = 0; e < costs.size(); ++e) {
      EXPECT_EQ(costs[e], static_cast<double>(buffer.entries[e].numel()));
    }
  }
}

TEST(CostTest, FlopsCostTheFullMatrixForMuonAndAdamWForTheRest) {
  const auto zero1 = layout::build_zero1_layout(model::find_model("Qwen3-8B"), {8, 8, 8});
  const optim::OptimizerSpec muon;  // 5 NS steps, Nesterov
  bool checked_fc1 = false;
  for (const auto& buffer : zero1.buffers) {
    const auto costs = entry_costs(zero1, buffer, CostKind::kFlops, muon);
    for (std::size_t e = 0; e < costs.size(); ++e) {
      const auto& entry = buffer.entries[e];
      if (entry.name == "decoder.layers.0.mlp.linear_fc1.weight") {
        // Full 24576×4096 (TP-local 3072×4096). By hand: 13 element-wise FLOPs per element
        // (nonfinite 1, momentum 3, Nesterov 3, sum of squares 2, normalize 1, update 3) plus 5
        // NS iterations of Gram 2·d²·big + square 2·d³ + update 2·r·c·d with d = 4096.
        ASSERT_EQ(entry.shape, (std::vector<std::int64_t>{3072, 4096}));
        const double r = 24576, c = 4096, d = 4096, big = 24576;
        const double by_hand = 13 * r * c + 5 * (2 * d * d * big + 2 * d * d * d + 2 * r * c * d);
        EXPECT_DOUBLE_EQ(costs[e], by_hand);
        EXPECT_DOUBLE_EQ(costs[e], optim::step_cost(muon, 24576, 4096).mean_flops());
        EXPECT_NE(costs[e], optim::step_cost(muon, 3072, 4096).mean_flops());
        checked_fc1 = true;
      } else if (entry.matrix) {
        const auto& full = zero1.params[entry.param_index].shape;
        EXPECT_DOUBLE_EQ(costs[e], optim::step_cost(muon, full[0], full[1]).mean_flops());
      } else {
        // AdamW: nonfinite check 1 + step 15 per TP-local element.
        EXPECT_DOUBLE_EQ(costs[e], 16.0 * static_cast<double>(entry.numel())) << entry.name;
      }
    }
  }
  EXPECT_TRUE(checked_fc1);
}

TEST(CostTest, AdamWSpecCostsEveryEntryElementWise) {
  const auto zero1 = layout::build_zero1_layout(model::find_model("Qwen3-8B"), {8, 4, 8});
  optim::OptimizerSpec adamw;
  adamw.kind = optim::OptimizerKind::kAdamW;
  for (const auto& buffer : zero1.buffers) {
    const auto costs = entry_costs(zero1, buffer, CostKind::kFlops, adamw);
    for (std::size_t e = 0; e < costs.size(); ++e) {
      EXPECT_DOUBLE_EQ(costs[e], 16.0 * static_cast<double>(buffer.entries[e].numel()));
    }
  }
}

}  // namespace
}  // namespace canzona::plan
