// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `report` end to end on the fixture run: the folder holds report.md, report.html and the
// figures; the Markdown links every figure it has and the HTML carries each one inside it, byte
// for byte; text from the run file cannot open a tag; a folder in use or a bad flag is refused
// before anything is written, and no half-built folder is left behind.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <gtest/gtest.h>
#include <boost/archive/iterators/binary_from_base64.hpp>
#include <boost/archive/iterators/transform_width.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The bytes a base64 text stands for (Boost's decoder, the inverse of what report uses).
std::string decode_base64(std::string text) {
  std::size_t padding = 0;
  while (!text.empty() && text.back() == '=') {
    text.pop_back();
    ++padding;
  }
  using namespace boost::archive::iterators;
  using Decoder = transform_width<binary_from_base64<std::string::const_iterator>, 8, 6>;
  return std::string(Decoder(text.begin()), Decoder(text.end()));
}

std::vector<std::string> data_uris(const std::string& html) {
  std::vector<std::string> uris;
  const std::string prefix = "src=\"data:image/png;base64,";
  for (std::size_t at = html.find(prefix); at != std::string::npos;
       at = html.find(prefix, at + 1)) {
    const std::size_t begin = at + prefix.size();
    uris.push_back(html.substr(begin, html.find('"', begin) - begin));
  }
  return uris;
}

TEST(ReportCommandTest, OnePageWithEveryTableAndFigureInBothFormats) {
  FixtureFiles files;
  const std::string run = files.write("run.json", FixtureFiles::fixture());
  const fs::path out = fs::path(files.dir()) / "report";
  const ProcessResult r = bench({"report", run, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("report written to"), std::string::npos) << r.out;
  // The progress names the folder asked for, never the staging folder it was built in.
  EXPECT_EQ(r.err.find(".partial"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((out / "figures").string()), std::string::npos) << r.err;

  std::vector<fs::path> figures;
  for (const auto& entry : fs::directory_iterator(out / "figures")) figures.push_back(entry.path());
  std::sort(figures.begin(), figures.end());
  ASSERT_FALSE(figures.empty());

  const std::string md = read_bytes(out / "report.md");
  EXPECT_EQ(md.rfind("# Canzona Bench report: run.json\n", 0), 0u) << md;
  EXPECT_NE(md.find("> Run: " + run), std::string::npos);
  EXPECT_NE(md.find("### OptimizerStep — optimizer step latency"), std::string::npos);
  EXPECT_NE(md.find("1.36× [1.34, 1.37]"), std::string::npos) << "the table with its intervals";
  for (const fs::path& figure : figures) {
    EXPECT_NE(md.find("](figures/" + figure.filename().string() + ")"), std::string::npos)
        << figure;
  }

  const std::string html = read_bytes(out / "report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">1.36× [1.34, 1.37]</td>"), std::string::npos);
  const std::vector<std::string> uris = data_uris(html);
  ASSERT_EQ(uris.size(), figures.size());
  // Figures appear in the order of their names in both pages; each is the file, byte for byte.
  std::vector<std::string> expected;
  for (const fs::path& figure : figures) expected.push_back(read_bytes(figure));
  std::vector<std::string> decoded;
  for (const std::string& uri : uris) decoded.push_back(decode_base64(uri));
  std::sort(expected.begin(), expected.end());
  std::sort(decoded.begin(), decoded.end());
  EXPECT_EQ(decoded, expected);
  EXPECT_EQ(decoded.front().substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(ReportCommandTest, TextFromTheRunCannotOpenATag) {
  FixtureFiles files;
  nlohmann::json hostile = FixtureFiles::fixture();
  hostile["context"]["host_name"] = "<script>alert(1)</script>";
  const fs::path out = fs::path(files.dir()) / "report";
  const ProcessResult r =
      bench({"report", files.write("run.json", hostile), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_bytes(out / "report.html");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("Host: &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST(ReportCommandTest, RefusesBeforeWritingAndLeavesNothingHalfBuilt) {
  FixtureFiles files;
  const std::string run = files.write("run.json", FixtureFiles::fixture());
  const fs::path used = fs::path(files.dir()) / "used";
  fs::create_directories(used);
  files.write_text("used/notes.txt", "keep me");
  const ProcessResult busy = bench({"report", run, "--out", used.string()});
  EXPECT_EQ(busy.exit_code, 2);
  EXPECT_NE(busy.err.find("exists and is not an empty folder"), std::string::npos) << busy.err;
  EXPECT_EQ(read_bytes(used / "notes.txt"), "keep me");

  const fs::path fresh = fs::path(files.dir()) / "fresh";
  const ProcessResult nothing =
      bench({"report", run, "--out", fresh.string(), "--filter", "^Nope"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("matches --filter '^Nope'"), std::string::npos) << nothing.err;
  EXPECT_FALSE(fs::exists(fresh));

  // "DIR/" is the folder DIR, not an entry inside it.
  const ProcessResult slash = bench({"report", run, "--out", fresh.string() + "/"});
  ASSERT_EQ(slash.exit_code, 0) << slash.err;
  EXPECT_TRUE(fs::exists(fresh / "report.md"));
  for (const auto& entry : fs::directory_iterator(files.dir())) {
    EXPECT_EQ(entry.path().filename().string().find(".partial"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace canzona::testing
