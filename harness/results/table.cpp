// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/table.hpp"

#include "number_format.hpp"
#include "report_text.hpp"
#include "table_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace canzona::harness {
namespace {

using table_grid::Cell;
using table_grid::FamilyTable;
using table_grid::Grid;
using table_grid::GridCell;
using table_grid::Line;

// Rows of one LaTeX float: a page of the article class holds about 40 lines of \footnotesize.
constexpr std::size_t kLatexRowsPerFloat = 30;

// The mark of the i-th projection topology.
std::string mark_symbol(std::size_t i, TableFormat format) {
  static const char* kMarkdown[] = {"†", "‡", "§", "¶"};
  static const char* kLatex[] = {"$^\\dagger$", "$^\\ddagger$", "$^\\S$", "$^\\P$"};
  const char* const* table = format == TableFormat::kLatex ? kLatex : kMarkdown;
  return i < 4 ? table[i] : fmt::format("{}{}", table[0], i + 1);
}

std::string mark_of(const GridCell& c, TableFormat format) {
  return c.projection ? mark_symbol(*c.projection, format) : "";
}

std::string latency_text(const GridCell& c, TableFormat format) {
  const bool latex = format == TableFormat::kLatex;
  std::string text = format_ms(c.median_ms);
  if (c.repetitions >= 2) {
    text += latex ? fmt::format(" $\\pm${:.1f}\\%", c.cv * 100.0)
                  : fmt::format(" ±{}", format_percent(c.cv));
  }
  return text + mark_of(c, format);
}

std::string speedup_text(const GridCell& c, TableFormat format) {
  const bool latex = format == TableFormat::kLatex;
  const table_grid::Speedup& s = c.speedup;
  std::string text = latex ? fmt::format("{:.2f}$\\times$", s.ratio) : format_ratio(s.ratio);
  if (s.bounded) {
    text += fmt::format(" [{:.2f}, {:.2f}]", s.lower, s.upper);
  }
  if (s.interval && !s.significant) text += latex ? "$^{\\mathrm{ns}}$" : " n.s.";
  return text + mark_of(c, format);
}

// Text from a run file in `format`.
std::string escaped(const std::string& text, TableFormat format) {
  switch (format) {
    case TableFormat::kLatex:
      return latex_text(text);
    case TableFormat::kHtml:
      return html_text(text);
    case TableFormat::kMarkdown:
    case TableFormat::kCsv:
      break;
  }
  return markdown_text(text);
}

// A cell in Markdown, LaTeX or HTML; key cells come from the run file and are escaped.
std::string cell_text(const GridCell& c, TableFormat format) {
  switch (c.kind) {
    case GridCell::Kind::kMissing:
      return "-";
    case GridCell::Kind::kKey:
      return escaped(c.text, format);
    case GridCell::Kind::kLatency:
      return latency_text(c, format);
    case GridCell::Kind::kSpeedup:
      return speedup_text(c, format);
    case GridCell::Kind::kNumbers:
      return c.text;
  }
  return "-";
}

// The sentences under a table, in reading order; text from the run files escaped for `format`.
std::vector<std::string> notes_of(const Grid& grid, TableFormat format) {
  const bool latex = format == TableFormat::kLatex;
  const auto text = [&](const std::string& t) { return escaped(t, format); };
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < grid.topologies.size(); ++i) {
    const std::string& topology = grid.topologies[i];
    notes.push_back(fmt::format(
        "{} PROJECTION on topology {}, not a measurement (lib/sim: measured or modelled "
        "compute, alpha-beta collectives); a projection is deterministic, so its speed-ups carry "
        "no interval: their error is the projector's (results/projections/).",
        mark_symbol(i, format), topology.empty() ? "(not named)" : text(topology)));
  }
  for (const std::string& n : grid.metric_notes) notes.push_back(text(n));
  notes.push_back(text(
      "Latencies: medians of the repetitions, ± their relative standard deviation. Speed-up = "
      "baseline / canzona: on measured rows the Hodges–Lehmann estimate over the repetitions' "
      "pairwise ratios with [a, b] its 95 % interval (from the Mann–Whitney null distribution), "
      "on projected rows the ratio of the projections."));
  if (grid.not_significant) {
    notes.push_back((latex ? std::string("$^{\\mathrm{ns}}$") : std::string("n.s.")) +
                    text(": not distinguishable from 1.00× (the interval holds 1.00×, or the "
                         "repetitions are too few for a 95 % interval)."));
  }
  if (!grid.ranks_note.empty()) notes.push_back(text(grid.ranks_note));
  if (grid.scaled_models) {
    notes.push_back(
        text("<model>~d<k>: the Qwen3 model with every width (hidden, intermediate, head, "
             "vocabulary) divided by k and every count kept, a shape a CPU can step "
             "(results/SCHEMA.md)."));
  }
  return notes;
}

