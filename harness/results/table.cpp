// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/table.hpp"

#include "number_format.hpp"
#include "report_text.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace canzona::harness {
namespace {

// One printed line: the configuration it stands for and the series of each column.
struct Line {
  std::vector<std::string> keys;  // values of the key columns
  std::map<std::string, const Series*> cells;
  std::tuple<std::size_t, std::size_t, int, int, std::size_t> order;
};

struct FamilyTable {
  std::string family;
  std::vector<std::string> key_headers;
  std::vector<std::string> columns;
  std::vector<Line> lines;
};

std::string column_of(const Series& s, TableLayout layout) {
  return layout == TableLayout::kStrategies ? s.name.strategy : s.name.optimizer;
}

std::string title_of(const std::string& family) {
  if (family == "OptimizerStep") return "optimizer step latency";
  if (family == "E2EIteration") return "iteration time";
  if (family == "Planner") return "planning time";
  if (family == "Kernels") return "single-matrix step time";
  return "time";
}

// Footnote marks, one per topology that projected cells assume.
class Marks {
 public:
  explicit Marks(TableFormat format) : format_(format) {}
  std::string mark(const Run& run, const Series& s) {
    if (!s.projected()) return "";
    const std::string topology = projection_topology(run, s);
    auto it = std::find(topologies_.begin(), topologies_.end(), topology);
    if (it == topologies_.end()) it = topologies_.insert(topologies_.end(), topology);
    return symbol(static_cast<std::size_t>(it - topologies_.begin()));
  }
  const std::vector<std::string>& topologies() const { return topologies_; }
  std::string symbol(std::size_t i) const {
    static const char* kMarkdown[] = {"†", "‡", "§", "¶"};
    static const char* kLatex[] = {"$^\\dagger$", "$^\\ddagger$", "$^\\S$", "$^\\P$"};
    const char* const* table = format_ == TableFormat::kLatex ? kLatex : kMarkdown;
    return i < 4 ? table[i] : fmt::format("{}{}", table[0], i + 1);
  }

