// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Text read from run files (context values, names, labels, messages) on its way into a report:
// escaped here, once per output language, so that no value can end a line, open a table row,
// start a LaTeX command, raw HTML or a spreadsheet formula. Every report writer of the results
// commands (table, compare, ab) passes file text through one of these.
#pragma once

#include <string>
#include <string_view>

namespace canzona::harness {

/// The text on one line: control characters (newline, carriage return, tab, escape, DEL, …)
/// written as `\n`, `\r`, `\t` or `\xNN`. Enough for a comment line (`%` in LaTeX, `#` in CSV).
std::string one_line(std::string_view text);

/// Markdown inline text or a table cell: one line, with every character Markdown or HTML could
/// read as syntax (`\` `` ` `` `*` `[` `]` `<` `>` `|`; `_` unless between two letters or digits;
/// `~` where there are two or more) escaped by a backslash.
std::string markdown_text(std::string_view text);

/// HTML text or attribute value: one line, with `&` `<` `>` `"` `'` as entities.
std::string html_text(std::string_view text);

/// Markdown code span: one line, in a backtick fence longer than any run of backticks inside,
/// with `|` escaped (GitHub tables split cells at a bare `|` even inside code spans).
std::string markdown_code(std::string_view text);

/// LaTeX text: one line, with the ten special characters and `<` `>` `|` escaped; `×`, `±`, `µ`,
/// `—` and `–` as their commands and any other non-ASCII character as `[U+XXXX]` (pdflatex has no
/// glyph set up for arbitrary Unicode); `--` kept as two hyphens (not a dash), and a line may
/// break after `/`, `,` and `=` (paths and commands fit a column).
std::string latex_text(std::string_view text);

/// One CSV field (RFC 4180) on one line: quoted when it holds a comma, quote or edge space; a
/// text field a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`) gets a
/// leading `'`, numbers are left as they are.
std::string csv_field(std::string_view text);

}  // namespace canzona::harness