std::string render_markdown(const std::vector<std::string>& provenance,
                            const std::vector<Grid>& grids) {
  std::string md;
  if (!provenance.empty()) {
    for (const std::string& line : provenance) md += "> " + markdown_text(line) + "  \n";
    md += "\n";
  }
  for (const Grid& grid : grids) {
    md += fmt::format("### {} — {} (ms, median ±relative spread)\n\n", markdown_text(grid.family),
                      grid.title);
    std::vector<std::string> header;
    for (const auto& column : grid.columns) header.push_back(markdown_text(column.header));
    md += "| " + fmt::format("{}", fmt::join(header, " | ")) + " |\n|";
    for (const auto& column : grid.columns) md += column.key() ? "---|" : "---:|";
    md += "\n";
    for (const auto& row : grid.rows) {
      std::vector<std::string> cells;
      for (const GridCell& c : row) cells.push_back(cell_text(c, TableFormat::kMarkdown));
      md += "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
    }
    md += "\n";
    for (const std::string& note : notes_of(grid, TableFormat::kMarkdown)) md += note + "\n\n";
  }
  return md;
}

// An HTML fragment (no <html> or <head>): a report or a page embeds it.
std::string render_html(const std::vector<std::string>& provenance,
                        const std::vector<Grid>& grids) {
  std::string html;
  if (!provenance.empty()) {
    std::vector<std::string> lines;
    for (const std::string& line : provenance) lines.push_back(html_text(line));
    html += fmt::format("<p class=\"provenance\">{}</p>\n", fmt::join(lines, "<br>\n"));
  }
  for (const Grid& grid : grids) {
    html += fmt::format("<h3>{} — {} (ms, median ±relative spread)</h3>\n<table>\n<thead><tr>",
                        html_text(grid.family), grid.title);
    for (const auto& column : grid.columns) {
      html += fmt::format("<th{}>{}</th>", column.key() ? "" : " class=\"num\"",
                          html_text(column.header));
    }
    html += "</tr></thead>\n<tbody>\n";
    for (const auto& row : grid.rows) {
      html += "<tr>";
      for (std::size_t c = 0; c < row.size(); ++c) {
        html += fmt::format("<td{}>{}</td>", grid.columns[c].key() ? "" : " class=\"num\"",
                            cell_text(row[c], TableFormat::kHtml));
      }
      html += "</tr>\n";
    }
    html += "</tbody>\n</table>\n";
    for (const std::string& note : notes_of(grid, TableFormat::kHtml)) {
      html += "<p class=\"note\">" + note + "</p>\n";
    }
  }
  return html;
}

// A table as LaTeX cells, before it is split into floats.
struct LatexTable {
  std::vector<std::string> header;
  std::string align;  ///< 'l' or 'r' per column
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> group;  ///< per row: the model its float is about
  std::size_t rows_per_line = 1;   ///< rows that stand for one line of the grid
};

std::string latex_header_cell(const std::vector<std::string>& header_lines, char align) {
  std::vector<std::string> lines;
  for (const std::string& l : header_lines) lines.push_back(latex_text(l));
  if (lines.size() == 1) return lines.front();
  // A stacked header in a nested tabular: base LaTeX, no makecell.
  return fmt::format("\\begin{{tabular}}[b]{{@{{}}{}@{{}}}}{}\\end{{tabular}}", align,
                     fmt::join(lines, "\\\\"));
}

std::optional<std::size_t> model_column(const Grid& grid) {
  for (std::size_t c = 0; c < grid.columns.size(); ++c) {
    if (grid.columns[c].key() && grid.columns[c].header == "model") return c;
  }
  return std::nullopt;
}

