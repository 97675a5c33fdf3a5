// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "benchmark_args.hpp"
#include "suite.hpp"

#include <canzona/bench/flag_checks.hpp>
#include <canzona/bench/name_pattern.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/numeric_text.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/io/scratch_file.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <string_view>
#include <vector>

namespace canzona::bench {
namespace {

// "--benchmark_filter=abc" -> "abc" for `name` "filter"; Google Benchmark takes only the = form.
std::optional<std::string> value_of(std::string_view arg, std::string_view name) {
  const std::string prefix = fmt::format("--benchmark_{}=", name);
  if (!arg.starts_with(prefix)) return std::nullopt;
  return std::string(arg.substr(prefix.size()));
}

void check_format(std::string_view flag, const std::string& value) {
  static const std::vector<std::string> kFormats = {"console", "json", "csv"};
  for (const std::string& format : kFormats) {
    if (value == format) return;
  }
  throw ConfigError(
      fmt::format("--benchmark_{}={}: unknown format; use console, json or csv "
                  "(json for files canzona-bench reads)",
                  flag, value));
}

// The suite's filter, compiled once; a leading '-' negates it (as in Google Benchmark).
struct CaseFilter {
  NamePattern pattern;
  bool negated = false;
};
std::optional<CaseFilter>& case_filter() {
  static std::optional<CaseFilter> filter;
  return filter;
}

}  // namespace

BenchmarkArgs::BenchmarkArgs(int& argc, char** argv) {
  int out_index = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (auto v = value_of(arg, "filter")) {
      filter_ = *v;
      // Google Benchmark is handed a filter that selects every registered case; the cases
      // themselves are registered only when case_selected() says so.
      filter_argument_ = "--benchmark_filter=.";
      argv[i] = filter_argument_.data();
    } else if (auto r = value_of(arg, "repetitions")) {
      parse_integer("--benchmark_repetitions", *r, kRepetitions);
    } else if (auto f = value_of(arg, "format")) {
      check_format("format", *f);
    } else if (auto o = value_of(arg, "out_format")) {
      check_format("out_format", *o);
    } else if (arg == "--benchmark_list_tests") {
      listing_ = true;
    } else if (auto l = value_of(arg, "list_tests")) {
      // Listing reports what a filter selects; an empty list is an answer, not an error.
      listing_ = *l != "false" && *l != "0";
    } else if (auto p = value_of(arg, "out")) {
      if (p->empty()) throw ConfigError("--benchmark_out= needs a file name");
      out_ = *p;
      out_index = i;
    }
  }
  const bool negated = filter_.starts_with('-');
  case_filter().emplace(CaseFilter{
      NamePattern(negated ? filter_.substr(1) : filter_, "--benchmark_filter"), negated});
  if (out_ && listing_) {
    // Listing prints names and measures nothing: it never opens an output (Google Benchmark would
    // truncate it), so --benchmark_out leaves argv and the file is not touched.
    for (int i = out_index; i + 1 < argc; ++i) argv[i] = argv[i + 1];
    --argc;
    out_.reset();
  }
  if (out_) {
    // Refused now, not after minutes of measuring: a directory, a device, a missing directory.
    const std::filesystem::path target = io::resolve_write_target(*out_);
    std::string pattern = target.string() + ".running-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) {
      throw ConfigError(
          fmt::format("--benchmark_out={}: cannot create a file beside it ({}); "
                      "does the directory exist and is it writable?",
                      out_->string(), std::strerror(errno)));
    }
    close(fd);
    temporary_ = pattern;
    // Removed by the signal handler too: a run that SIGTERM or Ctrl-C ends leaves no scratch.
    scratch_guard_ = std::make_unique<io::ScratchFileGuard>(pattern);
    out_argument_ = "--benchmark_out=" + pattern;
    argv[out_index] = out_argument_.data();
  }
}

BenchmarkArgs::~BenchmarkArgs() {
  if (temporary_) unlink(temporary_->c_str());
}

namespace {
std::size_t g_selected_cases = 0;
}  // namespace

bool case_selected(std::string_view registered_name) {
  const std::optional<CaseFilter>& filter = case_filter();
  const bool selected = !filter || filter->pattern.matches(registered_name) != filter->negated;
  g_selected_cases += selected ? 1 : 0;
  return selected;
}

std::size_t selected_case_count() { return g_selected_cases; }

void BenchmarkArgs::commit(std::size_t benchmarks_run) {
  if (benchmarks_run == 0 && !listing_) {
    throw ConfigError(fmt::format(
        "no benchmark matches --benchmark_filter={}; list the names with --benchmark_list_tests"
        "{}",
        filter_, out_ ? fmt::format(" ({} was left as it was)", out_->string()) : ""));
  }
  if (!temporary_) return;
  io::write_file_atomically(*out_, io::read_input_file(*temporary_, "benchmark output"));
}

}  // namespace canzona::bench
