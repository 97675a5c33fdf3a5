// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Atomic writes: the target appears complete or not at all, and no temporary is left behind.
#include <canzona/core/error.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace canzona::io {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("canzona-atomic-" + std::to_string(canzona::testing::test_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::size_t files_in_dir() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWithoutLeavingTemporaries) {
  const fs::path target = dir_ / "result.json";
  write_file_atomically(target, "first");
  EXPECT_EQ(read(target), "first");
  write_file_atomically(target, std::string(100000, 'x'));
  EXPECT_EQ(read(target), std::string(100000, 'x'));
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(AtomicFileTest, MissingDirectoryIsAClearErrorAndWritesNothing) {
  const fs::path target = dir_ / "missing" / "result.json";
  try {
    write_file_atomically(target, "data");
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(files_in_dir(), 0u);
}

}  // namespace
}  // namespace canzona::io
