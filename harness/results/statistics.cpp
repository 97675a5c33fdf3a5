// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/statistics.hpp"

#include <canzona/core/error.hpp>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace canzona::harness {
namespace {

// Largest sample size of the smaller side for which the exact distribution is used (scipy).
constexpr std::size_t kExactMaxSmallerSample = 8;

// Null distribution of U for samples of n1 and n2 values without ties, as probabilities of
// U = 0 .. n1·n2: the number of orderings of the pooled sample with U = k follows the recurrence
// f(n1, n2, k) = f(n1 - 1, n2, k - n2) + f(n1, n2 - 1, k) (Mann & Whitney 1947), counted here as
// doubles by adding one value of either sample at a time.
std::vector<double> exact_u_distribution(std::size_t n1, std::size_t n2) {
  const std::size_t max_u = n1 * n2;
  // counts[a][b] is the distribution of U for a values of x and b values of y, kept for the
  // current a only.
  std::vector<std::vector<double>> previous(n2 + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t b = 0; b <= n2; ++b) previous[b][0] = 1.0;  // a = 0: U is always 0
  for (std::size_t a = 1; a <= n1; ++a) {
    std::vector<std::vector<double>> current(n2 + 1, std::vector<double>(max_u + 1, 0.0));
    current[0][0] = 1.0;  // b = 0: U is always 0
    for (std::size_t b = 1; b <= n2; ++b) {
      for (std::size_t k = 0; k <= a * b; ++k) {
        // The largest pooled value is an x (it beats all b values of y) or a y.
        const double x_last = k >= b ? previous[b][k - b] : 0.0;
        current[b][k] = x_last + current[b - 1][k];
      }
    }
    previous = std::move(current);
  }
  std::vector<double> probabilities = std::move(previous[n2]);
  const double total = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
  for (double& p : probabilities) p /= total;
  return probabilities;
}

// P(U >= u) under the null, exactly.
double exact_upper_tail(std::size_t n1, std::size_t n2, double u) {
  const std::vector<double> probabilities = exact_u_distribution(n1, n2);
  double tail = 0.0;
  for (std::size_t k = 0; k < probabilities.size(); ++k) {
    if (static_cast<double>(k) >= u) tail += probabilities[k];
  }
  return tail;
}

// Largest number of pairs for which the shift interval uses the exact null distribution (its
// table costs n1·n2·(n1·n2) additions); above it the normal approximation is within one order
// statistic.
constexpr std::size_t kExactMaxPairs = 2500;

// The largest w with P(U <= w) <= tail under the null, or -1 when even U = 0 is likelier.
std::int64_t lower_critical_u(std::size_t n1, std::size_t n2, double tail) {
  if (n1 * n2 <= kExactMaxPairs) {
    const std::vector<double> probabilities = exact_u_distribution(n1, n2);
    std::int64_t w = -1;
    double cumulative = 0.0;
    for (std::size_t k = 0; k < probabilities.size(); ++k) {
      cumulative += probabilities[k];
      // A relative slack keeps a boundary that the table hits exactly (0.025 for 1/40) inside.
      if (cumulative > tail * (1 + 1e-12)) break;
      w = static_cast<std::int64_t>(k);
    }
    return w;
  }
  const double d1 = static_cast<double>(n1);
  const double d2 = static_cast<double>(n2);
  const boost::math::normal_distribution<double> standard_normal;
  const double z = boost::math::quantile(boost::math::complement(standard_normal, tail));
  // P(U <= w) ~ Phi((w + 1/2 - n1 n2 / 2) / sigma) <= tail, with the continuity correction.
  const double w =
      std::floor(d1 * d2 / 2.0 - 0.5 - z * std::sqrt(d1 * d2 * (d1 + d2 + 1.0) / 12.0));
  return std::max<std::int64_t>(-1, static_cast<std::int64_t>(w));
}

// s / √n; exactly 0 for a sample of equal values (whose mean may differ from them by rounding).
double standard_error(std::span<const double> values) {
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); })) {
    return 0.0;
  }
  return sample_stddev(values) / std::sqrt(static_cast<double>(values.size()));
}

