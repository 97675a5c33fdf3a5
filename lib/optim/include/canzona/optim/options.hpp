// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Which optimizer and with what hyper-parameters: the vocabulary shared by the double-precision
// references, the backend implementations, the cost models and the CLI.
#pragma once

#include <cstdint>
#include <string_view>

namespace canzona::optim {

enum class OptimizerKind { kMuon, kShampoo, kSoap, kAdamW };

/// Newton–Schulz coefficient sets (a, b, c) per iteration; the last tuple repeats when there are
/// more steps than tuples. Values: paper-spec §5.2 (Megatron-Canzona muon.py).
enum class NsCoefficients { kSimple, kQuintic, kPolarExpress, kAolNvidia, kQwenExpress };

/// Element type of Newton–Schulz iterates and GEMM operands; accumulation is always fp32.
enum class NsPrecision { kFloat32, kBFloat16 };

/// How Muon scales the orthogonalized update U of an A×B matrix.
enum class MuonScale {
  kRmsMatch,     ///< 0.2·sqrt(max(A, B)) (Moonlight / Megatron-Canzona; AdamW-like update RMS)
  kAspectRatio,  ///< sqrt(max(1, A/B)) (KellerJordan Muon)
};

struct MuonOptions {
  double lr = 4e-4;
  double weight_decay = 0.1;  ///< decoupled: p ← p·(1 − lr·wd) before the update
  double momentum = 0.95;     ///< buf ← μ·buf + (1 − μ)·g (lerp)
  bool nesterov = true;       ///< m = (1 − μ)·g + μ·buf instead of buf
  int ns_steps = 5;
  NsCoefficients coefficients = NsCoefficients::kSimple;
  double ns_eps = 1e-7;  ///< X = G / max(‖G‖_F, eps)
  NsPrecision ns_precision = NsPrecision::kBFloat16;
  MuonScale scale = MuonScale::kRmsMatch;
};

/// Shampoo with Adam grafting, following facebookresearch/optimizers DistributedShampoo (Shi et
/// al. 2023, arXiv 2309.06497; Anil et al. 2020 for the grafting): statistics from the raw
/// gradient, first moment (β1 EMA, bias-corrected) preconditioned, direction rescaled to the
/// Frobenius norm of the Adam direction. Full derivation and every departure from
/// DistributedShampoo with its size in lib/optim/README.md; the three flags below switch on
/// DistributedShampoo's behaviour where the defaults depart from it.
struct ShampooOptions {
  double lr = 4e-4;
  double weight_decay = 0.1;            ///< decoupled, before the update as for Muon
  double beta1 = 0.9;                   ///< EMA of the gradient that gets preconditioned
  double beta2 = 0.95;                  ///< EMA of the statistics L = E[G·Gᵀ], R = E[Gᵀ·G]
  double epsilon = 1e-12;               ///< inverse root of (λ + ε), λ clamped at 0
  int refresh_interval = 10;            ///< inverse roots recomputed every k steps (below)
  std::int64_t max_precond_dim = 8192;  ///< a side larger than this is left unpreconditioned
  double graft_beta2 = 0.999;           ///< Adam grafting second moment
  double graft_epsilon = 1e-8;
  /// Roots of L / (1 − β2^t) + ε·I instead of L + ε·I: the statistics bias-corrected before ε
  /// is added (DistributedShampoo's use_bias_correction).
  bool bias_correct_statistics = false;
  /// Roots refreshed on steps k, 2k, … (DistributedShampoo) instead of 1, 1 + k, 1 + 2k, ….
  bool refresh_at_multiples = false;
  /// Steps before this one take the Adam grafting direction alone (DistributedShampoo's
  /// start_preconditioning_step); 1 = precondition from the first step. With
  /// refresh_at_multiples it must be >= refresh_interval (no root exists before step k).
  int start_preconditioning_step = 1;
};

/// SOAP as in paper-spec §5.3 (Vyas et al. 2024, arXiv 2409.11321; Megatron-Canzona soap.py).
struct SoapOptions {
  double lr = 4e-4;
  double weight_decay = 0.1;  ///< decoupled, applied after the update: p ← (p − lr·N)·(1 − lr·wd)
  double beta1 = 0.9;
  double beta2 = 0.95;
  double shampoo_beta = 0.99;  ///< EMA of GG statistics; a negative value means beta2
  double eps = 1e-8;
  int precondition_frequency = 10;  ///< eigenbases refreshed when step % f == 0
  std::int64_t max_precond_dim = 10000;
  bool correct_bias = true;
  bool normalize_grads = false;
};

struct AdamWOptions {
  double lr = 4e-4;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;  ///< callers pass 0 for 1-D parameters (norms), as Megatron does
};

/// One optimizer with its hyper-parameters; only the member matching `kind` is used.
struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::kMuon;
  MuonOptions muon;
  ShampooOptions shampoo;
  SoapOptions soap;
  AdamWOptions adamw;
};

/// ConfigError naming the hyper-parameter, its value and the valid range.
void validate(const OptimizerSpec& spec);

std::string_view to_string(OptimizerKind kind);     ///< "muon", "shampoo", "soap", "adamw"
std::string_view to_string(NsCoefficients set);     ///< "simple", "quintic", "polar_express", …
std::string_view to_string(NsPrecision precision);  ///< "fp32", "bf16"
OptimizerKind parse_optimizer_kind(std::string_view text);    ///< ConfigError listing choices
NsCoefficients parse_ns_coefficients(std::string_view text);  ///< ConfigError listing choices

}  // namespace canzona::optim
