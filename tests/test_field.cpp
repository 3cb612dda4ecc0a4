// Field arithmetic against a naive 128-bit reference, and the properties docs/design.md §3 relies on.
#include <gtest/gtest.h>

#include <random>

#include "ugs/field/exp_table.h"
#include "ugs/field/field.h"

namespace ugs {
namespace {

using u128 = unsigned __int128;

template <class F>
class FieldTest : public ::testing::Test {};
using Fields = ::testing::Types<WideField, MirageField>;
TYPED_TEST_SUITE(FieldTest, Fields);

TYPED_TEST(FieldTest, AddMulMatchNaive) {
  std::mt19937_64 rng(7);
  for (uint32_t m : {TypeParam::p, TypeParam::q}) {
    for (int i = 0; i < 20000; ++i) {
      const uint32_t a = rng() % m, b = rng() % m;
      EXPECT_EQ(add_mod(a, b, m), static_cast<uint32_t>((u128{a} + b) % m));
      EXPECT_EQ(mul_mod(a, b, m), static_cast<uint32_t>((u128{a} * b) % m));
    }
    EXPECT_EQ(add_mod(m - 1, m - 1, m), m - 2);
    EXPECT_EQ(mul_mod(m - 1, m - 1, m), 1u);
  }
}

TYPED_TEST(FieldTest, PowMatchesNaiveForSmallExponents) {
  std::mt19937_64 rng(3);
  for (uint32_t m : {TypeParam::p, TypeParam::q})
    for (int i = 0; i < 200; ++i) {
      const uint32_t b = rng() % m;
      const uint64_t e = rng() % 300;
      u128 r = 1;
      for (uint64_t k = 0; k < e; ++k) r = r * b % m;
      EXPECT_EQ(pow_mod(b, e, m), static_cast<uint32_t>(r)) << b << "^" << e << " mod " << m;
    }
}

TYPED_TEST(FieldTest, InverseIsInverseAndZeroMapsToZero) {
  std::mt19937_64 rng(11);
  for (uint32_t m : {TypeParam::p, TypeParam::q}) {
    EXPECT_EQ(inv_mod(0, m), 0u);
    for (int i = 0; i < 2000; ++i) {
      const uint32_t a = 1 + rng() % (m - 1);
      EXPECT_EQ(mul_mod(a, inv_mod(a, m), m), 1u);
    }
  }
}

TYPED_TEST(FieldTest, SqrtIsARootOfEveryResidue) {
  std::mt19937_64 rng(5);
  for (uint32_t m : {TypeParam::p, TypeParam::q}) {
    for (int i = 0; i < 3000; ++i) {
      const uint32_t x = rng() % m, y = mul_mod(x, x, m);  // a residue
      const uint32_t r = sqrt_mod(y, m);
      EXPECT_EQ(mul_mod(r, r, m), y) << "sqrt(" << y << ") mod " << m;
    }
  }
}

TEST(Field, SqrtThreeModFourIsTheFixedPower) {
  for (uint32_t y : {0u, 1u, 2u, 12345u, WideField::p - 1})
    EXPECT_EQ(sqrt_mod(y, WideField::p), pow_mod(y, (WideField::p + 1) / 4, WideField::p));
}

TEST(Field, TonelliShanksGivesTheSmallerRootOrZero) {
  constexpr uint32_t m = MirageField::q;  // 113 ≡ 1 (mod 4)
  static_assert(m % 4 == 1);
  int residues = 0;
  for (uint32_t y = 0; y < m; ++y) {
    bool residue = false;
    uint32_t smallest = m;
    for (uint32_t x = 0; x < m; ++x)
      if (x * x % m == y) {
        residue = true;
        smallest = std::min(smallest, x);
      }
    residues += residue;
    EXPECT_EQ(sqrt_mod(y, m), residue ? smallest : 0u) << "y=" << y;
  }
  EXPECT_EQ(residues, (m + 1) / 2);
}

TYPED_TEST(FieldTest, OmegaHasOrderQ) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const uint32_t w = FieldArith<TypeParam>::draw_omega(seed);
    EXPECT_NE(w, 1u);
    EXPECT_EQ(pow_mod(w, TypeParam::q, TypeParam::p), 1u);
  }
}