// Pairs (i, j) with x_i − y_j <= t, for x and y sorted ascending: for each x_i the qualifying
// y_j are a suffix of y (the difference falls as y_j grows, also as rounded), and the suffix
// only shrinks as x_i grows, so one pass of two indices counts them.
std::size_t differences_at_most(const std::vector<double>& x, const std::vector<double>& y,
                                double t) {
  std::size_t count = 0;
  std::size_t first = 0;  // first j with x_i − y_j <= t
  for (const double xi : x) {
    while (first < y.size() && xi - y[first] > t) ++first;
    count += y.size() - first;
  }
  return count;
}

// Doubles in their order as unsigned integers (sign-magnitude folded), and back: a bisection
// over these visits every double between two bounds in at most 64 steps.
std::uint64_t order_key(double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

double from_order_key(std::uint64_t key) {
  return std::bit_cast<double>((key >> 63) != 0 ? key & ~(std::uint64_t{1} << 63) : ~key);
}

// The k-th smallest (from 0) of the m·n pairwise differences x_i − y_j, exactly and without
// forming them: the smallest double t with more than k differences at most t is one of them.
// O((m + n) · 64) for x and y sorted ascending.
double kth_difference(const std::vector<double>& x, const std::vector<double>& y, std::size_t k) {
  std::uint64_t low = order_key(x.front() - y.back());
  std::uint64_t high = order_key(x.back() - y.front());
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (differences_at_most(x, y, from_order_key(middle)) > k) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return from_order_key(low);
}

// Sen (1968, eq. 2.6): the variance of Kendall's S under no association, n(n − 1)(2n + 5) / 18,
// less the same term of every group of t tied values, in x and in y.
double kendall_s_variance(std::span<const double> x, std::span<const double> y) {
  const auto tie_term = [](std::span<const double> values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    double term = 0.0;
    for (std::size_t begin = 0; begin < sorted.size();) {
      std::size_t end = begin + 1;
      while (end < sorted.size() && sorted[end] == sorted[begin]) ++end;
      const double t = static_cast<double>(end - begin);
      term += t * (t - 1.0) * (2.0 * t + 5.0);
      begin = end;
    }
    return term;
  };
  const double n = static_cast<double>(x.size());
  return (n * (n - 1.0) * (2.0 * n + 5.0) - tie_term(x) - tie_term(y)) / 18.0;
}

// The slopes between every two points with different x, ascending, and σ_S.
struct PairwiseSlopes {
  std::vector<double> sorted;
  double s_stddev = 0;
};

PairwiseSlopes pairwise_slopes(std::span<const double> x, std::span<const double> y) {
  CANZONA_CHECK(x.size() == y.size(), "a slope needs as many y values as x values");
  PairwiseSlopes p;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      if (x[i] != x[j]) p.sorted.push_back((y[j] - y[i]) / (x[j] - x[i]));
    }
  }
  CANZONA_CHECK(!p.sorted.empty(), "a Theil-Sen slope needs two points with different x");
  std::sort(p.sorted.begin(), p.sorted.end());
  p.s_stddev = std::sqrt(std::max(0.0, kendall_s_variance(x, y)));
  return p;
}

// The rank (from 1) of the order statistic that is a one-sided bound with error `tail`:
// ⌊(N − z σ_S) / 2 + 1/2⌋ with z the 1 − tail normal quantile, 0 when there is none.
std::size_t bound_rank(const PairwiseSlopes& p, double tail) {
  CANZONA_CHECK(tail > 0 && tail <= 0.5, "the error of a slope bound must lie in (0, 1/2]");
  const boost::math::normal_distribution<double> standard_normal;
  const double z = boost::math::quantile(boost::math::complement(standard_normal, tail));
  const double n = static_cast<double>(p.sorted.size());
  const double k = std::floor((n - z * p.s_stddev) / 2.0 + 0.5);
  return static_cast<std::size_t>(std::clamp(k, 0.0, n));
}

// Φ̄((N − 2c − 1) / σ_S): the p-value dual to bound_rank for c slopes on the null side. Without
// spread (σ_S = 0: every y tied) the slopes are all equal and the answer is 0 or 1.
double slope_p_value(const PairwiseSlopes& p, std::size_t null_side) {
  const double margin =
      static_cast<double>(p.sorted.size()) - 2.0 * static_cast<double>(null_side) - 1.0;
  if (p.s_stddev == 0) return margin > 0 ? 0.0 : 1.0;
  const boost::math::normal_distribution<double> standard_normal;
  return boost::math::cdf(boost::math::complement(standard_normal, margin / p.s_stddev));
}

}  // namespace

