// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/bench/benchmark_name.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace canzona::bench {
namespace {

// What each family's positional tokens mean, and the parameters its names must carry. A family
// not listed here is accepted with its tokens unnamed, so new suites need no harness change to
// be compared.
struct FamilyShape {
  std::string_view family;
  std::vector<std::vector<std::string_view>> positional;  // accepted layouts, by token count
  std::vector<std::string_view> required_params;
  std::string_view pattern;  // shown in error messages
};

const std::vector<FamilyShape>& family_shapes() {
  static const std::vector<FamilyShape> shapes = {
      {kOptimizerStepFamily,
       {{"optimizer", "strategy", "model"}},
       {"gpus", "dp", "tp"},
       "OptimizerStep/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>[/projected]"},
      {kE2EIterationFamily,
       {{"optimizer", "strategy", "model"}},
       {"gpus", "dp", "tp", "seq", "mbs"},
       "E2EIteration/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>/seq:<s>/mbs:<b>"
       "[/projected]"},
      {kPlannerFamily,
       {{"strategy", "model"}, {"optimizer", "strategy", "model"}},
       {"gpus", "dp", "tp"},
       "Planner/[<optimizer>/]<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>"},
      {kKernelsFamily,
       {{"optimizer", "backend"}},
       {"shape"},
       "Kernels/<optimizer>/<backend>/shape:<rows>x<cols>"},
      {kProjectorFamily,
       {{"optimizer", "model"}},
       {"gpus", "dp", "tp"},
       "Projector/<optimizer>/<model>/gpus:<n>/dp:<d>/tp:<t>"},
      {kPlanQualityFamily,
       {{"optimizer", "model"}},
       {"gpus", "dp", "tp", "cost"},
       "PlanQuality/<optimizer>/<model>/gpus:<n>/dp:<d>/tp:<t>/cost:<numel|flops>"},
  };
  return shapes;
}

// Google Benchmark appends these after the registered name.
bool is_measurement_suffix(std::string_view token) {
  static constexpr std::array<std::string_view, 3> kWords = {"manual_time", "real_time",
                                                             "process_time"};
  static constexpr std::array<std::string_view, 5> kKeys = {"repeats", "threads", "iterations",
                                                            "min_time", "min_warmup_time"};
  if (std::find(kWords.begin(), kWords.end(), token) != kWords.end()) return true;
  const auto colon = token.find(':');
  return colon != std::string_view::npos &&
         std::find(kKeys.begin(), kKeys.end(), token.substr(0, colon)) != kKeys.end();
}

// Parameters whose values are counts: they must be positive integers.
bool is_integer_param(std::string_view key) {
  return key == "gpus" || key == "dp" || key == "tp" || key == "seq" || key == "mbs";
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(sep, begin);
    parts.push_back(text.substr(begin, end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

int positive_integer(std::string_view name, std::string_view key, std::string_view value) {
  int parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size() || parsed <= 0) {
    throw ConfigError(
        fmt::format("benchmark name '{}': '{}:{}' is not a positive integer", name, key, value));
  }
  return parsed;
}

void name_positional(BenchmarkName& parsed, std::string_view full) {
  const auto shape = std::find_if(family_shapes().begin(), family_shapes().end(),
                                  [&](const FamilyShape& s) { return s.family == parsed.family; });
  if (shape == family_shapes().end()) return;
  const auto layout =
      std::find_if(shape->positional.begin(), shape->positional.end(),
                   [&](const auto& names) { return names.size() == parsed.positional.size(); });
  const auto missing_param =
      std::find_if(shape->required_params.begin(), shape->required_params.end(),
                   [&](std::string_view key) { return parsed.param(key) == nullptr; });
  if (layout == shape->positional.end() || missing_param != shape->required_params.end()) {
    throw ConfigError(fmt::format(
        "benchmark name '{}' does not have the shape {}{}", full, shape->pattern,
        missing_param != shape->required_params.end() ? fmt::format(" (no '{}:')", *missing_param)
                                                      : std::string()));
  }
  for (std::size_t i = 0; i < layout->size(); ++i) {
    const std::string& token = parsed.positional[i];
    const std::string_view meaning = (*layout)[i];
    if (meaning == "optimizer") parsed.optimizer = token;
    if (meaning == "strategy") parsed.strategy = token;
    if (meaning == "model") parsed.model = token;
    if (meaning == "backend") parsed.backend = token;
  }
}

}  // namespace

const std::string* BenchmarkName::param(std::string_view name) const {
  const auto it =
      std::find_if(params.begin(), params.end(), [&](const auto& kv) { return kv.first == name; });
  return it == params.end() ? nullptr : &it->second;
}

BenchmarkName parse_benchmark_name(std::string_view name) {
  std::vector<std::string_view> tokens = split(name, '/');
  while (tokens.size() > 1 && is_measurement_suffix(tokens.back())) tokens.pop_back();

  BenchmarkName parsed;
  if (tokens.size() > 1 && tokens.back() == "projected") {
    parsed.projected = true;
    tokens.pop_back();
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) {
      throw ConfigError(
          fmt::format("benchmark name '{}' has an empty token (two '/' in a row, "
                      "or a leading or trailing '/')",
                      name));
    }
    if (i > 0) parsed.key += '/';
    parsed.key += tokens[i];
  }
  parsed.family = std::string(tokens.front());
  if (parsed.family.find(':') != std::string::npos) {
    throw ConfigError(
        fmt::format("benchmark name '{}' starts with a parameter; it must start "
                    "with the family (e.g. OptimizerStep)",
                    name));
  }
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view token = tokens[i];
    const auto colon = token.find(':');
    if (colon == std::string_view::npos) {
      if (!parsed.params.empty()) {
        throw ConfigError(
            fmt::format("benchmark name '{}': '{}' follows a key:value parameter; "
                        "plain tokens (optimizer, strategy, model) come first",
                        name, token));
      }
      parsed.positional.emplace_back(token);
      continue;
    }
    const std::string_view key = token.substr(0, colon);
    const std::string_view value = token.substr(colon + 1);
    if (key.empty() || value.empty()) {
      throw ConfigError(
          fmt::format("benchmark name '{}': parameter '{}' needs a key and a value", name, token));
    }
    if (parsed.param(key) != nullptr) {
      throw ConfigError(fmt::format("benchmark name '{}' repeats parameter '{}'", name, key));
    }
    if (is_integer_param(key)) positive_integer(name, key, value);
    parsed.params.emplace_back(key, value);
  }
  if (const std::string* v = parsed.param("gpus")) parsed.gpus = positive_integer(name, "gpus", *v);
  if (const std::string* v = parsed.param("dp")) parsed.dp = positive_integer(name, "dp", *v);
  if (const std::string* v = parsed.param("tp")) parsed.tp = positive_integer(name, "tp", *v);
  // In 64 bits: dp 65537 × tp 65537 wraps to 131073 in an int.
  if (parsed.gpus && parsed.dp && parsed.tp &&
      std::int64_t{*parsed.gpus} != std::int64_t{*parsed.dp} * *parsed.tp) {
    throw ConfigError(fmt::format("benchmark name '{}': gpus:{} is not dp:{} x tp:{}", name,
                                  *parsed.gpus, *parsed.dp, *parsed.tp));
  }
  name_positional(parsed, name);
  return parsed;
}

