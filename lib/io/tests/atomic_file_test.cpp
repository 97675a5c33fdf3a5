// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Atomic writes: the target appears complete or not at all, and no temporary is left behind.
#include <canzona/core/error.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/testing/seed.hpp>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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

// A replaced result keeps the permissions its owner gave it; a new one is 0644.
TEST_F(AtomicFileTest, AReplacedFileKeepsItsPermissions) {
  const auto mode_of = [](const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(stat(path.c_str(), &st), 0);
    return st.st_mode & 07777;
  };
  const fs::path target = dir_ / "result.json";
  write_file_atomically(target, "new");
  EXPECT_EQ(mode_of(target), 0644u);
  for (const mode_t mode : {0600u, 0640u, 0755u}) {
    ASSERT_EQ(chmod(target.c_str(), mode), 0);
    write_file_atomically(target, "replaced");
    EXPECT_EQ(mode_of(target), mode);
    EXPECT_EQ(read(target), "replaced");
  }
}

// Checked before a command works: where the result would land, and that it is not an input.
TEST_F(AtomicFileTest, AnOutputIsCheckedBeforeAnyWork) {
  const fs::path input = dir_ / "input.json";
  write_file_atomically(input, "input");
  const auto refused = [](const std::function<void()>& check, const std::string& fragment) {
    try {
      check();
      ADD_FAILURE() << "expected ConfigError mentioning '" << fragment << "'";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  refused([&] { check_output_file(dir_ / "missing" / "out.json", "--out"); },
          "does not exist; create it first");
  refused([&] { check_output_file("/dev/full", "--out"); }, "is a character device");
  refused([&] { check_output_file(input, "--out", {dir_ / "other.json", input}); }, "is the input");
  // The same file by another name (a symbolic link, a relative path) is the same input.
  fs::create_symlink(input, dir_ / "link.json");
  refused([&] { check_output_file(dir_ / "link.json", "--out", {input}); }, "is the input");
  refused([&] { check_output_file(input, "--out", {dir_ / "." / "input.json"}); }, "is the input");
  EXPECT_NO_THROW(check_output_file(dir_ / "out.json", "--out", {input, dir_ / "absent.json"}));
  EXPECT_EQ(read(input), "input");
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

// The rename used to replace /dev/full, a directory or a FIFO by a regular file.
TEST_F(AtomicFileTest, RefusesTargetsThatAreNotRegularFiles) {
  const auto error_of = [](const fs::path& target) -> std::string {
    try {
      write_file_atomically(target, "data");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of("/dev/full").find("is a character device"), std::string::npos);
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  const fs::path sub = dir_ / "sub";
  fs::create_directory(sub);
  EXPECT_NE(error_of(sub).find("is a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(sub));
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of(fifo).find("FIFO"), std::string::npos);
  EXPECT_TRUE(fs::is_fifo(fifo));
  // Through a link to a device: named as the link's target.
  fs::create_symlink("/dev/full", dir_ / "full-link");
  EXPECT_NE(error_of(dir_ / "full-link").find("link target '/dev/full'"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(dir_ / "full-link"));
  EXPECT_EQ(files_in_dir(), 3u);  // sub, pipe, full-link: no temporaries
}

// Writing through a symlink updates the file it points to and keeps the link (the rename used to
// replace the link by a file).
TEST_F(AtomicFileTest, WritesThroughSymbolicLinks) {
  const fs::path real = dir_ / "real.json";
  write_file_atomically(real, "old");
  fs::create_symlink("real.json", dir_ / "relative-link");
  write_file_atomically(dir_ / "relative-link", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "relative-link"));
  EXPECT_EQ(read(real), "new");
  fs::create_symlink(dir_ / "relative-link", dir_ / "chain");
  write_file_atomically(dir_ / "chain", "newer");
  EXPECT_TRUE(fs::is_symlink(dir_ / "chain"));
  EXPECT_EQ(read(real), "newer");
  fs::create_symlink("created.json", dir_ / "dangling");
  write_file_atomically(dir_ / "dangling", "made");
  EXPECT_EQ(read(dir_ / "created.json"), "made");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling"));
  fs::create_symlink("loop-b", dir_ / "loop-a");
  fs::create_symlink("loop-a", dir_ / "loop-b");
  EXPECT_THROW(write_file_atomically(dir_ / "loop-a", "x"), ConfigError);
}

}  // namespace
}  // namespace canzona::io
