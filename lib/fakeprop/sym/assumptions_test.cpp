#include "fakeprop/sym/assumptions.h"

#include <gtest/gtest.h>

#include "fakeprop/sym/shape_env.h"

namespace fakeprop {
namespace {

// sympy's Max(1, e), checked against torch 2.15's sympy (Max(1, s27 - 1),
// Max(1, (s27//2)) and Max(1, Mod(s27, 3)) stay; Max(1, s27**2), Max(s27,
// s27 - 1) and Max(2*s27, s27) fold; an unbacked size is no more than an
// integer).
TEST(Assumptions, MaxFoldsOnlyWhatSympyKnows) {
  ShapeEnv env;
  const ExprRef s = env.create_symbol(5, "L['x'].size()[0]", DimDynamic::Dynamic).expr();
  const ExprRef u = env.create_unbacked_symint(/*size_like=*/true);
  const PositiveSymbol positive = positive_symbols_of(env);
  const ExprRef one = integer(1);
  EXPECT_EQ(max_by_assumptions(one, s, positive), s);
  EXPECT_EQ(max_by_assumptions(one, mul(s, s), positive), mul(s, s));
  EXPECT_EQ(max_by_assumptions(s, sub(s, one), positive), s);
  EXPECT_EQ(max_by_assumptions(mul(integer(2), s), s, positive), mul(integer(2), s));
  EXPECT_EQ(min_by_assumptions(s, one, positive), one);
  for (ExprRef kept : {sub(s, one), floordiv(s, integer(2)), floordiv(add(s, integer(2)), integer(3)),
                       mod(s, integer(3)), u}) {
    const ExprRef m = max_by_assumptions(one, kept, positive);
    EXPECT_EQ(m->kind(), ExprKind::Max) << to_sympy_string(kept) << " -> " << to_sympy_string(m);
  }
  EXPECT_TRUE(nonnegative_by_assumptions(floordiv(s, integer(2)), positive));
  EXPECT_FALSE(positive_by_assumptions(floordiv(s, integer(2)), positive));
  EXPECT_FALSE(nonnegative_by_assumptions(u, positive));
}

}  // namespace
}  // namespace fakeprop
