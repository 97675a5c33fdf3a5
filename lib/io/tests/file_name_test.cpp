// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A name that becomes one file inside a chosen folder can never name another place.
#include <canzona/core/error.hpp>
#include <canzona/io/file_name.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::io {
namespace {

TEST(FileNameTest, PlainNamesPass) {
  for (const std::string name : {"smoke", "nightly", "kernels", "my-run_2.v1", "ref.json"}) {
    EXPECT_EQ(checked_file_name(name, "--name"), name);
  }
  EXPECT_EQ(checked_file_name(std::string(255, 'a'), "--name").size(), 255u);
}

TEST(FileNameTest, AnythingThatLeavesTheFolderIsRefused) {
  for (const std::string& name :
       {std::string(""), std::string("."), std::string(".."), std::string("../../x"),
        std::string("/abs/path"), std::string("a/b"), std::string("-rf"), std::string("a\nb"),
        std::string("a\0b", 3), std::string("tab\there"), std::string(256, 'a')}) {
    try {
      checked_file_name(name, "context 'canzona_preset'");
      ADD_FAILURE() << "accepted '" << name << "'";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("context 'canzona_preset'"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "a raw newline";
    }
  }
}

}  // namespace
}  // namespace canzona::io
