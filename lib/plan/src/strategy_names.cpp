// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Names of the StepPlan enums, as the CLI and the JSON spell them.
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <utility>

#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {
namespace {

template <typename Enum, std::size_t N>
Enum parse_name(std::string_view text, std::string_view what,
                const std::array<std::pair<Enum, std::string_view>, N>& names) {
  for (const auto& [value, name] : names) {
    if (text == name) return value;
  }
  std::array<std::string_view, N> choices{};
  for (std::size_t i = 0; i < N; ++i) choices[i] = names[i].second;
  throw ConfigError(
      fmt::format("unknown {} '{}'; choose one of: {}", what, text, fmt::join(choices, ", ")));
}

template <typename Enum, std::size_t N>
std::string_view name_of(Enum value,
                         const std::array<std::pair<Enum, std::string_view>, N>& names) {
  for (const auto& [known, name] : names) {
    if (known == value) return name;
  }
  return "?";
}

constexpr std::array<std::pair<DpStrategy, std::string_view>, 6> kDpNames = {{
    {DpStrategy::kCanzona, "canzona"},
    {DpStrategy::kStatic, "static"},
    {DpStrategy::kReplicated, "sc"},
    {DpStrategy::kLayerwisePingPong, "layerwise"},
    {DpStrategy::kLayerwiseRoundRobin, "layerwise-roundrobin"},
    {DpStrategy::kLayerwiseLpt, "layerwise-lpt"},
}};
constexpr std::array<std::pair<TpStrategy, std::string_view>, 3> kTpNames = {{
    {TpStrategy::kReplicated, "sc"},
    {TpStrategy::kAsync, "asc"},
    {TpStrategy::kCanzona, "canzona"},
}};
constexpr std::array<std::pair<TpTransport, std::string_view>, 2> kTransportNames = {{
    {TpTransport::kAllToAll, "all-to-all"},
    {TpTransport::kGatherScatter, "gather-scatter"},
}};
constexpr std::array<std::pair<SlotUnit, std::string_view>, 2> kSlotUnitNames = {{
    {SlotUnit::kFullMatrix, "full"},
    {SlotUnit::kTpLocal, "tp-local"},
}};
constexpr std::array<std::pair<DpBalance, std::string_view>, 2> kBalanceNames = {{
    {DpBalance::kRefined, "refined"},
    {DpBalance::kReferenceGreedy, "greedy"},
}};
constexpr std::array<std::pair<TpExecution, std::string_view>, 2> kExecutionNames = {{
    {TpExecution::kPipelined, "pipelined"},
    {TpExecution::kSerial, "serial"},
}};
constexpr std::array<std::pair<comm::DataType, std::string_view>, 2> kDtypeNames = {{
    {comm::DataType::kBFloat16, "bf16"},
    {comm::DataType::kFloat32, "fp32"},
}};
constexpr std::array<std::pair<GradSync, std::string_view>, 2> kGradSyncNames = {{
    {GradSync::kReduceScatter, "reduce_scatter"},
    {GradSync::kAllReduce, "all_reduce"},
}};
constexpr std::array<std::pair<ParamSync, std::string_view>, 3> kParamSyncNames = {{
    {ParamSync::kAllGather, "all_gather"},
    {ParamSync::kAllGatherOwned, "all_gather_owned"},
    {ParamSync::kNone, "none"},
}};
constexpr std::array<std::pair<Phase, std::string_view>, kPhaseCount> kPhaseNames = {{
    {Phase::kGradSync, "grad_sync"},
    {Phase::kTpGather, "tp_gather"},
    {Phase::kCompute, "compute"},
    {Phase::kTpScatter, "tp_scatter"},
    {Phase::kParamSync, "param_sync"},
}};

}  // namespace

std::string_view to_string(DpStrategy strategy) { return name_of(strategy, kDpNames); }
std::string_view to_string(TpStrategy strategy) { return name_of(strategy, kTpNames); }
std::string_view to_string(TpTransport transport) { return name_of(transport, kTransportNames); }
std::string_view to_string(TpExecution execution) { return name_of(execution, kExecutionNames); }
std::string_view to_string(DpBalance balance) { return name_of(balance, kBalanceNames); }
std::string_view to_string(SlotUnit unit) { return name_of(unit, kSlotUnitNames); }
std::string_view dtype_name(comm::DataType type) { return name_of(type, kDtypeNames); }
std::string_view to_string(GradSync sync) { return name_of(sync, kGradSyncNames); }
std::string_view to_string(ParamSync sync) { return name_of(sync, kParamSyncNames); }
std::string_view to_string(Phase phase) { return name_of(phase, kPhaseNames); }

const std::array<std::string_view, kReportedPhaseCount>& reported_phase_names() {
  static const std::array<std::string_view, kReportedPhaseCount> names = {
      to_string(Phase::kGradSync),  kUpdatePhaseName,
      to_string(Phase::kTpGather),  to_string(Phase::kCompute),
      to_string(Phase::kTpScatter), to_string(Phase::kParamSync)};
  return names;
}

DpStrategy parse_dp_strategy(std::string_view text) {
  return parse_name(text, "DP strategy", kDpNames);
}
TpStrategy parse_tp_strategy(std::string_view text) {
  return parse_name(text, "TP strategy", kTpNames);
}
TpTransport parse_tp_transport(std::string_view text) {
  return parse_name(text, "TP transport", kTransportNames);
}
TpExecution parse_tp_execution(std::string_view text) {
  return parse_name(text, "TP execution", kExecutionNames);
}
SlotUnit parse_slot_unit(std::string_view text) {
  return parse_name(text, "slot unit", kSlotUnitNames);
}
DpBalance parse_dp_balance(std::string_view text) {
  return parse_name(text, "DP balance", kBalanceNames);
}
comm::DataType parse_dtype(std::string_view text, std::string_view what) {
  return parse_name(text, what, kDtypeNames);
}

}  // namespace canzona::plan
