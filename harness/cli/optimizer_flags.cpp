// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "optimizer_flags.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <vector>

namespace canzona::harness {

struct OptimizerFlags::Values {
  std::string optimizer;
  std::optional<double> lr, weight_decay, momentum, ns_eps, beta1, beta2, eps, shampoo_beta,
      graft_beta2, graft_epsilon;
  std::optional<int> ns_steps, refresh_interval, precondition_frequency, start_preconditioning_step;
  std::optional<std::int64_t> max_precond_dim;
  std::optional<std::string> ns_coefficients, ns_precision, muon_scale;
  bool no_nesterov = false;
  bool nesterov = false;
  bool bias_correct_statistics = false;
  bool refresh_at_multiples = false;
  bool no_bias_correction = false;
  bool normalize_grads = false;
};

OptimizerFlags::OptimizerFlags(CLI::App& cmd, std::optional<std::string> default_optimizer)
    : values_(std::make_shared<Values>()) {
  Values& v = *values_;
  CLI::Option* optimizer =
      cmd.add_option("--optimizer", v.optimizer, "muon, shampoo, soap or adamw");
  if (default_optimizer) {
    v.optimizer = *default_optimizer;
    optimizer->capture_default_str();
  } else {
    optimizer->required();
  }
  cmd.add_option("--lr", v.lr, "Learning rate");
  cmd.add_option("--weight-decay", v.weight_decay, "Decoupled weight decay");
  cmd.add_option("--momentum", v.momentum, "Muon momentum");
  cmd.add_flag("--no-nesterov", v.no_nesterov, "Muon without Nesterov momentum");
  cmd.add_flag("--nesterov", v.nesterov,
               "Muon with Nesterov momentum (the default, except under --preset "
               "canzona-reference)");
  cmd.add_option("--ns-steps", v.ns_steps, "Muon Newton-Schulz iterations");
  cmd.add_option("--ns-coefficients", v.ns_coefficients,
                 "Muon NS coefficients: simple, quintic, polar_express, aol_nvidia, qwen_express");
  cmd.add_option("--ns-precision", v.ns_precision, "Muon NS precision: bf16 or fp32");
  cmd.add_option("--ns-eps", v.ns_eps, "Muon Frobenius-normalisation epsilon");
  cmd.add_option("--muon-scale", v.muon_scale,
                 "Muon update scale: rms (0.2*sqrt(max(m,n))) or aspect (sqrt(max(1,m/n)))");
  cmd.add_option("--beta1", v.beta1, "First-moment EMA (shampoo, soap, adamw)");
  cmd.add_option("--beta2", v.beta2, "Second-moment / statistics EMA (shampoo, soap, adamw)");
  cmd.add_option("--eps", v.eps, "Adam epsilon (soap, adamw) or root epsilon (shampoo)");
  cmd.add_option("--shampoo-beta", v.shampoo_beta, "SOAP statistics EMA (negative: beta2)");
  cmd.add_option("--refresh-interval", v.refresh_interval, "Shampoo inverse-root refresh");
  cmd.add_option("--precondition-frequency", v.precondition_frequency, "SOAP eigenbasis refresh");
  cmd.add_option("--max-precond-dim", v.max_precond_dim,
                 "Largest preconditioned side (shampoo, soap)");
  cmd.add_option("--graft-beta2", v.graft_beta2, "Shampoo Adam-grafting second moment");
  cmd.add_option("--graft-eps", v.graft_epsilon, "Shampoo Adam-grafting epsilon");
  cmd.add_flag("--no-bias-correction", v.no_bias_correction, "SOAP without bias correction");
  cmd.add_flag("--bias-correct-statistics", v.bias_correct_statistics,
               "Shampoo: roots of the bias-corrected statistics, as DistributedShampoo");
  cmd.add_flag("--refresh-at-multiples", v.refresh_at_multiples,
               "Shampoo: refresh roots on steps k, 2k, ... (DistributedShampoo) instead of 1, "
               "1+k, ...");
  cmd.add_option("--start-preconditioning-step", v.start_preconditioning_step,
                 "Shampoo: Adam grafting alone before this step (DistributedShampoo's "
                 "start_preconditioning_step; default 1)");
  cmd.add_flag("--normalize-grads", v.normalize_grads, "SOAP: normalise the update's RMS");
}

namespace {

// Records which flags were given so those that do not apply can be named in the error.
class Applier {
 public:
  explicit Applier(optim::OptimizerKind kind) : kind_(kind) {}

  template <typename T, typename Field>
  void set(const std::optional<T>& value, const char* flag,
           std::initializer_list<optim::OptimizerKind> applies, Field&& assign) {
    if (!value) return;
    for (const optim::OptimizerKind k : applies) {
      if (k == kind_) {
        assign(*value);
        return;
      }
    }
    std::vector<std::string_view> names;
    for (const optim::OptimizerKind k : applies) names.push_back(optim::to_string(k));
    throw ConfigError(fmt::format("{} does not apply to --optimizer {} (it applies to {})", flag,
                                  optim::to_string(kind_), fmt::join(names, ", ")));
  }

