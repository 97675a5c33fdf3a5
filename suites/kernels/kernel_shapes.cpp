// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "kernel_shapes.hpp"

#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>
#include <canzona/model/split.hpp>

#include <algorithm>

namespace canzona::bench {
namespace {

// "decoder.layers.3.mlp.linear_fc1.weight.gate" -> "linear_fc1.gate": the tensor, not the layer.
std::string tensor_label(const std::string& fragment) {
  std::string label = fragment;
  const std::size_t layers = label.find("layers.");
  if (layers != std::string::npos) {
    const std::size_t after_index = label.find('.', layers + 7);
    label = label.substr(after_index + 1);
  }
  for (const char* noise : {"self_attention.", "mlp.", ".weight"}) {
    const std::size_t at = label.find(noise);
    if (at != std::string::npos) label.erase(at, std::char_traits<char>::length(noise));
  }
  const std::size_t head = label.find(".head");
  if (head != std::string::npos) label = label.substr(0, head + 5);
  const std::size_t group = label.find(".group");
  if (group != std::string::npos) label = label.substr(0, group + 6);
  return label;
}

}  // namespace

std::vector<KernelShape> qwen3_kernel_shapes() {
  const model::SplitOptions layouts[] = {
      {},                                                 // fused linear_qkv / linear_fc1
      {.qkv = true, .qkv_per_head = false, .fc1 = true},  // q/k/v and gate/up
      {.qkv = true, .qkv_per_head = true, .fc1 = true},   // one [d, h] per head / group
  };
  std::vector<KernelShape> shapes;
  for (const char* name :
       {"qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b"}) {
    const model::ModelSpec& spec = model::find_model(name);
    const auto params = model::parameters(spec, model::ParamLayout::kMegatron);
    for (const model::SplitOptions& split : layouts) {
      for (const model::Fragment& f : model::matrix_fragments(params, spec, split)) {
        const auto same = [&](const KernelShape& s) {
          return s.rows == f.shape[0] && s.cols == f.shape[1];
        };
        const auto it = std::find_if(shapes.begin(), shapes.end(), same);
        if (it != shapes.end()) {
          ++it->uses;
        } else {
          shapes.push_back({f.shape[0], f.shape[1], spec.name + " " + tensor_label(f.name), 1});
        }
      }
    }
  }
  return shapes;
}

}  // namespace canzona::bench