// Lines of the grid as they are: a column per strategy and metric. Fits when there are few
// strategies (the paper's `--baseline layerwise`).
LatexTable wide_layout(const Grid& grid, std::optional<std::size_t> model) {
  LatexTable t;
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < grid.columns.size(); ++c) {
    if (grid.columns[c].in_latex() && c != model) columns.push_back(c);
  }
  for (const std::size_t c : columns) {
    const char align = grid.columns[c].key() ? 'l' : 'r';
    t.header.push_back(latex_header_cell(grid.columns[c].header_lines, align));
    t.align += align;
  }
  for (const auto& row : grid.rows) {
    std::vector<std::string> cells;
    for (const std::size_t c : columns) cells.push_back(cell_text(row[c], TableFormat::kLatex));
    t.rows.push_back(std::move(cells));
    t.group.push_back(model ? row[*model].text : "");
  }
  return t;
}

// A row per line and strategy: its time in each metric and Canzona's speed-up over it. Many
// strategies stay readable at the font size of the text.
LatexTable long_layout(const Grid& grid, std::optional<std::size_t> model) {
  using Role = table_grid::GridColumn::Role;
  LatexTable t;
  std::vector<std::size_t> keys;
  for (std::size_t c = 0; c < grid.columns.size(); ++c) {
    if (grid.columns[c].key() && c != model) keys.push_back(c);
  }
  for (const std::size_t c : keys)
    t.header.push_back(latex_header_cell(grid.columns[c].header_lines, 'l'));
  t.header.push_back("strategy");
  t.align = std::string(keys.size() + 1, 'l');
  const auto find = [&](Role role, const std::string& strategy, std::size_t metric) {
    for (std::size_t c = 0; c < grid.columns.size(); ++c) {
      const auto& col = grid.columns[c];
      if (col.role == role && col.strategy == strategy && col.metric == metric) {
        return std::optional(c);
      }
    }
    return std::optional<std::size_t>();
  };
  const bool speedups = std::any_of(grid.columns.begin(), grid.columns.end(),
                                    [](const auto& c) { return c.role == Role::kSpeedup; });
  for (std::size_t m = 0; m < grid.metrics.size(); ++m) {
    const std::string name = grid.metrics[m].name;
    t.header.push_back(latex_header_cell({name.empty() ? "time" : name, "ms"}, 'r'));
    t.align += 'r';
    if (speedups) {
      t.header.push_back(latex_header_cell(
          name.empty()
              ? std::vector<std::string>{std::string(kSubjectStrategy) + "'s", "speed-up"}
              : std::vector<std::string>{std::string(kSubjectStrategy) + "'s", "speed-up,", name},
          'r'));
      t.align += 'r';
    }
  }
  t.rows_per_line = grid.strategies.size();
  for (const auto& row : grid.rows) {
    for (std::size_t s = 0; s < grid.strategies.size(); ++s) {
      std::vector<std::string> cells;
      for (const std::size_t c : keys) {
        cells.push_back(s == 0 ? cell_text(row[c], TableFormat::kLatex) : std::string());
      }
      cells.push_back(latex_text(grid.strategies[s]));
      for (std::size_t m = 0; m < grid.metrics.size(); ++m) {
        const auto latency = find(Role::kLatency, grid.strategies[s], m);
        cells.push_back(latency ? cell_text(row[*latency], TableFormat::kLatex) : "-");
        if (!speedups) continue;
        const auto speedup = find(Role::kSpeedup, grid.strategies[s], m);
        cells.push_back(speedup ? cell_text(row[*speedup], TableFormat::kLatex) : "");
      }
      t.rows.push_back(std::move(cells));
      t.group.push_back(model ? row[*model].text : "");
    }
  }
  return t;
}

// Columns without a value on any row (a metric that only projections have, in a run of
// measurements) are dropped.
void drop_empty_columns(LatexTable& t) {
  for (std::size_t c = t.header.size(); c-- > 0;) {
    const bool empty = std::all_of(t.rows.begin(), t.rows.end(),
                                   [&](const auto& r) { return r[c].empty() || r[c] == "-"; });
    if (!empty) continue;
    t.header.erase(t.header.begin() + static_cast<std::ptrdiff_t>(c));
    t.align.erase(c, 1);
    for (auto& r : t.rows) r.erase(r.begin() + static_cast<std::ptrdiff_t>(c));
  }
}

// The wide layout up to this many columns; the long one beyond.
constexpr std::size_t kLatexWideColumns = 9;

