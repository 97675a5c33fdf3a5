// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// .npy reading and writing: byte-exact NumPy format, round trips of fresh random arrays, and the
// malformed files users actually produce (wrong dtype, order, header, size).
#include <canzona/core/error.hpp>
#include <canzona/io/npy.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace canzona::io {
namespace {

// What numpy 1.24 writes for np.zeros((2, 3), np.float32): version 1.0, header padded with
// spaces to a 64-byte boundary and closed by '\n'.
std::string numpy_header(const std::string& dict) {
  std::string header = dict;
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

std::string with_floats(std::string header, std::size_t count, float value = 0.0f) {
  for (std::size_t i = 0; i < count; ++i) {
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    header.append(bytes, 4);
  }
  return header;
}

TEST(NpyTest, EncodesExactlyTheBytesNumpyWrites) {
  NpyArray array{{2, 3}, NpyDType::kFloat32, std::vector<double>(6, 0.0)};
  const std::string expected =
      with_floats(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), 6);
  EXPECT_EQ(encode_npy(array), expected);
  EXPECT_EQ(encode_npy(array).size() % 64, 24u) << "data must start at a 64-byte boundary";

  NpyArray vector{{5}, NpyDType::kFloat64, std::vector<double>(5, 1.5)};
  const std::string text = encode_npy(vector);
  EXPECT_NE(text.find("'shape': (5,), }"), std::string::npos) << text.substr(0, 80);
  NpyArray scalar{{}, NpyDType::kFloat64, {2.0}};
  EXPECT_NE(encode_npy(scalar).find("'shape': (), }"), std::string::npos);
}

TEST(NpyTest, RoundTripsFreshRandomArraysExactly) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("CANZONA_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dim(1, 40);
  std::normal_distribution<double> value(0.0, 3.0);
  for (int trial = 0; trial < 20; ++trial) {
    NpyArray array;
    array.dtype = trial % 2 == 0 ? NpyDType::kFloat32 : NpyDType::kFloat64;
    const int rank = trial % 3;
    for (int d = 0; d <= rank; ++d) array.shape.push_back(dim(rng));
    array.values.resize(static_cast<std::size_t>(array.numel()));
    for (double& v : array.values) {
      v = value(rng);
      if (array.dtype == NpyDType::kFloat32) v = static_cast<float>(v);  // representable
    }
    const NpyArray back = parse_npy(encode_npy(array), "round-trip");
    EXPECT_EQ(back.shape, array.shape);
    EXPECT_EQ(back.dtype, array.dtype);
    EXPECT_EQ(back.values, array.values);
  }
}

TEST(NpyTest, ReadsVersionTwoHeadersAndDoubleQuotes) {
  std::string dict = "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (1, 1)}";
  std::string file("\x93NUMPY\x02\x00", 8);
  const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
  for (int i = 0; i < 4; ++i) file += static_cast<char>((len >> (8 * i)) & 0xff);
  file += dict;
  const double v = -0.25;
  file.append(reinterpret_cast<const char*>(&v), 8);
  const NpyArray array = parse_npy(file, "v2");
  ASSERT_EQ(array.values.size(), 1u);
  EXPECT_EQ(array.values[0], -0.25);
}

void expect_rejected(const std::string& bytes, const std::string& fragment) {
  try {
    parse_npy(bytes, "bad.npy");
    ADD_FAILURE() << "expected ConfigError mentioning '" << fragment << "'";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.npy"), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(NpyTest, RejectsWrongDtypeOrderHeaderAndSize) {
  const auto file = [](const std::string& descr, const std::string& order,
                       const std::string& shape) {
    return numpy_header("{'descr': '" + descr + "', 'fortran_order': " + order +
                        ", 'shape': " + shape + ", }");
  };
  expect_rejected("PK\x03\x04 a zip file, not npy", "not a .npy file");
  expect_rejected(std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4");
  expect_rejected(with_floats(file("<i4", "False", "(2,)"), 2), "dtype '<i4'");
  expect_rejected(with_floats(file(">f4", "False", "(2,)"), 2), "dtype '>f4'");
  expect_rejected(with_floats(file("<f2", "False", "(2,)"), 1), "dtype '<f2'");
  expect_rejected(with_floats(file("<f4", "True", "(2, 2)"), 4), "Fortran");
  expect_rejected(with_floats(file("<f4", "False", "(2, 3)"), 5), "needs 24 data bytes");
  expect_rejected(with_floats(file("<f4", "False", "(2, 3)"), 7), "but the file has 28");
  expect_rejected(with_floats(file("<f4", "Maybe", "(2,)"), 2), "True or False");
  expect_rejected(with_floats(file("<f4", "False", "(2, x)"), 2), "expected a dimension");
  expect_rejected(numpy_header("{'descr': '<f4', 'shape': (1,), }") + std::string(4, '\0'),
                  "'fortran_order'");
  expect_rejected(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                               "'extra': 1}"),
                  "unexpected key 'extra'");
  expect_rejected(std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "truncated");
}

// A shape whose element count wraps around int64 (2^32 · 2^32 = 2^64 ≡ 0) used to pass the size
// check with no data at all and reach the optimizers as a 4-billion-row matrix.
TEST(NpyTest, RejectsShapesWhoseSizeOverflows) {
  const auto file = [](const std::string& shape) {
    return numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }");
  };
  expect_rejected(file("(4294967296, 4294967296)"), "overflows 64 bits");
  expect_rejected(file("(1099511627776, 1073741824)"), "overflows 64 bits");  // 2^70 elements
  expect_rejected(file("(1099511627776, 4194304)"), "overflows 64 bits");     // 2^64 bytes
  expect_rejected(file("(65536, 65536)"), "needs 17179869184 data bytes but the file has 0");
}

TEST(NpyTest, ReportsMissingFiles) {
  try {
    read_npy("no-such-dir/grad.npy");
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir/grad.npy"), std::string::npos);
  }
}

TEST(NpyTest, ADirectoryIsCalledADirectory) {
  try {
    read_npy(".");
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory, not a regular file"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace canzona::io
