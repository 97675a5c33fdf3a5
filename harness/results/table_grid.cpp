// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "table_grid.hpp"

#include "number_format.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/statistics.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace canzona::harness::table_grid {
namespace {

// Confidence of every speed-up interval in a table.
constexpr double kConfidence = 0.95;

std::string column_of(const Series& s, TableLayout layout) {
  return layout == TableLayout::kStrategies ? s.name.strategy : s.name.optimizer;
}

std::string sources_of(const std::vector<const Run*>& runs) {
  std::vector<std::string> sources;
  for (const Run* r : runs) sources.push_back(r->source);
  return fmt::format("{}", fmt::join(sources, ", "));
}

// Adds one benchmark to its family's table, on the line of its configuration.
void add_series(std::vector<FamilyTable>& tables, const Run& run, const Series& s,
                const TableOptions& options,
                const std::function<std::size_t(const std::string&)>& seen) {
  const std::string column = column_of(s, options.layout);
  auto table = std::find_if(tables.begin(), tables.end(),
                            [&](const FamilyTable& t) { return t.family == s.name.family; });
  if (table == tables.end()) {
    FamilyTable fresh;
    fresh.family = s.name.family;
    table = tables.insert(tables.end(), std::move(fresh));
  }
  if (std::find(table->columns.begin(), table->columns.end(), column) == table->columns.end()) {
    table->columns.push_back(column);
  }
  // The key columns: what the line is about, without the column axis.
  std::vector<std::pair<std::string, std::string>> keys;
  keys.emplace_back("model", s.name.model);
  keys.emplace_back("GPUs", s.name.gpus ? std::to_string(*s.name.gpus) : "");
  keys.emplace_back("dp×tp",
                    s.name.dp && s.name.tp ? fmt::format("{}×{}", *s.name.dp, *s.name.tp) : "");
  const bool strategies = options.layout == TableLayout::kStrategies;
  const std::string other =
      strategies ? s.name.optimizer : (s.name.strategy.empty() ? s.name.backend : s.name.strategy);
  keys.emplace_back(strategies ? "optimizer" : (s.name.strategy.empty() ? "backend" : "strategy"),
                    other);
  for (const auto& [key, value] : s.name.params) {
    if (key != "gpus" && key != "dp" && key != "tp") keys.emplace_back(key, value);
  }
  std::vector<std::string> headers;
  std::vector<std::string> values;
  for (const auto& [h, v] : keys) {
    headers.push_back(h);
    values.push_back(v);
  }
  if (table->key_headers.empty()) table->key_headers = headers;
  if (table->key_headers != headers) {
    throw ConfigError(fmt::format(
        "{}: '{}' has other parameters than the rest of its family ({}); filter the run with "
        "--filter",
        run.source, s.name.key, fmt::join(table->key_headers, ", ")));
  }
  auto line = std::find_if(table->lines.begin(), table->lines.end(),
                           [&](const Line& l) { return l.keys == values; });
  if (line == table->lines.end()) {
    Line fresh;
    fresh.keys = values;
    fresh.order = {seen(s.name.model), seen(other), s.name.gpus.value_or(0), s.name.tp.value_or(0),
                   table->lines.size()};
    line = table->lines.insert(table->lines.end(), fresh);
  }
  if (const auto it = line->cells.find(column); it != line->cells.end()) {
    throw ConfigError(fmt::format(
        "{}{}: two rows for '{}' (measured and projected, or the same benchmark in two runs); "
        "filter one of them out with --filter",
        it->second.run->source == run.source ? "" : it->second.run->source + " and ", run.source,
        s.name.key));
  }
  line->cells[column] = Cell{&run, &s};
}

// Canzona first, then the baselines in the order the runs have them; --baseline or
// --strategies choose and order them.
void choose_columns(FamilyTable& t, const TableOptions& options, const std::string& sources) {
  std::stable_partition(t.columns.begin(), t.columns.end(),
                        [](const std::string& c) { return c == kSubjectStrategy; });
  std::vector<std::string> wanted = options.strategies;
  if (options.baseline) wanted = {kSubjectStrategy, *options.baseline};
  if (wanted.empty()) return;
  for (const std::string& w : wanted) {
    if (std::find(t.columns.begin(), t.columns.end(), w) == t.columns.end()) {
      throw ConfigError(fmt::format("{}: no '{}' rows in {} (strategies present: {})", sources, w,
                                    t.family, fmt::join(t.columns, ", ")));
    }
  }
  t.columns = wanted;
}

std::string title_of(const std::string& family) {
  if (family == "OptimizerStep") return "optimizer step latency";
  if (family == "E2EIteration") return "iteration time";
  if (family == "Planner") return "planning time";
  if (family == "Kernels") return "single-matrix step time";
  if (family == "Projector") return "time to project every strategy's step";
  return "time";
}

std::string backend_of(const Cell& c) {
  if (c.series->projected()) return "projected";
  if (!c.series->name.backend.empty()) return c.series->name.backend;
  return c.run->context_or("canzona_backend", "");
}

// "GPUs" where every rank is one (projections, the cuda backend, plans made for that many),
// "CPU ranks" where every rank is an MPI process on CPUs, "ranks" with a note otherwise.
std::string ranks_header(const FamilyTable& t, std::string& note) {
  // Plans and projections are made for that many GPUs on one CPU.
  if (t.family == "Planner" || t.family == "Projector") return "GPUs";
  std::set<std::string> kinds;
  for (const Line& line : t.lines) {
    for (const auto& [column, cell] : line.cells) {
      const std::string backend = backend_of(cell);
      kinds.insert(backend == "projected" || backend == "cuda" ? "gpu" : backend);
    }
  }
  if (kinds == std::set<std::string>{"gpu"}) return "GPUs";
  if (kinds == std::set<std::string>{"cpu"}) return "CPU ranks";
  note =
      "ranks: GPUs on projected rows and on the cuda backend, MPI processes on CPUs on the cpu "
      "backend.";
  return "ranks";
}

bool any_counter(const FamilyTable& t, const std::string& counter) {
  return std::any_of(t.lines.begin(), t.lines.end(), [&](const Line& l) {
    return std::any_of(l.cells.begin(), l.cells.end(),
                       [&](const auto& c) { return c.second.series->counter(counter); });
  });
}

// "a / b / c" over the columns: one quantity of every column in one cell.
template <typename Value>
GridCell joined(const FamilyTable& t, const Line& line, Value value) {
  std::vector<std::string> parts;
  bool any = false;
  for (const std::string& c : t.columns) {
    const auto it = line.cells.find(c);
    std::optional<std::string> v =
        it == line.cells.end() ? std::nullopt : value(*it->second.series);
    any = any || v.has_value();
    parts.push_back(v.value_or("-"));
  }
  GridCell cell;
  if (!any) return cell;
  cell.kind = GridCell::Kind::kNumbers;
  cell.text = fmt::format("{}", fmt::join(parts, " / "));
  return cell;
}

GridColumn key_column(const std::string& header) {
  GridColumn c;
  c.header = header;
  c.header_lines = {header};
  return c;
}

GridColumn number_column(GridColumn::Role role, const std::string& header,
                         std::vector<std::string> lines, const std::string& strategy = {},
                         std::size_t metric = 0) {
  GridColumn c;
  c.role = role;
  c.header = header;
  c.header_lines = std::move(lines);
  c.strategy = strategy;
  c.metric = metric;
  return c;
}

std::string with_unit(const std::string& metric) { return metric.empty() ? "ms" : metric + " ms"; }

// The sentences that say what each metric measures and which published figure it is
// comparable with.
std::vector<std::string> metric_notes(const FamilyTable& t, const std::vector<Metric>& metrics) {
  constexpr std::string_view kPaper = "arXiv 2602.06079, abstract";
  std::vector<std::string> notes;
  if (t.family == "OptimizerStep") {
    for (const Metric& m : metrics) {
      if (m.counter == "optimizer_ms") {
        notes.push_back(fmt::format(
            "opt. step: the optimizer step with the DP gradient reduce-scatter and parameter "
            "all-gather hidden behind backward and forward as Megatron overlaps them (counter "
            "optimizer_ms): the paper's optimizer-step latency, the figure comparable in kind "
            "with its 5.8× ({}; the baseline and model of that figure are not stated there).",
            kPaper));
      } else {
        notes.push_back(fmt::format(
            "{}: the whole step including the DP sync{}; no figure of the paper measures it, so "
            "its ratios are not comparable with the paper's 5.8× ({}).",
            m.name.empty() ? "step" : m.name,
            metrics.size() == 1 ? " (nothing hides it on CPU ranks)" : "", kPaper));
      }
    }
  } else if (t.family == "E2EIteration") {
    notes.push_back(fmt::format(
        "iteration: forward, backward, optimizer step and DP sync as overlapped: the figure "
        "comparable in kind with the paper's 1.57× end-to-end ({}).",
        kPaper));
  }
  return notes;
}

}  // namespace

