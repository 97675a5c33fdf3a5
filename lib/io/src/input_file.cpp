// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/input_file.hpp"

#include <canzona/core/error.hpp>

#include "file_kind.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace canzona::io {
namespace {

[[noreturn]] void fail_errno(const std::filesystem::path& path, std::string_view what,
                             std::string_view action, int error) {
  const std::string_view fix = error == ENOENT   ? "; check the path (a typo?)"
                               : error == EACCES ? "; check the file's permissions"
                                                 : "";
  throw ConfigError(fmt::format("{} '{}': cannot {}: {}{}", what, path.string(), action,
                                std::strerror(error), fix));
}

// Owns a read-only descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

void check_mode(const std::filesystem::path& path, std::string_view what, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) {
    throw ConfigError(
        fmt::format("{} '{}' is {}, not a regular file; pass the path of the file "
                    "itself",
                    what, path.string(), detail::file_kind(st.st_mode)));
  }
}

}  // namespace

void require_regular_file(const std::filesystem::path& path, std::string_view what) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail_errno(path, what, "open it", errno);
  check_mode(path, what, st);
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  // Checked before open(): opening a FIFO for reading would block until a writer appears.
  require_regular_file(path, what);
  const Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(path, what, "open it", errno);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) fail_errno(path, what, "inspect it", errno);
  check_mode(path, what, st);  // the path may have been replaced between stat and open
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throw ConfigError(
        fmt::format("{} '{}' has {} bytes, more than the {} bytes this input may "
                    "have; is it the right file?",
                    what, path.string(), size, max_bytes));
  }
  std::string bytes(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path, what, "read it", errno);
    if (n == 0) break;  // the file shrank while being read
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace canzona::io
