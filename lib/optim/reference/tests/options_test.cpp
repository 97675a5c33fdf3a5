// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// validate(), to_string and parse_* of the optimizer vocabulary (lib/optim/src/options.cpp),
// tested here next to the references that consume it.
#include <canzona/core/error.hpp>
#include <canzona/optim/options.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace canzona::optim {
namespace {

struct BadSetting {
  std::string field;  ///< must appear in the message
  std::string value;  ///< must appear in the message
  std::function<void(OptimizerSpec&)> apply;
};

std::string message_of(const OptimizerSpec& spec) {
  try {
    validate(spec);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(OptionsReferenceTest, DefaultsAreValidForEveryKind) {
  for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                   OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
    OptimizerSpec spec;
    spec.kind = kind;
    EXPECT_NO_THROW(validate(spec)) << to_string(kind);
  }
}

TEST(OptionsReferenceTest, RejectsBadSettingsNamingFieldValueAndRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  using K = OptimizerKind;
  const std::vector<BadSetting> cases = {
      {"muon.lr", "0", [](OptimizerSpec& s) { s.muon.lr = 0.0; }},
      {"muon.lr", "nan", [nan](OptimizerSpec& s) { s.muon.lr = nan; }},
      {"muon.lr", "inf", [inf](OptimizerSpec& s) { s.muon.lr = inf; }},
      {"muon.weight_decay", "-0.1", [](OptimizerSpec& s) { s.muon.weight_decay = -0.1; }},
      {"muon.momentum", "1", [](OptimizerSpec& s) { s.muon.momentum = 1.0; }},
      {"muon.momentum", "-0.5", [](OptimizerSpec& s) { s.muon.momentum = -0.5; }},
      {"muon.ns_steps", "0", [](OptimizerSpec& s) { s.muon.ns_steps = 0; }},
      {"muon.ns_steps", "101", [](OptimizerSpec& s) { s.muon.ns_steps = 101; }},
      {"muon.ns_eps", "0", [](OptimizerSpec& s) { s.muon.ns_eps = 0.0; }},
      {"muon.coefficients", "42",
       [](OptimizerSpec& s) { s.muon.coefficients = static_cast<NsCoefficients>(42); }},
      {"muon.scale", "7", [](OptimizerSpec& s) { s.muon.scale = static_cast<MuonScale>(7); }},
      {"shampoo.lr", "-0.001",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.lr = -1e-3;
       }},
      {"shampoo.beta1", "1",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.beta1 = 1;
       }},
      {"shampoo.beta2", "1.5",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.beta2 = 1.5;
       }},
      {"shampoo.epsilon", "-1",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.epsilon = -1;
       }},
      {"shampoo.refresh_interval", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.refresh_interval = 0;
       }},
      {"shampoo.max_precond_dim", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.max_precond_dim = 0;
       }},
      {"shampoo.graft_beta2", "-0.1",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.graft_beta2 = -0.1;
       }},
      {"shampoo.graft_epsilon", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kShampoo;
         s.shampoo.graft_epsilon = 0;
       }},
      {"soap.shampoo_beta", "1",
       [](OptimizerSpec& s) {
         s.kind = K::kSoap;
         s.soap.shampoo_beta = 1.0;
       }},
      {"soap.eps", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kSoap;
         s.soap.eps = 0;
       }},
      {"soap.precondition_frequency", "-3",
       [](OptimizerSpec& s) {
         s.kind = K::kSoap;
         s.soap.precondition_frequency = -3;
       }},
      {"soap.max_precond_dim", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kSoap;
         s.soap.max_precond_dim = 0;
       }},
      {"soap.beta1", "1",
       [](OptimizerSpec& s) {
         s.kind = K::kSoap;
         s.soap.beta1 = 1;
       }},
      {"adamw.beta2", "1",
       [](OptimizerSpec& s) {
         s.kind = K::kAdamW;
         s.adamw.beta2 = 1;
       }},
      {"adamw.eps", "0",
       [](OptimizerSpec& s) {
         s.kind = K::kAdamW;
         s.adamw.eps = 0;
       }},
      {"adamw.weight_decay", "-1",
       [](OptimizerSpec& s) {
         s.kind = K::kAdamW;
         s.adamw.weight_decay = -1;
       }},
      {"adamw.lr", "nan",
       [nan](OptimizerSpec& s) {
         s.kind = K::kAdamW;
         s.adamw.lr = nan;
       }},
  };
  for (const BadSetting& c : cases) {
    OptimizerSpec spec;
    c.apply(spec);
    const std::string message = message_of(spec);
    EXPECT_NE(message.find(c.field + " = " + c.value), std::string::npos)
        << "expected '" << c.field << " = " << c.value << "' in '" << message << "'";
    EXPECT_NE(message.find("must be"), std::string::npos) << message;
  }
}

