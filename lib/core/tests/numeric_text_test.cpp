// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Numeric user input: every rejection says in words what was typed and what is expected.
#include <canzona/core/error.hpp>
#include <canzona/core/numeric_text.hpp>

#include <gtest/gtest.h>

namespace canzona {
namespace {

std::string integer_error(std::string_view text, IntegerRange range) {
  return integer_range_error(text, range).value_or("accepted");
}
std::string real_error(std::string_view text, RealRange range) {
  return real_range_error(text, range).value_or("accepted");
}

TEST(NumericTextTest, IntegersNameTheValueAndTheRange) {
  const IntegerRange ranks{1, 65536};
  EXPECT_EQ(integer_error("8", ranks), "accepted");
  EXPECT_EQ(integer_error(" 8 ", ranks), "accepted");
  EXPECT_EQ(integer_error("0", ranks), "0 is out of range; expected an integer in [1, 65536]");
  EXPECT_EQ(integer_error("99999999999999999999", ranks),
            "99999999999999999999 is out of range; expected an integer in [1, 65536]");
  EXPECT_EQ(integer_error("abc", ranks),
            "'abc' is not an integer; expected an integer in [1, 65536]");
  EXPECT_EQ(integer_error("", ranks), "'' is not an integer; expected an integer in [1, 65536]");
  EXPECT_EQ(integer_error("2.5", ranks),
            "2.5 is not a whole number; expected an integer in [1, 65536]");
  EXPECT_EQ(integer_error("8x", IntegerRange{1}),
            "'8x' is not an integer; expected an integer >= 1");
  EXPECT_EQ(parse_integer("--dp", "16", ranks), 16);
  EXPECT_THROW(parse_integer("--dp", "-1", ranks), ConfigError);
}

TEST(NumericTextTest, RealsRefuseNanInfinityAndNeverPrintTheDoubleLimit) {
  const RealRange positive{0, std::numeric_limits<double>::max(), true};
  EXPECT_EQ(real_error("1e-3", positive), "accepted");
  EXPECT_EQ(real_error("0", positive), "0 is out of range; expected a finite number > 0");
  EXPECT_EQ(real_error("nan", positive), "nan is not a number; expected a finite number > 0");
  EXPECT_EQ(real_error("-inf", positive), "-inf is not finite; expected a finite number > 0");
  EXPECT_EQ(real_error("1e999", positive), "1e999 is not finite; expected a finite number > 0");
  EXPECT_EQ(real_error("fast", positive), "'fast' is not a number; expected a finite number > 0");
  EXPECT_EQ(real_error("0.5", RealRange{0, 1}), "accepted");
  EXPECT_EQ(real_error("1.5", RealRange{0, 1}), "1.5 is out of range; expected a number in [0, 1]");
  EXPECT_EQ(real_error("-1", RealRange{0}), "-1 is out of range; expected a finite number >= 0");
  EXPECT_EQ(real_error("1e-320", positive), "accepted");  // a denormal is still > 0
  EXPECT_DOUBLE_EQ(parse_real("--alpha", "0.25", RealRange{0, 1}), 0.25);
  try {
    parse_real("--canzona_max_gflop", "-1", positive);
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--canzona_max_gflop: -1 is out of range; expected a finite number > 0");
  }
}

}  // namespace
}  // namespace canzona
