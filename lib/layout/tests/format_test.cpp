// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Text and JSON views of a ZeRO-1 layout (the hand-computed layout of zero1_test.cpp).
#include <canzona/layout/format.hpp>
#include <canzona/layout/json.hpp>
#include <canzona/layout/zero1.hpp>
#include "hand_model.hpp"

#include <gtest/gtest.h>

#include <string>

namespace canzona::layout {
namespace {

Zero1Layout hand_layout() {
  const model::ModelSpec m = testing::hand_model();
  return build_zero1_layout(m, ParallelConfig{4, 1, 8}, Zero1Options{50, false, true});
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(FormatTest, SummaryTable) {
  const std::string text = format_zero1_layout(hand_layout(), false);
  EXPECT_TRUE(contains(text, "ZeRO-1 layout of hand")) << text;
  EXPECT_TRUE(contains(text, "dp=4 tp=1 world=4")) << text;
  EXPECT_TRUE(contains(text, "buffer 'matrix': 4 params, 2 buckets, 256 elements (112 padding)"))
      << text;
  EXPECT_TRUE(contains(text, "buffer 'adamw': 6 params, 3 buckets, 896 elements")) << text;
  // bucket 0 of the matrix buffer: [0, 128), shard 32, 2 params, 1 cut.
  EXPECT_TRUE(contains(text,
                       "       0              0            128            128            32"
                       "       2     1"))
      << text;
  EXPECT_TRUE(contains(text, "summary: 1152 elements in 2 buffers")) << text;
  EXPECT_TRUE(contains(text, "1 of 4 matrices cut across DP ranks")) << text;
  EXPECT_FALSE(contains(text, "linear_fc1.weight")) << text;
}

TEST(FormatTest, VerboseListsEveryParamWithItsRanks) {
  const std::string text = format_zero1_layout(hand_layout(), true);
  EXPECT_TRUE(contains(text, "decoder.layers.0.mlp.linear_fc1.weight")) << text;
  EXPECT_TRUE(contains(text, "ranks 2-3  CUT matrix")) << text;
  EXPECT_TRUE(contains(text, "embedding.word_embeddings.weight")) << text;
  EXPECT_TRUE(contains(text, "[128x4]")) << text;
}

TEST(FormatTest, JsonCarriesBucketsEntriesAndSlices) {
  const nlohmann::json j = hand_layout();
  EXPECT_EQ(j.at("model"), "hand");
  EXPECT_EQ(j.at("config").at("dp"), 4);
  EXPECT_EQ(j.at("options").at("bucket_size"), 50);
  const nlohmann::json& matrix = j.at("buffers").at(0);
  EXPECT_EQ(matrix.at("name"), "matrix");
  EXPECT_EQ(matrix.at("total"), 256);
  EXPECT_EQ(matrix.at("cut_matrices"), 1);
  EXPECT_EQ(matrix.at("buckets").at(0).at("slices"),
            nlohmann::json::parse("[[0,32],[32,64],[64,96],[96,128]]"));
  EXPECT_EQ(matrix.at("buckets").at(1).at("data_end"), 208);
  const nlohmann::json& fc1 = matrix.at("entries").at(1);
  EXPECT_EQ(fc1.at("name"), "decoder.layers.0.mlp.linear_fc1.weight");
  EXPECT_EQ(fc1.at("start"), 64);
  EXPECT_EQ(fc1.at("end"), 128);
  EXPECT_EQ(fc1.at("bucket"), 0);
  EXPECT_EQ(fc1.at("ranks"), nlohmann::json::parse("[2,3]"));
  EXPECT_EQ(fc1.at("shape"), nlohmann::json::parse("[16,4]"));
  EXPECT_EQ(j.at("buffers").at(1).at("entries").size(), 6U);
}

}  // namespace
}  // namespace canzona::layout
