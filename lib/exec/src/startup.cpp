// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "startup.hpp"

#include <canzona/core/error.hpp>
#include <canzona/layout/parallel_config.hpp>

#include <fmt/format.h>

#include <bit>
#include <exception>
#include <string>
#include <vector>

namespace canzona::exec::detail {
namespace {

class Fnv1a {
 public:
  void u64(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      state_ ^= (value >> (8 * i)) & 0xffU;
      state_ *= 0x100000001b3ULL;
    }
  }
  void f64(double value) { u64(std::bit_cast<std::uint64_t>(value)); }
  void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

[[noreturn]] void fail(const std::string& message) {
  throw Error(fmt::format("executor: {}", message));
}

void check_buffers(const plan::StepPlan& plan) {
  const int dp = plan.dp();
  if (plan.buffers.size() != plan.layout.buffers.size()) {
    fail(fmt::format("the plan has {} buffer plans for {} layout buffers", plan.buffers.size(),
                     plan.layout.buffers.size()));
  }
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const plan::BufferPlan& bp = plan.buffers[b];
    const layout::Buffer& buffer = plan.layout.buffers[b];
    if (bp.buffer != b || bp.owner.size() != buffer.entries.size() ||
        bp.partition.buckets.size() != buffer.buckets.size()) {
      fail(
          fmt::format("buffer plan {} does not describe layout buffer '{}' (index {}, {} owners "
                      "for {} entries, {} cuts for {} buckets)",
                      b, buffer.name, bp.buffer, bp.owner.size(), buffer.entries.size(),
                      bp.partition.buckets.size(), buffer.buckets.size()));
    }
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      const auto& pos = bp.partition.buckets[k].pos;
      if (pos.size() != static_cast<std::size_t>(dp) + 1 ||
          pos.front() != buffer.buckets[k].start || pos.back() != buffer.buckets[k].end) {
        fail(
            fmt::format("the cuts of bucket {} of buffer '{}' do not span the bucket for {} DP "
                        "ranks",
                        k, buffer.name, dp));
      }
    }
    for (const layout::BufferEntry& e : buffer.entries) {
      if (e.matrix != bp.matrix) {
        fail(fmt::format(
            "parameter '{}' {} the matrix optimizer but sits in the {} buffer '{}', "
            "so it would silently get {}",
            e.name, e.matrix ? "uses" : "does not use", bp.matrix ? "matrix" : "element-wise",
            buffer.name, bp.matrix ? "the matrix optimizer" : "AdamW"));
      }
    }
    const bool needs_all_reduce = bp.param_sync != plan::ParamSync::kAllGather;
    if (dp > 1 && needs_all_reduce && bp.grad_sync != plan::GradSync::kAllReduce) {
      fail(
          fmt::format("buffer '{}': parameter sync {} needs all-reduced gradients, the plan "
                      "reduce-scatters them",
                      buffer.name, plan::to_string(bp.param_sync)));
    }
  }
}

