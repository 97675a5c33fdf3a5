// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Textbook dense linear algebra in double precision (Golub & Van Loan, 4th ed.): cyclic Jacobi
// eigendecomposition, Householder QR, one-sided Jacobi singular values. The independent oracle
// for LAPACKE and cuSOLVER results; slow (O(n³) per sweep) and meant for small test matrices.
#pragma once

#include <canzona/optim/reference/dense.hpp>

#include <vector>

namespace canzona::optim::reference {

/// A = V·diag(values)·Vᵀ.
struct Eigh {
  std::vector<double> values;  ///< ascending; equal values keep Jacobi's diagonal order
  Matrix vectors;              ///< n × n orthonormal, column j belongs to values[j]
};

/// Eigendecomposition of the symmetric part (A + Aᵀ)/2 of a square matrix by cyclic Jacobi
/// rotations (G&VL Alg. 8.5.3), swept until a whole sweep finds every off-diagonal entry
/// negligible (|a_pq| ≤ 1e-16·sqrt(|a_pp·a_qq|), or ≤ 1e-18·‖A‖_F): residuals ~1e-15·‖A‖.
/// Sign convention, so that results are comparable with other solvers after the same
/// normalisation: each eigenvector's entry of largest magnitude (first on ties) is positive.
/// Throws canzona::Error for a non-square input.
Eigh eigh_jacobi(const Matrix& a);

/// Thin QR of an m × n matrix with m ≥ n.
struct Qr {
  Matrix q;  ///< m × n with orthonormal columns (also when A is rank deficient)
  Matrix r;  ///< n × n upper triangular with diag(R) ≥ 0
};

/// Householder QR (G&VL Alg. 5.2.1) with Q accumulated explicitly; column and row signs are
/// flipped so that diag(R) ≥ 0, which makes Q unique for a full-rank A. Throws canzona::Error
/// when rows < cols.
Qr qr_householder(const Matrix& a);

/// Singular values, descending, by one-sided (Hestenes) Jacobi on the columns of A or Aᵀ
/// (whichever has fewer columns); min(rows, cols) values. Independent of eigh_jacobi.
std::vector<double> singular_values(const Matrix& a);

/// Q·diag((max(λ, 0) + ε)^(−1/root))·Qᵀ for symmetric A = Q·diag(λ)·Qᵀ (eigh_jacobi): the
/// damped inverse root used by Shampoo (root = 4). Negative λ from round-off are clamped to 0.
Matrix inverse_root(const Matrix& a, double root, double epsilon);

}  // namespace canzona::optim::reference