std::vector<FamilyTable> build_tables(const std::vector<const Run*>& runs,
                                      const TableOptions& options) {
  const std::optional<bench::NamePattern> filter = name_filter(options.filter.value_or(""));
  std::vector<FamilyTable> tables;
  std::map<std::string, std::size_t> first_seen;  // model / row-axis values, for line order
  const auto seen = [&](const std::string& v) {
    return first_seen.try_emplace(v, first_seen.size()).first->second;
  };
  for (const Run* run_pointer : runs) {
    const Run& run = *run_pointer;
    for (const Series& s : run.series) {
      if (column_of(s, options.layout).empty() || s.error) continue;
      if (filter && !filter->matches(bench::registered_name(s.name))) continue;
      add_series(tables, run, s, options, seen);
    }
  }
  const std::string sources = sources_of(runs);
  for (FamilyTable& t : tables) {
    std::sort(t.lines.begin(), t.lines.end(),
              [](const Line& a, const Line& b) { return a.order < b.order; });
    if (options.layout == TableLayout::kStrategies) choose_columns(t, options, sources);
  }
  if (tables.empty()) {
    throw ConfigError(fmt::format(
        "{}: no benchmark has {} in its name{}; {}", sources,
        options.layout == TableLayout::kStrategies ? "a strategy" : "an optimizer",
        options.filter ? fmt::format(" and matches --filter '{}'", *options.filter) : "",
        options.layout == TableLayout::kStrategies
            ? "single-matrix suites (Kernels) have optimizers: try --compare-optimizers"
            : "results/SCHEMA.md lists the name shapes"));
  }
  return tables;
}