TEST(OptionsReferenceTest, AcceptsBoundaryValues) {
  OptimizerSpec spec;
  spec.muon.ns_steps = 1;
  spec.muon.momentum = 0.0;
  spec.muon.weight_decay = 0.0;
  EXPECT_NO_THROW(validate(spec));
  spec.muon.ns_steps = 100;
  EXPECT_NO_THROW(validate(spec));
  spec.kind = OptimizerKind::kSoap;
  spec.soap.shampoo_beta = -1.0;  // means beta2
  spec.soap.precondition_frequency = 1;
  spec.soap.max_precond_dim = 1;
  EXPECT_NO_THROW(validate(spec));
}

TEST(OptionsReferenceTest, ChecksOnlyTheSelectedOptimizer) {
  OptimizerSpec spec;
  spec.kind = OptimizerKind::kAdamW;
  spec.muon.lr = -1.0;
  spec.shampoo.refresh_interval = 0;
  EXPECT_NO_THROW(validate(spec));
  spec.kind = OptimizerKind::kMuon;
  EXPECT_THROW(validate(spec), ConfigError);
}

TEST(OptionsReferenceTest, NamesRoundTrip) {
  for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                   OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
    EXPECT_EQ(parse_optimizer_kind(to_string(kind)), kind);
  }
  for (const NsCoefficients set :
       {NsCoefficients::kSimple, NsCoefficients::kQuintic, NsCoefficients::kPolarExpress,
        NsCoefficients::kAolNvidia, NsCoefficients::kQwenExpress}) {
    EXPECT_EQ(parse_ns_coefficients(to_string(set)), set);
  }
  EXPECT_EQ(to_string(OptimizerKind::kAdamW), "adamw");
  EXPECT_EQ(to_string(NsCoefficients::kPolarExpress), "polar_express");
  EXPECT_EQ(to_string(NsCoefficients::kAolNvidia), "aol_nvidia");
  EXPECT_EQ(to_string(NsPrecision::kFloat32), "fp32");
  EXPECT_EQ(to_string(NsPrecision::kBFloat16), "bf16");
  EXPECT_EQ(parse_optimizer_kind("AdamW"), OptimizerKind::kAdamW);  // case-insensitive
}

TEST(OptionsReferenceTest, ParseErrorsListTheChoices) {
  try {
    parse_optimizer_kind("lion");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'lion'"), std::string::npos) << m;
    EXPECT_NE(m.find("muon, shampoo, soap, adamw"), std::string::npos) << m;
  }
  try {
    parse_ns_coefficients("cubic");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'cubic'"), std::string::npos) << m;
    EXPECT_NE(m.find("simple, quintic, polar_express, aol_nvidia, qwen_express"), std::string::npos)
        << m;
  }
  EXPECT_THROW(parse_optimizer_kind(""), ConfigError);
  EXPECT_THROW(parse_ns_coefficients("simple "), ConfigError);
}

}  // namespace
}  // namespace canzona::optim
