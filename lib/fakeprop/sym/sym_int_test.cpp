// Tests for SymInt / SymBool: static fast paths with checked math, symbolic
// values through the interning builders, and static collapse of constants.
#include "fakeprop/sym/sym_int.h"

#include <gtest/gtest.h>

#include <limits>

#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

SymInt S(const char* name) { return SymInt(symbol(name)); }

TEST(SymIntStatic, ArithmeticWithPythonSemantics) {
  struct Case {
    SymInt got;
    int64_t want;
  };
  const Case cases[] = {
      {SymInt(3) + SymInt(4), 7},        {SymInt(3) - SymInt(4), -1},      {-SymInt(5), -5},
      {SymInt(6) * SymInt(-7), -42},     {floordiv(SymInt(-7), 2), -4},    {mod(SymInt(-7), 2), 1},
      {mod(SymInt(7), -2), -1},          {ceildiv(SymInt(7), 2), 4},       {ceildiv(SymInt(-7), 2), -3},
      {sym_max(SymInt(2), SymInt(9)), 9}, {sym_min(SymInt(2), SymInt(9)), 2},
  };
  for (const auto& c : cases) {
    ASSERT_TRUE(c.got.is_static());
    EXPECT_EQ(c.got.value(), c.want);
  }
}

TEST(SymIntStatic, OverflowAndDivisionByZero) {
  EXPECT_THROW(SymInt(kMax) + SymInt(1), OverflowError);
  EXPECT_THROW(SymInt(kMin) - SymInt(1), OverflowError);
  EXPECT_THROW(-SymInt(kMin), OverflowError);
  EXPECT_THROW(SymInt(kMax) * SymInt(2), OverflowError);
  EXPECT_THROW(floordiv(SymInt(kMin), SymInt(-1)), OverflowError);
  EXPECT_THROW(floordiv(SymInt(1), SymInt(0)), Error);
  EXPECT_THROW(mod(SymInt(1), SymInt(0)), Error);
  EXPECT_THROW(ceildiv(SymInt(1), SymInt(0)), Error);
}

TEST(SymIntStatic, StaticValuesDoNotIntern) {
  size_t before = interned_expr_count();
  SymInt x = 1000003;
  for (int i = 0; i < 100; ++i) x = (x + SymInt(i)) * SymInt(1) - SymInt(i);
  EXPECT_EQ(x.value(), 1000003);
  EXPECT_EQ(interned_expr_count(), before);
}

TEST(SymIntSymbolic, BuildsAndCollapses) {
  SymInt s0 = S("s0");
  EXPECT_TRUE(s0.is_symbolic());
  EXPECT_EQ(s0.maybe_value(), std::nullopt);
  SymInt e = s0 * SymInt(2) + SymInt(3);
  EXPECT_EQ(e.to_python(), "2*s0 + 3");
  EXPECT_EQ(e.expr(), add(mul(symbol("s0"), 2), integer(3)));
  EXPECT_EQ(floordiv(s0 * SymInt(4), SymInt(2)).to_sympy(), "2*s0");
  EXPECT_EQ(ceildiv(s0, SymInt(2)).to_python(), "-((-s0)//2)");
  EXPECT_EQ(sym_max(s0, SymInt(1)).to_python(), "max(1, s0)");
  EXPECT_EQ(mod(s0 * SymInt(8), SymInt(4)).to_python(), "0");
  // A symbolic computation that folds to a constant becomes static.
  SymInt zero = s0 - s0;
  EXPECT_TRUE(zero.is_static());
  EXPECT_EQ(zero.value(), 0);
  SymInt folded = mod(s0 * SymInt(6) + SymInt(7), SymInt(3));
  ASSERT_TRUE(folded.is_static());
  EXPECT_EQ(folded.value(), 1);
}

TEST(SymIntSymbolic, ExpressionConstructorAndIdentity) {
  SymInt from_integer(integer(42));
  EXPECT_TRUE(from_integer.is_static());
  EXPECT_EQ(from_integer.value(), 42);
  EXPECT_EQ(SymInt(5).expr(), integer(5));
  EXPECT_TRUE(SymInt(5).same(SymInt(5)));
  EXPECT_FALSE(SymInt(5).same(SymInt(6)));
  EXPECT_TRUE(S("s0").same(S("s0")));
  EXPECT_FALSE(S("s0").same(S("s1")));
  EXPECT_TRUE((S("s0") + S("s1")).same(S("s1") + S("s0")));
  EXPECT_EQ(SymInt(-3).to_python(), "-3");
  EXPECT_EQ(SymInt(-3).to_sympy(), "-3");
  EXPECT_THROW(SymInt(static_cast<ExprRef>(nullptr)), Error);
  EXPECT_THROW(SymInt(eq(symbol("s0"), integer(1))), Error);
}

TEST(SymBoolTest, ComparisonsStaticAndSymbolic) {
  EXPECT_EQ(sym_lt(SymInt(1), SymInt(2)).maybe_value(), true);
  EXPECT_EQ(sym_ge(SymInt(1), SymInt(2)).maybe_value(), false);
  EXPECT_EQ(sym_eq(SymInt(2), SymInt(2)).maybe_value(), true);
  EXPECT_EQ(sym_ne(SymInt(2), SymInt(2)).maybe_value(), false);
  EXPECT_EQ(sym_le(SymInt(2), SymInt(2)).maybe_value(), true);
  EXPECT_EQ(sym_gt(SymInt(3), SymInt(2)).maybe_value(), true);
  SymInt s0 = S("s0");
  SymBool c = sym_eq(SymInt(8), s0);
  EXPECT_FALSE(c.is_static());
  EXPECT_EQ(c.to_sympy(), "Eq(s0, 8)");
  EXPECT_EQ(c.to_python(), "s0 == 8");
  // Relations that fold symbolically become static.
  EXPECT_EQ(sym_lt(s0, s0 + SymInt(1)).maybe_value(), true);
  EXPECT_EQ(sym_eq(s0 + SymInt(1), s0).maybe_value(), false);
  SymBool from_const(true_expr());
  EXPECT_TRUE(from_const.is_static());
  EXPECT_TRUE(from_const.value());
  EXPECT_EQ(SymBool(false).expr(), false_expr());
  EXPECT_THROW(SymBool(symbol("s0")), Error);
}

TEST(SymBoolTest, LogicShortCircuitsStaticOperands) {
  SymBool c = sym_gt(S("s0"), SymInt(4));
  SymBool d = sym_lt(S("s1"), SymInt(9));
  EXPECT_EQ(sym_and(SymBool(false), c).maybe_value(), false);
  EXPECT_EQ(sym_and(c, SymBool(true)).expr(), c.expr());
  EXPECT_EQ(sym_or(SymBool(true), c).maybe_value(), true);
  EXPECT_EQ(sym_or(SymBool(false), c).expr(), c.expr());
  EXPECT_EQ(sym_not(SymBool(true)).maybe_value(), false);
  EXPECT_EQ(sym_not(c).to_sympy(), "s0 <= 4");
  EXPECT_EQ(sym_and(c, d).to_python(), "s0 > 4 and s1 < 9");
  EXPECT_EQ(sym_or(c, d).to_sympy(), "(s0 > 4) | (s1 < 9)");
  EXPECT_EQ(sym_not(sym_and(c, d)).to_python(), "not (s0 > 4 and s1 < 9)");
  EXPECT_EQ(SymBool(true).to_python(), "True");
  EXPECT_EQ(SymBool(false).to_sympy(), "False");
}

}  // namespace
}  // namespace fakeprop
