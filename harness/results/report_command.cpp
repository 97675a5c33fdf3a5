// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench report RUN.json --out DIR`: one page per run, ready to attach to a pull request
// or a paper's artifact: DIR/report.md (provenance, every table, every figure from
// DIR/figures/) and DIR/report.html, the same page with its figures inside it. The folder is
// built beside DIR and renamed into place, so DIR is complete or absent.
#include "commands.hpp"
#include "report_text.hpp"
#include "run_figures.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/harness/table.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/input_file.hpp>

#include <fmt/format.h>
#include <boost/archive/iterators/base64_from_binary.hpp>
#include <boost/archive/iterators/transform_width.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <ostream>
#include <sstream>

namespace canzona::harness {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string run;
  std::string out;
  std::string filter;
  bool allow_debug = false;
};

// A figure's bytes as base64 (Boost.Serialization's iterators), for an <img> data URI.
std::string base64_of_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  using namespace boost::archive::iterators;
  using Encoder = base64_from_binary<transform_width<std::string::const_iterator, 6, 8>>;
  std::string encoded(Encoder(bytes.begin()), Encoder(bytes.end()));
  encoded.append((3 - bytes.size() % 3) % 3, '=');
  return encoded;
}

// "latency_OptimizerStep_muon_qwen3-8b" → "latency OptimizerStep muon qwen3-8b".
std::string figure_title(const fs::path& figure) {
  std::string title = figure.stem().string();
  for (char& c : title) {
    if (c == '_') c = ' ';
  }
  return title;
}

std::string markdown_page(const Run& run, const std::string& tables,
                          const std::vector<fs::path>& figures, const std::string& no_figures) {
  std::string md = fmt::format("# Canzona Bench report: {}\n\n",
                               markdown_text(fs::path(run.source).filename().string()));
  for (const std::string& line : provenance_lines(run)) md += "> " + markdown_text(line) + "  \n";
  md += fmt::format(
      "\nThe tables of this run, then its {} figure(s). Rows marked † are projections, not "
      "measurements; every speed-up on measured rows carries its 95 % interval.\n\n",
      figures.size());
  md += "## Tables\n\n" + tables;
  md += "## Figures\n\n";
  if (!no_figures.empty()) md += "No figures: " + markdown_text(no_figures) + "\n\n";
  for (const fs::path& figure : figures) {
    md += fmt::format("### {}\n\n![{}](figures/{})\n\n", markdown_text(figure_title(figure)),
                      markdown_text(figure_title(figure)), figure.filename().string());
  }
  return md;
}

std::string html_page(const Run& run, const std::string& tables,
                      const std::vector<fs::path>& figures, const std::string& no_figures) {
  const std::string name = html_text(fs::path(run.source).filename().string());
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>Canzona Bench report: {}</title>\n<style>\n"
      "body {{ font-family: sans-serif; max-width: 110em; margin: 2em auto; padding: 0 1em; }}\n"
      "table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}\n"
      "th, td {{ border-bottom: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }}\n"
      "th.num, td.num {{ text-align: right; }}\n"
      "p.provenance {{ color: #444; border-left: 3px solid #ccc; padding-left: 0.8em; }}\n"
      "p.note {{ font-size: 0.85em; color: #333; }}\n"
      "img {{ max-width: 100%; }}\n</style>\n</head>\n<body>\n"
      "<h1>Canzona Bench report: {}</h1>\n",
      name, name);
  html += "<p class=\"provenance\">";
  std::vector<std::string> lines;
  for (const std::string& line : provenance_lines(run)) lines.push_back(html_text(line));
  html += fmt::format("{}</p>\n", fmt::join(lines, "<br>\n"));
  html += fmt::format(
      "<p>The tables of this run, then its {} figure(s). Rows marked † are projections, not "
      "measurements; every speed-up on measured rows carries its 95 % interval.</p>\n",
      figures.size());
  html += "<h2>Tables</h2>\n" + tables + "<h2>Figures</h2>\n";
  if (!no_figures.empty()) html += "<p>No figures: " + html_text(no_figures) + "</p>\n";
  for (const fs::path& figure : figures) {
    const std::string title = html_text(figure_title(figure));
    html += fmt::format(
        "<figure>\n<img alt=\"{}\" src=\"data:image/png;base64,{}\">\n<figcaption>{}"
        "</figcaption>\n</figure>\n",
        title, base64_of_file(figure), title);
  }
  html += "</body>\n</html>\n";
  return html;
}

int report(const ReportOptions& o, std::ostream& out) {
  // DIR must be new or empty: a report never mixes with other files.
  io::check_output_folder(o.out, "--out");
  const Run run = read_run(o.run);
  require_canzona_provenance(run.context, run.source, o.allow_debug);

  TableOptions table;
  table.provenance = false;
  // Runs without strategies in their names (the kernels suite) have optimizers side by side.
  const bool strategies = std::any_of(run.series.begin(), run.series.end(),
                                      [](const Series& s) { return !s.name.strategy.empty(); });
  table.layout = strategies ? TableLayout::kStrategies : TableLayout::kOptimizers;
  if (!o.filter.empty()) table.filter = o.filter;
  table.format = TableFormat::kMarkdown;
  const std::string markdown_tables = render_table(run, table);
  table.format = TableFormat::kHtml;
  const std::string html_tables = render_table(run, table);

  // Built beside DIR, renamed into place when complete.
  const fs::path target = io::output_folder_path(o.out);
  const fs::path staging = target.parent_path() / ("." + target.filename().string() + ".partial");
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging / "figures");
  try {
    // A run plot cannot draw (no strategy axis: the kernels suite) still gets its page.
    std::vector<fs::path> figures;
    std::string no_figures;
    try {
      // The plot's progress names the folder it draws into, the staging one: say DIR instead.
      std::ostringstream progress;
      figures = draw_run_figures(o.run, staging / "figures", o.filter, o.allow_debug, progress);
      std::string text = progress.str();
      for (std::size_t at = 0; (at = text.find(staging.string(), at)) != std::string::npos;
           at += o.out.size()) {
        text.replace(at, staging.string().size(), o.out);
      }
      std::cerr << text;
    } catch (const ConfigError& e) {
      no_figures = e.what();
    }
    if (figures.empty()) fs::remove(staging / "figures", ec);
    io::write_file_atomically(staging / "report.md",
                              markdown_page(run, markdown_tables, figures, no_figures));
    io::write_file_atomically(staging / "report.html",
                              html_page(run, html_tables, figures, no_figures));
    if (fs::exists(target)) fs::remove(target);  // the empty folder check_output_folder allowed
    fs::rename(staging, target);
    out << fmt::format("report written to {}: report.md, report.html, {} figure(s) in figures/\n",
                       o.out, figures.size());
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
  return kExitOk;
}

}  // namespace

CommandAction add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "One page per run: provenance, every table and every figure, as report.md (figures in "
      "figures/) and report.html (figures inside it), for a pull request or a paper's artifact");
  cmd->add_option("run", o->run, "Run JSON (canzona-bench run or a suite's output)")->required();
  cmd->add_option("--out", o->out, "Folder to create for the report (new or empty)")->required();
  cmd->add_option("--filter", o->filter, "Only benchmarks whose name matches this pattern (RE2)");
  cmd->add_flag("--allow-debug", o->allow_debug, "Accept a run of a non-Release build");
  return [o](std::ostream& out) { return report(*o, out); };
}

}  // namespace canzona::harness