double median(std::span<const double> values) {
  CANZONA_CHECK(!values.empty(), "median of no values");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double mean(std::span<const double> values) {
  CANZONA_CHECK(!values.empty(), "mean of no values");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double sample_stddev(std::span<const double> values) {
  if (values.size() < 2) return 0.0;
  const double m = mean(values);
  double sum = 0.0;
  for (const double v : values) sum += (v - m) * (v - m);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  CANZONA_CHECK(!x.empty() && !y.empty(), "Mann-Whitney U test needs two non-empty samples");
  const std::size_t n1 = x.size();
  const std::size_t n2 = y.size();
  const std::size_t n = n1 + n2;

  // Pool, sort, and give tied values their average rank.
  std::vector<std::pair<double, bool>> pooled;  // (value, from x)
  pooled.reserve(n);
  for (const double v : x) pooled.emplace_back(v, true);
  for (const double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0.0;
  double tie_term = 0.0;  // sum over tie groups of t^3 - t
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    while (end < n && pooled[end].first == pooled[begin].first) ++end;
    const double t = static_cast<double>(end - begin);
    const double average_rank = 0.5 * static_cast<double>(begin + 1 + end);  // ranks are 1-based
    for (std::size_t i = begin; i < end; ++i) {
      if (pooled[i].second) rank_sum_x += average_rank;
    }
    tie_term += t * t * t - t;
    begin = end;
  }

  MannWhitneyResult result;
  const double d1 = static_cast<double>(n1);
  const double d2 = static_cast<double>(n2);
  result.u1 = rank_sum_x - d1 * (d1 + 1.0) / 2.0;
  result.u2 = d1 * d2 - result.u1;
  const double u = std::max(result.u1, result.u2);

  if (std::min(n1, n2) <= kExactMaxSmallerSample && tie_term == 0.0) {
    result.exact = true;
    // The null distribution is symmetric in (n1, n2); keeping the smaller sample in the inner
    // dimension keeps the table small.
    result.p_value = std::min(1.0, 2.0 * exact_upper_tail(std::max(n1, n2), std::min(n1, n2), u));
    return result;
  }
  const double dn = static_cast<double>(n);
  const double variance = d1 * d2 / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
  if (variance <= 0.0) {
    result.p_value = 1.0;  // every value tied: no evidence of any difference
    return result;
  }
  const double z = (u - d1 * d2 / 2.0 - 0.5) / std::sqrt(variance);
  const boost::math::normal_distribution<double> standard_normal;
  result.p_value =
      std::clamp(2.0 * boost::math::cdf(boost::math::complement(standard_normal, z)), 0.0, 1.0);
  return result;
}

ShiftInterval hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                   double confidence) {
  CANZONA_CHECK(!x.empty() && !y.empty(), "a shift interval needs two non-empty samples");
  CANZONA_CHECK(confidence > 0 && confidence < 1, "confidence must lie in (0, 1)");
  std::vector<double> xs(x.begin(), x.end());
  std::vector<double> ys(y.begin(), y.end());
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  const std::size_t pairs = xs.size() * ys.size();
  ShiftInterval r;
  r.estimate =
      pairs % 2 == 1
          ? kth_difference(xs, ys, pairs / 2)
          : 0.5 * (kth_difference(xs, ys, pairs / 2 - 1) + kth_difference(xs, ys, pairs / 2));
  r.lower = -std::numeric_limits<double>::infinity();
  r.upper = std::numeric_limits<double>::infinity();
  // [D_(w+1), D_(mn-w)] (1-based) covers the shift with probability >= confidence, where w is
  // the lower critical value of U at (1 - confidence) / 2 (Bauer 1972; R's wilcox.test).
  const std::int64_t w = lower_critical_u(xs.size(), ys.size(), (1 - confidence) / 2);
  if (w >= 0) {
    const auto k = static_cast<std::size_t>(w);
    r.lower = kth_difference(xs, ys, k);
    r.upper = kth_difference(xs, ys, pairs - 1 - k);
    r.bounded = true;
  }
  return r;
}

MeanInterval t_interval(std::span<const double> values, double confidence) {
  CANZONA_CHECK(values.size() >= 2, "a t interval needs at least two values");
  CANZONA_CHECK(confidence > 0 && confidence < 1, "confidence must lie in (0, 1)");
  MeanInterval r;
  r.n = static_cast<int>(values.size());
  r.standard_error = standard_error(values);
  r.mean = r.standard_error == 0 ? values.front() : mean(values);
  const boost::math::students_t_distribution<double> t(static_cast<double>(values.size() - 1));
  const double half = boost::math::quantile(t, 1 - (1 - confidence) / 2) * r.standard_error;
  r.lower = r.mean - half;
  r.upper = r.mean + half;
  return r;
}

double t_test_above(std::span<const double> values, double bound) {
  CANZONA_CHECK(values.size() >= 2, "a t test needs at least two values");
  const double m = values.front();  // the mean when there is no spread
  const double se = standard_error(values);
  if (se == 0) return m > bound ? 0.0 : 1.0;
  const boost::math::students_t_distribution<double> t(static_cast<double>(values.size() - 1));
  return boost::math::cdf(boost::math::complement(t, (mean(values) - bound) / se));
}

std::vector<double> holm_adjusted(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m, 1.0);
  double running = 0.0;  // adjusted values never decrease along the sorted order
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]);
    running = std::max(running, scaled);
    adjusted[order[k]] = running;
  }
  return adjusted;
}

