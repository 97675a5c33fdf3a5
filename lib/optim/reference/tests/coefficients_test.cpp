// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Newton–Schulz tables against a second transcription of paper-spec §5.2, and the
// last-tuple-repeats rule.
#include <canzona/core/error.hpp>
#include <canzona/optim/coefficients.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace canzona::optim {
namespace {

struct Expected {
  NsCoefficients set;
  std::vector<NsTuple> tuples;
};

const std::vector<Expected>& paper_tables() {
  static const std::vector<Expected> tables = {
      {NsCoefficients::kSimple, {{3.4445, -4.7750, 2.0315}}},
      {NsCoefficients::kQuintic,
       {{4.0848, -6.8946, 2.9270},
        {3.9505, -6.3029, 2.6377},
        {3.7418, -5.5913, 2.3037},
        {2.8769, -3.1427, 1.2046},
        {2.8366, -3.0525, 1.2012}}},
      {NsCoefficients::kPolarExpress,
       {{8.2051, -22.9019, 16.4607},
        {4.0664, -2.8612, 0.5184},
        {3.9096, -2.8234, 0.5250},
        {3.2856, -2.4153, 0.4853},
        {2.2779, -1.6198, 0.3985},
        {1.8726, -1.2307, 0.3585},
        {1.8564, -1.2132, 0.3568},
        {1.8750, -1.2500, 0.3750}}},
      {NsCoefficients::kAolNvidia,
       {{4.0098, -7.0585, 2.4635},
        {3.4585, -5.5479, 2.5959},
        {2.7573, -3.2939, 1.4254},
        {2.7215, -3.0494, 1.3169}}},
      {NsCoefficients::kQwenExpress,
       {{8.3865, -24.3696, 17.7251},
        {4.1414, -3.0173, 0.5524},
        {3.9226, -2.8672, 0.5357},
        {3.2540, -2.3922, 0.4827},
        {2.2512, -1.5963, 0.3960},
        {1.8700, -1.2279, 0.3582},
        {1.8564, -1.2132, 0.3568},
        {1.8750, -1.2500, 0.3750}}},
  };
  return tables;
}

void expect_tuple_eq(const NsTuple& actual, const NsTuple& expected) {
  EXPECT_EQ(actual.a, expected.a);
  EXPECT_EQ(actual.b, expected.b);
  EXPECT_EQ(actual.c, expected.c);
}

TEST(NsCoefficientsReferenceTest, TablesMatchThePaperExactly) {
  const std::vector<std::size_t> lengths = {1, 5, 8, 4, 8};
  for (std::size_t k = 0; k < paper_tables().size(); ++k) {
    const Expected& e = paper_tables()[k];
    SCOPED_TRACE(to_string(e.set));
    const NsTable table = ns_coefficients(e.set);
    ASSERT_EQ(table.size, lengths[k]);
    ASSERT_EQ(table.size, e.tuples.size());
    std::size_t i = 0;
    for (const NsTuple& t : table) {
      expect_tuple_eq(t, e.tuples[i++]);
    }
    EXPECT_EQ(as_span(table).size(), table.size);
  }
}

TEST(NsCoefficientsReferenceTest, LastTupleRepeats) {
  for (const Expected& e : paper_tables()) {
    SCOPED_TRACE(to_string(e.set));
    const auto n = static_cast<int>(e.tuples.size());
    expect_tuple_eq(ns_tuple(e.set, 0), e.tuples.front());
    expect_tuple_eq(ns_tuple(e.set, n - 1), e.tuples.back());
    expect_tuple_eq(ns_tuple(e.set, n), e.tuples.back());
    expect_tuple_eq(ns_tuple(e.set, 1000), e.tuples.back());
  }
  EXPECT_THROW(ns_tuple(NsCoefficients::kSimple, -1), canzona::Error);
  EXPECT_THROW(ns_coefficients(static_cast<NsCoefficients>(99)), ConfigError);
}

}  // namespace
}  // namespace canzona::optim