// Rows [begin, end) as one float: caption above, the tabular scaled down only when it is wider
// than the line (\width is its natural width), the notes below at the line's width.
std::string latex_float(const LatexTable& t, std::size_t begin, std::size_t end,
                        const std::string& caption, const std::string& notes) {
  std::string tex = "\\begin{table}[htbp]\n\\centering\\footnotesize\n";
  tex += "\\caption{" + caption + "}\n";
  tex += "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n";
  tex += "\\begin{tabular}{@{}" + t.align + "@{}}\n\\toprule\n";
  tex += fmt::format("{} \\\\\n\\midrule\n", fmt::join(t.header, " & "));
  for (std::size_t r = begin; r < end; ++r) {
    if (r > begin && t.rows_per_line > 1 && r % t.rows_per_line == 0) tex += "\\addlinespace\n";
    tex += fmt::format("{} \\\\\n", fmt::join(t.rows[r], " & "));
  }
  tex += "\\bottomrule\n\\end{tabular}}\n";
  if (!notes.empty()) {
    tex += "\\par\\smallskip\n\\parbox{\\linewidth}{\\scriptsize\\raggedright\n" + notes + "}\n";
  }
  tex += "\\end{table}\n";
  return tex;
}

// Runs of consecutive rows of one model, each at most kLatexRowsPerFloat long and never
// splitting the rows of one line.
std::vector<std::pair<std::size_t, std::size_t>> latex_chunks(const LatexTable& t) {
  const std::size_t unit = t.rows_per_line;
  const std::size_t most = std::max(unit, kLatexRowsPerFloat / unit * unit);
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  for (std::size_t begin = 0; begin < t.rows.size();) {
    std::size_t end = std::min(begin + unit, t.rows.size());
    while (end < t.rows.size() && end - begin + unit <= most && t.group[end] == t.group[begin]) {
      end = std::min(end + unit, t.rows.size());
    }
    chunks.emplace_back(begin, end);
    begin = end;
  }
  return chunks;
}

std::string render_latex(const std::vector<std::string>& provenance_text,
                         const std::vector<Grid>& grids) {
  std::string tex =
      "% Needs \\usepackage{booktabs} and \\usepackage{graphicx} in the preamble.\n"
      "% Written by canzona-bench table; provenance in each table's notes.\n";
  std::vector<std::string> provenance;
  for (const std::string& line : provenance_text) provenance.push_back(latex_text(line));
  for (const Grid& grid : grids) {
    const std::optional<std::size_t> model = model_column(grid);
    LatexTable table = wide_layout(grid, model);
    drop_empty_columns(table);
    if (table.header.size() > kLatexWideColumns) {
      table = long_layout(grid, model);
      drop_empty_columns(table);
    }
    std::vector<std::string> note_lines = notes_of(grid, TableFormat::kLatex);
    note_lines.insert(note_lines.end(), provenance.begin(), provenance.end());
    const std::string notes = fmt::format("{}\n", fmt::join(note_lines, "\\par\n"));
    const auto chunks = latex_chunks(table);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const auto [begin, end] = chunks[i];
      const bool continued = i > 0 && table.group[chunks[i - 1].first] == table.group[begin];
      const std::string subject = model ? fmt::format(", {}", latex_text(table.group[begin])) : "";
      const std::string caption =
          fmt::format("{} --- {}{}{} (ms, median $\\pm$ relative spread)", latex_text(grid.family),
                      grid.title, subject, continued ? " (continued)" : "");
      // The notes go under the last float of the family, where a reader finishes it.
      tex +=
          latex_float(table, begin, end, caption, i + 1 == chunks.size() ? notes : std::string());
    }
  }
  return tex;
}