void check_matrix(const plan::StepPlan& plan, const plan::MatrixPlan& m) {
  const int dp = plan.dp();
  const int tp = plan.tp();
  const plan::BufferPlan& bp = plan.buffers[m.buffer];
  const layout::BufferEntry& entry = plan.layout.buffers[m.buffer].entries[m.entry];
  if (entry.numel() != m.local.rows * m.local.cols) {
    fail(
        fmt::format("matrix '{}': local shape {}x{} does not match its buffer entry of {} "
                    "elements",
                    m.name, m.local.rows, m.local.cols, entry.numel()));
  }
  if (m.sharded()) {
    const bool tiles = m.tp_dim == model::kColumnParallel
                           ? m.local.rows * tp == m.full.rows && m.local.cols == m.full.cols
                           : m.tp_dim == model::kRowParallel && m.local.cols * tp == m.full.cols &&
                                 m.local.rows == m.full.rows;
    if (tp == 1 || !tiles) {
      fail(fmt::format("matrix '{}': {} shards of {}x{} along dim {} do not tile {}x{}", m.name, tp,
                       m.local.rows, m.local.cols, m.tp_dim, m.full.rows, m.full.cols));
    }
  } else if (!(m.local == m.full)) {
    fail(fmt::format("matrix '{}' is not sharded but its local shape {}x{} differs from {}x{}",
                     m.name, m.local.rows, m.local.cols, m.full.rows, m.full.cols));
  }
  if (m.dp_owner < -1 || m.dp_owner >= dp) {
    fail(fmt::format("matrix '{}' has DP owner {} outside [-1, {})", m.name, m.dp_owner, dp));
  }
  if (dp == 1) return;
  if (m.dp_owner == -1) {
    if (bp.grad_sync != plan::GradSync::kAllReduce) {
      fail(
          fmt::format("matrix '{}' is stepped by every DP rank but its gradients are "
                      "reduce-scattered; each rank would see a partial sum",
                      m.name));
    }
    return;
  }
  if (bp.grad_sync == plan::GradSync::kReduceScatter ||
      bp.param_sync == plan::ParamSync::kAllGather) {
    const auto& pos = bp.partition.buckets[static_cast<std::size_t>(entry.bucket)].pos;
    const auto o = static_cast<std::size_t>(m.dp_owner);
    if (entry.start < pos[o] || entry.end > pos[o + 1]) {
      fail(fmt::format(
          "matrix '{}' at [{}, {}) lies outside DP rank {}'s slice [{}, {}) of "
          "bucket {}: a DP cut falls inside it (atomicity, DESIGN §3)",
          m.name, entry.start, entry.end, m.dp_owner, pos[o], pos[o + 1], entry.bucket));
    }
  }
}

void check_schedule(const plan::StepPlan& plan) {
  const int dp = plan.dp();
  const int tp = plan.tp();
  if (plan.replicated_matrices.size() != static_cast<std::size_t>(dp) ||
      (!plan.micro_groups.empty() && plan.micro_groups.size() != static_cast<std::size_t>(dp))) {
    fail(
        fmt::format("the TP schedule lists {} micro-group sets and {} replicated lists for {} "
                    "DP ranks",
                    plan.micro_groups.size(), plan.replicated_matrices.size(), dp));
  }
  for (int d = 0; d < dp; ++d) {
    const auto dd = static_cast<std::size_t>(d);
    std::vector<int> seen(plan.matrices.size(), 0);
    if (!plan.micro_groups.empty()) {
      for (const plan::MicroGroupPlan& group : plan.micro_groups[dd]) {
        if (group.slots.size() != static_cast<std::size_t>(tp)) {
          fail(fmt::format("a micro-group of DP rank {} has {} slots for tp = {}", d,
                           group.slots.size(), tp));
        }
        for (std::size_t j = 0; j < group.slots.size(); ++j) {
          for (std::size_t k : group.slots[j]) {
            const plan::MatrixPlan& m = plan.matrices.at(k);
            if (tp == 1 || !m.sharded() || m.tp_host != static_cast<int>(j)) {
              fail(
                  fmt::format("matrix '{}' is in slot {} of a micro-group of DP rank {} but is "
                              "{} with host {}",
                              m.name, j, d, m.sharded() ? "sharded" : "not sharded", m.tp_host));
            }
            ++seen[k];
          }
        }
      }
    }
    for (std::size_t k : plan.replicated_matrices[dd]) ++seen.at(k);
    for (std::size_t i = 0; i < plan.matrices.size(); ++i) {
      const int owner = plan.matrices[i].dp_owner;
      const int expected = owner == d || owner == -1 ? 1 : 0;
      if (seen[i] != expected) {
        fail(fmt::format("matrix '{}' is scheduled {} times for DP rank {} (expected {})",
                         plan.matrices[i].name, seen[i], d, expected));
      }
    }
  }
}

