// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/standard_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace canzona {

int finish_standard_output(int exit_code, int failure_code) {
  errno = 0;
  std::cout.flush();
  const bool stream_failed = !std::cout;
  const bool file_failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!stream_failed && !file_failed) return exit_code;
  const int error = errno;
  std::fprintf(stderr, "error: cannot write to standard output: %s; the output is incomplete\n",
               error != 0 ? std::strerror(error) : "write error");
  return exit_code != 0 ? exit_code : failure_code;
}

}  // namespace canzona