// Tidy CSV: one line per benchmark, numbers unformatted, for spreadsheets and pandas.
std::string render_csv(const std::vector<std::string>& provenance,
                       const std::vector<FamilyTable>& tables) {
  std::string csv;
  for (const std::string& line : provenance) csv += "# " + one_line(line) + "\n";
  csv +=
      "family,model,gpus,dp,tp,optimizer,strategy,backend,params,median_ms,cv,repetitions,"
      "optimizer_ms,canzona_speedup,canzona_speedup_low,canzona_speedup_high,"
      "canzona_speedup_optimizer,imbalance,plan_imbalance,comm_bytes,state_bytes,projected,"
      "topology,source\n";
  auto number = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
  auto opt_int = [](std::optional<int> v) { return v ? std::to_string(*v) : ""; };
  const table_grid::Metric step{"", ""};
  const table_grid::Metric optimizer{"optimizer_ms", ""};
  for (const FamilyTable& t : tables) {
    for (const Line& line : t.lines) {
      const auto subject = line.cells.find(kSubjectStrategy);
      for (const std::string& column : t.columns) {
        const auto it = line.cells.find(column);
        if (it == line.cells.end()) continue;
        const Cell& cell = it->second;
        const Series& s = *cell.series;
        std::vector<std::string> params;
        for (const auto& [k, v] : s.name.params) {
          if (k != "gpus" && k != "dp" && k != "tp") params.push_back(k + "=" + v);
        }
        std::optional<table_grid::Speedup> speedup;
        std::optional<table_grid::Speedup> speedup_optimizer;
        if (subject != line.cells.end() &&
            subject->second.series->name.strategy == kSubjectStrategy &&
            s.name.strategy != kSubjectStrategy) {
          speedup = table_grid::speedup_of(s, *subject->second.series, step);
          if (s.counter("optimizer_ms")) {
            speedup_optimizer = table_grid::speedup_of(s, *subject->second.series, optimizer);
          }
        }
        const bool bounded = speedup && speedup->bounded;
        const std::string backend =
            s.name.backend.empty() ? cell.run->context_or("canzona_backend", "") : s.name.backend;
        const std::vector<std::string> fields = {
            t.family,
            s.name.model,
            opt_int(s.name.gpus),
            opt_int(s.name.dp),
            opt_int(s.name.tp),
            s.name.optimizer,
            s.name.strategy,
            backend,
            fmt::format("{}", fmt::join(params, ";")),
            fmt::format("{}", s.median_ms()),
            fmt::format("{}", s.cv()),
            std::to_string(s.repetitions()),
            number(s.counter("optimizer_ms")),
            number(speedup ? std::optional(speedup->ratio) : std::nullopt),
            number(bounded ? std::optional(speedup->lower) : std::nullopt),
            number(bounded ? std::optional(speedup->upper) : std::nullopt),
            number(speedup_optimizer ? std::optional(speedup_optimizer->ratio) : std::nullopt),
            number(s.counter("imbalance")),
            number(s.counter("plan_imbalance")),
            number(s.counter("comm_bytes")),
            number(table_grid::state_bytes_of(s)),
            s.projected() ? "1" : "0",
            s.projected() ? projection_topology(*cell.run, s) : "",
            cell.run->source};
        std::vector<std::string> quoted;
        for (const std::string& f : fields) quoted.push_back(csv_field(f));
        csv += fmt::format("{}\n", fmt::join(quoted, ","));
      }
    }
  }
  return csv;
}

// Every run's provenance lines, in the order of the runs; none when the caller states them.
std::vector<std::string> provenance_of(const std::vector<const Run*>& runs,
                                       const TableOptions& options) {
  std::vector<std::string> lines;
  // LaTeX and CSV keep theirs: a table file must say where it came from on its own.
  if (!options.provenance && options.format != TableFormat::kLatex &&
      options.format != TableFormat::kCsv) {
    return lines;
  }
  for (const Run* run : runs) {
    for (std::string& line : provenance_lines(*run)) lines.push_back(std::move(line));
  }
  return lines;
}

std::string render(const std::vector<const Run*>& runs, const TableOptions& options) {
  const std::vector<FamilyTable> tables = table_grid::build_tables(runs, options);
  const std::vector<std::string> provenance = provenance_of(runs, options);
  if (options.format == TableFormat::kCsv) return render_csv(provenance, tables);
  std::vector<Grid> grids;
  for (const FamilyTable& t : tables) grids.push_back(table_grid::make_grid(t, options));
  if (options.format == TableFormat::kLatex) return render_latex(provenance, grids);
  if (options.format == TableFormat::kHtml) return render_html(provenance, grids);
  return render_markdown(provenance, grids);
}

}  // namespace

std::string render_table(const std::vector<Run>& runs, const TableOptions& options) {
  std::vector<const Run*> pointers;
  for (const Run& run : runs) pointers.push_back(&run);
  return render(pointers, options);
}

std::string render_table(const Run& run, const TableOptions& options) {
  return render({&run}, options);
}

}  // namespace canzona::harness
