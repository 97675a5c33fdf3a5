// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench step`: applies optimizer steps to a parameter read from .npy, one per gradient
// file in order, and writes the updated parameter. How users check our optimizers against
// PyTorch (golden files) and a GPU run against the CPU or the double-precision reference.
#include "commands.hpp"
#include "optimizer_flags.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/npy.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/reference/adamw_reference.hpp>
#include <canzona/optim/reference/muon_reference.hpp>
#include <canzona/optim/reference/shampoo_reference.hpp>
#include <canzona/optim/reference/soap_reference.hpp>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <ostream>
#include <vector>

namespace canzona::harness {
namespace {

struct StepOptions {
  std::unique_ptr<OptimizerFlags> optimizer;
  std::string param;
  std::vector<std::string> grads;
  std::string backend = "cpu";
  std::string out;
  std::string out_dtype;  // "" = the parameter's dtype
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  return fmt::format("({})", fmt::join(shape, ", "));
}

// The matrix the optimizer sees: 2-D as is; AdamW also takes 1-D (and any other rank) flat.
optim::Shape matrix_shape(const io::NpyArray& param, const optim::OptimizerSpec& spec,
                          const std::string& path) {
  if (param.shape.size() == 2) return {param.shape[0], param.shape[1]};
  if (spec.kind == optim::OptimizerKind::kAdamW && param.numel() > 0) return {1, param.numel()};
  throw ConfigError(
      fmt::format("{}: {} needs a 2-D parameter, got shape {} (AdamW accepts any "
                  "shape)",
                  path, optim::to_string(spec.kind), shape_text(param.shape)));
}

// Non-finite inputs would step into NaN silently; `role` says which file and what to do.
void require_finite(const io::NpyArray& array, const std::string& path, std::string_view role,
                    std::string_view fix) {
  for (std::size_t i = 0; i < array.values.size(); ++i) {
    if (!std::isfinite(array.values[i])) {
      throw ConfigError(fmt::format("{}: {} element {} is {}; non-finite {}s are rejected ({})",
                                    path, role, i, array.values[i], role, fix));
    }
  }
}

io::NpyArray read_parameter(const std::string& path) {
  io::NpyArray param = io::read_npy(path);
  if (param.numel() == 0) {
    throw ConfigError(
        fmt::format("{}: the parameter of shape {} has no elements; there is "
                    "nothing to step",
                    path, shape_text(param.shape)));
  }
  require_finite(param, path, "parameter", "a NaN or inf weight cannot be stepped");
  return param;
}

io::NpyArray read_gradient(const std::string& path, const io::NpyArray& param) {
  io::NpyArray grad = io::read_npy(path);
  if (grad.shape != param.shape) {
    throw ConfigError(fmt::format("{}: gradient shape {} does not match the parameter's {}", path,
                                  shape_text(grad.shape), shape_text(param.shape)));
  }
  require_finite(grad, path, "gradient", "clip or skip the step upstream");
  return grad;
}

// Finite inputs and validated hyper-parameters can still overflow fp32 (--lr 1e308): refuse to
// write a parameter that is no longer a number.
void require_finite_result(const std::vector<double>& values, const optim::OptimizerSpec& spec,
                           const std::string& backend) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw ConfigError(fmt::format(
          "the {} step on the {} backend produced {} at element {} from finite inputs; the "
          "hyper-parameters overflow {} (a very large --lr or --weight-decay?); nothing was "
          "written",
          optim::to_string(spec.kind), backend, values[i], i,
          backend == "reference" ? "double precision" : "float32"));
    }
  }
}

// Double-precision oracle: the same steps through canzona::optim::reference.
std::vector<double> step_reference(const optim::OptimizerSpec& spec, optim::Shape shape,
                                   std::vector<double> values,
                                   const std::vector<io::NpyArray>& grads) {
  optim::reference::Matrix param{shape.rows, shape.cols, std::move(values)};
  auto run = [&](auto&& optimizer) {
    for (const io::NpyArray& g : grads) {
      optimizer.step(param, optim::reference::Matrix{shape.rows, shape.cols, g.values});
    }
  };
  switch (spec.kind) {
    case optim::OptimizerKind::kMuon:
      run(optim::reference::MuonReference(spec.muon));
      break;
    case optim::OptimizerKind::kShampoo:
      run(optim::reference::ShampooReference(spec.shampoo));
      break;
    case optim::OptimizerKind::kSoap:
      run(optim::reference::SoapReference(spec.soap));
      break;
    case optim::OptimizerKind::kAdamW:
      run(optim::reference::AdamWReference(spec.adamw));
      break;
  }
  return std::move(param.data);
}