TYPED_TEST(FieldTest, ExpTurnsSumsIntoProducts) {
  FieldArith<TypeParam> ar;
  ar.omega = FieldArith<TypeParam>::draw_omega(9);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 500; ++i) {
    const FieldPair a = ar.sample(rng()), b = ar.sample(rng());
    const FieldPair lhs = ar.exp(ar.add(a, b)), rhs = ar.mul(ar.exp(a), ar.exp(b));
    EXPECT_EQ(lhs.p, rhs.p);  // the q-component of an exp is lost (0), as docs/design.md §3 states
    EXPECT_EQ(lhs.q, 0u);
  }
}

// The table gives exp the power's value for every exponent (its edges, random ones).
TYPED_TEST(FieldTest, ExpFromTheTableIsThePower) {
  FieldArith<TypeParam> power, table;
  power.omega = table.omega = FieldArith<TypeParam>::draw_omega(11);
  const std::vector<uint32_t> t = exp_table<FieldArith<TypeParam>>(power.omega);
  table.exp_table = t.data();
  std::mt19937_64 rng(5);
  std::vector<uint32_t> qs = {0, 1, 2, (1u << 15) - 1, 1u << 15, (1u << 15) + 1, TypeParam::q - 1};
  for (int i = 0; i < 20000; ++i) qs.push_back(static_cast<uint32_t>(rng() % TypeParam::q));
  for (uint32_t q : qs) {
    if (q >= TypeParam::q) continue;
    const FieldPair x{static_cast<uint32_t>(rng() % TypeParam::p), q};
    ASSERT_EQ(table.exp(x), power.exp(x)) << q;
  }
}

// A prepared divisor divides as div does and counts the same zero components.
TYPED_TEST(FieldTest, APreparedDivisorDividesAsDivDoes) {
  using A = FieldArith<TypeParam>;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 5000; ++i) {
    const FieldPair a{static_cast<uint32_t>(rng() % TypeParam::p), static_cast<uint32_t>(rng() % TypeParam::q)};
    FieldPair b{static_cast<uint32_t>(rng() % TypeParam::p), static_cast<uint32_t>(rng() % TypeParam::q)};
    if (i % 7 == 0) b.p = 0;
    if (i % 11 == 0) b.q = 0;
    uint64_t z1 = 0, z2 = 0;
    ASSERT_EQ(A::div_by(a, A::divisor(b, z1)), A::div(a, b, z2));
    ASSERT_EQ(z1, z2);
  }
}

TYPED_TEST(FieldTest, LazySumMatchesNaiveOverLongDotProducts) {
  using A = FieldArith<TypeParam>;
  std::mt19937_64 rng(2);
  for (int len : {1, 3, 1000, 100000}) {
    typename A::Acc acc{};
    u128 np = 0, nq = 0;
    for (int i = 0; i < len; ++i) {
      // Worst case: the largest residues.
      const FieldPair a = i % 2 ? FieldPair{TypeParam::p - 1, TypeParam::q - 1} : A::sample(rng());
      const FieldPair b = A::sample(rng());
      A::acc_fma(acc, a, b);
      np += u128{a.p} * b.p;
      nq += u128{a.q} * b.q;
    }
    const FieldPair v = A::acc_value(acc);
    EXPECT_EQ(v.p, static_cast<uint32_t>(np % TypeParam::p));
    EXPECT_EQ(v.q, static_cast<uint32_t>(nq % TypeParam::q));
  }
}

// A matmul adds its terms two at a time with one fold; the worst case is every product (m-1)^2.
TYPED_TEST(FieldTest, LazySumTakesTwoProductsPerFold) {
  using A = FieldArith<TypeParam>;
  std::mt19937_64 rng(5);
  const FieldPair top{TypeParam::p - 1, TypeParam::q - 1};
  for (int len : {1, 2, 7, 1000, 100000}) {
    typename A::Acc acc{};
    u128 np = 0, nq = 0;
    for (int i = 0; i < len; ++i) {
      const bool worst = i % 3 != 0;
      const FieldPair a0 = worst ? top : A::sample(rng()), b0 = worst ? top : A::sample(rng());
      const FieldPair a1 = worst ? top : A::sample(rng()), b1 = A::sample(rng());
      if (i % 5 == 4) {
        A::acc_fma(acc, a0, b0);  // mixed with single terms, as a matmul's odd k is
        np += u128{a0.p} * b0.p;
        nq += u128{a0.q} * b0.q;
        continue;
      }
      A::acc_fma2(acc, a0, b0, a1, b1);
      np += u128{a0.p} * b0.p + u128{a1.p} * b1.p;
      nq += u128{a0.q} * b0.q + u128{a1.q} * b1.q;
    }
    const FieldPair v = A::acc_value(acc);
    EXPECT_EQ(v.p, static_cast<uint32_t>(np % TypeParam::p));
    EXPECT_EQ(v.q, static_cast<uint32_t>(nq % TypeParam::q));
  }
}

