// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona-bench: the command-line front end of the library and the suites.
#include <canzona/harness/cli.hpp>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return canzona::harness::run_cli(args, std::cout, std::cerr);
}
