// Tests for the expression engine. Expected printer strings were checked
// against sympy 1.11 (with PyTorch's FloorDiv/Mod printing rules) and the
// Python-style strings by eval() under /usr/bin/python3; arithmetic follows
// Python's floor semantics.
#include "fakeprop/sym/expr.h"
#include "fakeprop/sym/expand.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>
#include <thread>

#include "fakeprop/util/error.h"
#include "fakeprop/util/param_name_test_util.h"

namespace fakeprop {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

ExprRef I(int64_t v) { return integer(v); }
ExprRef s0() { return symbol("s0"); }
ExprRef s1() { return symbol("s1"); }
ExprRef s2() { return symbol("s2"); }

// ---------------------------------------------------------------------------
// checked arithmetic
// ---------------------------------------------------------------------------

TEST(ExprCheckedMath, OverflowThrows) {
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_THROW(checked_add(kMax, 1), OverflowError);
  EXPECT_THROW(checked_add(kMin, -1), OverflowError);
  EXPECT_EQ(checked_sub(kMin + 1, 1), kMin);
  EXPECT_THROW(checked_sub(kMin, 1), OverflowError);
  EXPECT_THROW(checked_sub(0, kMin), OverflowError);
  EXPECT_THROW(checked_mul(kMax / 2 + 1, 2), OverflowError);
  EXPECT_THROW(checked_mul(kMin, -1), OverflowError);
  EXPECT_EQ(checked_mul(-(int64_t{1} << 31), int64_t{1} << 32), kMin);
}

struct DivCase {
  int64_t a, b, floordiv, mod;
};

TEST(ExprCheckedMath, PythonFloorDivAndMod) {
  // Values as Python computes a // b and a % b.
  const DivCase cases[] = {
      {7, 2, 3, 1},     {-7, 2, -4, 1},  {7, -2, -4, -1}, {-7, -2, 3, -1}, {6, 3, 2, 0},   {-6, 3, -2, 0},
      {0, 5, 0, 0},     {1, -5, -1, -4}, {-1, 5, -1, 4},  {kMax, -1, -kMax, 0}, {kMin, 2, kMin / 2, 0},
      {kMin, kMax, -2, kMax - 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " // " + std::to_string(c.b));
    EXPECT_EQ(python_floordiv(c.a, c.b), c.floordiv);
    EXPECT_EQ(python_mod(c.a, c.b), c.mod);
  }
  EXPECT_THROW(python_floordiv(kMin, -1), OverflowError);
  EXPECT_EQ(python_mod(kMin, -1), 0);
  EXPECT_THROW(python_floordiv(1, 0), Error);
  EXPECT_THROW(python_mod(1, 0), Error);
}

TEST(ExprCheckedMath, BuildersDetectOverflow) {
  EXPECT_THROW(add(I(kMax), I(1)), OverflowError);
  EXPECT_THROW(floordiv(I(kMin), I(-1)), OverflowError);
  EXPECT_THROW(mul(I(kMax), I(2)), OverflowError);
  EXPECT_THROW(neg(I(kMin)), OverflowError);
  EXPECT_THROW(pow(I(2), 63), OverflowError);
  EXPECT_EQ(pow(I(-2), 63), I(kMin));
  EXPECT_THROW(mul(mul(s0(), kMax), 2), OverflowError);       // coefficient
  EXPECT_THROW(add(mul(s0(), kMax), s0()), OverflowError);    // collected coefficient
  EXPECT_THROW(add(add(s0(), I(kMax)), I(1)), OverflowError);  // Add constant
  EXPECT_THROW(pow(mul(s0(), int64_t{1} << 32), 2), OverflowError);
  EXPECT_THROW(ceildiv(I(kMin), I(-1)), OverflowError);
  EXPECT_EQ(ceildiv(I(kMin), I(2)), I(kMin / 2));
  // INT64_MIN constants and coefficients are compared without negating them.
  EXPECT_EQ(to_sympy_string(mod(add(s0(), I(kMin)), add(s0(), I(kMin)))), "0");
  EXPECT_EQ(to_sympy_string(mod(add(s0(), I(kMin)), add(s1(), I(kMin)))),
            "Mod(s0 - 9223372036854775808, s1 - 9223372036854775808)");
  EXPECT_EQ(to_sympy_string(mod(mul(s0(), kMin), mul(s0(), kMin))), "0");
}

// ---------------------------------------------------------------------------
// canonical simplification
// ---------------------------------------------------------------------------

struct SimplifyCase {
  const char* what;
  std::function<ExprRef()> build;
  const char* sympy;
};

class ExprSimplify : public ::testing::TestWithParam<SimplifyCase> {};

TEST_P(ExprSimplify, CanonicalForm) {
  const auto& c = GetParam();
  EXPECT_EQ(to_sympy_string(c.build()), c.sympy) << c.what;
}

const SimplifyCase kSimplifyCases[] = {
    {"collect like terms", [] { return add(mul(s0(), 2), s0()); }, "3*s0"},
    {"exact floordiv", [] { return floordiv(mul(s0(), 2), I(2)); }, "s0"},
    {"mod of multiple", [] { return mod(mul(s0(), 4), I(2)); }, "0"},
    {"max dedupe", [] { return max(s0(), s0()); }, "s0"},
    {"x - x", [] { return sub(s0(), s0()); }, "0"},
    {"x * 1", [] { return mul(s0(), I(1)); }, "s0"},
    {"x * 0", [] { return mul(s0(), I(0)); }, "0"},
    {"x + 0", [] { return add(s0(), I(0)); }, "s0"},
    {"distribute constant", [] { return mul(I(2), add(s0(), I(1))); }, "2*s0 + 2"},
    {"keep product of sums", [] { return mul(add(s0(), I(1)), add(s1(), I(1))); }, "(s0 + 1)*(s1 + 1)"},
    {"x * x", [] { return mul(s0(), s0()); }, "s0**2"},
    {"power merge", [] { return mul(pow(add(s0(), I(1)), 2), add(s0(), I(1))); }, "(s0 + 1)**3"},
    {"power of scaled", [] { return pow(mul(s0(), 2), 3); }, "8*s0**3"},
    {"constant fold product", [] { return mul(mul(mul(s0(), 2), 3), s1()); }, "6*s0*s1"},
    {"commuted product cancels", [] { return sub(mul(s0(), s1()), mul(s1(), s0())); }, "0"},
    {"cancel to constant", [] { return add(sub(mul(s0(), 3), mul(s0(), 3)), I(5)); }, "5"},
    {"cancel sum", [] { return sub(add(s0(), s1()), s1()); }, "s0"},
    {"double negation", [] { return neg(neg(s0())); }, "s0"},
    {"floordiv splits divisible terms", [] { return floordiv(add(mul(s0(), 2), I(3)), I(2)); }, "s0 + 1"},
    {"floordiv keeps the rest", [] { return floordiv(add(add(mul(s0(), 4), I(4)), s1()), I(4)); },
     "s0 + ((s1//4)) + 1"},
    {"floordiv keeps indivisible constant", [] { return floordiv(add(s0(), I(3)), I(2)); }, "((s0 + 3)//2)"},
    {"nested floordiv", [] { return floordiv(floordiv(s0(), I(2)), I(3)); }, "(s0//6)"},
    {"floordiv by 1", [] { return floordiv(s0(), I(1)); }, "s0"},
    {"floordiv by -1", [] { return floordiv(neg(s0()), I(-1)); }, "s0"},
    {"floordiv of 0", [] { return floordiv(I(0), s0()); }, "0"},
    {"floordiv common factor", [] { return floordiv(add(mul(s0(), 6), mul(s1(), 2)), I(4)); }, "((3*s0 + s1)//2)"},
    // torch's FloorDiv.eval (2.15) cancels what simple_floordiv_gcd finds.
    {"floordiv x by x", [] { return floordiv(s0(), s0()); }, "1"},
    {"floordiv cancels a symbol", [] { return floordiv(mul(s0(), 6), s0()); }, "6"},
    {"floordiv cancels symbol and integer", [] { return floordiv(mul(mul(s0(), s1()), 6), mul(s0(), 2)); }, "3*s1"},
    {"floordiv cancels from every term", [] { return floordiv(add(mul(s0(), s1()), s0()), s0()); }, "s1 + 1"},
    {"floordiv cancels the integer gcd", [] { return floordiv(add(mul(s0(), 2), I(2)), mul(s1(), 2)); },
     "((s0 + 1)//s1)"},
    {"floordiv keeps a factor not in every term", [] { return floordiv(add(mul(s0(), 6), mul(s1(), 3)), mul(s0(), 3)); },
     "((2*s0 + s1)//s0)"},
    {"floordiv keeps a power against its base", [] { return floordiv(mul(s0(), s0()), s0()); }, "((s0**2)//s0)"},
    // ... and safe_gcd for a sum divisor: an exact multiple of it.
    {"floordiv of a multiple of a sum", [] { return floordiv(add(mul(s0(), 9), mul(s1(), 9)), add(s0(), s1())); }, "9"},
    {"floordiv of a multiple of a product of sums",
     [] {
       ExprRef x1 = add(s0(), I(1)), y1 = add(s1(), I(1));
       return floordiv(add(mul(add(mul(s0(), 9), I(9)), y1), mul(I(18), s1())), add(mul(x1, y1), mul(I(2), s1())));
     },
     "9"},
    {"floordiv of a near multiple of a sum",
     [] { return floordiv(add(mul(s0(), 9), mul(s1(), 8)), add(s0(), s1())); }, "((9*s0 + 8*s1)//(s0 + s1))"},
    {"floordiv constant by itself", [] { return floordiv(I(7), I(7)); }, "1"},
    {"floordiv negative fold", [] { return floordiv(I(-7), I(2)); }, "-4"},
    {"mod drops divisible terms", [] { return mod(add(add(mul(s0(), 4), s1()), I(9)), I(4)); }, "Mod(s1 + 1, 4)"},
    {"mod reduces constant", [] { return mod(sub(s0(), I(1)), I(8)); }, "Mod(s0 + 7, 8)"},
    {"mod by 1", [] { return mod(s0(), I(1)); }, "0"},
    {"mod x by x", [] { return mod(s0(), s0()); }, "0"},
    {"mod x by -x", [] { return mod(add(s0(), I(1)), sub(I(-1), s0())); }, "0"},
    {"nested mod", [] { return mod(mod(s0(), I(8)), I(4)); }, "Mod(s0, 4)"},
    // sympy 1.11: Mod(32*s0*s1, 64) -> 32*(Mod(s0*s1, 2)), Mod(6*s0 + 4, 8) -> 2*(Mod(3*s0 + 2, 4)),
    // Mod(4*s0 + 2*s1, 6) -> 2*(Mod(2*s0 + s1, 3)): the gcd of coefficients and modulus is pulled out.
    {"mod pulls out the gcd", [] { return mod(mul(mul(s0(), s1()), 32), I(64)); }, "32*(Mod(s0*s1, 2))"},
    {"mod gcd with constant", [] { return mod(add(mul(s0(), 6), I(4)), I(8)); }, "2*(Mod(3*s0 + 2, 4))"},
    {"mod gcd of two terms", [] { return mod(add(mul(s0(), 4), mul(s1(), 2)), I(6)); }, "2*(Mod(2*s0 + s1, 3))"},
    {"mod no common factor", [] { return mod(add(mul(s0(), 6), I(3)), I(8)); }, "Mod(6*s0 + 3, 8)"},
    {"eq of a scaled mod and 0", [] { return eq(mod(mul(mul(s0(), s1()), 32), I(64)), I(0)); },
     "Eq(Mod(s0*s1, 2), 0)"},
    // sympy keeps the factor (torch's guards read Ne(2*((s0//4)), 0)); only the
    // factor Mod.eval pulls out of a Mod goes.
    {"ne of a scaled term and 0 keeps the factor", [] { return ne(I(0), mul(s0(), -3)); }, "Ne(-3*s0, 0)"},
    {"eq of a scaled Mod and 0", [] { return eq(mul(mod(s0(), I(2)), 32), I(0)); }, "Eq(Mod(s0, 2), 0)"},
    {"eq of a scaled term and 2 stays", [] { return eq(mul(s0(), 2), I(2)); }, "Eq(2*s0, 2)"},
    {"mod fold negative dividend", [] { return mod(I(-7), I(2)); }, "1"},
    {"mod fold negative divisor", [] { return mod(I(7), I(-2)); }, "-1"},
    {"ceildiv fold", [] { return ceildiv(I(7), I(2)); }, "4"},
    {"ceildiv fold negative", [] { return ceildiv(I(-7), I(2)); }, "-3"},
    {"ceildiv by 1", [] { return ceildiv(s0(), I(1)); }, "s0"},
    {"ceildiv splits divisible terms", [] { return ceildiv(add(mul(s0(), 2), I(1)), I(2)); }, "s0 + 1"},
    {"ceildiv stays", [] { return ceildiv(s0(), I(2)); }, "CeilDiv(s0, 2)"},
    {"max flatten and fold", [] { return max(I(1), max(s0(), max(s1(), I(3)))); }, "Max(3, s0, s1)"},
    {"min fold", [] { return min(std::vector<ExprRef>{s0(), I(4), I(2)}); }, "Min(2, s0)"},
    {"max of constants", [] { return max(I(5), I(3)); }, "5"},
    {"max single after dedupe", [] { return max(std::vector<ExprRef>{s0(), max(s0(), s0())}); }, "s0"},
    {"eq constant difference", [] { return eq(add(s0(), I(1)), s0()); }, "False"},
    {"lt constant difference", [] { return lt(s0(), add(s0(), I(1))); }, "True"},
    {"le constant difference", [] { return le(add(s0(), I(2)), add(s0(), I(1))); }, "False"},
    {"eq identical", [] { return eq(s0(), s0()); }, "True"},
    {"ne identical", [] { return ne(mul(s0(), s1()), mul(s1(), s0())); }, "False"},
    {"eq of constants", [] { return eq(I(3), I(3)); }, "True"},
    {"eq order: symbol first", [] { return eq(I(8), s0()); }, "Eq(s0, 8)"},
    {"ge kept as given", [] { return ge(s0(), I(8)); }, "s0 >= 8"},
    {"gt kept as given", [] { return gt(I(8), s0()); }, "8 > s0"},
    {"not eq", [] { return logical_not(eq(s0(), I(8))); }, "Ne(s0, 8)"},
    {"not ne", [] { return logical_not(ne(s0(), I(8))); }, "Eq(s0, 8)"},
    {"not lt", [] { return logical_not(lt(s0(), I(8))); }, "s0 >= 8"},
    {"not le", [] { return logical_not(le(s0(), I(8))); }, "s0 > 8"},
    {"not gt", [] { return logical_not(gt(s0(), I(8))); }, "s0 <= 8"},
    {"not ge", [] { return logical_not(ge(s0(), I(8))); }, "s0 < 8"},
    {"not and stays", [] { return logical_not(logical_and(eq(s0(), I(2)), eq(s1(), I(3)))); },
     "~(Eq(s0, 2) & Eq(s1, 3))"},
    {"not not", [] { return logical_not(logical_not(logical_or(eq(s0(), I(2)), eq(s1(), I(3))))); },
     "Eq(s0, 2) | Eq(s1, 3)"},
    {"not true", [] { return logical_not(true_expr()); }, "False"},
    {"and with true", [] { return logical_and(true_expr(), eq(s0(), I(2))); }, "Eq(s0, 2)"},
    {"and with false", [] { return logical_and(eq(s0(), I(2)), false_expr()); }, "False"},
    {"or with true", [] { return logical_or(eq(s0(), I(2)), true_expr()); }, "True"},
    {"or with false", [] { return logical_or(false_expr(), eq(s0(), I(2))); }, "Eq(s0, 2)"},
    {"and dedupe", [] { return logical_and(eq(s0(), I(2)), eq(I(2), s0())); }, "Eq(s0, 2)"},
    {"and flatten", [] { return logical_and(logical_and(eq(s0(), I(2)), eq(s1(), I(3))), lt(s2(), I(4))); },
     "Eq(s0, 2) & Eq(s1, 3) & (s2 < 4)"},
    {"empty and", [] { return logical_and(std::span<const ExprRef>()); }, "True"},
    {"empty or", [] { return logical_or(std::span<const ExprRef>()); }, "False"},
};

INSTANTIATE_TEST_SUITE_P(Table, ExprSimplify, ::testing::ValuesIn(kSimplifyCases),
                         [](const ::testing::TestParamInfo<SimplifyCase>& info) {
                           return testing::param_name(info.param.what, info.index);
                         });

TEST(ExprSimplifyStructure, CanonicalShapes) {
  // 2*s0 is a Mul with coefficient 2; inside an Add it is term s0 with coefficient 2.
  ExprRef two_s0 = mul(s0(), 2);
  ASSERT_EQ(two_s0->kind(), ExprKind::Mul);
  EXPECT_EQ(two_s0->value(), 2);
  ExprRef sum = add(two_s0, I(3));
  ASSERT_EQ(sum->kind(), ExprKind::Add);
  EXPECT_EQ(sum->value(), 3);
  ASSERT_EQ(sum->terms().size(), 1u);
  EXPECT_EQ(sum->terms()[0].first, s0());
  EXPECT_EQ(sum->terms()[0].second, 2);
  // s0**2 is a Mul factor with exponent 2.
  ExprRef square = mul(s0(), s0());
  ASSERT_EQ(square->kind(), ExprKind::Mul);
  EXPECT_EQ(square->value(), 1);
  ASSERT_EQ(square->terms().size(), 1u);
  EXPECT_EQ(square->terms()[0].second, 2);
  // Terms are sorted by id.
  ExprRef many = add(add(s2(), s1()), s0());
  for (size_t i = 1; i < many->terms().size(); ++i)
    EXPECT_LT(many->terms()[i - 1].first->id(), many->terms()[i].first->id());
  // Max arguments are sorted by id and flattened.
  ExprRef m = max(std::vector<ExprRef>{s2(), max(s1(), s0())});
  ASSERT_EQ(m->args().size(), 3u);
  for (size_t i = 1; i < m->args().size(); ++i) EXPECT_LT(m->args()[i - 1]->id(), m->args()[i]->id());
}

TEST(ExprSimplifyStructure, DivisionByZeroThrows) {
  EXPECT_THROW(floordiv(s0(), I(0)), Error);
  EXPECT_THROW(mod(s0(), I(0)), Error);
  EXPECT_THROW(ceildiv(s0(), I(0)), Error);
  EXPECT_THROW(floordiv(I(3), I(0)), Error);
  // The divisor simplifies to zero before the check.
  EXPECT_THROW(floordiv(s1(), sub(s0(), s0())), Error);
  try {
    floordiv(s0(), I(0));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
  }
}

TEST(ExprSimplifyStructure, TypeErrors) {
  EXPECT_THROW(add(s0(), eq(s0(), I(1))), Error);
  EXPECT_THROW(logical_and(s0(), true_expr()), Error);
  EXPECT_THROW(logical_not(s0()), Error);
  EXPECT_THROW(eq(true_expr(), s0()), Error);
  EXPECT_THROW(pow(s0(), -1), Error);
  EXPECT_THROW(max(std::span<const ExprRef>()), Error);
  EXPECT_THROW(symbol(""), Error);
}

// ---------------------------------------------------------------------------
// interning
// ---------------------------------------------------------------------------

TEST(ExprInterning, EqualExpressionsAreOnePointer) {
  EXPECT_EQ(symbol("s0"), symbol("s0"));
  EXPECT_NE(symbol("s0"), symbol("s1"));
  EXPECT_EQ(integer(123456789), integer(123456789));
  EXPECT_EQ(add(s0(), s1()), add(s1(), s0()));
  EXPECT_EQ(mul(s0(), s1()), mul(s1(), s0()));
  EXPECT_EQ(add(mul(s0(), 2), I(3)), add(I(3), add(s0(), s0())));
  EXPECT_EQ(max(s0(), s1()), max(s1(), s0()));
  EXPECT_EQ(eq(I(8), s0()), eq(s0(), I(8)));
  EXPECT_EQ(eq(s1(), s0()), eq(s0(), s1()));
  EXPECT_NE(lt(s0(), s1()), gt(s1(), s0()));  // kept as given
  EXPECT_EQ(logical_and(eq(s0(), I(1)), eq(s1(), I(2))), logical_and(eq(s1(), I(2)), eq(s0(), I(1))));
  EXPECT_EQ(true_expr(), bool_const(true));
  EXPECT_NE(true_expr(), I(1));  // BoolConst and Integer are different kinds
  EXPECT_EQ(floordiv(s0(), I(6)), floordiv(floordiv(s0(), I(3)), I(2)));
}

TEST(ExprInterning, RepeatedBuildsAddNoNodes) {
  ExprRef first = add(mul(symbol("intern_probe"), 2), I(3));
  size_t before = interned_expr_count();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(add(mul(symbol("intern_probe"), 2), I(3)), first);
  EXPECT_EQ(interned_expr_count(), before);
}

TEST(ExprInterning, ThreadsAgreeOnPointers) {
  constexpr int kThreads = 4;
  std::vector<std::vector<ExprRef>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &results] {
      for (int i = 0; i < 200; ++i) {
        ExprRef x = symbol("thread_sym" + std::to_string(i));
        results[t].push_back(floordiv(add(mul(x, 4), I(i)), I(3)));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(results[t], results[0]);
}

TEST(ExprInterning, EqOrderFollowsCreation) {
  ExprRef older = mul(symbol("eq_order_a"), 2);
  ExprRef newer = add(symbol("eq_order_b"), I(1));
  EXPECT_EQ(to_sympy_string(eq(newer, older)), "Eq(2*eq_order_a, eq_order_b + 1)");
  EXPECT_EQ(to_python_string(ne(newer, older)), "2*eq_order_a != eq_order_b + 1");
}

TEST(ExprInterning, IdsFollowCreationOrder) {
  ExprRef a = symbol("id_probe_a");
  ExprRef b = symbol("id_probe_b");
  EXPECT_LT(a->id(), b->id());
  EXPECT_EQ(symbol("id_probe_a")->id(), a->id());
}

// ---------------------------------------------------------------------------
// printers
// ---------------------------------------------------------------------------

struct PrintCase {
  std::function<ExprRef()> build;
  const char* sympy;
  const char* python;
};

class ExprPrint : public ::testing::TestWithParam<PrintCase> {};

TEST_P(ExprPrint, BothStyles) {
  const auto& c = GetParam();
  ExprRef e = c.build();
  EXPECT_EQ(to_sympy_string(e), c.sympy);
  EXPECT_EQ(to_python_string(e), c.python);
}

const PrintCase kPrintCases[] = {
    {[] { return add(add(mul(s0(), 2), s1()), I(-1)); }, "2*s0 + s1 - 1", "2*s0 + s1 - 1"},
    {[] { return sub(I(1), s0()); }, "1 - s0", "1 - s0"},
    {[] { return sub(s0(), I(1)); }, "s0 - 1", "s0 - 1"},
    {[] { return neg(s0()); }, "-s0", "-s0"},
    {[] { return sub(s1(), s0()); }, "-s0 + s1", "-s0 + s1"},
    {[] { return sub(sub(I(1), mul(s0(), 2)), s1()); }, "-2*s0 - s1 + 1", "-2*s0 - s1 + 1"},
    {[] { return add(add(pow(s0(), 2), s0()), s1()); }, "s0**2 + s0 + s1", "s0**2 + s0 + s1"},
    {[] { return add(pow(s1(), 2), s0()); }, "s0 + s1**2", "s0 + s1**2"},
    {[] { return add(mul(s0(), s1()), s0()); }, "s0*s1 + s0", "s0*s1 + s0"},
    {[] { return add(add(mul(pow(s0(), 2), 3), mul(mul(s1(), s0()), 2)), I(7)); }, "3*s0**2 + 2*s0*s1 + 7",
     "3*s0**2 + 2*s0*s1 + 7"},
    {[] { return add(mul(s0(), pow(s1(), 2)), mul(pow(s0(), 2), s1())); }, "s0**2*s1 + s0*s1**2",
     "s0**2*s1 + s0*s1**2"},
    {[] { return add(neg(mul(s0(), s1())), I(4)); }, "-s0*s1 + 4", "-s0*s1 + 4"},
    {[] { return neg(pow(s0(), 2)); }, "-s0**2", "-s0**2"},
    {[] { return pow(add(s0(), I(1)), 2); }, "(s0 + 1)**2", "(s0 + 1)**2"},
    {[] { return mul(add(s0(), I(1)), add(s1(), I(1))); }, "(s0 + 1)*(s1 + 1)", "(s0 + 1)*(s1 + 1)"},
    {[] { return neg(mul(add(s0(), I(1)), add(s1(), I(1)))); }, "-(s0 + 1)*(s1 + 1)", "-(s0 + 1)*(s1 + 1)"},
    {[] { return mul(s0(), add(s1(), I(1))); }, "s0*(s1 + 1)", "s0*(s1 + 1)"},
    {[] { return floordiv(s0(), I(2)); }, "(s0//2)", "s0//2"},
    {[] { return floordiv(add(s0(), I(1)), I(2)); }, "((s0 + 1)//2)", "(s0 + 1)//2"},
    {[] { return floordiv(mul(s0(), 2), I(3)); }, "((2*s0)//3)", "(2*s0)//3"},
    {[] { return floordiv(neg(s0()), I(2)); }, "((-s0)//2)", "(-s0)//2"},
    {[] { return floordiv(s0(), I(-3)); }, "(s0//(-3))", "s0//(-3)"},
    {[] { return floordiv(s0(), s1()); }, "(s0//s1)", "s0//s1"},
    {[] { return add(floordiv(s0(), I(2)), s1()); }, "s1 + ((s0//2))", "s1 + s0//2"},
    {[] { return mul(floordiv(s0(), I(2)), 2); }, "2*((s0//2))", "2*(s0//2)"},
    {[] { return neg(floordiv(s0(), I(2))); }, "-((s0//2))", "-(s0//2)"},
    {[] { return sub(I(1), floordiv(s0(), I(2))); }, "1 - ((s0//2))", "1 - s0//2"},
    {[] { return add(neg(floordiv(s0(), I(2))), s1()); }, "s1 - ((s0//2))", "s1 - s0//2"},
    {[] { return add(neg(floordiv(s0(), I(2))), neg(s1())); }, "-s1 - ((s0//2))", "-s1 - s0//2"},
    {[] { return add(neg(floordiv(s0(), I(2))), I(-1)); }, "-((s0//2)) - 1", "-(s0//2) - 1"},
    {[] { return mul(floordiv(s0(), I(2)), s1()); }, "s1*((s0//2))", "s1*(s0//2)"},
    {[] { return pow(floordiv(s0(), I(2)), 2); }, "((s0//2))**2", "(s0//2)**2"},
    {[] { return sub(mul(floordiv(add(s0(), I(1)), I(2)), 3), I(1)); }, "3*(((s0 + 1)//2)) - 1",
     "3*((s0 + 1)//2) - 1"},
    {[] { return add(add(floordiv(s0(), I(2)), floordiv(s1(), I(3))), s0()); }, "s0 + ((s0//2)) + ((s1//3))",
     "s0 + s0//2 + s1//3"},
    {[] { return mod(s0(), I(8)); }, "Mod(s0, 8)", "s0 % 8"},
    {[] { return add(mod(s0(), I(8)), I(1)); }, "(Mod(s0, 8)) + 1", "s0 % 8 + 1"},
    {[] { return mul(mod(s0(), I(8)), 2); }, "2*(Mod(s0, 8))", "2*(s0 % 8)"},
    {[] { return floordiv(mod(s0(), I(8)), I(2)); }, "((Mod(s0, 8))//2)", "(s0 % 8)//2"},
    {[] { return mod(add(s0(), I(1)), s1()); }, "Mod(s0 + 1, s1)", "(s0 + 1) % s1"},
    {[] { return eq(mod(s0(), I(8)), I(0)); }, "Eq(Mod(s0, 8), 0)", "s0 % 8 == 0"},
    {[] { return eq(mod(mul(mul(s0(), s1()), 32), I(64)), I(0)); }, "Eq(Mod(s0*s1, 2), 0)", "(s0*s1) % 2 == 0"},
    {[] { return ceildiv(s0(), I(2)); }, "CeilDiv(s0, 2)", "-((-s0)//2)"},
    {[] { return ceildiv(add(s0(), I(1)), s1()); }, "CeilDiv(s0 + 1, s1)", "-((-(s0 + 1))//s1)"},
    {[] { return mul(ceildiv(s0(), I(2)), 3); }, "3*CeilDiv(s0, 2)", "3*(-((-s0)//2))"},
    {[] { return sub(s1(), ceildiv(s0(), I(2))); }, "s1 - CeilDiv(s0, 2)", "s1 - (-((-s0)//2))"},
    {[] { return max(I(1), s0()); }, "Max(1, s0)", "max(1, s0)"},
    {[] { return max(std::vector<ExprRef>{s1(), I(3), s0()}); }, "Max(3, s0, s1)", "max(3, s0, s1)"},
    {[] { return min(add(s0(), I(1)), s1()); }, "Min(s1, s0 + 1)", "min(s1, s0 + 1)"},
    {[] { return max(std::vector<ExprRef>{add(s0(), I(1)), mul(s1(), 2), floordiv(s0(), I(2))}); },
     "Max(2*s1, s0 + 1, (s0//2))", "max(2*s1, s0 + 1, s0//2)"},
    {[] { return floordiv(max(I(1), s0()), I(2)); }, "(Max(1, s0)//2)", "max(1, s0)//2"},
    {[] { return add(max(s0(), s1()), I(1)); }, "Max(s0, s1) + 1", "max(s0, s1) + 1"},
    {[] { return mul(min(s0(), s1()), 2); }, "2*Min(s0, s1)", "2*min(s0, s1)"},
    {[] { return eq(s0(), I(8)); }, "Eq(s0, 8)", "s0 == 8"},
    {[] { return ne(s0(), I(1)); }, "Ne(s0, 1)", "s0 != 1"},
    {[] { return eq(s0(), I(-1)); }, "Eq(s0, -1)", "s0 == -1"},
    {[] { return lt(s0(), I(8)); }, "s0 < 8", "s0 < 8"},
    {[] { return le(s0(), I(8)); }, "s0 <= 8", "s0 <= 8"},
    {[] { return gt(s0(), I(8)); }, "s0 > 8", "s0 > 8"},
    {[] { return ge(s0(), I(8)); }, "s0 >= 8", "s0 >= 8"},
    {[] { return lt(add(s0(), I(1)), s1()); }, "s0 + 1 < s1", "s0 + 1 < s1"},
    {[] { return le(add(s0(), I(1)), mul(s1(), 2)); }, "s0 + 1 <= 2*s1", "s0 + 1 <= 2*s1"},
    {[] { return lt(floordiv(s0(), I(2)), I(3)); }, "((s0//2)) < 3", "s0//2 < 3"},
    {[] { return lt(mod(s0(), I(2)), I(1)); }, "(Mod(s0, 2)) < 1", "s0 % 2 < 1"},
    {[] { return logical_and(eq(s0(), I(2)), eq(s1(), I(3))); }, "Eq(s0, 2) & Eq(s1, 3)", "s0 == 2 and s1 == 3"},
    {[] { return logical_and(lt(s0(), I(8)), gt(s1(), I(2))); }, "(s1 > 2) & (s0 < 8)", "s1 > 2 and s0 < 8"},
    {[] { return logical_or(eq(s0(), I(2)), lt(s1(), I(3))); }, "Eq(s0, 2) | (s1 < 3)", "s0 == 2 or s1 < 3"},
    {[] { return logical_or(ge(s0(), I(2)), gt(s1(), I(3))); }, "(s0 >= 2) | (s1 > 3)", "s0 >= 2 or s1 > 3"},
    {[] { return logical_and(std::vector<ExprRef>{eq(s0(), I(2)), le(s1(), I(3)), ne(s2(), I(1))}); },
     "Eq(s0, 2) & (s1 <= 3) & Ne(s2, 1)", "s0 == 2 and s1 <= 3 and s2 != 1"},
    {[] { return logical_and(logical_or(eq(s0(), I(2)), eq(s1(), I(3))), lt(s2(), I(4))); },
     "(s2 < 4) & (Eq(s0, 2) | Eq(s1, 3))", "s2 < 4 and (s0 == 2 or s1 == 3)"},
    {[] { return logical_not(logical_and(eq(s0(), I(2)), eq(s1(), I(3)))); }, "~(Eq(s0, 2) & Eq(s1, 3))",
     "not (s0 == 2 and s1 == 3)"},
    {[] { return logical_not(logical_or(eq(s0(), I(2)), eq(s1(), I(3)))); }, "~(Eq(s0, 2) | Eq(s1, 3))",
     "not (s0 == 2 or s1 == 3)"},
    {[] { return true_expr(); }, "True", "True"},
    {[] { return false_expr(); }, "False", "False"},
    {[] { return I(-5); }, "-5", "-5"},
    {[] { return sub(s0(), I(kMax)); }, "s0 - 9223372036854775807", "s0 - 9223372036854775807"},
    {[] { return add(s0(), I(kMin)); }, "s0 - 9223372036854775808", "s0 - 9223372036854775808"},
    {[] { return mul(s0(), kMin); }, "-9223372036854775808*s0", "-9223372036854775808*s0"},
};

INSTANTIATE_TEST_SUITE_P(Table, ExprPrint, ::testing::ValuesIn(kPrintCases),
                         [](const ::testing::TestParamInfo<PrintCase>& info) {
                           return testing::param_name(info.param.python, info.index);
                         });

TEST(ExprPrintNamer, RenamesSymbols) {
  SymbolNamer namer = [](ExprRef sym) {
    if (sym->name() == "s0") return std::string("L['x'].size()[0]");
    return "L['y'].size()[" + std::string(sym->name() == "s1" ? "1" : "2") + "]";
  };
  EXPECT_EQ(to_python_string(eq(mod(s0(), I(8)), I(0)), namer), "L['x'].size()[0] % 8 == 0");
  EXPECT_EQ(to_python_string(le(I(2), s0()), namer), "2 <= L['x'].size()[0]");
  EXPECT_EQ(to_python_string(le(s1(), floordiv(s0(), I(2))), namer), "L['y'].size()[1] <= L['x'].size()[0]//2");
  // The sympy printer always prints symbol names.
  EXPECT_EQ(to_sympy_string(eq(mod(s0(), I(8)), I(0))), "Eq(Mod(s0, 8), 0)");
}

// torch's produce_guards texts (torch 2.15's PythonPrinter, as Dynamo's
// [__guards] lines and torch.export's constraint violations print them).
TEST(ExprPrintNamer, GuardStringFollowsTorchsPrecedenceForDivision) {
  SymbolNamer namer = [](ExprRef sym) {
    return sym->name() == "s0" ? std::string("L['x'].size()[0]") : std::string("L['x'].size()[1]");
  };
  const std::string x0 = "L['x'].size()[0]", x1 = "L['x'].size()[1]";
  EXPECT_EQ(to_guard_string(eq(mod(s0(), I(8)), I(0)), namer), "(" + x0 + " % 8) == 0");
  EXPECT_EQ(to_guard_string(ne(floordiv(s0(), I(4)), I(1)), namer), "(" + x0 + " // 4) != 1");
  const std::string product = to_guard_string(mul(s0(), s1()), namer);
  EXPECT_EQ(to_guard_string(eq(mod(mul(s0(), s1()), I(2)), I(0)), namer), "((" + product + ") % 2) == 0");
  EXPECT_EQ(to_guard_string(add(floordiv(s0(), I(4)), I(1)), namer), "1 + (" + x0 + " // 4)");
  EXPECT_EQ(to_guard_string(mul(floordiv(s0(), I(4)), I(2)), namer), "2*(" + x0 + " // 4)");
  EXPECT_EQ(to_guard_string(floordiv(add(s0(), I(1)), I(2)), namer), "(1 + " + x0 + ") // 2");
  // A power is its base repeated (PythonPrinter._print_Pow; measured: a
  // (4, 6, 6) input under dynamic=True guards stride()[0] == s1*s1).
  EXPECT_EQ(to_guard_string(eq(s1(), pow(s0(), 2)), namer), x1 + " == " + x0 + "*" + x0);
  EXPECT_EQ(to_guard_string(mul(pow(s0(), 2), s1()), namer), x1 + "*" + x0 + "*" + x0);  // sympy: Symbol before Pow
  EXPECT_EQ(to_python_string(pow(s0(), 2)), "s0**2");
  // A sum and a product print their arguments in sympy's order (constants
  // first, then Basic.compare's), a negative coefficient as (-k)*, and ==
  // and != wrap both; each text is torch 2.15's PythonPrinter's.
  EXPECT_EQ(to_guard_string(ne(sub(s0(), I(1)), I(1)), namer), "((-1) + " + x0 + ") != 1");
  EXPECT_EQ(to_guard_string(ge(sub(s0(), floordiv(s0(), I(2))), I(0)), namer),
            x0 + " + (-1)*(" + x0 + " // 2) >= 0");
  EXPECT_EQ(to_guard_string(add(mul(s1(), I(-2)), mul(s1(), s0())), namer),
            "((-2)*" + x1 + ") + " + x0 + "*" + x1);
  EXPECT_EQ(to_guard_string(sub(I(3), mul(s0(), I(2))), namer), "3 + ((-2)*" + x0 + ")");
  EXPECT_EQ(to_guard_string(ge(sub(mul(s0(), I(40)), mul(floordiv(s0(), I(2)), I(40))), I(2)), namer),
            "(-40)*(" + x0 + " // 2) + 40*" + x0 + " >= 2");
  // produce_guards simplifies first, and simplify starts with safe_expand: a
  // product of sums is multiplied out (measured: x[1:-1] under automatic
  // dynamic guards ((-8)*x.size()[1]) + 4*x.size()[1]*x.size()[0] >= 2, its
  // symbols s27 for dim 1 and s77 for dim 0 in sympy's order).
  EXPECT_EQ(to_guard_string(ge(mul(mul(s1(), sub(s0(), I(2))), I(4)), I(2)), namer),
            "((-8)*" + x1 + ") + 4*" + x0 + "*" + x1 + " >= 2");
  EXPECT_EQ(expand(pow(add(s0(), I(1)), 2)), add(add(pow(s0(), 2), mul(s0(), I(2))), I(1)));
  EXPECT_EQ(safe_expand(eq(mod(mul(s1(), add(s0(), I(1))), I(2)), I(0))), eq(mod(add(mul(s0(), s1()), s1()), I(2)), I(0)));
  // Without division it is to_python_string's text; dims keep theirs.
  EXPECT_EQ(to_guard_string(le(I(2), s0()), namer), "2 <= " + x0);
  EXPECT_EQ(to_python_string(floordiv(s0(), I(4))), "s0//4");
}

// A node keeps its default-named text once printed: a namer must still see
// its own names, and threads printing one node at once agree.
TEST(ExprPrintNamer, KeptTextDoesNotLeakIntoRenaming) {
  ExprRef e = le(add(floordiv(s1(), I(2)), I(-3)), mul(s0(), s1()));
  const std::string plain = to_python_string(e);
  SymbolNamer namer = [](ExprRef sym) { return "S_" + sym->name(); };
  EXPECT_EQ(to_python_string(e, namer), "S_s1//2 - 3 <= S_s0*S_s1");
  EXPECT_EQ(to_python_string(e), plain);
  EXPECT_EQ(plain, "s1//2 - 3 <= s0*s1");
  ExprRef shared = mul(add(floordiv(s2(), I(5)), I(7)), s0());
  std::vector<std::string> texts(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([t, shared, &texts] { texts[t] = to_python_string(shared); });
  for (auto& th : threads) th.join();
  for (const std::string& t : texts) EXPECT_EQ(t, "s0*(s2//5 + 7)");
}

// ---------------------------------------------------------------------------
// evaluate, substitute, free symbols, size, rebuild
// ---------------------------------------------------------------------------

TEST(ExprEvaluate, PythonSemanticsForNegatives) {
  const DivCase cases[] = {{7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1}, {-1, 3, -1, 2}};
  ExprRef fd = floordiv(s0(), s1());
  ExprRef md = mod(s0(), s1());
  ExprRef cd = ceildiv(s0(), s1());
  for (const auto& c : cases) {
    Assignment values{{s0(), c.a}, {s1(), c.b}};
    SCOPED_TRACE(std::to_string(c.a) + ", " + std::to_string(c.b));
    EXPECT_EQ(evaluate(fd, values), c.floordiv);
    EXPECT_EQ(evaluate(md, values), c.mod);
    EXPECT_EQ(evaluate(cd, values), -python_floordiv(-c.a, c.b));
  }
}

TEST(ExprEvaluate, Table) {
  Assignment values{{s0(), 8}, {s1(), -3}, {s2(), 5}};
  struct Case {
    ExprRef e;
    int64_t want;
  };
  const Case cases[] = {
      {add(add(mul(s0(), 2), s1()), I(-1)), 12},
      {mul(add(s0(), I(1)), add(s1(), I(1))), -18},
      {pow(s1(), 3), -27},
      {floordiv(add(s0(), I(1)), I(2)), 4},
      {floordiv(s1(), I(2)), -2},
      {mod(s1(), I(8)), 5},
      {ceildiv(s0(), I(3)), 3},
      {ceildiv(s1(), I(2)), -1},
      {max(std::vector<ExprRef>{s0(), s1(), s2()}), 8},
      {min(std::vector<ExprRef>{s0(), s1(), s2()}), -3},
      {eq(s0(), I(8)), 1},
      {lt(s1(), s2()), 1},
      {ge(s1(), I(0)), 0},
      {logical_and(eq(s0(), I(8)), gt(s2(), I(5))), 0},
      {logical_or(eq(s0(), I(8)), gt(s2(), I(5))), 1},
      {logical_not(logical_and(eq(s0(), I(8)), gt(s2(), I(4)))), 0},
  };
  for (const auto& c : cases) EXPECT_EQ(evaluate(c.e, values), c.want) << to_python_string(c.e);
}

TEST(ExprEvaluate, UnboundDivisionByZeroAndOverflow) {
  EXPECT_EQ(evaluate(add(s0(), s1()), Assignment{{s0(), 1}}), std::nullopt);
  EXPECT_THROW(evaluate(floordiv(s0(), s1()), Assignment{{s0(), 1}, {s1(), 0}}), Error);
  EXPECT_THROW(evaluate(mod(s0(), s1()), Assignment{{s0(), 1}, {s1(), 0}}), Error);
  EXPECT_THROW(evaluate(mul(s0(), s1()), Assignment{{s0(), kMax}, {s1(), 2}}), OverflowError);
  EXPECT_THROW(evaluate(floordiv(s0(), s1()), Assignment{{s0(), kMin}, {s1(), -1}}), OverflowError);
  // A false operand decides an And even when another operand divides by zero.
  ExprRef guarded = logical_and(ne(s1(), I(0)), eq(floordiv(s0(), s1()), I(2)));
  EXPECT_EQ(evaluate(guarded, Assignment{{s0(), 4}, {s1(), 0}}), 0);
  EXPECT_EQ(evaluate(guarded, Assignment{{s0(), 4}, {s1(), 2}}), 1);
  // The lookup form.
  auto lookup = [](ExprRef s) -> std::optional<int64_t> {
    if (s->name() == "s0") return 10;
    return std::nullopt;
  };
  EXPECT_EQ(evaluate(floordiv(s0(), I(3)), lookup), 3);
  EXPECT_EQ(evaluate(add(s0(), s1()), lookup), std::nullopt);
}

TEST(ExprSubstitute, ReplacesAndResimplifies) {
  ExprRef e = add(mul(s0(), 2), s1());
  EXPECT_EQ(substitute(e, {{s1(), neg(mul(s0(), 2))}}), I(0));
  EXPECT_EQ(substitute(e, {{s0(), I(3)}, {s1(), I(4)}}), I(10));
  EXPECT_EQ(substitute(floordiv(s0(), I(2)), {{s0(), mul(s1(), 4)}}), mul(s1(), 2));
  EXPECT_EQ(substitute(mod(s0(), I(8)), {{s0(), add(mul(s1(), 8), I(3))}}), I(3));
  EXPECT_EQ(substitute(eq(s0(), s1()), {{s1(), s0()}}), true_expr());
  EXPECT_EQ(substitute(lt(s0(), I(4)), {{s0(), I(2)}}), true_expr());
  EXPECT_EQ(substitute(mul(pow(s0(), 2), s1()), {{s0(), I(3)}}), mul(s1(), 9));
  EXPECT_EQ(substitute(max(s0(), s1()), {{s0(), s1()}}), s1());
  EXPECT_EQ(substitute(e, {}), e);
  EXPECT_EQ(substitute(e, {{s2(), I(1)}}), e);
  EXPECT_THROW(substitute(e, {{add(s0(), I(1)), I(1)}}), Error);
  EXPECT_THROW(substitute(floordiv(s1(), s0()), {{s0(), I(0)}}), Error);
}

TEST(ExprQueries, FreeSymbolsSizeAndConversions) {
  ExprRef e = add(floordiv(symbol("s10"), I(2)), mul(symbol("s2"), symbol("batch")));
  std::vector<ExprRef> want{symbol("batch"), symbol("s10"), symbol("s2")};  // by name
  EXPECT_EQ(free_symbols(e), want);
  EXPECT_TRUE(free_symbols(I(3)).empty());
  EXPECT_TRUE(has_free_symbols(e));
  EXPECT_FALSE(has_free_symbols(I(3)));
  EXPECT_FALSE(has_free_symbols(true_expr()));
  EXPECT_TRUE(has_free_symbols(logical_not(logical_and(eq(s0(), I(1)), eq(s1(), I(1))))));
  EXPECT_EQ(expr_size(I(3)), 1u);
  EXPECT_EQ(expr_size(s0()), 1u);
  EXPECT_EQ(expr_size(add(s0(), s1())), 3u);                  // Add + 2 terms
  EXPECT_EQ(expr_size(floordiv(add(s0(), s1()), I(2))), 5u);  // FloorDiv + Add(3) + 2
  EXPECT_EQ(as_integer(I(7)), 7);
  EXPECT_EQ(as_integer(s0()), std::nullopt);
  EXPECT_EQ(as_bool(true_expr()), true);
  EXPECT_EQ(as_bool(eq(s0(), I(1))), std::nullopt);
  EXPECT_TRUE(eq(s0(), I(1))->is_relation());
  EXPECT_TRUE(logical_and(eq(s0(), I(1)), eq(s1(), I(1)))->is_bool());
  EXPECT_FALSE(s0()->is_bool());
}

TEST(ExprQueries, SharedSubexpressionsAreVisitedOnce) {
  // Each level uses the previous one twice: 2^60 paths, 120 distinct nodes.
  ExprRef e = symbol("dag_leaf");
  for (int i = 0; i < 60; ++i) e = mul(add(e, I(1)), add(e, I(2)));
  EXPECT_TRUE(has_free_symbols(e));
  EXPECT_EQ(free_symbols(e), std::vector<ExprRef>{symbol("dag_leaf")});
  ExprRef constant_dag = floordiv(e, I(1));
  EXPECT_EQ(constant_dag, e);
}

TEST(ExprQueries, Rebuild) {
  std::vector<ExprRef> two{mul(s0(), 4), I(2)};
  EXPECT_EQ(rebuild(ExprKind::FloorDiv, two), mul(s0(), 2));
  EXPECT_EQ(rebuild(ExprKind::Mod, two), I(0));
  EXPECT_EQ(rebuild(ExprKind::CeilDiv, two), mul(s0(), 2));
  EXPECT_EQ(rebuild(ExprKind::Add, two), add(mul(s0(), 4), I(2)));
  EXPECT_EQ(rebuild(ExprKind::Mul, two), mul(s0(), 8));
  EXPECT_EQ(rebuild(ExprKind::Max, two), max(mul(s0(), 4), I(2)));
  EXPECT_EQ(rebuild(ExprKind::Eq, std::vector<ExprRef>{I(2), s0()}), eq(s0(), I(2)));
  EXPECT_EQ(rebuild(ExprKind::Ge, std::vector<ExprRef>{s0(), s0()}), true_expr());
  ExprRef c = eq(s0(), I(2));
  EXPECT_EQ(rebuild(ExprKind::Not, std::span<const ExprRef>(&c, 1)), ne(s0(), I(2)));
  EXPECT_THROW(rebuild(ExprKind::FloorDiv, std::span<const ExprRef>(&c, 1)), Error);
  EXPECT_THROW(rebuild(ExprKind::Symbol, two), Error);
  // Rebuilding a node from its own operands gives the node back.
  ExprRef fd = floordiv(add(s0(), I(1)), s1());
  EXPECT_EQ(rebuild(fd->kind(), fd->args()), fd);
}

// ---------------------------------------------------------------------------
// soundness: simplified expressions evaluate like the operations that built them
// ---------------------------------------------------------------------------

// Builds a random expression and, alongside, its value computed directly from
// the operations with Python semantics (nullopt where an operation divides by
// zero). Simplification must never change a defined value.
class RandomExpr {
 public:
  explicit RandomExpr(uint64_t seed, std::array<int64_t, 3> values) : rng_(seed), values_(values) {}

  struct Built {
    ExprRef e = nullptr;
    std::optional<int64_t> v;
  };

  Built integer_expr(int depth) {
    if (depth == 0 || pick(4) == 0) {
      if (pick(2)) {
        int i = pick(3);
        return {symbols_[i], values_[i]};
      }
      int64_t c = pick(19) - 9;
      return {integer(c), c};
    }
    Built a = integer_expr(depth - 1), b = integer_expr(depth - 1);
    auto both = [&](auto f) -> std::optional<int64_t> {
      if (!a.v || !b.v) return std::nullopt;
      return f(*a.v, *b.v);
    };
    auto nonzero = [&](auto f) -> std::optional<int64_t> {
      if (!a.v || !b.v || *b.v == 0) return std::nullopt;
      return f(*a.v, *b.v);
    };
    switch (pick(10)) {
      case 0: return {add(a.e, b.e), both([](int64_t x, int64_t y) { return x + y; })};
      case 1: return {sub(a.e, b.e), both([](int64_t x, int64_t y) { return x - y; })};
      case 2: return {mul(a.e, b.e), both([](int64_t x, int64_t y) { return x * y; })};
      case 3: return {floordiv(a.e, b.e), nonzero([](int64_t x, int64_t y) { return python_floordiv(x, y); })};
      case 4: return {mod(a.e, b.e), nonzero([](int64_t x, int64_t y) { return python_mod(x, y); })};
      case 5: return {ceildiv(a.e, b.e), nonzero([](int64_t x, int64_t y) { return -python_floordiv(-x, y); })};
      case 6: return {max(a.e, b.e), both([](int64_t x, int64_t y) { return std::max(x, y); })};
      case 7: return {min(a.e, b.e), both([](int64_t x, int64_t y) { return std::min(x, y); })};
      case 8: {
        int k = pick(3);
        std::optional<int64_t> p;
        if (a.v) {
          p = 1;
          for (int i = 0; i < k; ++i) *p *= *a.v;
        }
        return {pow(a.e, k), p};
      }
      default: {
        int c = pick(7) - 3;
        return {mul(a.e, c), a.v ? std::optional<int64_t>(*a.v * c) : std::nullopt};
      }
    }
  }

  Built bool_expr(int depth) {
    if (depth == 0 || pick(3) == 0) {
      Built a = integer_expr(2), b = integer_expr(2);
      auto rel = [&](ExprRef e, bool holds) {
        return Built{e, a.v && b.v ? std::optional<int64_t>(holds) : std::nullopt};
      };
      int64_t x = a.v.value_or(0), y = b.v.value_or(0);
      switch (pick(6)) {
        case 0: return rel(eq(a.e, b.e), x == y);
        case 1: return rel(ne(a.e, b.e), x != y);
        case 2: return rel(lt(a.e, b.e), x < y);
        case 3: return rel(le(a.e, b.e), x <= y);
        case 4: return rel(gt(a.e, b.e), x > y);
        default: return rel(ge(a.e, b.e), x >= y);
      }
    }
    Built a = bool_expr(depth - 1), b = bool_expr(depth - 1);
    switch (pick(3)) {
      case 0: {
        std::optional<int64_t> v;
        if ((a.v && !*a.v) || (b.v && !*b.v)) v = 0;
        else if (a.v && b.v) v = 1;
        return {logical_and(a.e, b.e), v};
      }
      case 1: {
        std::optional<int64_t> v;
        if ((a.v && *a.v) || (b.v && *b.v)) v = 1;
        else if (a.v && b.v) v = 0;
        return {logical_or(a.e, b.e), v};
      }
      default: return {logical_not(a.e), a.v ? std::optional<int64_t>(!*a.v) : std::nullopt};
    }
  }

  Assignment assignment() const {
    return {{symbols_[0], values_[0]}, {symbols_[1], values_[1]}, {symbols_[2], values_[2]}};
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::mt19937_64 rng_;
  std::array<int64_t, 3> values_;
  std::array<ExprRef, 3> symbols_{symbol("s0"), symbol("s1"), symbol("s2")};
};

TEST(ExprSoundness, SimplificationPreservesValues) {
  std::mt19937_64 seeds(20240601);
  int checked = 0;
  for (int n = 0; n < 4000; ++n) {
    uint64_t seed = seeds();
    std::array<int64_t, 3> values{static_cast<int64_t>(seed % 15) - 5, static_cast<int64_t>((seed >> 8) % 15) - 5,
                                  static_cast<int64_t>((seed >> 16) % 15) - 5};
    RandomExpr gen(seed, values);
    RandomExpr::Built b;
    try {
      b = (seed % 3 == 0) ? gen.bool_expr(3) : gen.integer_expr(4);
    } catch (const Error&) {
      continue;  // a divisor simplified to the constant 0
    }
    if (!b.v) continue;
    ++checked;
    std::optional<int64_t> got;
    ASSERT_NO_THROW(got = evaluate(b.e, gen.assignment())) << to_python_string(b.e);
    ASSERT_EQ(got, b.v) << to_python_string(b.e) << " at s0=" << values[0] << " s1=" << values[1]
                        << " s2=" << values[2];
  }
  EXPECT_GT(checked, 2000);
}

}  // namespace
}  // namespace fakeprop
