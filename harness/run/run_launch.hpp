// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How `canzona-bench run` starts a suite on N ranks: the launcher prefix (mpirun, srun or the
// user's own), the environment the ranks need, and where the suite executables are.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace canzona::harness {

/// A launcher for `ranks` processes.
struct Launch {
  std::vector<std::string> prefix;  ///< e.g. {"mpirun", "-np", "2"}; the suite command follows
  std::vector<std::string> env;     ///< "NAME=value" entries the ranks get
};

/// `launcher` is "mpirun" (Open MPI's; may oversubscribe the cores when asked), "srun", or any
/// other prefix split on spaces and used verbatim (it must start `ranks` processes itself).
/// CPU ranks get OPENBLAS_NUM_THREADS=1 unless it is set (one core per rank) and Open MPI's
/// copy of shared-memory messages through fragments (no single copy: it made step times
/// bimodal) unless OMPI_MCA_btl_vader_single_copy_mechanism is set; as root, Open MPI
/// gets the two variables that let it run (whatever the launcher: a prefix may be mpirun too).
Launch make_launch(const std::string& launcher, int ranks, bool oversubscribe, bool cpu_backend);

/// ConfigError unless the local machine can host `ranks` ranks of `backend` under mpirun: one
/// per core on a CPU (more only with `oversubscribe`, timings then mean little), one per GPU.
/// Other launchers place ranks themselves and are not checked here.
void check_ranks(const std::string& launcher, int ranks, const std::string& backend,
                 bool oversubscribe, int cores, int gpus);

/// The suite executable `name` in `dir`, or else next to this executable. ConfigError naming
/// where it was looked for.
std::filesystem::path find_suite(const std::string& name, const std::string& dir);

/// Whether find_suite would find `name`.
bool suite_exists(const std::string& name, const std::string& dir);

/// The command as one line, words with spaces or quotes quoted (for provenance and messages).
std::string command_line(const std::vector<std::string>& argv);

}  // namespace canzona::harness
