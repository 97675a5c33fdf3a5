// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/atomic_file.hpp"

#include <canzona/core/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace canzona::io {
namespace {

// Owns the temporary file until it is renamed; removes it on every failure path.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& target) {
    pattern_ = target.string() + ".tmp-XXXXXX";
    fd_ = mkstemp(pattern_.data());
    if (fd_ < 0) {
      const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
      throw ConfigError(
          fmt::format("cannot write '{}': {} (does the directory '{}' exist and is it "
                      "writable?)",
                      target.string(), std::strerror(errno), dir.string()));
    }
    // mkstemp creates 0600; results are meant to be shared like any other file.
    fchmod(fd_, S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    if (!committed_) unlink(pattern_.c_str());
  }

  void write_all(std::string_view bytes, const std::filesystem::path& target) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write", target);
      done += static_cast<std::size_t>(n);
    }
    // Durable before visible: a crash after the rename must not expose an empty file.
    if (fsync(fd_) != 0) fail("fsync", target);
    if (close(fd_) != 0) {
      fd_ = -1;
      fail("close", target);
    }
    fd_ = -1;
  }

  void rename_to(const std::filesystem::path& target) {
    if (std::rename(pattern_.c_str(), target.c_str()) != 0) fail("rename", target);
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const char* what, const std::filesystem::path& target) const {
    throw ConfigError(fmt::format("cannot write '{}': {} failed: {}", target.string(), what,
                                  std::strerror(errno)));
  }

  std::string pattern_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  TempFile temp(path);
  temp.write_all(bytes, path);
  temp.rename_to(path);
}

}  // namespace canzona::io
