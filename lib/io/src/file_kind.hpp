// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Internal: what a path that is not a regular file is, in the words error messages use.
#pragma once

#include <sys/stat.h>

#include <string_view>

namespace canzona::io::detail {

/// "a directory", "a character device", "a FIFO (named pipe)", ...
inline std::string_view file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace canzona::io::detail
