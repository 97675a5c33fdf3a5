// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON text of a user's file: every text the parser refuses is a ConfigError naming the file, the
// reason and the fix — including numbers beyond a double, which the parser reports as out_of_range
// rather than parse_error.
#include <canzona/core/error.hpp>
#include <canzona/io/json_text.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::io {
namespace {

std::string refusal(std::string_view text) {
  try {
    parse_json_text(text, "model spec 'x.json'", "fix the syntax");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError for: " << text;
  return {};
}

TEST(JsonTextTest, ParsesValidText) {
  const nlohmann::json doc = parse_json_text(R"({"a": [1, 2.5, "x"]})", "f", "fix");
  EXPECT_EQ(doc.at("a").at(0), 1);
  EXPECT_EQ(doc.at("a").at(1), 2.5);
}

TEST(JsonTextTest, SyntaxErrorsNameTheFileTheReasonAndTheFix) {
  const std::string what = refusal("{\n  \"hidden_size\": 1024,,\n}");
  EXPECT_NE(what.find("model spec 'x.json': not valid JSON"), std::string::npos) << what;
  EXPECT_NE(what.find("line 2"), std::string::npos) << what;
  EXPECT_NE(what.find("; fix the syntax"), std::string::npos) << what;
}

TEST(JsonTextTest, NumbersBeyondADoubleAreRefusedNotThrownThrough) {
  for (const char* text : {"1e400", "[-1e400]", R"({"n": 4444444e4444444})"}) {
    const std::string what = refusal(text);
    EXPECT_NE(what.find("number overflow"), std::string::npos) << what;
  }
}

TEST(JsonTextTest, EmptyAndTruncatedTextAreRefused) {
  EXPECT_NE(refusal("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": )").find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace canzona::io