std::vector<std::pair<std::string_view, std::string_view>> benchmark_families() {
  std::vector<std::pair<std::string_view, std::string_view>> families;
  for (const FamilyShape& shape : family_shapes())
    families.emplace_back(shape.family, shape.pattern);
  return families;
}

std::string format_benchmark_name(const BenchmarkName& parts) {
  const auto refuse = [&](std::string_view what) {
    throw ConfigError(fmt::format("cannot write a {} benchmark name: {}", parts.family, what));
  };
  const auto check_token = [&](std::string_view token, bool may_hold_colon) {
    if (token.empty() || token.find('/') != std::string_view::npos ||
        (!may_hold_colon && token.find(':') != std::string_view::npos)) {
      refuse(fmt::format("token '{}' is empty or holds '/'{}", token,
                         may_hold_colon ? "" : " or ':'"));
    }
  };
  check_token(parts.family, false);
  std::string name = parts.family;
  for (const std::string& token : parts.positional) {
    check_token(token, false);
    name += '/' + token;
  }
  for (const auto& [key, value] : parts.params) {
    check_token(key, false);
    check_token(value, true);
    name += fmt::format("/{}:{}", key, value);
  }
  if (parts.projected) name += "/projected";
  // The parser is the definition: a name it would refuse, or read differently, is not written.
  const BenchmarkName back = parse_benchmark_name(name);
  if (back.family != parts.family || back.positional != parts.positional ||
      back.params != parts.params || back.projected != parts.projected) {
    refuse(fmt::format("'{}' would not read back as written", name));
  }
  return name;
}

