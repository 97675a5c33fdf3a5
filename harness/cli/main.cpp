// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona-bench: the command-line front end of the library and the suites.
#include <canzona/core/standard_output.hpp>
#include <canzona/harness/cli.hpp>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int code = canzona::harness::run_cli(args, std::cout, std::cerr);
  // Output the destination could not take (a full disk, /dev/full) is a failed command.
  return canzona::finish_standard_output(code, canzona::harness::kExitUsage);
}
