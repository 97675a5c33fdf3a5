// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/atomic_file.hpp"

#include "canzona/io/scratch_file.hpp"

#include <canzona/core/error.hpp>

#include "file_kind.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
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
    guard_ = std::make_unique<ScratchFileGuard>(pattern_);
    // mkstemp creates 0600: a new result is shared like any other file (0644), a replaced one
    // keeps the permissions its owner gave it.
    struct stat existing {};
    const mode_t mode = stat(target.c_str(), &existing) == 0
                            ? existing.st_mode & 07777
                            : S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH;
    fchmod(fd_, mode);
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
  std::unique_ptr<ScratchFileGuard> guard_;  ///< removes it when a signal ends the process
};

}  // namespace

// Symlinks are followed, so writing through a link updates the file it points to and leaves the
// link in place. Anything but a regular file is refused: the rename would silently replace a
// device such as /dev/full, or a directory, by a regular file.
std::filesystem::path resolve_write_target(const std::filesystem::path& path) {
  constexpr int kMaxLinks = 40;  // Linux's own limit (ELOOP)
  std::filesystem::path current = path;
  for (int hop = 0; hop <= kMaxLinks; ++hop) {
    struct stat st {};
    if (lstat(current.c_str(), &st) != 0) {
      if (errno == ENOENT) return current;  // a new file
      throw ConfigError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      std::error_code error;
      const std::filesystem::path target = std::filesystem::read_symlink(current, error);
      if (error) {
        throw ConfigError(fmt::format("cannot write '{}': cannot read the symbolic link '{}': {}",
                                      path.string(), current.string(), error.message()));
      }
      current = target.is_absolute() ? target : current.parent_path() / target;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      throw ConfigError(fmt::format(
          "cannot write '{}': {} is {}; results are written to regular files (a temporary file "
          "renamed over the target), so choose a file path{}",
          path.string(),
          current == path ? "it" : fmt::format("its link target '{}'", current.string()),
          detail::file_kind(st.st_mode),
          S_ISDIR(st.st_mode) ? " inside that directory" : ", or write to standard output"));
    }
    return current;
  }
  throw ConfigError(fmt::format("cannot write '{}': more than {} symbolic links to follow",
                                path.string(), kMaxLinks));
}

namespace {

// The folder `path` (given as `flag`) lands in exists and takes new entries.
void check_writable_folder(const std::filesystem::path& folder, const std::filesystem::path& path,
                           std::string_view flag) {
  struct stat st {};
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw ConfigError(
        fmt::format("{} '{}': the folder '{}' does not exist; create it first "
                    "(nothing was run)",
                    flag, path.string(), folder.string()));
  }
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(fmt::format("{} '{}': the folder '{}' is not writable: {} (nothing was run)",
                                  flag, path.string(), folder.string(), std::strerror(errno)));
  }
}

}  // namespace

std::filesystem::path output_folder_path(const std::filesystem::path& path) {
  std::filesystem::path folder = std::filesystem::absolute(path).lexically_normal();
  if (!folder.has_filename()) folder = folder.parent_path();  // "out/" is "out"
  return folder;
}

void check_output_folder(const std::filesystem::path& path, std::string_view flag) {
  const std::filesystem::path folder = output_folder_path(path);
  std::error_code error;
  if (std::filesystem::exists(folder, error) && (!std::filesystem::is_directory(folder, error) ||
                                                 !std::filesystem::is_empty(folder, error))) {
    throw ConfigError(
        fmt::format("{} '{}': exists and is not an empty folder; remove it or choose a new folder "
                    "(nothing was run)",
                    flag, path.string()));
  }
  check_writable_folder(folder.parent_path(), path, flag);
}

void check_output_file(const std::filesystem::path& path, std::string_view flag,
                       const std::vector<std::filesystem::path>& inputs) {
  const std::filesystem::path target = resolve_write_target(path);
  check_writable_folder(target.has_parent_path() ? target.parent_path() : ".", path, flag);
  for (const std::filesystem::path& input : inputs) {
    std::error_code error;
    if (!input.empty() && std::filesystem::equivalent(target, input, error) && !error) {
      throw ConfigError(fmt::format(
          "{} '{}' is the input '{}': the result would replace what it is computed from; "
          "write it to another file",
          flag, path.string(), input.string()));
    }
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  const std::filesystem::path target = resolve_write_target(path);
  TempFile temp(target);
  temp.write_all(bytes, target);
  temp.rename_to(target);
}

}  // namespace canzona::io
