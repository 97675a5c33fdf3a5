// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The NCCL communicator for code that must not link CUDA: it lives in the device module
// (libcanzona_device.so), loaded by this call. Host-clean.
#pragma once

#include "canzona/comm/communicator.hpp"

#include <memory>
#include <string>

namespace canzona::comm {

class MpiCommunicator;

/// NcclCommunicator::create (nccl_communicator.hpp) through the device module: collective over
/// `bootstrap`, one GPU per rank (`device` < 0: the rank's index on its node, made the thread's
/// current device). ConfigError in a build without CUDA, NCCL or MPI.
std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator& bootstrap,
                                                     std::string name = "world", int device = -1);

}  // namespace canzona::comm
