// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Written for clarity, not speed: one token at a time, one head at a time.
#include "reference_qwen3.hpp"

#include <canzona/model/parameters.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace canzona::torch_model::testing {
namespace {

using Vec = std::vector<double>;

class Weights {
 public:
  Weights(const model::ModelSpec& model, const ReferenceParams& params) : params_(params) {
    const auto specs = model::parameters(model, model::ParamLayout::kMegatron);
    if (specs.size() != params.size()) {
      throw std::invalid_argument("reference: wrong number of parameters");
    }
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (static_cast<std::int64_t>(params[i].size()) != specs[i].numel()) {
        throw std::invalid_argument("reference: wrong size of " + specs[i].name);
      }
      index_.emplace(specs[i].name, i);
    }
  }
  const Vec& operator()(const std::string& name) const { return params_[index_.at(name)]; }

 private:
  const ReferenceParams& params_;
  std::map<std::string, std::size_t> index_;
};

// y = W·x for W [rows, cols] row-major, starting at row `first`.
Vec matvec(const Vec& w, std::int64_t rows, std::int64_t cols, const Vec& x,
           std::int64_t first = 0) {
  Vec y(static_cast<std::size_t>(rows), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* row = w.data() + (first + r) * cols;
    double sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) {
      sum += row[c] * x[static_cast<std::size_t>(c)];
    }
    y[static_cast<std::size_t>(r)] = sum;
  }
  return y;
}

Vec rms_norm(const Vec& x, const Vec& weight, double eps) {
  double mean_square = 0;
  for (double v : x) {
    mean_square += v * v;
  }
  mean_square /= static_cast<double>(x.size());
  const double scale = 1.0 / std::sqrt(mean_square + eps);
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    y[i] = x[i] * scale * weight[i];
  }
  return y;
}

double silu(double z) { return z / (1.0 + std::exp(-z)); }

// Rotates dimension pairs (i, i + d/2) of one head by position·theta^(-2i/d).
void rope(double* head, std::int64_t d, std::int64_t position, double theta) {
  for (std::int64_t i = 0; i < d / 2; ++i) {
    const double angle =
        static_cast<double>(position) * std::pow(theta, -2.0 * static_cast<double>(i) / d);
    const double a = head[i];
    const double b = head[i + d / 2];
    head[i] = a * std::cos(angle) - b * std::sin(angle);
    head[i + d / 2] = b * std::cos(angle) + a * std::sin(angle);
  }
}

Vec softmax(const Vec& z) {
  const double top = *std::max_element(z.begin(), z.end());
  Vec p(z.size());
  double sum = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    p[i] = std::exp(z[i] - top);
    sum += p[i];
  }
  for (double& v : p) {
    v /= sum;
  }
  return p;
}

// SwiGLU with a fused [gate; up] first matrix: fc2 (silu(gate·x) ∘ up·x).
Vec swiglu(const Vec& fc1, const Vec& fc2, std::int64_t ffn, std::int64_t h, const Vec& x) {
  const Vec gate = matvec(fc1, ffn, h, x, 0);
  const Vec up = matvec(fc1, ffn, h, x, ffn);
  Vec m(static_cast<std::size_t>(ffn));
  for (std::size_t i = 0; i < m.size(); ++i) {
    m[i] = silu(gate[i]) * up[i];
  }
  return matvec(fc2, h, ffn, m);
}