namespace {

BenchmarkName distributed_parts(std::string_view family, const DistributedCase& c,
                                bool with_optimizer) {
  BenchmarkName parts;
  parts.family = std::string(family);
  if (with_optimizer) parts.positional.push_back(c.optimizer);
  parts.positional.push_back(c.strategy);
  parts.positional.push_back(c.model);
  parts.params = {{"gpus", std::to_string(std::int64_t{c.dp} * c.tp)},
                  {"dp", std::to_string(c.dp)},
                  {"tp", std::to_string(c.tp)}};
  parts.projected = c.projected;
  return parts;
}

}  // namespace

std::string optimizer_step_name(const DistributedCase& c) {
  return format_benchmark_name(distributed_parts(kOptimizerStepFamily, c, true));
}

std::string e2e_iteration_name(const DistributedCase& c, int seq, int mbs) {
  BenchmarkName parts = distributed_parts(kE2EIterationFamily, c, true);
  parts.params.emplace_back("seq", std::to_string(seq));
  parts.params.emplace_back("mbs", std::to_string(mbs));
  return format_benchmark_name(parts);
}

std::string planner_name(const DistributedCase& c) {
  return format_benchmark_name(distributed_parts(kPlannerFamily, c, !c.optimizer.empty()));
}

std::string projector_name(std::string_view optimizer, std::string_view model, int dp, int tp) {
  DistributedCase c;
  c.model = std::string(model);
  c.dp = dp;
  c.tp = tp;
  BenchmarkName parts = distributed_parts(kProjectorFamily, c, false);
  parts.positional = {std::string(optimizer), std::string(model)};
  return format_benchmark_name(parts);
}

std::string plan_quality_name(std::string_view optimizer, std::string_view model, int dp, int tp,
                              std::string_view cost) {
  DistributedCase c;
  c.model = std::string(model);
  c.dp = dp;
  c.tp = tp;
  BenchmarkName parts = distributed_parts(kPlanQualityFamily, c, false);
  parts.positional = {std::string(optimizer), std::string(model)};
  parts.params.emplace_back("cost", std::string(cost));
  return format_benchmark_name(parts);
}

std::string kernels_name(std::string_view optimizer, std::string_view backend, std::int64_t rows,
                         std::int64_t cols) {
  BenchmarkName parts;
  parts.family = std::string(kKernelsFamily);
  parts.positional = {std::string(optimizer), std::string(backend)};
  parts.params = {{"shape", fmt::format("{}x{}", rows, cols)}};
  return format_benchmark_name(parts);
}

std::string registered_name(const BenchmarkName& name) {
  return name.projected ? name.key + "/projected" : name.key;
}

}  // namespace canzona::bench
