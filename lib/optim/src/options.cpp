// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Validation, printing and parsing of the optimizer vocabulary. Every rejection names the
// hyper-parameter, the offending value and the valid range, so a CLI user can fix it directly.
#include "canzona/optim/options.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

namespace canzona::optim {
namespace {

[[noreturn]] void reject(std::string_view field, const std::string& value, std::string_view range) {
  throw ConfigError(
      fmt::format("invalid optimizer option {} = {}: must be {}", field, value, range));
}

// `!(value > 0)` rather than `value <= 0` so NaN is rejected as well.
void require_positive(std::string_view field, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    reject(field, fmt::format("{}", value), "a finite number > 0");
  }
}

void require_non_negative(std::string_view field, double value) {
  if (!(std::isfinite(value) && value >= 0.0)) {
    reject(field, fmt::format("{}", value), "a finite number >= 0");
  }
}

// EMA coefficients: β = 1 would freeze the average and make the bias correction divide by 0.
void require_ema(std::string_view field, double value) {
  if (!(value >= 0.0 && value < 1.0)) {
    reject(field, fmt::format("{}", value), "in [0, 1)");
  }
}

void require_int_range(std::string_view field, std::int64_t value, std::int64_t lo,
                       std::int64_t hi) {
  if (value < lo || value > hi) {
    reject(field, fmt::format("{}", value), fmt::format("an integer in [{}, {}]", lo, hi));
  }
}

void require_at_least(std::string_view field, std::int64_t value, std::int64_t lo) {
  if (value < lo) {
    reject(field, fmt::format("{}", value), fmt::format("an integer >= {}", lo));
  }
}

bool known(NsCoefficients set) {
  switch (set) {
    case NsCoefficients::kSimple:
    case NsCoefficients::kQuintic:
    case NsCoefficients::kPolarExpress:
    case NsCoefficients::kAolNvidia:
    case NsCoefficients::kQwenExpress:
      return true;
  }
  return false;
}

bool known(NsPrecision precision) {
  return precision == NsPrecision::kFloat32 || precision == NsPrecision::kBFloat16;
}

bool known(MuonScale scale) {
  return scale == MuonScale::kRmsMatch || scale == MuonScale::kAspectRatio;
}

void validate_muon(const MuonOptions& o) {
  require_positive("muon.lr", o.lr);
  require_non_negative("muon.weight_decay", o.weight_decay);
  require_ema("muon.momentum", o.momentum);
  require_int_range("muon.ns_steps", o.ns_steps, 1, 100);
  require_positive("muon.ns_eps", o.ns_eps);
  if (!known(o.coefficients)) {
    reject("muon.coefficients", fmt::format("{}", static_cast<int>(o.coefficients)),
           "one of simple, quintic, polar_express, aol_nvidia, qwen_express");
  }
  if (!known(o.ns_precision)) {
    reject("muon.ns_precision", fmt::format("{}", static_cast<int>(o.ns_precision)),
           "one of fp32, bf16");
  }
  if (!known(o.scale)) {
    reject("muon.scale", fmt::format("{}", static_cast<int>(o.scale)),
           "one of rms_match, aspect_ratio");
  }
}

void validate_shampoo(const ShampooOptions& o) {
  require_positive("shampoo.lr", o.lr);
  require_non_negative("shampoo.weight_decay", o.weight_decay);
  require_ema("shampoo.beta1", o.beta1);
  require_ema("shampoo.beta2", o.beta2);
  require_positive("shampoo.epsilon", o.epsilon);
  require_at_least("shampoo.refresh_interval", o.refresh_interval, 1);
  require_at_least("shampoo.max_precond_dim", o.max_precond_dim, 1);
  require_ema("shampoo.graft_beta2", o.graft_beta2);
  require_positive("shampoo.graft_epsilon", o.graft_epsilon);
  require_at_least("shampoo.start_preconditioning_step", o.start_preconditioning_step, 1);
  if (o.refresh_at_multiples && o.start_preconditioning_step < o.refresh_interval) {
    reject("shampoo.start_preconditioning_step", fmt::format("{}", o.start_preconditioning_step),
           fmt::format("with roots refreshed at multiples of the interval, preconditioning can "
                       "start no earlier than step {} (the first root)",
                       o.refresh_interval));
  }
}

void validate_soap(const SoapOptions& o) {
  require_positive("soap.lr", o.lr);
  require_non_negative("soap.weight_decay", o.weight_decay);
  require_ema("soap.beta1", o.beta1);
  require_ema("soap.beta2", o.beta2);
  // Any negative value selects beta2, so only [1, ∞) and NaN are wrong.
  if (!(o.shampoo_beta < 1.0) || !std::isfinite(o.shampoo_beta)) {
    reject("soap.shampoo_beta", fmt::format("{}", o.shampoo_beta),
           "in [0, 1), or negative to use beta2");
  }
  require_positive("soap.eps", o.eps);
  require_at_least("soap.precondition_frequency", o.precondition_frequency, 1);
  require_at_least("soap.max_precond_dim", o.max_precond_dim, 1);
}

void validate_adamw(const AdamWOptions& o) {
  require_positive("adamw.lr", o.lr);
  require_ema("adamw.beta1", o.beta1);
  require_ema("adamw.beta2", o.beta2);
  require_positive("adamw.eps", o.eps);
  require_non_negative("adamw.weight_decay", o.weight_decay);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

template <typename Enum, std::size_t N>
Enum parse_choice(std::string_view what, std::string_view text,
                  const std::array<std::pair<std::string_view, Enum>, N>& choices) {
  for (const auto& [name, value] : choices) {
    if (equals_ignoring_case(text, name)) {
      return value;
    }
  }
  std::string list;
  for (const auto& [name, value] : choices) {
    list += list.empty() ? "" : ", ";
    list += name;
  }
  throw ConfigError(fmt::format("unknown {} '{}'; choose one of: {}", what, text, list));
}

constexpr std::array<std::pair<std::string_view, OptimizerKind>, 4> kKinds = {{
    {"muon", OptimizerKind::kMuon},
    {"shampoo", OptimizerKind::kShampoo},
    {"soap", OptimizerKind::kSoap},
    {"adamw", OptimizerKind::kAdamW},
}};

constexpr std::array<std::pair<std::string_view, NsCoefficients>, 5> kCoefficientSets = {{
    {"simple", NsCoefficients::kSimple},
    {"quintic", NsCoefficients::kQuintic},
    {"polar_express", NsCoefficients::kPolarExpress},
    {"aol_nvidia", NsCoefficients::kAolNvidia},
    {"qwen_express", NsCoefficients::kQwenExpress},
}};

}  // namespace

void validate(const OptimizerSpec& spec) {
  // Only the member selected by `kind` is used (options.hpp), so only it is checked: a CLI that
  // leaves the other members at garbage values is not wrong.
  switch (spec.kind) {
    case OptimizerKind::kMuon:
      validate_muon(spec.muon);
      return;
    case OptimizerKind::kShampoo:
      validate_shampoo(spec.shampoo);
      return;
    case OptimizerKind::kSoap:
      validate_soap(spec.soap);
      return;
    case OptimizerKind::kAdamW:
      validate_adamw(spec.adamw);
      return;
  }
  reject("kind", fmt::format("{}", static_cast<int>(spec.kind)),
         "one of muon, shampoo, soap, adamw");
}

std::string_view to_string(OptimizerKind kind) {
  for (const auto& [name, value] : kKinds) {
    if (value == kind) {
      return name;
    }
  }
  return "unknown";
}

std::string_view to_string(NsCoefficients set) {
  for (const auto& [name, value] : kCoefficientSets) {
    if (value == set) {
      return name;
    }
  }
  return "unknown";
}

std::string_view to_string(NsPrecision precision) {
  switch (precision) {
    case NsPrecision::kFloat32:
      return "fp32";
    case NsPrecision::kBFloat16:
      return "bf16";
  }
  return "unknown";
}

OptimizerKind parse_optimizer_kind(std::string_view text) {
  return parse_choice("optimizer", text, kKinds);
}

NsCoefficients parse_ns_coefficients(std::string_view text) {
  return parse_choice("Newton-Schulz coefficient set", text, kCoefficientSets);
}

}  // namespace canzona::optim