// Self-attention of one sequence: x [seq][h] → [seq][h] (before the residual add).
std::vector<Vec> attention(const model::ModelSpec& m, const Weights& w, const std::string& pre,
                           const std::vector<Vec>& x) {
  const std::int64_t seq = static_cast<std::int64_t>(x.size());
  const std::int64_t h = m.hidden_size;
  const std::int64_t d = m.head_dim;
  const std::int64_t heads = m.num_heads;
  const std::int64_t groups = m.num_kv_heads;
  const std::int64_t per_group = heads / groups;
  const std::string attn = pre + "self_attention.";
  // q[t][head·d + i], k and v [t][group·d + i].
  std::vector<Vec> q(x.size(), Vec(static_cast<std::size_t>(heads * d)));
  std::vector<Vec> k(x.size(), Vec(static_cast<std::size_t>(groups * d)));
  std::vector<Vec> v = k;
  for (std::int64_t t = 0; t < seq; ++t) {
    const auto ts = static_cast<std::size_t>(t);
    const Vec normed = rms_norm(x[ts], w(attn + "linear_qkv.layer_norm_weight"), m.rms_norm_eps);
    const Vec qkv = matvec(w(attn + "linear_qkv.weight"), m.qkv_rows(), h, normed);
    // Megatron's fused rows, per KV group g: its per_group query heads, its key, its value.
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t base = g * (per_group + 2) * d;
      for (std::int64_t i = 0; i < d; ++i) {
        for (std::int64_t j = 0; j < per_group; ++j) {
          q[ts][static_cast<std::size_t>((g * per_group + j) * d + i)] =
              qkv[static_cast<std::size_t>(base + j * d + i)];
        }
        k[ts][static_cast<std::size_t>(g * d + i)] =
            qkv[static_cast<std::size_t>(base + per_group * d + i)];
        v[ts][static_cast<std::size_t>(g * d + i)] =
            qkv[static_cast<std::size_t>(base + (per_group + 1) * d + i)];
      }
    }
    const auto norm_heads = [&](Vec& all, std::int64_t count, const Vec& weight) {
      for (std::int64_t n = 0; n < count; ++n) {
        Vec head(all.begin() + n * d, all.begin() + (n + 1) * d);
        head = rms_norm(head, weight, m.rms_norm_eps);
        rope(head.data(), d, t, m.rope_theta);
        std::copy(head.begin(), head.end(), all.begin() + n * d);
      }
    };
    norm_heads(q[ts], heads, w(attn + "q_layernorm.weight"));
    norm_heads(k[ts], groups, w(attn + "k_layernorm.weight"));
  }
  std::vector<Vec> out(x.size());
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (std::int64_t t = 0; t < seq; ++t) {
    const auto ts = static_cast<std::size_t>(t);
    Vec heads_out(static_cast<std::size_t>(heads * d), 0.0);
    for (std::int64_t n = 0; n < heads; ++n) {
      const std::int64_t g = n / per_group;
      Vec scores(static_cast<std::size_t>(t + 1));
      for (std::int64_t u = 0; u <= t; ++u) {
        double dot = 0;
        for (std::int64_t i = 0; i < d; ++i) {
          dot += q[ts][static_cast<std::size_t>(n * d + i)] *
                 k[static_cast<std::size_t>(u)][static_cast<std::size_t>(g * d + i)];
        }
        scores[static_cast<std::size_t>(u)] = dot * scale;
      }
      const Vec p = softmax(scores);
      for (std::int64_t u = 0; u <= t; ++u) {
        for (std::int64_t i = 0; i < d; ++i) {
          heads_out[static_cast<std::size_t>(n * d + i)] +=
              p[static_cast<std::size_t>(u)] *
              v[static_cast<std::size_t>(u)][static_cast<std::size_t>(g * d + i)];
        }
      }
    }
    out[ts] = matvec(w(attn + "linear_proj.weight"), h, heads * d, heads_out);
  }
  return out;
}

