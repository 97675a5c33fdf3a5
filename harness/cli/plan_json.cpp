// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_json.hpp"

#include <canzona/layout/json.hpp>
#include <canzona/model/json.hpp>
#include <canzona/plan/preset.hpp>

#include <string_view>

namespace canzona::harness {
namespace {

using Json = nlohmann::ordered_json;

Json optimizer_json(const optim::OptimizerSpec& spec) {
  Json json = {{"kind", optim::to_string(spec.kind)}};
  switch (spec.kind) {
    case optim::OptimizerKind::kMuon: {
      const optim::MuonOptions& o = spec.muon;
      json.update(Json{{"lr", o.lr},
                       {"weight_decay", o.weight_decay},
                       {"momentum", o.momentum},
                       {"nesterov", o.nesterov},
                       {"ns_steps", o.ns_steps},
                       {"ns_coefficients", optim::to_string(o.coefficients)},
                       {"ns_eps", o.ns_eps},
                       {"ns_precision", optim::to_string(o.ns_precision)},
                       {"scale", o.scale == optim::MuonScale::kRmsMatch ? "rms" : "aspect"}});
      break;
    }
    case optim::OptimizerKind::kShampoo: {
      const optim::ShampooOptions& o = spec.shampoo;
      json.update(Json{{"lr", o.lr},
                       {"weight_decay", o.weight_decay},
                       {"beta1", o.beta1},
                       {"beta2", o.beta2},
                       {"epsilon", o.epsilon},
                       {"refresh_interval", o.refresh_interval},
                       {"max_precond_dim", o.max_precond_dim},
                       {"graft_beta2", o.graft_beta2},
                       {"graft_epsilon", o.graft_epsilon},
                       {"bias_correct_statistics", o.bias_correct_statistics},
                       {"refresh_at_multiples", o.refresh_at_multiples},
                       {"start_preconditioning_step", o.start_preconditioning_step}});
      break;
    }
    case optim::OptimizerKind::kSoap: {
      const optim::SoapOptions& o = spec.soap;
      json.update(Json{{"lr", o.lr},
                       {"weight_decay", o.weight_decay},
                       {"beta1", o.beta1},
                       {"beta2", o.beta2},
                       {"shampoo_beta", o.shampoo_beta},
                       {"eps", o.eps},
                       {"precondition_frequency", o.precondition_frequency},
                       {"max_precond_dim", o.max_precond_dim},
                       {"correct_bias", o.correct_bias},
                       {"normalize_grads", o.normalize_grads}});
      break;
    }
    case optim::OptimizerKind::kAdamW:
      break;
  }
  // AdamW steps every parameter the matrix optimizer does not, whatever the kind.
  const optim::AdamWOptions& a = spec.adamw;
  json["adamw"] = Json{{"lr", a.lr},
                       {"beta1", a.beta1},
                       {"beta2", a.beta2},
                       {"eps", a.eps},
                       {"weight_decay", a.weight_decay}};
  return json;
}

Json options_json(const plan::StrategyOptions& o) {
  return Json{
      {"dp_strategy", plan::to_string(o.dp)},
      {"tp_strategy", plan::to_string(o.tp)},
      {"alpha", o.alpha},
      {"cost", plan::to_string(o.cost)},
      {"dp_balance", plan::to_string(o.dp_balance)},
      {"tp_schedule", plan::to_string(o.tp_schedule)},
      {"slot_mib", o.slot_mib},
      {"slot_unit", plan::to_string(o.slot_unit)},
      {"transport", plan::to_string(o.transport)},
      {"tp_execution", plan::to_string(o.tp_execution)},
      {"precision",
       {{"params", plan::dtype_name(o.precision.params)},
        {"grad_reduce", plan::dtype_name(o.precision.grad_reduce)}}},
      {"split",
       {{"qkv", o.split.qkv}, {"qkv_per_head", o.split.qkv_per_head}, {"fc1", o.split.fc1}}},
      {"optimizer", optimizer_json(o.optimizer)},
      {"bucket_size", o.zero1.bucket_size},
      {"high_busbw_padding", o.zero1.pad_for_high_nccl_busbw}};
}

// Keys that do not apply to a collective (root of a reduce-scatter, bucket of a TP gather) are
// left out rather than written as -1.
Json collective_json(const plan::PlannedCollective& c) {
  Json json = {{"phase", plan::to_string(c.phase)},
               {"group", c.group == plan::Group::kDp ? "dp" : "tp"},
               {"op", c.op},
               {"dtype", plan::dtype_name(c.dtype)},
               {"group_size", c.group_size}};
  if (c.root >= 0) json["root"] = c.root;
  json["count"] = c.count;
  json["bytes_sent"] = c.bytes_sent;
  json["bytes_received"] = c.bytes_received;
  if (c.group == plan::Group::kDp && c.buffer != plan::kEveryBuffer) json["buffer"] = c.buffer;
  if (c.bucket >= 0) json["bucket"] = c.bucket;
  if (c.micro_group >= 0) json["micro_group"] = c.micro_group;
  if (c.matrix >= 0) json["matrix"] = c.matrix;
  return json;
}

Json rank_json(const plan::StepPlan& plan, const plan::RankLoad& load) {
  Json bytes = Json::object();
  for (std::size_t p = 0; p < plan::kPhaseCount; ++p) {
    bytes[std::string(plan::to_string(static_cast<plan::Phase>(p)))] = {
        {"sent", load.bytes_sent[p]}, {"received", load.bytes_received[p]}};
  }
  Json collectives = Json::array();
  for (const plan::PlannedCollective& c : rank_collectives(plan, load.dp_rank, load.tp_rank)) {
    collectives.push_back(collective_json(c));
  }
  return Json{{"rank", load.dp_rank * plan.tp() + load.tp_rank},
              {"dp", load.dp_rank},
              {"tp", load.tp_rank},
              {"cost", load.cost},
              {"flops", load.flops},
              {"adamw_flops", load.adamw_flops},
              {"adamw_elements", load.adamw_elements},
              {"state_bytes", load.state_bytes},
              {"bytes", std::move(bytes)},
              {"collectives", std::move(collectives)}};
}

Json buffer_json(const plan::StepPlan& plan, const plan::BufferPlan& bp) {
  const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
  Json buckets = Json::array();
  for (const plan::BucketCuts& cuts : bp.partition.buckets) {
    buckets.push_back({{"bucket", cuts.bucket}, {"even", cuts.even()}, {"cuts", cuts.pos}});
  }
  return Json{{"buffer", bp.buffer},
              {"name", buffer.name},
              {"matrix", bp.matrix},
              {"grad_sync", plan::to_string(bp.grad_sync)},
              {"param_sync", plan::to_string(bp.param_sync)},
              {"partition", bp.partition.method},
              {"buckets", std::move(buckets)},
              {"owner", bp.owner}};
}

Json matrix_json(const plan::MatrixPlan& m) {
  Json fragments = Json::array();
  for (std::size_t f = 0; f < m.fragments.size(); ++f) {
    Json fragment(nlohmann::json(m.fragments[f]));
    fragment["cost"] = f < m.fragment_cost.size() ? m.fragment_cost[f] : 0.0;
    fragments.push_back(std::move(fragment));
  }
  return Json{{"name", m.name},
              {"param_index", m.param_index},
              {"buffer", m.buffer},
              {"entry", m.entry},
              {"full", {m.full.rows, m.full.cols}},
              {"local", {m.local.rows, m.local.cols}},
              {"tp_dim", m.tp_dim},
              {"cost", m.cost},
              {"flops", m.flops},
              {"state_bytes", m.state_bytes},
              {"dp_owner", m.dp_owner},
              {"tp_host", m.tp_host},
              {"micro_group", m.micro_group},
              {"fragments", std::move(fragments)}};
}

Json micro_groups_json(const plan::StepPlan& plan) {
  Json per_dp = Json::array();
  for (const std::vector<plan::MicroGroupPlan>& groups : plan.micro_groups) {
    Json list = Json::array();
    for (const plan::MicroGroupPlan& g : groups) {
      list.push_back({{"slots", g.slots}, {"max_slot_cost", g.max_slot_cost}});
    }
    per_dp.push_back(std::move(list));
  }
  return per_dp;
}

}  // namespace

Json plan_json(const PlanReport& report) {
  const plan::StepPlan& p = report.plan;
  const plan::PlanMetrics& m = report.metrics;
  const layout::ParallelConfig& c = p.layout.config;
  Json ranks = Json::array();
  for (const plan::RankLoad& load : m.ranks) ranks.push_back(rank_json(p, load));
  Json buffers = Json::array();
  for (const plan::BufferPlan& bp : p.buffers) buffers.push_back(buffer_json(p, bp));
  Json matrices = Json::array();
  for (const plan::MatrixPlan& matrix : p.matrices) matrices.push_back(matrix_json(matrix));

  return Json{
      {"model", Json(nlohmann::json(report.model))},
      {"parallel",
       {{"dp", c.dp}, {"tp", c.tp}, {"gpus", c.world()}, {"gpus_per_node", c.gpus_per_node}}},
      {"strategy", p.strategy},
      {"preset",
       {{"name", plan::to_string(report.preset.preset)},
        {"source", plan::preset_source(report.preset.preset)},
        {"overrides", report.preset.overrides}}},
      {"options", options_json(p.options)},
      {"imbalance", m.imbalance},
      {"lower_bound", m.lower_bound},
      {"max_cost", m.max_cost},
      {"max_over_lower_bound", m.max_over_lower_bound},
      {"imbalance_floor", m.imbalance_floor},
      {"flops_imbalance", m.flops_imbalance},
      {"plan_hash", hash_hex(report.hash)},
      {"planning_ms", report.planning_ms},
      {"ranks", std::move(ranks)},
      {"buffers", std::move(buffers)},
      {"matrices", std::move(matrices)},
      {"micro_groups", micro_groups_json(p)},
      {"replicated_matrices", p.replicated_matrices},
      {"zero1", Json(nlohmann::json(p.layout))}};
}

}  // namespace canzona::harness