std::optional<double> state_bytes_of(const Series& s) {
  if (auto v = s.counter("state_bytes")) return v;
  if (auto mib = s.counter("state_mib")) return *mib * 1024.0 * 1024.0;
  return std::nullopt;
}

std::vector<Metric> metrics_of(const FamilyTable& table) {
  if (table.family == "OptimizerStep" && any_counter(table, "optimizer_ms")) {
    return {{"optimizer_ms", "opt. step"}, {"", "full step"}};
  }
  if (table.family == "OptimizerStep") return {{"", "full step"}};
  return {{"", ""}};
}

std::vector<double> metric_samples(const Series& s, const Metric& metric) {
  if (metric.counter.empty()) {
    if (!s.samples_ms.empty()) return s.samples_ms;
    return {s.median_ms()};
  }
  if (const auto it = s.counter_samples.find(metric.counter); it != s.counter_samples.end()) {
    return it->second;
  }
  if (const auto v = s.counter(metric.counter)) return {*v};
  return {};
}

std::optional<Speedup> speedup_of(const Series& baseline, const Series& subject,
                                  const Metric& metric) {
  const std::vector<double> base = metric_samples(baseline, metric);
  const std::vector<double> head = metric_samples(subject, metric);
  if (base.empty() || head.empty()) return std::nullopt;
  const double base_median = median(base);
  const double head_median = median(head);
  if (!(base_median > 0 && head_median > 0)) return std::nullopt;
  Speedup r;
  r.ratio = base_median / head_median;
  if (baseline.projected() || subject.projected()) return r;
  const bool positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; }) &&
                        std::all_of(head.begin(), head.end(), [](double v) { return v > 0; });
  if (!positive) return r;
  // The ratio's interval is the shift interval of the log-times: timings spread
  // multiplicatively, and the log makes "a / b" a difference.
  std::vector<double> log_base;
  std::vector<double> log_head;
  for (const double v : base) log_base.push_back(std::log(v));
  for (const double v : head) log_head.push_back(std::log(v));
  const ShiftInterval shift = hodges_lehmann_shift(log_base, log_head, kConfidence);
  r.interval = true;
  r.ratio = std::exp(shift.estimate);
  r.lower = std::exp(shift.lower);
  r.upper = std::exp(shift.upper);
  r.bounded = shift.bounded;
  r.significant = shift.bounded && (r.lower > 1.0 || r.upper < 1.0);
  return r;
}

