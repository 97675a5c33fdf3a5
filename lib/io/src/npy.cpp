// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/npy.hpp"

#include "canzona/io/atomic_file.hpp"
#include "canzona/io/input_file.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <optional>

namespace canzona::io {
namespace {

static_assert(std::endian::native == std::endian::little,
              ".npy '<f4'/'<f8' data is read by memcpy, which assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr const char* kConvertHint =
    "save it from NumPy/PyTorch as little-endian float32 or float64 in C order, e.g. "
    "np.save(path, np.ascontiguousarray(a, dtype=np.float32))";

// The header is a Python dict literal with three keys; this reads exactly that grammar.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
  };

  Header parse() {
    Header header;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (!peek('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        header.descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        header.shape = tuple();
        have_shape = true;
      } else {
        fail(fmt::format("unexpected key '{}'", key));
      }
      if (!peek('}')) expect(',');
    }
    expect('}');
    if (!have_descr || !have_order || !have_shape) {
      fail("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(fmt::format("expected '{}' at header offset {}", c, pos_));
    ++pos_;
  }
  std::string quoted() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail(fmt::format("expected a quoted string at header offset {}", pos_));
    }
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string in the header");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, {"False", false}}) {
      const std::size_t n = std::strlen(word);
      if (text_.substr(pos_, n) == word) {
        pos_ += n;
        return value;
      }
    }
    fail(fmt::format("expected True or False at header offset {}", pos_));
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> dims;
    while (!peek(')')) {
      skip_space();
      std::int64_t value = 0;
      std::size_t digits = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (value > (std::int64_t{1} << 50)) fail("a dimension in 'shape' is too large");
        value = value * 10 + (text_[pos_++] - '0');
        ++digits;
      }
      if (digits == 0) fail(fmt::format("expected a dimension at header offset {}", pos_));
      dims.push_back(value);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return dims;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(fmt::format("{}: malformed .npy header: {}", source_, what));
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

std::size_t item_size(NpyDType dtype) { return dtype == NpyDType::kFloat32 ? 4 : 8; }

NpyDType parse_descr(const std::string& descr, std::string_view source) {
  if (descr == "<f4") return NpyDType::kFloat32;
  if (descr == "<f8") return NpyDType::kFloat64;
  throw ConfigError(
      fmt::format("{}: dtype '{}' is not supported (only '<f4' float32 and '<f8' "
                  "float64); {}",
                  source, descr, kConvertHint));
}

// The element count of `shape`, or nullopt when it does not fit in int64 (a header claiming
// (2^32, 2^32) must not wrap around to a small count that passes the size check).
std::optional<std::int64_t> checked_product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

std::int64_t product(const std::vector<std::int64_t>& shape) {
  const std::optional<std::int64_t> n = checked_product(shape);
  if (!n) {
    throw ConfigError(fmt::format("shape ({}) has more elements than an int64 can count",
                                  fmt::join(shape, ", ")));
  }
  return *n;
}

}  // namespace

std::int64_t NpyArray::numel() const { return product(shape); }

NpyArray parse_npy(std::string_view bytes, std::string_view source) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
    throw ConfigError(fmt::format("{}: not a .npy file (missing the \\x93NUMPY magic string); {}",
                                  source, kConvertHint));
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0;
  std::size_t offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw ConfigError(fmt::format("{}: truncated .npy header", source));
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    }
    offset = 12;
  } else {
    throw ConfigError(fmt::format("{}: .npy format version {} is not supported (1, 2 or 3)", source,
                                  static_cast<int>(major)));
  }
  if (bytes.size() < offset + header_len) {
    throw ConfigError(
        fmt::format("{}: truncated .npy header ({} header bytes announced, {} "
                    "present)",
                    source, header_len, bytes.size() - offset));
  }
  const auto header = HeaderParser(bytes.substr(offset, header_len), source).parse();
  NpyArray array;
  array.dtype = parse_descr(header.descr, source);
  if (header.fortran_order) {
    throw ConfigError(
        fmt::format("{}: the array is in Fortran (column-major) order; {}", source, kConvertHint));
  }
  array.shape = header.shape;
  const std::string_view data = bytes.substr(offset + header_len);
  // Overflow-checked: the count and the byte size are compared with the data actually present
  // before anything is allocated.
  const std::optional<std::int64_t> numel = checked_product(array.shape);
  std::int64_t needed = 0;
  if (!numel ||
      __builtin_mul_overflow(*numel, static_cast<std::int64_t>(item_size(array.dtype)), &needed)) {
    throw ConfigError(fmt::format(
        "{}: shape ({}) of {} has more elements than fit in memory (the byte size overflows "
        "64 bits) while the file holds {} data bytes; the header is corrupt",
        source, fmt::join(array.shape, ", "), to_string(array.dtype), data.size()));
  }
  const auto count = static_cast<std::size_t>(*numel);
  if (data.size() != static_cast<std::size_t>(needed)) {
    throw ConfigError(fmt::format("{}: shape ({}) of {} needs {} data bytes but the file has {}",
                                  source, fmt::join(array.shape, ", "), to_string(array.dtype),
                                  needed, data.size()));
  }
  array.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (array.dtype == NpyDType::kFloat32) {
      float v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      array.values[i] = v;
    } else {
      std::memcpy(&array.values[i], data.data() + 8 * i, 8);
    }
  }
  return array;
}

NpyArray read_npy(const std::filesystem::path& path) {
  // .npy files of real matrices can be several GiB (an fp32 vocabulary embedding is ~3 GiB).
  constexpr std::uint64_t kMaxNpyBytes = std::uint64_t{1} << 40;
  return parse_npy(read_input_file(path, ".npy file", kMaxNpyBytes), path.string());
}

std::string encode_npy(const NpyArray& array) {
  for (const std::int64_t d : array.shape) {
    if (d < 0) throw ConfigError("cannot encode .npy: negative dimension in shape");
  }
  if (static_cast<std::int64_t>(array.values.size()) != array.numel()) {
    throw ConfigError(fmt::format("cannot encode .npy: {} values for shape ({})",
                                  array.values.size(), fmt::join(array.shape, ", ")));
  }
  std::string shape = "(";
  for (const std::int64_t d : array.shape) shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1) shape.resize(shape.size() - 2);
  if (array.shape.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   array.dtype == NpyDType::kFloat32 ? "<f4" : "<f8", shape);
  // Pad with spaces and a final newline so the data starts at a multiple of 64 bytes (NEP 1).
  const std::size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  const std::size_t size = item_size(array.dtype);
  const std::size_t base = out.size();
  out.resize(base + array.values.size() * size);
  for (std::size_t i = 0; i < array.values.size(); ++i) {
    if (array.dtype == NpyDType::kFloat32) {
      const float v = static_cast<float>(array.values[i]);
      std::memcpy(out.data() + base + 4 * i, &v, 4);
    } else {
      std::memcpy(out.data() + base + 8 * i, &array.values[i], 8);
    }
  }
  return out;
}

void write_npy(const std::filesystem::path& path, const NpyArray& array) {
  write_file_atomically(path, encode_npy(array));
}

std::string_view to_string(NpyDType dtype) {
  return dtype == NpyDType::kFloat32 ? "float32" : "float64";
}

}  // namespace canzona::io