std::vector<double> holm_levels(std::span<const double> p_values, double alpha) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> levels(m, alpha);
  bool rejecting = true;
  double level = alpha;
  for (std::size_t k = 0; k < m; ++k) {
    if (rejecting) {
      level = alpha / static_cast<double>(m - k);
      rejecting = p_values[order[k]] <= level;
    }
    levels[order[k]] = level;
  }
  return levels;
}

SlopeInterval theil_sen(std::span<const double> x, std::span<const double> y, double lower_tail,
                        double upper_tail) {
  const PairwiseSlopes p = pairwise_slopes(x, y);
  const std::vector<double>& s = p.sorted;
  const std::size_t n = s.size();
  SlopeInterval r;
  r.estimate = n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  r.slopes = n;
  r.s_stddev = p.s_stddev;
  // Ranks k and N + 1 − k from 1: indices k − 1 and N − k.
  const std::size_t k_lower = bound_rank(p, lower_tail);
  const std::size_t k_upper = bound_rank(p, upper_tail);
  r.lower = k_lower >= 1 ? s[k_lower - 1] : -std::numeric_limits<double>::infinity();
  r.upper = k_upper >= 1 ? s[n - k_upper] : std::numeric_limits<double>::infinity();
  return r;
}

SlopeInterval theil_sen(std::span<const double> x, std::span<const double> y, double confidence) {
  CANZONA_CHECK(confidence > 0 && confidence < 1, "confidence must lie in (0, 1)");
  return theil_sen(x, y, (1 - confidence) / 2, (1 - confidence) / 2);
}

double theil_sen_p_above(std::span<const double> x, std::span<const double> y, double bound) {
  const PairwiseSlopes p = pairwise_slopes(x, y);
  const auto at_most = static_cast<std::size_t>(
      std::upper_bound(p.sorted.begin(), p.sorted.end(), bound) - p.sorted.begin());
  return slope_p_value(p, at_most);
}

double theil_sen_p_below(std::span<const double> x, std::span<const double> y, double bound) {
  const PairwiseSlopes p = pairwise_slopes(x, y);
  const auto at_least = static_cast<std::size_t>(
      p.sorted.end() - std::lower_bound(p.sorted.begin(), p.sorted.end(), bound));
  return slope_p_value(p, at_least);
}

std::vector<bool> balanced_order(int pairs, std::uint64_t seed) {
  CANZONA_CHECK(pairs >= 0, "a negative number of pairs");
  std::mt19937_64 engine(seed);
  std::vector<bool> order(static_cast<std::size_t>(pairs), false);
  for (int i = 0; i < pairs / 2; ++i) order[static_cast<std::size_t>(i)] = true;
  // The odd pair: one draw of the engine (its low bit), so the rule is the same everywhere.
  if (pairs % 2 == 1) order[static_cast<std::size_t>(pairs / 2)] = (engine() & 1u) != 0;
  // Fisher–Yates with the engine's raw output (std::shuffle's use of it is not specified).
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(engine() % i);
    const bool swapped = order[i - 1];
    order[i - 1] = order[j];
    order[j] = swapped;
  }
  return order;
}

}  // namespace canzona::harness
