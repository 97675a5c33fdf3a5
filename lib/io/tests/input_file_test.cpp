// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The input-file helper: every kind of path a user can mistype gets a message naming it, and no
// read of a directory or device ever starts.
#include <canzona/core/error.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/testing/seed.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace canzona::io {
namespace {

namespace fs = std::filesystem;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("canzona-input-" + std::to_string(canzona::testing::test_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string error_of(const fs::path& path, std::uint64_t max = kMaxInputBytes) {
    try {
      read_input_file(path, "model spec", max);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileAndFollowsLinks) {
  const fs::path file = dir_ / "spec.json";
  std::ofstream(file) << "{\"a\": 1}";
  EXPECT_EQ(read_input_file(file, "model spec"), "{\"a\": 1}");
  fs::create_symlink(file, dir_ / "link.json");
  EXPECT_EQ(read_input_file(dir_ / "link.json", "model spec"), "{\"a\": 1}");
  std::ofstream(dir_ / "empty.json");
  EXPECT_EQ(read_input_file(dir_ / "empty.json", "model spec"), "");
}

TEST_F(InputFileTest, NamesTheKindOfPathThatIsNotAFile) {
  EXPECT_NE(error_of(dir_).find("is a directory, not a regular file"), std::string::npos);
  EXPECT_NE(error_of("/dev/null").find("is a character device"), std::string::npos);
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Must not block waiting for a writer.
  EXPECT_NE(error_of(fifo).find("is a FIFO"), std::string::npos);
  const std::string missing = error_of(dir_ / "nope.json");
  EXPECT_NE(missing.find("model spec '"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file or directory"), std::string::npos) << missing;
  fs::create_symlink(dir_ / "nope.json", dir_ / "dangling.json");
  EXPECT_NE(error_of(dir_ / "dangling.json").find("No such file"), std::string::npos);
}

TEST_F(InputFileTest, RefusesFilesAboveTheLimitBeforeReading) {
  const fs::path file = dir_ / "big.json";
  std::ofstream(file) << std::string(100, 'x');
  const std::string error = error_of(file, 99);
  EXPECT_NE(error.find("has 100 bytes, more than the 99 bytes"), std::string::npos) << error;
  EXPECT_EQ(read_input_file(file, "model spec", 100).size(), 100u);
}

TEST_F(InputFileTest, ReportsUnreadableFiles) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files regardless of their permissions";
  const fs::path file = dir_ / "secret.json";
  std::ofstream(file) << "{}";
  fs::permissions(file, fs::perms::none);
  EXPECT_NE(error_of(file).find("Permission denied"), std::string::npos);
}

}  // namespace
}  // namespace canzona::io
