// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "report_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace canzona::harness {
namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Length of the UTF-8 sequence that starts with `lead` (1 for ASCII and for stray bytes).
std::size_t utf8_length(unsigned char lead) {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  return 1;
}

// The code point of one whole UTF-8 sequence, or 0xFFFD where it is malformed.
std::uint32_t code_point(std::string_view sequence) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(sequence[i]); };
  if (sequence.size() == 1) return byte(0) < 0x80 ? byte(0) : 0xfffd;
  std::uint32_t value = byte(0) & (0xff >> (sequence.size() + 1));
  for (std::size_t i = 1; i < sequence.size(); ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0xfffd;
    value = (value << 6) | (byte(i) & 0x3f);
  }
  return value;
}

bool is_number(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);  // from_chars reads no '+'
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!is_control(c)) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  const std::string line = one_line(text);
  // Escapes that cannot matter are left out so names stay readable: a `_` between two letters
  // or digits never delimits emphasis, and one `~` alone cannot strike through.
  const bool several_tildes = std::count(line.begin(), line.end(), '~') > 1;
  const auto alnum = [&](std::size_t i) {
    return i < line.size() && std::isalnum(static_cast<unsigned char>(line[i])) != 0;
  };
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const bool syntax = std::string_view("\\`*[]<>|").find(c) != std::string_view::npos ||
                        (c == '_' && !(i > 0 && alnum(i - 1) && alnum(i + 1))) ||
                        (c == '~' && several_tildes);
    if (syntax) out += '\\';
    out += c;
  }
  return out;
}

std::string html_text(std::string_view text) {
  std::string out;
  for (const char c : one_line(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  std::string body;
  std::size_t run = 0;
  std::size_t longest = 0;
  for (const char c : one_line(text)) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  const std::string fence(longest + 1, '`');
  // A span that starts or ends with a backtick needs a space between it and the fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string latex_text(std::string_view text) {
  const std::string line = one_line(text);
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    const std::size_t needed = utf8_length(c);
    const std::size_t length = std::min(needed, line.size() - i);
    const std::string_view sequence(line.data() + i, length);
    i += length;
    if (c >= 0x80) {
      const std::uint32_t point = length == needed ? code_point(sequence) : 0xfffd;
      if (point == 0xd7) {
        out += "$\\times$";
      } else if (point == 0xb1) {
        out += "$\\pm$";
      } else if (point == 0xb5) {
        out += "$\\mu$";
      } else if (point == 0x2014) {
        out += "---";
      } else if (point == 0x2013) {
        out += "--";
      } else {
        out += fmt::format("[U+{:04X}]", point);
      }
      continue;
    }
    switch (c) {
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      // Without T1 font encoding pdflatex prints these three as other glyphs (¡, ¿, —).
      case '<':
        out += "\\textless{}";
        break;
      case '>':
        out += "\\textgreater{}";
        break;
      case '|':
        out += "\\textbar{}";
        break;
      // "--" and "---" would print as dashes: a flag keeps its two hyphens.
      case '-':
        out += i < line.size() && line[i] == '-' ? "-{}" : "-";
        break;
      // Long paths, lists and key=value fields may wrap after these.
      case '/':
      case ',':
      case '=':
        out += static_cast<char>(c);
        out += "\\allowbreak{}";
        break;
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += static_cast<char>(c);
        break;
      default:
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  std::string field = one_line(text);
  if (!field.empty() && std::string_view("=+-@").find(field.front()) != std::string_view::npos &&
      !is_number(text)) {
    field.insert(field.begin(), '\'');
  }
  const bool edge_space = !field.empty() && (field.front() == ' ' || field.back() == ' ');
  if (field.find_first_of(",\"") == std::string::npos && !edge_space) return field;
  std::string quoted = "\"";
  for (const char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace canzona::harness
