// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/bench/did_you_mean.hpp>

#include <gtest/gtest.h>

namespace canzona::bench {
namespace {

TEST(DidYouMeanTest, SuggestsTheNearestNameOnlyForATypo) {
  const std::vector<std::string> flags = {"--threshold", "--alpha", "--filter", "--out"};
  EXPECT_EQ(did_you_mean("--threshhold", flags), "; did you mean --threshold?");
  EXPECT_EQ(did_you_mean("--fitler", flags), "; did you mean --filter?");
  EXPECT_EQ(did_you_mean("--outt", flags), "; did you mean --out?");
  EXPECT_EQ(did_you_mean("--repetitions", flags), "");
  EXPECT_EQ(did_you_mean("plna", {"plan", "project", "plot"}), "; did you mean plan?");
  EXPECT_EQ(did_you_mean("anything", {}), "");
}

}  // namespace
}  // namespace canzona::bench
