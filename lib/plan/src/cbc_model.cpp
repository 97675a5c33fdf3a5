// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SparseColumns: the program handed to CBC through its C interface.
#include "cbc_model.hpp"

#include <coin/Cbc_C_Interface.h>

#include <memory>

namespace canzona::plan::detail {
namespace {

struct ModelDeleter {
  void operator()(Cbc_Model* model) const { Cbc_deleteModel(model); }
};

}  // namespace

void SparseColumns::add_column(std::span<const std::pair<int, double>> entries, double lower,
                               double upper, double objective, bool integer) {
  columns_.push_back(Column{{entries.begin(), entries.end()}, lower, upper, objective, integer});
}

void SparseColumns::set_row(int row, double lower, double upper) {
  row_lower_[static_cast<std::size_t>(row)] = lower;
  row_upper_[static_cast<std::size_t>(row)] = upper;
}

CbcOutcome SparseColumns::solve(double seconds) const {
  std::vector<CoinBigIndex> column_start{0};
  std::vector<int> index;
  std::vector<double> value;
  std::vector<double> lower;
  std::vector<double> upper;
  std::vector<double> objective;
  for (const Column& column : columns_) {
    for (const auto& [row, coefficient] : column.entries) {
      index.push_back(row);
      value.push_back(coefficient);
    }
    column_start.push_back(static_cast<CoinBigIndex>(index.size()));
    lower.push_back(column.lower);
    upper.push_back(column.upper);
    objective.push_back(column.objective);
  }
  const std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_loadProblem(model.get(), static_cast<int>(columns_.size()),
                  static_cast<int>(row_lower_.size()), column_start.data(), index.data(),
                  value.data(), lower.data(), upper.data(), objective.data(), row_lower_.data(),
                  row_upper_.data());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].integer) Cbc_setInteger(model.get(), static_cast<int>(c));
  }
  Cbc_setLogLevel(model.get(), 0);
  Cbc_setMaximumSeconds(model.get(), seconds);
  Cbc_setAllowableGap(model.get(), 0.0);
  Cbc_setAllowableFractionGap(model.get(), 1e-7);
  Cbc_solve(model.get());

  CbcOutcome outcome;
  outcome.proven_infeasible = Cbc_isProvenInfeasible(model.get()) != 0;
  outcome.has_solution = Cbc_bestSolution(model.get()) != nullptr;
  return outcome;
}

}  // namespace canzona::plan::detail