 private:
  optim::OptimizerKind kind_;
};

optim::NsPrecision parse_precision(const std::string& text) {
  if (text == "bf16") return optim::NsPrecision::kBFloat16;
  if (text == "fp32") return optim::NsPrecision::kFloat32;
  throw ConfigError(fmt::format("--ns-precision '{}' is not one of bf16, fp32", text));
}

optim::MuonScale parse_scale(const std::string& text) {
  if (text == "rms") return optim::MuonScale::kRmsMatch;
  if (text == "aspect") return optim::MuonScale::kAspectRatio;
  throw ConfigError(fmt::format("--muon-scale '{}' is not one of rms, aspect", text));
}

}  // namespace

optim::OptimizerSpec OptimizerFlags::spec(const optim::OptimizerSpec& defaults) const {
  using optim::OptimizerKind;
  const Values& v = *values_;
  optim::OptimizerSpec s = defaults;
  s.kind = optim::parse_optimizer_kind(v.optimizer);
  Applier a(s.kind);
  constexpr auto kMuon = OptimizerKind::kMuon, kShampoo = OptimizerKind::kShampoo,
                 kSoap = OptimizerKind::kSoap, kAdamW = OptimizerKind::kAdamW;
  const auto all = {kMuon, kShampoo, kSoap, kAdamW};

  a.set(v.lr, "--lr", all,
        [&](double x) { s.muon.lr = s.shampoo.lr = s.soap.lr = s.adamw.lr = x; });
  a.set(v.weight_decay, "--weight-decay", all, [&](double x) {
    s.muon.weight_decay = s.shampoo.weight_decay = s.soap.weight_decay = s.adamw.weight_decay = x;
  });
  a.set(v.momentum, "--momentum", {kMuon}, [&](double x) { s.muon.momentum = x; });
  if (v.nesterov && v.no_nesterov) {
    throw ConfigError("--nesterov and --no-nesterov contradict each other; give one");
  }
  a.set(v.no_nesterov ? std::optional<bool>(true) : std::nullopt, "--no-nesterov", {kMuon},
        [&](bool) { s.muon.nesterov = false; });
  a.set(v.nesterov ? std::optional<bool>(true) : std::nullopt, "--nesterov", {kMuon},
        [&](bool) { s.muon.nesterov = true; });
  a.set(v.ns_steps, "--ns-steps", {kMuon}, [&](int x) { s.muon.ns_steps = x; });
  a.set(v.ns_coefficients, "--ns-coefficients", {kMuon},
        [&](const std::string& x) { s.muon.coefficients = optim::parse_ns_coefficients(x); });
  a.set(v.ns_precision, "--ns-precision", {kMuon},
        [&](const std::string& x) { s.muon.ns_precision = parse_precision(x); });
  a.set(v.ns_eps, "--ns-eps", {kMuon}, [&](double x) { s.muon.ns_eps = x; });
  a.set(v.muon_scale, "--muon-scale", {kMuon},
        [&](const std::string& x) { s.muon.scale = parse_scale(x); });
  a.set(v.beta1, "--beta1", {kShampoo, kSoap, kAdamW},
        [&](double x) { s.shampoo.beta1 = s.soap.beta1 = s.adamw.beta1 = x; });
  a.set(v.beta2, "--beta2", {kShampoo, kSoap, kAdamW},
        [&](double x) { s.shampoo.beta2 = s.soap.beta2 = s.adamw.beta2 = x; });
  a.set(v.eps, "--eps", {kShampoo, kSoap, kAdamW},
        [&](double x) { s.shampoo.epsilon = s.soap.eps = s.adamw.eps = x; });
  a.set(v.shampoo_beta, "--shampoo-beta", {kSoap}, [&](double x) { s.soap.shampoo_beta = x; });
  a.set(v.refresh_interval, "--refresh-interval", {kShampoo},
        [&](int x) { s.shampoo.refresh_interval = x; });
  a.set(v.precondition_frequency, "--precondition-frequency", {kSoap},
        [&](int x) { s.soap.precondition_frequency = x; });
  a.set(v.max_precond_dim, "--max-precond-dim", {kShampoo, kSoap},
        [&](std::int64_t x) { s.shampoo.max_precond_dim = s.soap.max_precond_dim = x; });
  a.set(v.graft_beta2, "--graft-beta2", {kShampoo}, [&](double x) { s.shampoo.graft_beta2 = x; });
  a.set(v.graft_epsilon, "--graft-eps", {kShampoo}, [&](double x) { s.shampoo.graft_epsilon = x; });
  a.set(v.bias_correct_statistics ? std::optional<bool>(true) : std::nullopt,
        "--bias-correct-statistics", {kShampoo},
        [&](bool) { s.shampoo.bias_correct_statistics = true; });
  a.set(v.refresh_at_multiples ? std::optional<bool>(true) : std::nullopt, "--refresh-at-multiples",
        {kShampoo}, [&](bool) { s.shampoo.refresh_at_multiples = true; });
  a.set(v.start_preconditioning_step, "--start-preconditioning-step", {kShampoo},
        [&](int x) { s.shampoo.start_preconditioning_step = x; });
  a.set(v.no_bias_correction ? std::optional<bool>(true) : std::nullopt, "--no-bias-correction",
        {kSoap}, [&](bool) { s.soap.correct_bias = false; });
  a.set(v.normalize_grads ? std::optional<bool>(true) : std::nullopt, "--normalize-grads", {kSoap},
        [&](bool) { s.soap.normalize_grads = true; });
  optim::validate(s);
  return s;
}

}  // namespace canzona::harness
