// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench models [--json]`: the Qwen3 catalog with sizes and the matrix/AdamW split.
#include "commands.hpp"

#include <canzona/harness/cli.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/json.hpp>
#include <canzona/model/parameters.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>

namespace canzona::harness {
namespace {

struct MatrixSplit {
  std::int64_t matrix_tensors = 0;
  std::int64_t matrix_params = 0;
  std::int64_t adamw_tensors = 0;
  std::int64_t adamw_params = 0;
};

// Counted on the Megatron layout, the one the ZeRO-1 buffers and the optimizers see.
MatrixSplit matrix_split(const model::ModelSpec& spec) {
  MatrixSplit split;
  for (const model::ParamSpec& p : model::parameters(spec, model::ParamLayout::kMegatron)) {
    if (p.uses_matrix_optimizer()) {
      ++split.matrix_tensors;
      split.matrix_params += p.numel();
    } else {
      ++split.adamw_tensors;
      split.adamw_params += p.numel();
    }
  }
  return split;
}

// 32762123264 -> "32,762,123,264": totals are checked to the parameter, so print every digit.
std::string with_commas(std::int64_t n) {
  const std::string digits = std::to_string(n);
  const std::size_t sign = n < 0 ? 1 : 0;
  std::string out = digits.substr(0, sign);
  for (std::size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string billions(std::int64_t n) {
  return fmt::format("{:.3f}B", static_cast<double>(n) / 1e9);
}

int print_models(bool json, std::ostream& out) {
  if (json) {
    nlohmann::json models = nlohmann::json::array();
    for (const model::ModelSpec& spec : model::catalog()) {
      nlohmann::json entry = spec;
      const MatrixSplit split = matrix_split(spec);
      entry["total_params"] = spec.total_params();
      entry["non_embedding_params"] = spec.non_embedding_params();
      entry["matrix_optimizer"] = {{"tensors", split.matrix_tensors},
                                   {"params", split.matrix_params}};
      entry["adamw"] = {{"tensors", split.adamw_tensors}, {"params", split.adamw_params}};
      models.push_back(std::move(entry));
    }
    out << nlohmann::json{{"models", models}}.dump(2) << "\n";
    return kExitOk;
  }
  out << fmt::format("{:<17} {:>15} {:>9} {:>6} {:>6} {:>6} {:>7} {:>5} {:>7} {:>5} {:>8} {:>9}\n",
                     "model", "params", "non-emb", "layers", "hidden", "ffn", "heads", "kv",
                     "experts", "tied", "matrix", "adamw");
  for (const model::ModelSpec& spec : model::catalog()) {
    const MatrixSplit split = matrix_split(spec);
    const std::int64_t ffn = spec.is_moe() ? spec.moe_intermediate_size : spec.intermediate_size;
    out << fmt::format(
        "{:<17} {:>15} {:>9} {:>6} {:>6} {:>6} {:>7} {:>5} {:>7} {:>5} {:>8} {:>9}\n",
        spec.display_name, with_commas(spec.total_params()), billions(spec.non_embedding_params()),
        spec.num_layers, spec.hidden_size, ffn, spec.num_heads, spec.num_kv_heads,
        spec.is_moe() ? fmt::format("{}/{}", spec.experts_per_token, spec.num_experts) : "-",
        spec.tie_word_embeddings ? "yes" : "no", billions(split.matrix_params),
        billions(split.adamw_params));
  }
  out << "\nparams: exact count of the published checkpoint; ffn: per expert for MoE; experts: "
         "top-k/total;\nmatrix: parameters stepped by the matrix optimizer (2-D, not embedding, "
         "head or router); adamw: the rest.\n";
  return kExitOk;
}

}  // namespace

CommandAction add_models_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("models", "List the built-in Qwen3 models");
  cmd->add_flag("--json", *json, "Print JSON instead of a table");
  return [json](std::ostream& out) { return print_models(*json, out); };
}

}  // namespace canzona::harness