// The bound holds for every modulus below 2^31: at 2^31 - 1 the sum stays below 2^63 after each fold.
TEST(Field, LazySumTwoProductsPerFoldAtTheLargestModulus) {
  constexpr uint32_t m = (1u << 31) - 1;
  constexpr uint64_t x = uint64_t{m - 1} * (m - 1);
  LazySum s;
  u128 n = 0;
  for (int i = 0; i < 100000; ++i) {
    s.add_products(x, x, fold_of(m));
    n += u128{x} * 2;
    ASSERT_LT(s.v, uint64_t{1} << 63) << "after pair " << i;
  }
  EXPECT_EQ(s.v % m, static_cast<uint64_t>(n % m));
}

// The device's matmuls fold once per run of kDotRun products; the worst case is every product (m-1)^2.
TYPED_TEST(FieldTest, DotFoldsOncePerRunOfProducts) {
  using A = FieldArith<TypeParam>;
  std::mt19937_64 rng(7);
  const FieldPair top{TypeParam::p - 1, TypeParam::q - 1};
  for (uint32_t len : {0u, 1u, 2u, 3u, 4u, 5u, 1000u, 100001u}) {
    typename A::Dot s{};
    u128 np = 0, nq = 0;
    for (uint32_t i = 0; i < len; ++i) {
      const FieldPair a = i % 3 ? top : A::sample(rng()), b = i % 4 ? top : A::sample(rng());
      A::dot_add(s, a, b);
      np += u128{a.p} * b.p;
      nq += u128{a.q} * b.q;
      if (i % A::kDotRun == A::kDotRun - 1) A::dot_fold(s);
    }
    const FieldPair v = A::dot_value(s);
    EXPECT_EQ(v.p, static_cast<uint32_t>(np % TypeParam::p)) << "len " << len;
    EXPECT_EQ(v.q, static_cast<uint32_t>(nq % TypeParam::q)) << "len " << len;
  }
}

// Three products a run for every modulus below 2^31, and no wrap past 2^64 at the largest.
TEST(Field, DotSumRunsAtTheLargestModulus) {
  EXPECT_EQ(FieldArith<WideField>::kDotRun, 3u);
  EXPECT_EQ(FieldArith<MirageField>::kDotRun, 4u);
  constexpr uint32_t m = (1u << 31) - 1;
  ASSERT_EQ(run_of(m, 8), 3u);
  constexpr uint64_t x = uint64_t{m - 1} * (m - 1);
  DotSum s;
  u128 n = 0;
  for (int i = 0; i < 100000; ++i) {
    for (int r = 0; r < 3; ++r) {
      const uint64_t before = s.v;
      s.add(x);
      n += x;
      ASSERT_GT(s.v, before) << "wrapped in run " << i;
    }
    s.fold(high_of(m));
    ASSERT_LT(s.v, (uint64_t{1} << 62) + (uint64_t{1} << 33)) << "after run " << i;
  }
  EXPECT_EQ(s.v % m, static_cast<uint64_t>(n % m));
}

TYPED_TEST(FieldTest, SamplesStayInRangeAndCoverIt) {
  using A = FieldArith<TypeParam>;
  uint32_t max_p = 0, max_q = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const FieldPair v = A::sample(splitmix64(i));
    ASSERT_LT(v.p, TypeParam::p);
    ASSERT_LT(v.q, TypeParam::q);
    max_p = std::max(max_p, v.p);
    max_q = std::max(max_q, v.q);
  }
  EXPECT_GT(max_p, TypeParam::p - TypeParam::p / 100 - 1);
  EXPECT_GT(max_q, TypeParam::q - TypeParam::q / 100 - 1);
}

TEST(Field, DivisionCountsZeroDivisorComponents) {
  uint64_t zeros = 0;
  const FieldPair r = WideArith::div({5, 7}, {0, 3}, zeros);
  EXPECT_EQ(zeros, 1u);
  EXPECT_EQ(r.p, 0u);
  EXPECT_EQ(mul_mod(r.q, 3, WideField::q), 7u);
}

}  // namespace
}  // namespace ugs
