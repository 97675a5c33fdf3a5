// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "rank_session.hpp"

#include <canzona/config.hpp>
#include <canzona/core/device.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <ostream>
#include <set>
#include <streambuf>
#include <string>
#include <vector>

#if CANZONA_WITH_MPI
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/mpi_job.hpp>

#include <mpi.h>
#endif

namespace canzona::bench {
namespace {

struct JobState {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  std::vector<std::function<void()>> end_hooks;
};

JobState& job() {
  static JobState state;
  return state;
}

// Discards everything written to it.
class NullBuffer final : public std::streambuf {
 protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// The reporter of ranks other than 0: they run every benchmark (their share of each collective
// step) but report nothing; rank 0 reports the job.
class SilentReporter final : public benchmark::BenchmarkReporter {
 public:
  SilentReporter() : sink_(&buffer_) {
    SetOutputStream(&sink_);
    SetErrorStream(&sink_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}

 private:
  NullBuffer buffer_;
  std::ostream sink_;
};

// Hosts the job runs on: the distinct processor names of its ranks (collective).
int node_count() {
#if CANZONA_WITH_MPI
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  MPI_Get_processor_name(mine.data(), &length);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(job().size));
  MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  std::set<std::string> hosts;
  for (int r = 0; r < job().size; ++r) hosts.emplace(all.data() + r * MPI_MAX_PROCESSOR_NAME);
  return static_cast<int>(hosts.size());
#else
  return 1;
#endif
}

bool is_output_flag(std::string_view arg) {
  return arg.starts_with("--benchmark_out=") || arg.starts_with("--benchmark_out_format=");
}

}  // namespace

struct RankSession::Impl {
  SilentReporter silent;
  int exceptions_at_start = std::uncaught_exceptions();
};

RankSession::RankSession(int& argc, char**& argv) : impl_(std::make_unique<Impl>()) {
#if CANZONA_WITH_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &job().rank);
  MPI_Comm_size(MPI_COMM_WORLD, &job().size);
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job().rank, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &job().local_rank);
  MPI_Comm_free(&host);
#endif
  if (job().rank == 0) return;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (!is_output_flag(argv[i])) argv[kept++] = argv[i];
  }
  argc = kept;
}

RankSession::~RankSession() {
  // Left by an exception in a job of several ranks: comm::run_mpi_job is about to end the whole
  // job; releasing communicators (collective) would wait for ranks that will never come.
  if (std::uncaught_exceptions() > impl_->exceptions_at_start && job().size > 1) return;
  auto& hooks = job().end_hooks;
  while (!hooks.empty()) {
    const std::function<void()> hook = std::move(hooks.back());
    hooks.pop_back();
    hook();
  }
}

benchmark::BenchmarkReporter* RankSession::display_reporter() {
  return job().rank == 0 ? nullptr : &impl_->silent;
}

void RankSession::add_context() const {
  std::string library = "none";
#if CANZONA_WITH_MPI
  std::vector<char> text(MPI_MAX_LIBRARY_VERSION_STRING, '\0');
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  library.assign(text.data(), static_cast<std::size_t>(length));
  if (const std::size_t eol = library.find_first_of("\r\n,"); eol != std::string::npos) {
    library.resize(eol);
  }
#endif
  benchmark::AddCustomContext("mpi_library", library);
  benchmark::AddCustomContext("ranks", std::to_string(job().size));
  benchmark::AddCustomContext("nodes", std::to_string(node_count()));
  benchmark::AddCustomContext("gpus_per_node", std::to_string(cuda_device_count()));
}

std::size_t RankSession::job_benchmark_count(std::size_t mine) const {
#if CANZONA_WITH_MPI
  if (comm::MpiRuntime::active()) {
    unsigned long long total = 0;
    const unsigned long long local = mine;
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return static_cast<std::size_t>(total);
  }
#endif
  return mine;
}

int job_rank() { return job().rank; }
int job_size() { return job().size; }
int job_local_rank() { return job().local_rank; }

void on_job_end(std::function<void()> hook) { job().end_hooks.push_back(std::move(hook)); }

void abort_job(std::string_view message, int exit_code) {
#if CANZONA_WITH_MPI
  if (comm::MpiRuntime::active()) comm::abort_job(std::string(message).c_str(), exit_code);
#endif
  std::fprintf(stderr, "error: %.*s\n", static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::exit(exit_code);
}

}  // namespace canzona::bench