 private:
  TableFormat format_;
  std::vector<std::string> topologies_;
};

std::vector<FamilyTable> build_tables(const Run& run, const TableOptions& options) {
  const std::optional<bench::NamePattern> filter = name_filter(options.filter.value_or(""));
  std::vector<FamilyTable> tables;
  std::map<std::string, std::size_t> first_seen;  // model / row-axis values, for line order
  auto seen = [&](const std::string& v) {
    return first_seen.try_emplace(v, first_seen.size()).first->second;
  };
  for (const Series& s : run.series) {
    const std::string column = column_of(s, options.layout);
    if (column.empty() || s.error) continue;
    if (filter && !filter->matches(bench::registered_name(s.name))) continue;
    auto table = std::find_if(tables.begin(), tables.end(),
                              [&](const FamilyTable& t) { return t.family == s.name.family; });
    if (table == tables.end()) {
      table = tables.insert(tables.end(), FamilyTable{s.name.family, {}, {}, {}});
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
    const std::string other = options.layout == TableLayout::kStrategies
                                  ? s.name.optimizer
                                  : (s.name.strategy.empty() ? s.name.backend : s.name.strategy);
    keys.emplace_back(options.layout == TableLayout::kStrategies
                          ? "optimizer"
                          : (s.name.strategy.empty() ? "backend" : "strategy"),
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
      throw ConfigError(
          fmt::format("{}: '{}' has other parameters than the rest of its family "
                      "({}); filter the run with --filter",
                      run.source, s.name.key, fmt::join(table->key_headers, ", ")));
    }
    auto line = std::find_if(table->lines.begin(), table->lines.end(),
                             [&](const Line& l) { return l.keys == values; });
    if (line == table->lines.end()) {
      Line fresh;
      fresh.keys = values;
      fresh.order = {seen(s.name.model), seen(other), s.name.gpus.value_or(0),
                     s.name.tp.value_or(0), table->lines.size()};
      line = table->lines.insert(table->lines.end(), fresh);
    }
    if (line->cells.count(column) != 0) {
      throw ConfigError(
          fmt::format("{}: two rows for '{}' (measured and projected?); filter "
                      "one of them out with --filter",
                      run.source, s.name.key));
    }
    line->cells[column] = &s;
  }
  for (FamilyTable& t : tables) {
    std::sort(t.lines.begin(), t.lines.end(),
              [](const Line& a, const Line& b) { return a.order < b.order; });
    if (options.layout != TableLayout::kStrategies) continue;
    // Canzona first, then the baselines in the order the run has them.
    std::stable_partition(t.columns.begin(), t.columns.end(),
                          [](const std::string& c) { return c == kSubjectStrategy; });
    std::vector<std::string> wanted = options.strategies;
    if (options.baseline) wanted = {kSubjectStrategy, *options.baseline};
    if (!wanted.empty()) {
      for (const std::string& w : wanted) {
        if (std::find(t.columns.begin(), t.columns.end(), w) == t.columns.end()) {
          throw ConfigError(fmt::format("{}: no '{}' rows in {} (strategies present: {})",
                                        run.source, w, t.family, fmt::join(t.columns, ", ")));
        }
      }
      t.columns = wanted;
    }
  }
  if (tables.empty()) {
    throw ConfigError(fmt::format(
        "{}: no benchmark has {} in its name{}; {}", run.source,
        options.layout == TableLayout::kStrategies ? "a strategy" : "an optimizer",
        options.filter ? fmt::format(" and matches --filter '{}'", *options.filter) : "",
        options.layout == TableLayout::kStrategies
            ? "single-matrix suites (Kernels) have optimizers: try --compare-optimizers"
            : "results/SCHEMA.md lists the name shapes"));
  }
  return tables;
}

// Key columns that are empty on every line are left out.
std::vector<std::size_t> used_keys(const FamilyTable& t) {
  std::vector<std::size_t> used;
  for (std::size_t k = 0; k < t.key_headers.size(); ++k) {
    if (std::any_of(t.lines.begin(), t.lines.end(),
                    [&](const Line& l) { return !l.keys[k].empty(); })) {
      used.push_back(k);
    }
  }
  return used;
}

std::string latency_cell(const Series& s, const std::string& mark, TableFormat format) {
  std::string text = format_ms(s.median_ms());
  if (s.repetitions() >= 2) {
    text += format == TableFormat::kLatex
                ? fmt::format(" $\\pm${}\\%", fmt::format("{:.1f}", s.cv() * 100.0))
                : fmt::format(" ±{}", format_percent(s.cv()));
  }
  return text + mark;
}

std::optional<double> imbalance_of(const Series& s) {
  if (auto v = s.counter("imbalance")) return v;
  return s.counter("plan_imbalance");
}

std::optional<double> state_bytes_of(const Series& s) {
  if (auto v = s.counter("state_bytes")) return v;
  if (auto mib = s.counter("state_mib")) return *mib * 1024.0 * 1024.0;
  return std::nullopt;
}

// "a / b / c" over the columns: one metric of every column in one cell.
template <typename Value>
std::string joined(const FamilyTable& t, const Line& line, Value value) {
  std::vector<std::string> parts;
  bool any = false;
  for (const std::string& c : t.columns) {
    const auto it = line.cells.find(c);
    std::optional<std::string> v = it == line.cells.end() ? std::nullopt : value(*it->second);
    any = any || v.has_value();
    parts.push_back(v.value_or("-"));
  }
  return any ? fmt::format("{}", fmt::join(parts, " / ")) : "-";
}

// Header and body cells of one family's table, already formatted for md or LaTeX.
struct Grid {
  std::vector<std::string> header;
  std::vector<bool> numeric;
  std::vector<std::vector<std::string>> rows;
};

Grid make_grid(const Run& run, const FamilyTable& t, const TableOptions& options, Marks& marks) {
  Grid grid;
  const std::vector<std::size_t> keys = used_keys(t);
  for (const std::size_t k : keys) {
    grid.header.push_back(t.key_headers[k]);
    grid.numeric.push_back(false);
  }
  for (const std::string& c : t.columns) {
    grid.header.push_back(c + " ms");
    grid.numeric.push_back(true);
  }
  const bool strategies = options.layout == TableLayout::kStrategies;
  const bool has_subject = strategies && !t.columns.empty() && t.columns[0] == kSubjectStrategy;
  if (has_subject) {
    for (std::size_t c = 1; c < t.columns.size(); ++c) {
      grid.header.push_back(fmt::format("{} vs {}", kSubjectStrategy, t.columns[c]));
      grid.numeric.push_back(true);
    }
  }
  const std::string order = fmt::format("{}", fmt::join(t.columns, " / "));
  const std::string metrics[] = {strategies ? "imbalance" : "state MiB", "comm MiB/step"};
  for (const std::string& m : metrics) {
    grid.header.push_back(fmt::format("{} ({})", m, order));
    grid.numeric.push_back(true);
  }

  for (const Line& line : t.lines) {
    std::vector<std::string> row;
    for (const std::size_t k : keys) row.push_back(line.keys[k]);
    for (const std::string& c : t.columns) {
      const auto it = line.cells.find(c);
      row.push_back(it == line.cells.end()
                        ? "-"
                        : latency_cell(*it->second, marks.mark(run, *it->second), options.format));
    }
    if (has_subject) {
      const auto subject = line.cells.find(kSubjectStrategy);
      for (std::size_t c = 1; c < t.columns.size(); ++c) {
        const auto other = line.cells.find(t.columns[c]);
        if (subject == line.cells.end() || other == line.cells.end() ||
            subject->second->median_ms() <= 0) {
          row.push_back("-");
          continue;
        }
        std::string mark = marks.mark(run, *subject->second);
        if (mark.empty()) mark = marks.mark(run, *other->second);
        const double speedup = other->second->median_ms() / subject->second->median_ms();
        row.push_back((options.format == TableFormat::kLatex
                           ? fmt::format("{:.2f}$\\times$", speedup)
                           : format_ratio(speedup)) +
                      mark);
      }
    }
    row.push_back(joined(t, line, [&](const Series& s) -> std::optional<std::string> {
      if (!strategies) {
        const auto bytes = state_bytes_of(s);
        return bytes ? std::optional(format_mib(*bytes)) : std::nullopt;
      }
      const auto v = imbalance_of(s);
      return v ? std::optional(fmt::format("{:.3f}", *v)) : std::nullopt;
    }));
    row.push_back(joined(t, line, [](const Series& s) -> std::optional<std::string> {
      const auto v = s.counter("comm_bytes");
      return v ? std::optional(format_mib(*v)) : std::nullopt;
    }));
    grid.rows.push_back(std::move(row));
  }
  // Metric columns that no line has are dropped (a Planner run has no communication).
  for (std::size_t col = grid.header.size(); col-- > 0;) {
    const bool empty = std::all_of(grid.rows.begin(), grid.rows.end(),
                                   [&](const auto& r) { return r[col] == "-"; });
    if (empty && col >= keys.size() + t.columns.size()) {
      grid.header.erase(grid.header.begin() + static_cast<std::ptrdiff_t>(col));
      grid.numeric.erase(grid.numeric.begin() + static_cast<std::ptrdiff_t>(col));
      for (auto& r : grid.rows) r.erase(r.begin() + static_cast<std::ptrdiff_t>(col));
    }
  }
  return grid;
}

std::string footnotes_text(const Marks& marks, TableFormat format) {
  const bool latex = format == TableFormat::kLatex;
  std::string text;
  for (std::size_t i = 0; i < marks.topologies().size(); ++i) {
    // The topology's name comes from the run file; the mark is the table's own markup.
    const std::string& topology = marks.topologies()[i];
    const std::string name = topology.empty() ? "(not named)"
                             : latex          ? latex_text(topology)
                                              : markdown_text(topology);
    const std::string sentence = fmt::format(
        "{} PROJECTION on topology {}, not a measurement (lib/sim: measured or modelled compute, "
        "alpha-beta collectives).",
        marks.symbol(i), name);
    text += latex ? "\\par " + sentence + "\n" : sentence + "\n\n";
  }
  return text;
}

std::string render_markdown(const Run& run, const std::vector<FamilyTable>& tables,
                            const TableOptions& options) {
  std::string md;
  for (const std::string& line : provenance_lines(run)) md += "> " + markdown_text(line) + "  \n";
  md += "\n";
  for (const FamilyTable& t : tables) {
    Marks marks(TableFormat::kMarkdown);
    const Grid grid = make_grid(run, t, options, marks);
    md +=
        fmt::format("### {} — {} (ms, median ±relative spread)\n\n", t.family, title_of(t.family));
    std::vector<std::string> header;
    for (const std::string& h : grid.header) header.push_back(markdown_text(h));
    md += "| " + fmt::format("{}", fmt::join(header, " | ")) + " |\n|";
    for (const bool numeric : grid.numeric) md += numeric ? "---:|" : "---|";
    md += "\n";
    for (const auto& row : grid.rows) {
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < row.size(); ++i) {
        // Latency and speed-up cells are written here; key cells come from the run file.
        cells.push_back(grid.numeric[i] ? row[i] : markdown_text(row[i]));
      }
      md += "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
    }
    md += "\n";
    md += footnotes_text(marks, TableFormat::kMarkdown);
  }
  md +=
      "Medians of the repetitions; ± is the relative standard deviation over them. Speed-up = "
      "baseline / canzona latency.\n";
  return md;
}

std::string render_latex(const Run& run, const std::vector<FamilyTable>& tables,
                         const TableOptions& options) {
  std::string tex;
  for (const std::string& line : provenance_lines(run)) tex += "% " + one_line(line) + "\n";
  for (const FamilyTable& t : tables) {
    Marks marks(TableFormat::kLatex);
    const Grid grid = make_grid(run, t, options, marks);
    tex += "\\begin{table}\n\\centering\n\\begin{tabular}{";
    for (const bool numeric : grid.numeric) tex += numeric ? 'r' : 'l';
    tex += "}\n\\toprule\n";
    std::vector<std::string> header;
    for (const std::string& h : grid.header) header.push_back(latex_text(h));
    tex += fmt::format("{} \\\\\n\\midrule\n", fmt::join(header, " & "));
    for (const auto& row : grid.rows) {
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < row.size(); ++i) {
        // Latency and speed-up cells are already LaTeX; key cells are plain text.
        cells.push_back(grid.numeric[i] ? row[i] : latex_text(row[i]));
      }
      tex += fmt::format("{} \\\\\n", fmt::join(cells, " & "));
    }
    tex += "\\bottomrule\n\\end{tabular}\n";
    tex += fmt::format("\\caption{{{} --- {} (ms, median $\\pm$ relative spread)}}\n",
                       latex_text(t.family), title_of(t.family));
    const std::string notes = footnotes_text(marks, TableFormat::kLatex);
    if (!notes.empty()) tex += "\\footnotesize\n" + notes;
    tex += "\\end{table}\n";
  }
  return tex;
}

