// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Text from run files on its way into reports: no value may end a line, open a table cell, run
// a LaTeX command, raw HTML or a spreadsheet formula, and ordinary names stay readable.
#include "report_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace canzona::harness {
namespace {

TEST(ReportTextTest, OneLineShowsEveryControlCharacter) {
  EXPECT_EQ(one_line("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(one_line(std::string("x\x1b[31my\x7f", 8)), "x\\x1b[31my\\x7f");
  EXPECT_EQ(one_line(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(one_line("qwen3-8b~d16 µs ×"), "qwen3-8b~d16 µs ×");
}

TEST(ReportTextTest, MarkdownTextCannotOpenCellsLinksHtmlOrEmphasis) {
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("<script>x</script>"), "\\<script\\>x\\</script\\>");
  EXPECT_EQ(markdown_text("[x](http://y)"), "\\[x\\](http://y)");
  EXPECT_EQ(markdown_text("*a* `b` \\"), "\\*a\\* \\`b\\` \\\\");
  EXPECT_EQ(markdown_text("host\n| injected | row |"), "host\\\\n\\| injected \\| row \\|");
  // Emphasis and strike-through need delimiters that these names do not have.
  EXPECT_EQ(markdown_text("canzona_git_sha"), "canzona_git_sha");
  EXPECT_EQ(markdown_text("_a_"), "\\_a\\_");
  EXPECT_EQ(markdown_text("qwen3-8b~d16"), "qwen3-8b~d16");
  EXPECT_EQ(markdown_text("~a~"), "\\~a\\~");
}

TEST(ReportTextTest, MarkdownCodeFencesAroundBackticksAndEscapesPipes) {
  EXPECT_EQ(markdown_code("run --out x.json"), "`run --out x.json`");
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x``"), "``` `x`` ```");
  EXPECT_EQ(markdown_code("(canzona|sc)"), "`(canzona\\|sc)`");
  EXPECT_EQ(markdown_code("a\nb"), "`a\\nb`");
}

TEST(ReportTextTest, LatexTextEscapesEverySpecialCharacter) {
  EXPECT_EQ(latex_text("\\input{x}"), "\\textbackslash{}input\\{x\\}");
  EXPECT_EQ(latex_text("$a^2_b$ & 5% #1 ~"),
            "\\$a\\textasciicircum{}2\\_b\\$ \\& 5\\% \\#1 \\textasciitilde{}");
  EXPECT_EQ(latex_text("<b>|"), "\\textless{}b\\textgreater{}\\textbar{}");
  EXPECT_EQ(latex_text("2×1 ±3 µs — ok"), "2$\\times$1 $\\pm$3 $\\mu$s --- ok");
  // An en dash is a dash; two hyphens of a flag stay two hyphens; paths may break after '/'.
  EXPECT_EQ(latex_text("Hodges–Lehmann"), "Hodges--Lehmann");
  EXPECT_EQ(latex_text("--preset a=b,c"), "-{}-preset a=\\allowbreak{}b,\\allowbreak{}c");
  EXPECT_EQ(latex_text("results/runs"), "results/\\allowbreak{}runs");
  EXPECT_EQ(latex_text("caf\xc3\xa9 \xf0\x9f\x9a\x80"), "caf[U+00E9] [U+1F680]");
  EXPECT_EQ(latex_text("line\n\\end{document}"),
            "line\\textbackslash{}n\\textbackslash{}end\\{document\\}");
  // A truncated sequence or a stray byte is shown, never passed through.
  EXPECT_EQ(latex_text("\xe2\x82"), "[U+FFFD]");
  EXPECT_EQ(latex_text("\xff"), "[U+FFFD]");
}

TEST(ReportTextTest, HtmlTextCannotOpenTagsOrLeaveAnAttribute) {
  EXPECT_EQ(html_text("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(html_text("a\" onload=\"x & y"), "a&quot; onload=&quot;x &amp; y");
  EXPECT_EQ(html_text("line\n<b>"), "line\\n&lt;b&gt;");
  EXPECT_EQ(html_text("2×1 ±3"), "2×1 ±3");
}

TEST(ReportTextTest, CsvFieldsQuoteAndDisarmFormulas) {
  EXPECT_EQ(csv_field("qwen3-8b"), "qwen3-8b");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\nb"), "a\\nb");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_field("+cmd"), "'+cmd");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  // Numbers are numbers, signs included.
  EXPECT_EQ(csv_field("-0.5"), "-0.5");
  EXPECT_EQ(csv_field("+3e-4"), "+3e-4");
}

}  // namespace
}  // namespace canzona::harness