// MLP of one token (dense SwiGLU, or the routed experts of a MoE layer), after its norm.
Vec mlp(const model::ModelSpec& m, const Weights& w, const std::string& pre, const Vec& x,
        std::vector<std::int64_t>& routing) {
  const std::int64_t h = m.hidden_size;
  if (!m.is_moe()) {
    const Vec normed = rms_norm(x, w(pre + "mlp.linear_fc1.layer_norm_weight"), m.rms_norm_eps);
    return swiglu(w(pre + "mlp.linear_fc1.weight"), w(pre + "mlp.linear_fc2.weight"),
                  m.intermediate_size, h, normed);
  }
  const Vec normed = rms_norm(x, w(pre + "pre_mlp_layernorm.weight"), m.rms_norm_eps);
  const Vec probs = softmax(matvec(w(pre + "mlp.router.weight"), m.num_experts, h, normed));
  std::vector<std::int64_t> experts(static_cast<std::size_t>(m.num_experts));
  std::iota(experts.begin(), experts.end(), 0);
  std::stable_sort(experts.begin(), experts.end(), [&](std::int64_t a, std::int64_t b) {
    return probs[static_cast<std::size_t>(a)] > probs[static_cast<std::size_t>(b)];
  });
  experts.resize(static_cast<std::size_t>(m.experts_per_token));
  routing.insert(routing.end(), experts.begin(), experts.end());
  double chosen = 0;
  for (std::int64_t e : experts) {
    chosen += probs[static_cast<std::size_t>(e)];
  }
  Vec y(static_cast<std::size_t>(h), 0.0);
  for (std::int64_t e : experts) {
    const Vec out = swiglu(w(fmt::format("{}mlp.experts.linear_fc1.weight{}", pre, e)),
                           w(fmt::format("{}mlp.experts.linear_fc2.weight{}", pre, e)),
                           m.moe_intermediate_size, h, normed);
    const double weight = probs[static_cast<std::size_t>(e)] / chosen;
    for (std::size_t i = 0; i < y.size(); ++i) {
      y[i] += weight * out[i];
    }
  }
  return y;
}

}  // namespace

ReferenceOutput reference_forward(const model::ModelSpec& model, const ReferenceParams& params,
                                  const std::vector<std::int64_t>& tokens,
                                  const std::vector<std::int64_t>& labels, std::int64_t batch,
                                  std::int64_t seq) {
  const Weights w(model, params);
  const std::int64_t h = model.hidden_size;
  const std::int64_t vocab = model.vocab_size;
  const Vec& embedding = w("embedding.word_embeddings.weight");
  const Vec& head = model.tie_word_embeddings ? embedding : w("output_layer.weight");
  ReferenceOutput out;
  out.logits.reserve(static_cast<std::size_t>(batch * seq * vocab));
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<Vec> x(static_cast<std::size_t>(seq));
    for (std::int64_t t = 0; t < seq; ++t) {
      const std::int64_t id = tokens[static_cast<std::size_t>(b * seq + t)];
      x[static_cast<std::size_t>(t)].assign(embedding.begin() + id * h,
                                            embedding.begin() + (id + 1) * h);
    }
    for (std::int64_t layer = 0; layer < model.num_layers; ++layer) {
      const std::string pre = fmt::format("decoder.layers.{}.", layer);
      const std::vector<Vec> attended = attention(model, w, pre, x);
      for (std::size_t t = 0; t < x.size(); ++t) {
        for (std::int64_t i = 0; i < h; ++i) {
          x[t][static_cast<std::size_t>(i)] += attended[t][static_cast<std::size_t>(i)];
        }
        const Vec y = mlp(model, w, pre, x[t], out.routing);
        for (std::int64_t i = 0; i < h; ++i) {
          x[t][static_cast<std::size_t>(i)] += y[static_cast<std::size_t>(i)];
        }
      }
    }
    for (std::int64_t t = 0; t < seq; ++t) {
      const Vec normed = rms_norm(x[static_cast<std::size_t>(t)],
                                  w("decoder.final_layernorm.weight"), model.rms_norm_eps);
      const Vec logits = matvec(head, vocab, h, normed);
      const double top = *std::max_element(logits.begin(), logits.end());
      double sum = 0;
      for (double z : logits) {
        sum += std::exp(z - top);
      }
      const std::int64_t label = labels[static_cast<std::size_t>(b * seq + t)];
      out.loss += top + std::log(sum) - logits[static_cast<std::size_t>(label)];
      out.logits.insert(out.logits.end(), logits.begin(), logits.end());
    }
  }
  out.loss /= static_cast<double>(batch * seq);
  return out;
}

}  // namespace canzona::torch_model::testing