// Tidy CSV: one line per benchmark, numbers unformatted, for spreadsheets and pandas.
std::string render_csv(const Run& run, const std::vector<FamilyTable>& tables) {
  std::string csv;
  for (const std::string& line : provenance_lines(run)) csv += "# " + one_line(line) + "\n";
  csv +=
      "family,model,gpus,dp,tp,optimizer,strategy,backend,params,median_ms,cv,repetitions,"
      "canzona_speedup,imbalance,comm_bytes,state_bytes,projected,topology\n";
  auto number = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
  for (const FamilyTable& t : tables) {
    for (const Line& line : t.lines) {
      const auto subject = line.cells.find(kSubjectStrategy);
      for (const std::string& column : t.columns) {
        const auto it = line.cells.find(column);
        if (it == line.cells.end()) continue;
        const Series& s = *it->second;
        std::vector<std::string> params;
        for (const auto& [k, v] : s.name.params) {
          if (k != "gpus" && k != "dp" && k != "tp") params.push_back(k + "=" + v);
        }
        std::optional<double> speedup;
        if (subject != line.cells.end() && subject->second->name.strategy == kSubjectStrategy &&
            s.name.strategy != kSubjectStrategy && subject->second->median_ms() > 0) {
          speedup = s.median_ms() / subject->second->median_ms();
        }
        auto opt_int = [](std::optional<int> v) { return v ? std::to_string(*v) : ""; };
        const std::vector<std::string> fields = {t.family,
                                                 s.name.model,
                                                 opt_int(s.name.gpus),
                                                 opt_int(s.name.dp),
                                                 opt_int(s.name.tp),
                                                 s.name.optimizer,
                                                 s.name.strategy,
                                                 s.name.backend,
                                                 fmt::format("{}", fmt::join(params, ";")),
                                                 fmt::format("{}", s.median_ms()),
                                                 fmt::format("{}", s.cv()),
                                                 std::to_string(s.repetitions()),
                                                 number(speedup),
                                                 number(imbalance_of(s)),
                                                 number(s.counter("comm_bytes")),
                                                 number(state_bytes_of(s)),
                                                 s.projected() ? "1" : "0",
                                                 s.projected() ? projection_topology(run, s) : ""};
        std::vector<std::string> quoted;
        for (const std::string& f : fields) quoted.push_back(csv_field(f));
        csv += fmt::format("{}\n", fmt::join(quoted, ","));
      }
    }
  }
  return csv;
}

}  // namespace

std::string render_table(const Run& run, const TableOptions& options) {
  const std::vector<FamilyTable> tables = build_tables(run, options);
  switch (options.format) {
    case TableFormat::kCsv:
      return render_csv(run, tables);
    case TableFormat::kLatex:
      return render_latex(run, tables, options);
    case TableFormat::kMarkdown:
      break;
  }
  return render_markdown(run, tables, options);
}

}  // namespace canzona::harness
