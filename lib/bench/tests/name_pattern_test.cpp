// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Patterns over benchmark names: RE2 matches in linear time, so the patterns that make a
// backtracking engine (std::regex, Google Benchmark's filter) run for minutes or overflow its
// stack answer at once here; this test would hit its CTest timeout under std::regex.
#include <canzona/bench/name_pattern.hpp>
#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::bench {
namespace {

TEST(NamePatternTest, SearchesNamesLikeGrep) {
  const NamePattern any("canzona/qwen3", "--filter");
  EXPECT_TRUE(any.matches("OptimizerStep/muon/canzona/qwen3-8b/gpus:8/dp:8/tp:1"));
  EXPECT_FALSE(any.matches("OptimizerStep/muon/sc/qwen3-8b/gpus:8/dp:8/tp:1"));
  const NamePattern anchored("^OptimizerStep/muon/(canzona|sc)/qwen3-8b~d16/gpus:2/dp:2/tp:1$",
                             "--filter");
  EXPECT_TRUE(anchored.matches("OptimizerStep/muon/sc/qwen3-8b~d16/gpus:2/dp:2/tp:1"));
  EXPECT_FALSE(anchored.matches("OptimizerStep/muon/sc/qwen3-8b~d16/gpus:2/dp:2/tp:1/projected"));
  EXPECT_EQ(anchored.text(), "^OptimizerStep/muon/(canzona|sc)/qwen3-8b~d16/gpus:2/dp:2/tp:1$");
}

TEST(NamePatternTest, PathologicalPatternsAnswerInLinearTime) {
  const std::string long_name(100000, 'a');
  // Exponential backtracking in std::regex (nested and overlapping repetitions).
  EXPECT_FALSE(NamePattern("(.*.*)*X", "--filter").matches(long_name));
  EXPECT_FALSE(NamePattern("(a|aa)*c", "--filter").matches(long_name));
  EXPECT_FALSE(NamePattern("(a+)+$b", "--filter").matches(long_name));
  // Polynomial: n^8 steps for a backtracking engine.
  EXPECT_FALSE(NamePattern(".*.*.*.*.*.*.*.*X", "--filter").matches(long_name));
  // 20 000 nested groups overflow std::regex's recursive compiler (a segfault).
  const std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
  EXPECT_TRUE(NamePattern(deep, "--filter").matches("Planner/zero1/qwen3-8b/gpus:8/dp:8/tp:1"));
}

TEST(NamePatternTest, BadPatternsNameTheFlag) {
  const auto refused = [](const std::string& pattern, const std::string& fragment) {
    try {
      NamePattern(pattern, "--benchmark_filter");
      ADD_FAILURE() << "accepted '" << pattern.substr(0, 40) << "'";
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("--benchmark_filter"), std::string::npos) << message;
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
    }
  };
  refused("(", "not a valid pattern (missing )");
  refused("a**", "not a valid pattern");
  refused("(?<name", "not a valid pattern");
  refused(std::string(kMaxNamePatternBytes + 1, 'a'), "more than the 65536");
  // Counted repetitions that would compile to gigabytes hit RE2's memory bound.
  refused("((((a{100}){100}){100}){100})", "not a valid pattern");
}

}  // namespace
}  // namespace canzona::bench