void check_groups(const plan::StepPlan& plan, const comm::Communicator& world,
                  const comm::Communicator& dp, const comm::Communicator& tp) {
  layout::validate_world(plan.layout.config, world.size());
  if (dp.size() != plan.dp() || tp.size() != plan.tp()) {
    throw ConfigError(fmt::format(
        "executor: the DP and TP communicators have {} and {} ranks but the plan is dp {} x tp {}; "
        "build them with comm::split_dp_tp(world, {})",
        dp.size(), tp.size(), plan.dp(), plan.tp(), plan.tp()));
  }
  if (world.rank() != dp.rank() * plan.tp() + tp.rank()) {
    throw ConfigError(fmt::format(
        "executor: world rank {} is DP rank {} and TP rank {}, not in Megatron order (rank = "
        "dp_rank·tp + tp_rank); build the groups with comm::split_dp_tp(world, {})",
        world.rank(), dp.rank(), tp.rank(), plan.tp()));
  }
}

comm::MemorySpace memory_of(const backend::Backend& backend) {
  return backend.device() < 0 ? comm::MemorySpace::kHost : comm::MemorySpace::kDevice;
}

}  // namespace

std::uint64_t optimizer_spec_hash(const optim::OptimizerSpec& spec) {
  Fnv1a h;
  h.i64(static_cast<std::int64_t>(spec.kind));
  const optim::MuonOptions& mu = spec.muon;
  for (double v : {mu.lr, mu.weight_decay, mu.momentum, mu.ns_eps}) h.f64(v);
  for (std::int64_t v :
       {std::int64_t{mu.nesterov}, std::int64_t{mu.ns_steps},
        static_cast<std::int64_t>(mu.coefficients), static_cast<std::int64_t>(mu.ns_precision),
        static_cast<std::int64_t>(mu.scale)}) {
    h.i64(v);
  }
  const optim::ShampooOptions& sh = spec.shampoo;
  for (double v :
       {sh.lr, sh.weight_decay, sh.beta1, sh.beta2, sh.epsilon, sh.graft_beta2, sh.graft_epsilon}) {
    h.f64(v);
  }
  h.i64(sh.refresh_interval);
  h.i64(sh.max_precond_dim);
  h.i64(sh.bias_correct_statistics);
  h.i64(sh.refresh_at_multiples);
  h.i64(sh.start_preconditioning_step);
  const optim::SoapOptions& so = spec.soap;
  for (double v : {so.lr, so.weight_decay, so.beta1, so.beta2, so.shampoo_beta, so.eps}) h.f64(v);
  h.i64(so.precondition_frequency);
  h.i64(so.max_precond_dim);
  h.i64(so.correct_bias);
  h.i64(so.normalize_grads);
  const optim::AdamWOptions& ad = spec.adamw;
  for (double v : {ad.lr, ad.beta1, ad.beta2, ad.eps, ad.weight_decay}) h.f64(v);
  return h.value();
}

void check_executable(const plan::StepPlan& plan) {
  check_buffers(plan);
  std::vector<std::vector<int>> matrix_of(plan.layout.buffers.size());
  for (std::size_t b = 0; b < matrix_of.size(); ++b) {
    matrix_of[b].assign(plan.layout.buffers[b].entries.size(), -1);
  }
  for (std::size_t i = 0; i < plan.matrices.size(); ++i) {
    const plan::MatrixPlan& m = plan.matrices[i];
    if (m.buffer >= matrix_of.size() || m.entry >= matrix_of[m.buffer].size() ||
        !plan.buffers[m.buffer].matrix || matrix_of[m.buffer][m.entry] != -1) {
      fail(
          fmt::format("matrix '{}' points at buffer {} entry {}, which is not a matrix entry "
                      "of its own",
                      m.name, m.buffer, m.entry));
    }
    matrix_of[m.buffer][m.entry] = static_cast<int>(i);
    check_matrix(plan, m);
  }
  for (std::size_t b = 0; b < matrix_of.size(); ++b) {
    const layout::Buffer& buffer = plan.layout.buffers[b];
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      if (buffer.entries[e].matrix && matrix_of[b][e] == -1) {
        fail(fmt::format("matrix parameter '{}' has no MatrixPlan, so nothing would step it",
                         buffer.entries[e].name));
      }
    }
  }
  check_schedule(plan);
}