// fp32 on a backend: values are rounded to float on the way in.
std::vector<double> step_backend(const optim::OptimizerSpec& spec, const std::string& name,
                                 optim::Shape shape, const std::vector<double>& values,
                                 const std::vector<io::NpyArray>& grads,
                                 const std::vector<std::string>& grad_paths) {
  const std::unique_ptr<backend::Backend> be = backend::make_backend(name);
  const std::unique_ptr<optim::MatrixOptimizer> optimizer = optim::make_matrix_optimizer(spec, *be);
  const std::unique_ptr<optim::MatrixState> state = optimizer->make_state(shape.rows, shape.cols);
  const std::size_t n = values.size();
  backend::Buffer param = be->allocate(n * sizeof(float));
  backend::Buffer grad = be->allocate(n * sizeof(float));
  std::vector<float> host(values.begin(), values.end());
  be->upload(param.data(), host.data(), n * sizeof(float));
  for (std::size_t i = 0; i < grads.size(); ++i) {
    host.assign(grads[i].values.begin(), grads[i].values.end());
    be->upload(grad.data(), host.data(), n * sizeof(float));
    optimizer->step(*state, param.as<float>(), grad.as<const float>());
    // Synchronises, so `host` may be reused for the next upload.
    optim::check_finite_gradients(*optimizer, grad_paths[i]);
  }
  be->download(host.data(), param.data(), n * sizeof(float));
  return {host.begin(), host.end()};
}

int step(const StepOptions& options, std::ostream& out) {
  std::vector<std::filesystem::path> inputs(options.grads.begin(), options.grads.end());
  inputs.emplace_back(options.param);
  io::check_output_file(options.out, "--out", inputs);
  const optim::OptimizerSpec spec = options.optimizer->spec();
  io::NpyArray param = read_parameter(options.param);
  const optim::Shape shape = matrix_shape(param, spec, options.param);
  std::vector<io::NpyArray> grads;
  for (const std::string& path : options.grads) {
    grads.push_back(read_gradient(path, param));
    if (options.backend != "reference") {
      optim::check_fp32_gradient_range(spec, shape, grads.back().values, path);
    }
  }

  io::NpyArray result;
  result.shape = param.shape;
  result.dtype = param.dtype;
  if (!options.out_dtype.empty()) {
    result.dtype = options.out_dtype == "float64" ? io::NpyDType::kFloat64 : io::NpyDType::kFloat32;
  }
  result.values =
      options.backend == "reference"
          ? step_reference(spec, shape, std::move(param.values), grads)
          : step_backend(spec, options.backend, shape, param.values, grads, options.grads);
  require_finite_result(result.values, spec, options.backend);
  io::write_npy(options.out, result);
  out << fmt::format("{}: {} step(s) of {} on {} {} -> {}\n", options.param, grads.size(),
                     optim::to_string(spec.kind), options.backend, shape_text(result.shape),
                     options.out);
  return kExitOk;
}

}  // namespace

CommandAction add_step_command(CLI::App& app) {
  auto options = std::make_shared<StepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "step", "Apply optimizer steps to a .npy parameter, one per gradient file, and write it");
  options->optimizer = std::make_unique<OptimizerFlags>(*cmd);
  cmd->add_option("--param", options->param, "Parameter, .npy float32/float64 in C order")
      ->required();
  cmd->add_option("--grad", options->grads, "Gradient .npy of the same shape; repeat for steps")
      ->required();
  cmd->add_option("--backend", options->backend,
                  "cpu, cuda (fp32 storage) or reference (double precision)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "reference"}));
  cmd->add_option("--out", options->out, "Output .npy (written atomically)")->required();
  cmd->add_option("--out-dtype", options->out_dtype, "float32 or float64 (default: the param's)")
      ->check(CLI::IsMember({"float32", "float64"}));
  return [options](std::ostream& out) { return step(*options, out); };
}

}  // namespace canzona::harness
