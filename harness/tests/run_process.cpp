// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_process.hpp"

#include <canzona/harness/child_process.hpp>

namespace canzona::testing {

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::vector<std::string>& env) {
  ProcessResult result;
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  harness::ChildOutput output;
  output.on_stdout = [&](std::string_view chunk) { result.out.append(chunk); };
  output.on_stderr = [&](std::string_view chunk) { result.err.append(chunk); };
  result.exit_code = harness::run_child(argv, env, output);
  return result;
}

}  // namespace canzona::testing