Grid make_grid(const FamilyTable& t, const TableOptions& options) {
  Grid grid;
  grid.family = t.family;
  grid.title = title_of(t.family);
  const std::vector<Metric> metrics = metrics_of(t);
  grid.metric_notes = metric_notes(t, metrics);
  const bool strategies = options.layout == TableLayout::kStrategies;
  const bool has_subject = strategies && !t.columns.empty() && t.columns[0] == kSubjectStrategy;

  // Key columns that are empty on every line are left out.
  std::vector<std::size_t> keys;
  for (std::size_t k = 0; k < t.key_headers.size(); ++k) {
    if (std::any_of(t.lines.begin(), t.lines.end(),
                    [&](const Line& l) { return !l.keys[k].empty(); })) {
      keys.push_back(k);
      const std::string& header = t.key_headers[k];
      grid.columns.push_back(
          key_column(header == "GPUs" ? ranks_header(t, grid.ranks_note) : header));
    }
  }
  using Role = GridColumn::Role;
  grid.metrics = metrics;
  grid.strategies = t.columns;
  for (std::size_t mi = 0; mi < metrics.size(); ++mi) {
    const Metric& m = metrics[mi];
    for (const std::string& c : t.columns) {
      grid.columns.push_back(number_column(Role::kLatency,
                                           fmt::format("{} {}", c, with_unit(m.name)),
                                           {c, with_unit(m.name)}, c, mi));
    }
    if (!has_subject) continue;
    for (std::size_t c = 1; c < t.columns.size(); ++c) {
      const std::string versus = fmt::format("{} vs {}", kSubjectStrategy, t.columns[c]);
      grid.columns.push_back(number_column(
          Role::kSpeedup, m.name.empty() ? versus : fmt::format("{}, {}", versus, m.name),
          m.name.empty() ? std::vector<std::string>{"speed-up", "vs " + t.columns[c]}
                         : std::vector<std::string>{"speed-up", "vs " + t.columns[c], m.name},
          t.columns[c], mi));
    }
  }
  const std::string order = fmt::format("{}", fmt::join(t.columns, " / "));
  if (strategies) {
    grid.columns.push_back(
        number_column(Role::kDetail, fmt::format("imbalance as run ({})", order), {}));
    grid.columns.push_back(
        number_column(Role::kDetail, fmt::format("imbalance of plan ({})", order), {}));
  } else {
    grid.columns.push_back(number_column(Role::kDetail, fmt::format("state MiB ({})", order), {}));
  }
  grid.columns.push_back(
      number_column(Role::kDetail, fmt::format("comm MiB/step ({})", order), {}));

  const auto mark = [&](const Cell& cell) -> std::optional<std::size_t> {
    if (!cell.series->projected()) return std::nullopt;
    const std::string topology = projection_topology(*cell.run, *cell.series);
    auto it = std::find(grid.topologies.begin(), grid.topologies.end(), topology);
    if (it == grid.topologies.end()) it = grid.topologies.insert(grid.topologies.end(), topology);
    return static_cast<std::size_t>(it - grid.topologies.begin());
  };
  for (const Line& line : t.lines) {
    std::vector<GridCell> row;
    for (const std::size_t k : keys) {
      GridCell cell;
      cell.kind = GridCell::Kind::kKey;
      cell.text = line.keys[k];
      row.push_back(cell);
      if (t.key_headers[k] == "model" && line.keys[k].find("~d") != std::string::npos) {
        grid.scaled_models = true;
      }
    }
    const auto subject = line.cells.find(kSubjectStrategy);
    for (const Metric& m : metrics) {
      for (const std::string& c : t.columns) {
        GridCell cell;
        const auto it = line.cells.find(c);
        const std::vector<double> samples =
            it == line.cells.end() ? std::vector<double>{} : metric_samples(*it->second.series, m);
        if (!samples.empty()) {
          cell.kind = GridCell::Kind::kLatency;
          cell.median_ms = median(samples);
          cell.repetitions = static_cast<std::int64_t>(samples.size());
          const double centre = mean(samples);
          cell.cv = samples.size() >= 2 && centre > 0 ? sample_stddev(samples) / centre : 0.0;
          cell.projection = mark(it->second);
        }
        row.push_back(cell);
      }
      if (!has_subject) continue;
      for (std::size_t c = 1; c < t.columns.size(); ++c) {
        GridCell cell;
        const auto other = line.cells.find(t.columns[c]);
        if (subject != line.cells.end() && other != line.cells.end()) {
          if (const auto s = speedup_of(*other->second.series, *subject->second.series, m)) {
            cell.kind = GridCell::Kind::kSpeedup;
            cell.speedup = *s;
            cell.projection = mark(subject->second);
            if (!cell.projection) cell.projection = mark(other->second);
            grid.not_significant = grid.not_significant || (s->interval && !s->significant);
          }
        }
        row.push_back(cell);
      }
    }
    if (strategies) {
      // The planner suite runs no step: its `imbalance` is the plan's.
      const bool plans_only = t.family == "Planner";
      row.push_back(joined(t, line, [&](const Series& s) -> std::optional<std::string> {
        const auto v = plans_only ? std::nullopt : s.counter("imbalance");
        return v ? std::optional(fmt::format("{:.3f}", *v)) : std::nullopt;
      }));
      row.push_back(joined(t, line, [&](const Series& s) -> std::optional<std::string> {
        const auto v = s.counter(plans_only ? "imbalance" : "plan_imbalance");
        return v ? std::optional(fmt::format("{:.3f}", *v)) : std::nullopt;
      }));
    } else {
      row.push_back(joined(t, line, [](const Series& s) -> std::optional<std::string> {
        const auto bytes = state_bytes_of(s);
        return bytes ? std::optional(format_mib(*bytes)) : std::nullopt;
      }));
    }
    row.push_back(joined(t, line, [](const Series& s) -> std::optional<std::string> {
      const auto v = s.counter("comm_bytes");
      return v ? std::optional(format_mib(*v)) : std::nullopt;
    }));
    grid.rows.push_back(std::move(row));
  }
  // Detail columns that no line has are dropped (a Planner run has no communication).
  for (std::size_t col = grid.columns.size(); col-- > 0;) {
    if (grid.columns[col].in_latex()) continue;
    const bool empty = std::all_of(grid.rows.begin(), grid.rows.end(), [&](const auto& r) {
      return r[col].kind == GridCell::Kind::kMissing;
    });
    if (!empty) continue;
    grid.columns.erase(grid.columns.begin() + static_cast<std::ptrdiff_t>(col));
    for (auto& r : grid.rows) r.erase(r.begin() + static_cast<std::ptrdiff_t>(col));
  }
  return grid;
}

}  // namespace canzona::harness::table_grid