void agree_on_start(const plan::StepPlan& plan, comm::Communicator& world,
                    const comm::Communicator& dp, const comm::Communicator& tp,
                    backend::Backend& backend) {
  const comm::MemorySpace space = memory_of(backend);
  for (const comm::Communicator* c : {static_cast<const comm::Communicator*>(&world), &dp, &tp}) {
    if (c->memory_space() != space) {
      // Every rank of a job is configured alike, so this fails on all of them without a hang.
      throw ConfigError(fmt::format(
          "executor: the {} backend keeps buffers in {} memory but the {} communicator '{}' "
          "moves {} memory; pair the cpu backend with mpi and the cuda backend with nccl",
          backend.name(), comm::to_string(space), c->backend(), c->name(),
          comm::to_string(c->memory_space())));
    }
    if (space == comm::MemorySpace::kDevice && c->device() != backend.device()) {
      // Not part of the agreement below: its all-gather would hand the communicator memory of
      // another GPU. This rank stops at once; the job-wide abort on a rank's error ends the rest.
      throw ConfigError(fmt::format(
          "executor: the {} backend runs on CUDA device {} but the {} communicator '{}' on "
          "device {}; make the backend after NcclCommunicator::create chose the rank's device "
          "(make_backend(\"cuda\") takes the current device) or pass the communicator's device",
          backend.name(), backend.device(), c->backend(), c->name(), c->device()));
    }
  }

  std::exception_ptr local;
  try {
    check_groups(plan, world, dp, tp);
    plan::check_plan(plan);
    check_executable(plan);
  } catch (...) {
    local = std::current_exception();
  }

  // One all-gather of (plan hash, optimizer hash, checks passed) per rank, in backend memory.
  constexpr std::size_t kFields = 3;
  const auto ranks = static_cast<std::size_t>(world.size());
  const auto me = static_cast<std::size_t>(world.rank());
  const std::uint64_t plan_h = plan::plan_hash(plan);
  const std::uint64_t spec_h = optimizer_spec_hash(plan.options.optimizer);
  const std::int64_t mine[kFields] = {std::bit_cast<std::int64_t>(plan_h),
                                      std::bit_cast<std::int64_t>(spec_h), local ? 0 : 1};
  backend::Buffer exchange = backend.allocate(kFields * ranks * sizeof(std::int64_t));
  auto* slots = exchange.as<std::int64_t>();
  backend.upload(slots + kFields * me, mine, sizeof(mine));
  backend.synchronize();
  const std::vector<std::size_t> counts(ranks, kFields);
  comm::Request request =
      world.all_gather(slots + kFields * me, slots, counts, comm::DataType::kInt64);
  request.wait();
  std::vector<std::int64_t> all(kFields * ranks);
  backend.download(all.data(), slots, all.size() * sizeof(std::int64_t));

  auto field = [&](std::size_t rank, std::size_t f) {
    return std::bit_cast<std::uint64_t>(all[kFields * rank + f]);
  };
  for (std::size_t r = 1; r < ranks; ++r) {
    if (field(r, 0) != field(0, 0)) {
      throw ConfigError(fmt::format(
          "executor start-up: ranks built different step plans: rank 0 has plan hash {:#018x}, "
          "rank {} has {:#018x} (this is rank {}, strategy '{}', dp {} x tp {}); every rank must "
          "build the plan from the same model, parallel config and strategy options",
          field(0, 0), r, field(r, 0), me, plan.strategy, plan.dp(), plan.tp()));
    }
  }
  for (std::size_t r = 1; r < ranks; ++r) {
    if (field(r, 1) != field(0, 1)) {
      throw ConfigError(fmt::format(
          "executor start-up: ranks use different optimizer hyper-parameters: rank 0 has "
          "optimizer hash {:#018x}, rank {} has {:#018x} (this is rank {}); pass the same "
          "optimizer flags to every rank",
          field(0, 1), r, field(r, 1), me));
    }
  }
  if (local) std::rethrow_exception(local);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (field(r, 2) == 0) {
      throw ConfigError(fmt::format(
          "executor start-up: rank {} failed its start-up checks (its own error says why); rank "
          "{} stops too, so no rank waits in a collective",
          r, me));
    }
  }
}

}  // namespace canzona::exec::detail
