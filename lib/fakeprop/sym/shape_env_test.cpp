// ShapeEnv behaviour, scenario by scenario, against PyTorch's symbolic_shapes
// semantics (expected values reasoned from those rules, not copied from output).
#include "fakeprop/sym/shape_env.h"
#include "fakeprop/util/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace fakeprop {
namespace {

const std::string kX0 = "L['x'].size()[0]";
const std::string kX1 = "L['x'].size()[1]";
const std::string kX2 = "L['x'].size()[2]";
const std::string kY0 = "L['y'].size()[0]";

ExprRef I(int64_t v) { return integer(v); }
SymBool B(ExprRef e) { return SymBool(e); }

std::vector<std::string> guard_exprs(const ShapeEnv& env) {
  std::vector<std::string> out;
  for (const ProducedGuard& g : env.produce_guards()) out.push_back(g.expr);
  return out;
}

bool has(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::string joined(const std::vector<std::string>& xs) {
  std::string s;
  for (const auto& x : xs) s += "  " + x + "\n";
  return s;
}

// Captures the trace at debug level; messages() strips the glog prefix.
class Trace {
 public:
  explicit Trace(ShapeEnv& env) {
    env.log().capture_to(out_);
    env.log().set_level(LogLevel::Debug);
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> msgs;
    std::istringstream in(out_.str());
    std::string line;
    while (std::getline(in, line)) {
      size_t at = line.find("] [0/0] ");
      msgs.push_back(at == std::string::npos ? line : line.substr(at + 8));
    }
    return msgs;
  }
  std::string raw() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

// ---------------------------------------------------------------------------
// symbol creation

struct ZeroOneCase {
  int64_t hint;
  bool specialize_zero_one;
  bool expect_symbol;
  ValueRange range;  // when a symbol is expected
};

class ZeroOneSpecializationTest : public ::testing::TestWithParam<ZeroOneCase> {};

TEST_P(ZeroOneSpecializationTest, HintZeroOrOne) {
  const ZeroOneCase& c = GetParam();
  ShapeEnvSettings settings;
  settings.specialize_zero_one = c.specialize_zero_one;
  ShapeEnv env(settings);
  SymInt v = env.create_symbol(c.hint, kX0);
  if (!c.expect_symbol) {
    ASSERT_TRUE(v.is_static());
    EXPECT_EQ(v.value(), c.hint);
    EXPECT_TRUE(env.symbols().empty());
    return;
  }
  ASSERT_TRUE(v.is_symbolic());
  const SymbolInfo& info = env.info(v.expr());
  EXPECT_EQ(info.range, c.range);
  EXPECT_EQ(info.hint, std::optional<int64_t>(c.hint));
  EXPECT_FALSE(info.unbacked);
}

INSTANTIATE_TEST_SUITE_P(ShapeEnv, ZeroOneSpecializationTest,
                         ::testing::Values(ZeroOneCase{0, true, false, {}},               //
                                           ZeroOneCase{1, true, false, {}},               //
                                           ZeroOneCase{2, true, true, {2, kIntOo}},       //
                                           ZeroOneCase{8, true, true, {2, kIntOo}},       //
                                           ZeroOneCase{0, false, true, {0, kIntOo}},      //
                                           ZeroOneCase{1, false, true, {0, kIntOo}},      //
                                           ZeroOneCase{8, false, true, {0, kIntOo}}));

TEST(ShapeEnvCreate, StaticDimIsTheConstant) {
  ShapeEnv env;
  SymInt v = env.create_symbol(5, kX0, DimDynamic::Static);
  ASSERT_TRUE(v.is_static());
  EXPECT_EQ(v.value(), 5);
  EXPECT_TRUE(env.symbols().empty());
}

TEST(ShapeEnvCreate, FreshSymbolsAreNamedByTheirSourceHash) {
  // torch 2.15 names these s77 and s27: sha256(source name) % 100.
  ShapeEnv env;
  SymInt a = env.create_symbol(8, kX0);
  SymInt b = env.create_symbol(3, kX1);
  ASSERT_TRUE(a.is_symbolic() && b.is_symbolic());
  EXPECT_EQ(a.expr(), symbol("s77"));
  EXPECT_EQ(b.expr(), symbol("s27"));
  auto syms = env.symbols();
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0]->sym, symbol("s77"));
  EXPECT_EQ(syms[0]->sources, std::vector<std::string>{kX0});
  EXPECT_EQ(syms[1]->hint, std::optional<int64_t>(3));
  EXPECT_EQ(env.source_of(b.expr()), kX1);
}

TEST(ShapeEnvCreate, HashCollisionsTakeTheNextIdUpSharedWithFloats) {
  // All four sources hash to 99; torch 2.15's ShapeEnv names them s99, s100,
  // zf101, s102: no wrap at 100, and zf<N> draws from the same ids.
  ShapeEnv env;
  EXPECT_EQ(env.create_symbol(10, "L['t103'].size()[0]", DimDynamic::Dynamic).expr(), symbol("s99"));
  EXPECT_EQ(env.create_symbol(10, "L['t252'].size()[0]", DimDynamic::Dynamic).expr(), symbol("s100"));
  EXPECT_EQ(env.create_symfloat(2.5, "L['f109'].item()")->name(), "zf101");
  EXPECT_EQ(env.create_symbol(11, "L['t294'].size()[0]", DimDynamic::Dynamic).expr(), symbol("s102"));
}

TEST(ShapeEnvCreate, ProbingMatchesALinearScan) {
  // 3,000 sources, 150 of them one name, beside reserved names: each id is
  // the first free one at or above the hash, as a plain scan finds it.
  ShapeEnv env;
  std::set<uint32_t> used;
  auto expect_next = [&](uint32_t start) {
    while (used.count(start)) ++start;
    used.insert(start);
    return start;
  };
  for (int k = 0; k < 3000; ++k) {
    if (k % 97 == 0) {
      const uint32_t id = 150 + static_cast<uint32_t>(k) / 10;
      if (used.insert(id).second) env.create_named_symbol("s" + std::to_string(id), 5, ValueRange{2, kIntOo}, "");
      continue;
    }
    const std::string src = k % 20 == 0 ? kX0 : "L['t" + std::to_string(k) + "'].size()[0]";
    const std::string name = env.create_symbol(5, src, DimDynamic::Dynamic).expr()->name();
    ASSERT_EQ(name, "s" + std::to_string(expect_next(sha256_mod(src, 100)))) << k;
  }
}

TEST(ShapeEnvCreate, ManyCollidingSourcesStayFast) {
  // Probing skips runs of ids in use: 50,000 symbols of one source take
  // linear time (a scan per symbol would take seconds).
  ShapeEnv env;
  for (int k = 0; k < 50000; ++k) env.create_symbol(5, kX0, DimDynamic::Dynamic);
  EXPECT_EQ(env.create_symbol(5, kX0, DimDynamic::Dynamic).expr()->name(), "s50077");
}

TEST(ShapeEnvCreate, DuckSizingAndConstantsTakeNoId) {
  ShapeEnv env;
  EXPECT_TRUE(env.create_symbol(1, kX1).is_static());  // 0/1 specialized
  EXPECT_EQ(env.create_symbol(5, kX0).expr(), symbol("s77"));
  EXPECT_EQ(env.create_symbol(5, kY0).expr(), symbol("s77"));  // duck sized: L['y'] would hash to 17
  EXPECT_EQ(env.create_symbol(6, kY0).expr(), symbol("s17"));
  EXPECT_EQ(env.create_symbol(7, kX1).expr(), symbol("s27"));
}

TEST(ShapeEnvCreate, UnbackedNamesCountFromZero) {
  ShapeEnv env;
  env.create_symbol(5, kX0);
  EXPECT_EQ(env.create_unbacked_symint()->name(), "u0");
  EXPECT_EQ(env.create_unbacked_symfloat()->name(), "zuf0");
  EXPECT_EQ(to_sympy_string(env.create_unbacked_symbool()), "Eq(u1, 1)");
}

TEST(ShapeEnvCreate, GivenNamesReserveTheirIds) {
  // An exported program's s77 is the name torch gave L['x'].size()[0]: a
  // hashed name landing on 77 moves up, also for a float.
  ShapeEnv env;
  env.create_named_symbol("s77", 8, ValueRange{2, kIntOo}, kX0);
  env.create_named_symbol("zf78", std::nullopt, ValueRange{0, kIntOo}, "");
  EXPECT_EQ(env.create_symbol(9, "L['w'].size()[0]", DimDynamic::Dynamic, {}, "s77").expr(), symbol("s15"));
  EXPECT_EQ(env.create_symbol(10, kX0, DimDynamic::Dynamic).expr(), symbol("s79"));
}

TEST(ShapeEnvCreate, WithoutASourceTheEmptyNameIsHashed) {
  // torch hashes a source whose name is "" (ConstantSource('')) to s49.
  ShapeEnv env;
  EXPECT_EQ(env.create_named_symbol("Batch Size", std::nullopt, ValueRange{0, kIntOo}, "")->name(), "s49");
  EXPECT_EQ(env.create_named_symbol("", std::nullopt, ValueRange{0, kIntOo}, "")->name(), "s50");
}

TEST(ShapeEnvCreate, DuckSizingReusesTheSymbolAndGuardsEquality) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, kX0);
  SymInt y = env.create_symbol(8, kY0);
  EXPECT_TRUE(x.same(y));
  EXPECT_EQ(env.symbols().size(), 1u);
  EXPECT_EQ(env.info(x.expr()).sources, (std::vector<std::string>{kX0, kY0}));
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, kY0 + " == " + kX0)) << joined(guards);
  EXPECT_TRUE(has(guards, "2 <= " + kX0)) << joined(guards);
}

TEST(ShapeEnvCreate, DuckSizingSwitchedOffGivesTwoSymbols) {
  ShapeEnvSettings settings;
  settings.duck_shape = false;
  ShapeEnv env(settings);
  SymInt x = env.create_symbol(8, kX0);
  SymInt y = env.create_symbol(8, kY0);
  EXPECT_FALSE(x.same(y));
  EXPECT_EQ(env.symbols().size(), 2u);
  auto guards = guard_exprs(env);
  EXPECT_FALSE(has(guards, kY0 + " == " + kX0)) << joined(guards);
  EXPECT_TRUE(has(guards, "2 <= " + kY0)) << joined(guards);
}

TEST(ShapeEnvCreate, DynamicDimIsNeverDuckSized) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, kX0, DimDynamic::Dynamic);
  SymInt y = env.create_symbol(8, kY0, DimDynamic::Duck);
  SymInt z = env.create_symbol(8, "L['z'].size()[0]", DimDynamic::Duck);
  EXPECT_FALSE(x.same(y));
  EXPECT_TRUE(y.same(z));
}

struct ConstraintCase {
  bool specialize_zero_one;
  ValueRange constraint;
  ValueRange expected;
};

class ConstraintRangeTest : public ::testing::TestWithParam<ConstraintCase> {};

TEST_P(ConstraintRangeTest, RangeIsDefaultIntersectedWithConstraint) {
  ShapeEnvSettings settings;
  settings.specialize_zero_one = GetParam().specialize_zero_one;
  ShapeEnv env(settings);
  SymInt v = env.create_symbol(8, kX0, DimDynamic::Duck, GetParam().constraint);
  ASSERT_TRUE(v.is_symbolic());
  EXPECT_EQ(env.info(v.expr()).range, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(ShapeEnv, ConstraintRangeTest,
                         ::testing::Values(ConstraintCase{true, {0, 64}, {2, 64}},      //
                                           ConstraintCase{true, {1, 64}, {2, 64}},      //
                                           ConstraintCase{true, {4, kIntOo}, {4, kIntOo}},  //
                                           ConstraintCase{false, {0, 64}, {0, 64}},     //
                                           ConstraintCase{false, {1, 64}, {1, 64}}));

TEST(ShapeEnvCreate, ConstrainedDimIsNotDuckSized) {
  ShapeEnv env;
  SymInt x = env.create_symbol(8, kX0);
  SymInt y = env.create_symbol(8, kY0, DimDynamic::Duck, ValueRange{2, 64});
  EXPECT_FALSE(x.same(y));
}

TEST(ShapeEnvCreate, HintOutsideConstraintNamesTheSource) {
  ShapeEnv env;
  try {
    env.create_symbol(100, kX0, DimDynamic::Duck, ValueRange{2, 64});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kX0), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("100"), std::string::npos) << e.what();
  }
}

TEST(ShapeEnvCreate, PreferredNameWhenFree) {
  ShapeEnv env;
  SymInt a = env.create_symbol(8, kX0, DimDynamic::Dynamic, {}, "batch");
  SymInt b = env.create_symbol(9, kY0, DimDynamic::Dynamic, {}, "batch");        // taken
  SymInt c = env.create_symbol(10, "L['z'].size()[0]", DimDynamic::Dynamic, {}, "not a name");
  EXPECT_EQ(a.expr(), symbol("batch"));
  EXPECT_EQ(b.expr(), symbol("s17"));  // named by the source then
  EXPECT_EQ(c.expr(), symbol("s68"));
}

TEST(ShapeEnvCreate, NamedSymbolWithHintIsBacked) {
  ShapeEnv env;
  ExprRef n = env.create_named_symbol("batch", 1, ValueRange{0, kIntOo}, kX0);
  EXPECT_EQ(n, symbol("batch"));
  const SymbolInfo& info = env.info(n);
  EXPECT_FALSE(info.unbacked);
  EXPECT_EQ(info.hint, std::optional<int64_t>(1));  // no 0/1 specialization
  EXPECT_EQ(info.range, (ValueRange{0, kIntOo}));
  EXPECT_EQ(info.sources, std::vector<std::string>{kX0});
  EXPECT_THROW(env.create_named_symbol("bad", 5, ValueRange{0, 4}, kX1), Error);  // hint outside range
}

TEST(ShapeEnvCreate, NamedSymbolWithoutHintIsHintless) {
  ShapeEnv env;
  ExprRef n = env.create_named_symbol("seq", std::nullopt, ValueRange{-5, 100}, "L['x'].size()[1]");
  EXPECT_EQ(n, symbol("seq"));
  // The header's policy: size-like unbacked, range clipped to sizes.
  EXPECT_TRUE(env.info(n).unbacked);
  EXPECT_TRUE(env.info(n).size_like);
  EXPECT_EQ(env.info(n).range, (ValueRange{0, 100}));
  EXPECT_EQ(env.hint(n), std::nullopt);
  // Statically known from its range, so no hint is needed here.
  EXPECT_TRUE(env.evaluate(B(ge(n, I(0))), "test"));
  EXPECT_FALSE(env.guard_size_oblivious(B(eq(n, I(1))), "test"));
  try {
    env.evaluate(B(eq(n, I(4))), "test");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_NE(std::string(e.what()).find("(Size-like symbols: seq)"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvCreate, UnbackedSymbolsAndRanges) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint();
  ExprRef u1 = env.create_unbacked_symint(/*size_like=*/true);
  ExprRef u2 = env.create_unbacked_symint(/*size_like=*/true, ValueRange{0, 24});
  EXPECT_EQ(u0, symbol("u0"));
  EXPECT_EQ(u1, symbol("u1"));
  EXPECT_EQ(u2, symbol("u2"));
  EXPECT_EQ(env.info(u0).range, ValueRange::unknown());
  EXPECT_FALSE(env.info(u0).size_like);
  EXPECT_EQ(env.info(u1).range, (ValueRange{0, kIntOo}));
  EXPECT_TRUE(env.info(u1).size_like);
  EXPECT_EQ(env.info(u2).range, (ValueRange{0, 24}));
  EXPECT_TRUE(env.info(u0).unbacked);
  EXPECT_EQ(env.info(u0).hint, std::nullopt);
}

TEST(ShapeEnvCreate, UnbackedSymboolIsEqOne) {
  ShapeEnv env;
  ExprRef b = env.create_unbacked_symbool();
  ExprRef u0 = symbol("u0");
  EXPECT_EQ(b, eq(u0, I(1)));
  EXPECT_EQ(env.info(u0).range, ValueRange::boolean());
}

TEST(ShapeEnvCreate, TakeNewUnbackedReturnsOnlyFreshOnes) {
  ShapeEnv env;
  env.create_symbol(8, kX0);
  ExprRef u0 = env.create_unbacked_symint();
  ExprRef u1 = env.create_unbacked_symint(true);
  EXPECT_EQ(env.take_new_unbacked(), (std::vector<ExprRef>{u0, u1}));
  EXPECT_TRUE(env.take_new_unbacked().empty());
  ExprRef u2 = env.create_unbacked_symint();
  EXPECT_EQ(env.take_new_unbacked(), (std::vector<ExprRef>{u2}));
}

TEST(ShapeEnvCreate, UnknownSymbolInfoThrows) {
  ShapeEnv env;
  EXPECT_FALSE(env.is_symbol_known(symbol("s77")));
  EXPECT_THROW(env.info(symbol("s77")), Error);
  env.create_symbol(8, kX0);
  EXPECT_TRUE(env.is_symbol_known(symbol("s77")));
  EXPECT_THROW(env.info(symbol("zz_not_here")), Error);
}

// ---------------------------------------------------------------------------
// static reasoning

struct StaticCase {
  const char* what;
  std::function<ExprRef(ExprRef)> cond;  // over s0 (hint 8, range [2, int_oo])
  std::optional<bool> expected;
};

class StaticallyKnownTest : public ::testing::TestWithParam<StaticCase> {};

TEST_P(StaticallyKnownTest, DecidedFromRangesAlone) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef cond = GetParam().cond(s0);
  EXPECT_EQ(env.maybe_evaluate_static(cond), GetParam().expected) << GetParam().what;
  if (GetParam().expected) {
    EXPECT_EQ(env.evaluate(B(cond), "test"), *GetParam().expected) << GetParam().what;
  }
  EXPECT_EQ(env.statically_known_true(B(cond)), GetParam().expected == std::optional<bool>(true));
  EXPECT_TRUE(env.guards().empty()) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    ShapeEnv, StaticallyKnownTest,
    ::testing::Values(
        StaticCase{"s0 == 1", [](ExprRef s) { return eq(s, I(1)); }, false},
        StaticCase{"s0 == 0", [](ExprRef s) { return eq(s, I(0)); }, false},
        StaticCase{"s0 != 1", [](ExprRef s) { return ne(s, I(1)); }, true},
        StaticCase{"s0 >= 2", [](ExprRef s) { return ge(s, I(2)); }, true},
        StaticCase{"s0 > 1", [](ExprRef s) { return gt(s, I(1)); }, true},
        StaticCase{"s0 < 2", [](ExprRef s) { return lt(s, I(2)); }, false},
        StaticCase{"16*s0 == 16", [](ExprRef s) { return eq(mul(s, 16), I(16)); }, false},
        StaticCase{"s0 + 1 > s0", [](ExprRef s) { return gt(add(s, I(1)), s); }, true},
        StaticCase{"2*s0 >= s0 + 2", [](ExprRef s) { return ge(mul(s, 2), add(s, I(2))); }, true},
        StaticCase{"max(1, s0) == s0", [](ExprRef s) { return eq(max(I(1), s), s); }, true},
        StaticCase{"s0 == 8 is not static", [](ExprRef s) { return eq(s, I(8)); }, std::nullopt},
        StaticCase{"s0 > 4 is not static", [](ExprRef s) { return gt(s, I(4)); }, std::nullopt}));

// torch 2.15's ShapeEnv.simplify on an s0 in [2, 64] keeps s0//100 and
// Mod(s0, 100) (measured); deciding still bounds the whole expression.
// A value folds Max and Min as sympy does, by assumptions (s0 is a positive
// size); a decision folds them by ranges too, as torch's static evaluation.
TEST(ShapeEnvSimplify, MaxFoldsByAssumptionsDecisionsByRangesNoDivisionReduced) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0, DimDynamic::Duck, ValueRange{2, 64}).expr();
  EXPECT_EQ(env.simplify(max(I(1), s0)), s0);  // s0 >= 1 by assumption
  EXPECT_EQ(env.simplify(min(I(1), s0)), I(1));
  EXPECT_EQ(env.simplify(max(I(70), s0)), max(I(70), s0));  // s0 <= 64 is a range only
  EXPECT_EQ(env.maybe_evaluate_static(eq(max(I(70), s0), I(70))), std::optional<bool>(true));
  EXPECT_EQ(env.simplify(max(I(1), sub(s0, I(1)))), max(I(1), sub(s0, I(1))));
  EXPECT_EQ(env.maybe_evaluate_static(eq(max(I(1), sub(s0, I(1))), sub(s0, I(1)))), std::optional<bool>(true));
  EXPECT_EQ(env.simplify(floordiv(s0, I(100))), floordiv(s0, I(100)));
  EXPECT_EQ(env.simplify(mod(s0, I(100))), mod(s0, I(100)));
  EXPECT_EQ(env.maybe_evaluate_static(eq(floordiv(s0, I(100)), I(0))), std::optional<bool>(true));
  EXPECT_EQ(env.simplify(max(I(8), s0)), max(I(8), s0));
  EXPECT_EQ(env.simplify(mod(s0, I(8))), mod(s0, I(8)));
  EXPECT_EQ(env.simplify(mod(mul(s0, 8), I(8))), I(0));
}

// torch's simplify folds Max(1, e) where its ranges cannot by asking the
// guards whether 1 <= e, in lowest terms: after 4*s1*q >= 2 (q = s0//(s0//2),
// which ranges put in [0, int_oo]), Max(1, 2*s1*q) is 2*s1*q (c20_p0330).
TEST(ShapeEnvSimplify, MaxOfOneFoldsByAGuardInLowestTerms) {
  auto make = [](ShapeEnv& env) {
    ExprRef s0 = env.create_symbol(6, kX0).expr();
    ExprRef s1 = env.create_symbol(8, kX1).expr();
    return std::pair{s1, floordiv(s0, floordiv(s0, I(2)))};
  };
  ShapeEnv without;
  auto [t1, tq] = make(without);
  ExprRef te = mul(mul(I(2), t1), tq);
  EXPECT_EQ(without.maybe_evaluate_static(eq(max(I(1), te), te)), std::nullopt);
  ShapeEnv env;
  auto [s1, q] = make(env);
  ExprRef e = mul(mul(I(2), s1), q);
  EXPECT_TRUE(env.evaluate(B(ge(mul(I(4), mul(s1, q)), I(2))), "test"));
  EXPECT_EQ(env.maybe_evaluate_static(eq(max(I(1), e), e)), std::optional<bool>(true));
  EXPECT_EQ(env.maybe_evaluate_static(ge(sub(e, I(1)), I(0))), std::optional<bool>(true));
}

TEST(ShapeEnvSimplify, HintEvaluatesWithBackedHints) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef s1 = env.create_symbol(3, kX1).expr();
  EXPECT_EQ(env.hint(add(mul(s0, 2), I(1))), std::optional<int64_t>(17));
  EXPECT_EQ(env.hint(floordiv(s0, s1)), std::optional<int64_t>(2));
  EXPECT_EQ(env.hint(SymInt(mul(s0, s1))), std::optional<int64_t>(24));
  EXPECT_EQ(env.hint(SymInt(5)), std::optional<int64_t>(5));
  ExprRef u0 = env.create_unbacked_symint();
  EXPECT_EQ(env.hint(add(s0, u0)), std::nullopt);
  EXPECT_TRUE(env.guards().empty());
}

// ---------------------------------------------------------------------------
// guards

TEST(ShapeEnvGuards, EvaluateTrueRecordsTheConditionWithNodeAndRule) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  env.set_current_node("conv_1");
  EXPECT_TRUE(env.evaluate(B(gt(s0, I(4))), "conv_output_size"));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].expr, gt(s0, I(4)));
  EXPECT_EQ(env.guards()[0].node, "conv_1");
  EXPECT_EQ(env.guards()[0].rule, "conv_output_size");
}

TEST(ShapeEnvGuards, EvaluateFalseRecordsTheNegation) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  EXPECT_FALSE(env.evaluate(B(eq(s0, I(4))), "broadcast"));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].expr, ne(s0, I(4)));
  EXPECT_EQ(env.guards()[0].node, "");
  // Decided once, known from then on: no second guard.
  EXPECT_FALSE(env.evaluate(B(eq(s0, I(4))), "broadcast"));
  EXPECT_TRUE(env.evaluate(B(ne(s0, I(4))), "broadcast"));
  EXPECT_EQ(env.guards().size(), 1u);
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, kX0 + " != 4")) << joined(guards);
}

TEST(ShapeEnvGuards, ZeroOneOffMakesEqOneAGuard) {
  ShapeEnvSettings settings;
  settings.specialize_zero_one = false;
  ShapeEnv env(settings);
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  EXPECT_FALSE(env.evaluate(B(eq(s0, I(1))), "broadcast"));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].expr, ne(s0, I(1)));
}

TEST(ShapeEnvGuards, StaticallyKnownTrueNeverGuards) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  EXPECT_FALSE(env.statically_known_true(B(gt(s0, I(4)))));
  EXPECT_TRUE(env.statically_known_true(B(ge(s0, I(2)))));
  EXPECT_TRUE(env.statically_known_true(SymBool(true)));
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvGuards, SolvingAnEqualityReplacesTheNameThatSortsLast) {
  // Equal hints: torch 2.15 solves for the name that sorts last, s77
  // (L['x']) over s17 (L['y']), whichever is older.
  ShapeEnvSettings settings;
  settings.duck_shape = false;
  ShapeEnv env(settings);
  ExprRef s77 = env.create_symbol(8, kX0).expr();
  ExprRef s17 = env.create_symbol(8, kY0).expr();
  EXPECT_TRUE(env.evaluate(B(eq(s17, s77)), "add_broadcast"));
  EXPECT_EQ(env.simplify(s77), s17);
  EXPECT_EQ(env.simplify(add(s77, s17)), mul(s17, 2));
  ASSERT_EQ(env.replacements().count(s77), 1u);
  EXPECT_EQ(env.replacements().at(s77), s17);
  EXPECT_TRUE(env.specializations().empty());
  auto guards = guard_exprs(env);
  // As torch prints it: s17 over the first source that stands for it, L['x'].
  EXPECT_TRUE(has(guards, kY0 + " == " + kX0)) << joined(guards);
  // The equality guard itself is implied by the replacement.
  EXPECT_EQ(std::count_if(guards.begin(), guards.end(),
                          [&](const std::string& g) { return g.find("==") != std::string::npos; }),
            1)
      << joined(guards);
  EXPECT_TRUE(has(guards, "2 <= " + kX0)) << joined(guards);
  EXPECT_FALSE(has(guards, "2 <= " + kY0)) << joined(guards);
}

TEST(ShapeEnvGuards, SolvingAnEqualityReplacesTheLargerHintFirst) {
  // Eq(s68, 2*s27): torch 2.15 replaces s68 = 2*s27 (hint 8 before 4).
  ShapeEnv env;
  ExprRef s27 = env.create_symbol(4, kX1).expr();
  ExprRef s68 = env.create_symbol(8, "L['z'].size()[0]").expr();
  EXPECT_TRUE(env.evaluate(B(eq(s68, mul(s27, 2))), "test"));
  EXPECT_EQ(env.simplify(s68), mul(s27, 2));
}

TEST(ShapeEnvGuards, LinearEqualityIsSolvedOnlyWhenExact) {
  ShapeEnvSettings settings;
  settings.duck_shape = false;
  ShapeEnv env(settings);
  ExprRef s0 = env.create_symbol(4, kX0).expr();
  ExprRef s1 = env.create_symbol(8, kY0).expr();
  EXPECT_TRUE(env.evaluate(B(eq(s1, mul(s0, 2))), "concat"));
  EXPECT_EQ(env.simplify(s1), mul(s0, 2));  // s1 = 2*s0 is exact; s0 = s1/2 is not
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, kY0 + " == 2*" + kX0)) << joined(guards);
}

TEST(ShapeEnvGuards, EqualityWithAConstantSpecializes) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  env.set_current_node("reshape_1");
  EXPECT_TRUE(env.evaluate(B(eq(s0, I(8))), "reshape"));
  EXPECT_EQ(env.simplify(s0), I(8));
  ASSERT_EQ(env.specializations().size(), 1u);
  const SpecializationRecord& spec = env.specializations()[0];
  EXPECT_EQ(spec.sym, s0);
  EXPECT_EQ(spec.value, 8);
  EXPECT_EQ(spec.node, "reshape_1");
  EXPECT_EQ(spec.reason, "Eq(s77, 8) at node reshape_1");
  // A tensor's size now constant is the tensor match's (produce_guards' ignore_static), no shape guard.
  auto guards = guard_exprs(env);
  EXPECT_FALSE(has(guards, kX0 + " == 8")) << joined(guards);
  EXPECT_FALSE(has(guards, "2 <= " + kX0)) << joined(guards);  // no range line for a constant
}

TEST(ShapeEnvGuards, AnIntInputSpecializedKeepsItsGuard) {
  // An int argument has no tensor match: its specialization is a shape guard.
  ShapeEnv env;
  ExprRef n = env.create_symbol(8, "L['n']").expr();
  EXPECT_TRUE(env.evaluate(B(eq(n, I(8))), "arange"));
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, "L['n'] == 8")) << joined(guards);
}

TEST(ShapeEnvGuards, EvaluateIntSpecializes) {
  ShapeEnv env;
  SymInt s0 = env.create_symbol(8, kX0);
  EXPECT_EQ(env.evaluate_int(s0 * SymInt(2), "arange"), 16);
  EXPECT_EQ(env.simplify(s0.expr()), I(8));
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].expr, eq(mul(s0.expr(), 2), I(16)));
  EXPECT_EQ(env.specializations().size(), 1u);
  auto guards = guard_exprs(env);
  EXPECT_FALSE(has(guards, kX0 + " == 8")) << joined(guards);  // the tensor match's
  // Now static: no new guard.
  EXPECT_EQ(env.evaluate_int(s0, "arange"), 8);
  EXPECT_EQ(env.guards().size(), 1u);
}

TEST(ShapeEnvGuards, EvaluateIntOfFloorDivGuardsWithoutSpecializing) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(9, kX0).expr();
  EXPECT_EQ(env.evaluate_int(SymInt(floordiv(s0, I(2))), "split"), 4);
  EXPECT_TRUE(env.specializations().empty());
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, "(" + kX0 + " // 2) == 4")) << joined(guards);
}

TEST(ShapeEnvGuards, DivisibilityIsRememberedThroughLcm) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(16, kX0).expr();
  EXPECT_TRUE(env.evaluate(B(eq(mod(s0, I(8)), I(0))), "view"));
  EXPECT_EQ(env.simplify(mod(s0, I(8))), I(0));
  EXPECT_EQ(env.simplify(mod(s0, I(4))), I(0));  // 4 divides 8
  EXPECT_EQ(env.simplify(mod(mul(s0, 3), I(24))), I(0));
  EXPECT_EQ(env.simplify(mod(s0, I(16))), mod(s0, I(16)));  // not known
  ExprRef s1 = env.create_symbol(3, kX1).expr();
  EXPECT_EQ(env.simplify(mod(mul(s0, s1), I(8))), I(0));              // 8 | s0 divides s0*s1
  EXPECT_EQ(env.simplify(mod(mul(pow(s0, 2), s1), I(64))), I(0));      // 64 | s0**2
  EXPECT_EQ(env.simplify(mod(add(mul(s0, 2), I(4)), I(4))), I(0));     // 16 | 2*s0, 4 | 4
  EXPECT_EQ(env.simplify(mod(add(s0, s1), I(8))), mod(add(s0, s1), I(8)));
  EXPECT_TRUE(env.statically_known_true(B(eq(mod(s0, I(4)), I(0)))));
  EXPECT_FALSE(env.statically_known_true(B(eq(mod(s0, I(3)), I(0)))));
  EXPECT_EQ(env.maybe_evaluate_static(eq(s0, I(12))), std::optional<bool>(false));  // 12 % 8 != 0
  EXPECT_EQ(env.divisibility_facts(), (std::vector<std::pair<ExprRef, int64_t>>{{s0, 8}}));
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_TRUE(env.specializations().empty());
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, "(" + kX0 + " % 8) == 0")) << joined(guards);
}

// A floor division of a size known divisible divides exactly where no
// fraction results, as torch's simplify (CleanDiv) does when deciding:
// 4*(s0//4) >= 2 is s0 >= 2; (s0//4) alone keeps its floor, so whether it
// is 0 is still a question (torch guards it too).
TEST(ShapeEnvGuards, ExactDivisionDecidesMultiplesOfAFloorDivision) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(16, kX0).expr();
  EXPECT_FALSE(env.maybe_evaluate_static(ge(mul(floordiv(s0, I(4)), 4), I(2))).has_value());
  EXPECT_TRUE(env.evaluate(B(eq(mod(s0, I(4)), I(0))), "view"));
  EXPECT_EQ(env.maybe_evaluate_static(ge(mul(floordiv(s0, I(4)), 4), I(2))), std::optional<bool>(true));
  // Only d*(s//d) cancels, as torch 2.15's cancel_clean_div: 8*(s//4) + 1 < 3
  // and 16*(s//4) < 2 stay undecided there (measured with torch 2.15).
  EXPECT_FALSE(env.maybe_evaluate_static(lt(add(mul(floordiv(s0, I(4)), 8), I(1)), I(3))).has_value());
  EXPECT_FALSE(env.maybe_evaluate_static(lt(mul(floordiv(s0, I(4)), 16), I(2))).has_value());
  EXPECT_FALSE(env.maybe_evaluate_static(ne(floordiv(s0, I(4)), I(0))).has_value());
  EXPECT_FALSE(env.maybe_evaluate_static(ge(mul(floordiv(s0, I(8)), 8), I(2))).has_value());  // 8 not known to divide
  EXPECT_EQ(env.guards().size(), 1u);
}

// The same with a symbolic divisor (torch's divisible set holds any guarded
// Mod): after Mod(s0, s2) == 0, s1*s2*(s0//s2) is s1*s0, as a reshape of
// [s0, s1, s2] to [s2, -1] needs; s2**2*(s0//s2) keeps its floor (s2 is no
// factor of that product in sympy's args; measured with torch 2.15).
TEST(ShapeEnvGuards, ExactDivisionByASymbolicDivisorCancelsOnlyAPlainFactor) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(4, kX0).expr();
  ExprRef s1 = env.create_symbol(6, kX1).expr();
  ExprRef s2 = env.create_symbol(2, kX2).expr();
  ExprRef q = floordiv(s0, s2);
  const ExprRef same = eq(mul(s1, s0), mul(mul(s1, s2), q));
  EXPECT_FALSE(env.maybe_evaluate_static(same).has_value());
  EXPECT_TRUE(env.evaluate(B(eq(mod(s0, s2), I(0))), "view"));
  EXPECT_EQ(env.maybe_evaluate_static(same), std::optional<bool>(true));
  EXPECT_EQ(env.maybe_evaluate_static(eq(mod(mul(mul(s1, s2), q), mul(s1, s0)), I(0))), std::optional<bool>(true));
  EXPECT_FALSE(env.maybe_evaluate_static(ne(mul(mul(s1, pow(s2, 2)), q), I(0))).has_value());
  EXPECT_EQ(env.guards().size(), 1u);
}

// torch 2.15 decides these statically (its shift of each symbol to a positive
// dummy plus its lower bound); interval arithmetic alone leaves s1*s0 - s0 open.
TEST(ShapeEnvGuards, AMonomialTimesAFactorOfAtLeastTwoIsBigger) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(6, kX0).expr();
  ExprRef s1 = env.create_symbol(8, kX1).expr();
  EXPECT_EQ(env.maybe_evaluate_static(ne(mul(s0, s1), s0)), std::optional<bool>(true));
  EXPECT_EQ(env.maybe_evaluate_static(eq(s1, mul(s0, s1))), std::optional<bool>(false));
  EXPECT_EQ(env.maybe_evaluate_static(lt(s0, mul(s0, s1))), std::optional<bool>(true));
  EXPECT_EQ(env.maybe_evaluate_static(ge(s0, mul(mul(s0, s1), 3))), std::optional<bool>(false));
  EXPECT_FALSE(env.maybe_evaluate_static(eq(floordiv(s0, I(4)), mul(floordiv(s0, I(4)), s1))).has_value());  // may be 0
  EXPECT_TRUE(env.guards().empty());
}

// torch 2.15's Mod.eval under _maybe_evaluate_static's shifted symbols:
// Mod(s0, s0*s1) is s0 (s0 < s0*s1 for s0, s1 >= 2), Mod(s0*s1, s0) is 0;
// reshape's `accum % length != 0` then makes no guard (measured:
// x.flatten(1) on a dynamic (2, 3, 4) guards nothing beyond the ranges).
TEST(ShapeEnvGuards, ModOfASmallerMonomialIsItself) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(3, kX0).expr();
  ExprRef s1 = env.create_symbol(4, kX1).expr();
  EXPECT_EQ(env.maybe_evaluate_static(ne(mod(s0, mul(s0, s1)), I(0))), std::optional<bool>(true));
  EXPECT_EQ(env.maybe_evaluate_static(eq(mod(mul(s0, s1), s0), I(0))), std::optional<bool>(true));
  EXPECT_FALSE(env.maybe_evaluate_static(eq(mod(s1, s0), I(0))).has_value());  // neither divides the other
  EXPECT_TRUE(env.guards().empty());
}

// torch's simplify: p // (p // d) is d once p % d == 0 and p % (p // d) == 0
// are known (view(-1, 3) of 5*s elements: (5*s)//((5*s)//3) == 3 is no guard).
TEST(ShapeEnvGuards, NestedFloorDivOfKnownDivisorsIsTheDivisor) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(6, kX0).expr();
  ExprRef n = mul(s0, 5);
  ExprRef q = floordiv(n, I(3));
  EXPECT_FALSE(env.maybe_evaluate_static(eq(floordiv(n, q), I(3))).has_value());
  EXPECT_TRUE(env.evaluate(B(eq(mod(n, I(3)), I(0))), "view"));
  EXPECT_FALSE(env.maybe_evaluate_static(eq(floordiv(n, q), I(3))).has_value());  // p % (p // 3) not known yet
  EXPECT_FALSE(env.evaluate(B(ne(mod(n, q), I(0))), "view"));
  EXPECT_EQ(env.maybe_evaluate_static(eq(floordiv(n, q), I(3))), std::optional<bool>(true));
  EXPECT_EQ(env.guards().size(), 2u);
}

struct RefineCase {
  const char* what;
  std::function<ExprRef(ExprRef)> cond;  // over s0 with hint 8, decided true
  ValueRange expected;
  const char* range_line;  // produce_guards' range line over L['x'].size()[0]
};

class RangeRefinementTest : public ::testing::TestWithParam<RefineCase> {};

TEST_P(RangeRefinementTest, GuardNarrowsTheRange) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  EXPECT_TRUE(env.evaluate(B(GetParam().cond(s0)), "test")) << GetParam().what;
  EXPECT_EQ(env.info(s0).range, GetParam().expected) << GetParam().what;
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, GetParam().range_line)) << joined(guards);
  // The range line covers the guard: it is not printed a second time.
  EXPECT_EQ(guards.size(), 1u) << joined(guards);
}

INSTANTIATE_TEST_SUITE_P(
    ShapeEnv, RangeRefinementTest,
    ::testing::Values(
        RefineCase{"s0 <= 64", [](ExprRef s) { return le(s, I(64)); }, {2, 64}, "2 <= L['x'].size()[0] <= 64"},
        RefineCase{"s0 < 65", [](ExprRef s) { return lt(s, I(65)); }, {2, 64}, "2 <= L['x'].size()[0] <= 64"},
        RefineCase{"64 >= s0", [](ExprRef s) { return ge(I(64), s); }, {2, 64}, "2 <= L['x'].size()[0] <= 64"},
        RefineCase{"s0 > 4", [](ExprRef s) { return gt(s, I(4)); }, {5, kIntOo}, "5 <= L['x'].size()[0]"},
        RefineCase{"s0 >= 4", [](ExprRef s) { return ge(s, I(4)); }, {4, kIntOo}, "4 <= L['x'].size()[0]"},
        RefineCase{"2*s0 <= 100", [](ExprRef s) { return le(mul(s, 2), I(100)); }, {2, 50},
                   "2 <= L['x'].size()[0] <= 50"},
        RefineCase{"s0 + 3 < 20", [](ExprRef s) { return lt(add(s, I(3)), I(20)); }, {2, 16},
                   "2 <= L['x'].size()[0] <= 16"},
        RefineCase{"-s0 < -5", [](ExprRef s) { return lt(neg(s), I(-5)); }, {6, kIntOo}, "6 <= L['x'].size()[0]"}));

// torch's _maybe_guard_rel returns for Ne before _refine_ranges: a guard or a
// runtime assert x != 0 narrows no range, even at its end; it is a fact all
// the same (x == 0 is then known false).
TEST(ShapeEnvGuards, NotEqualNarrowsNoRange) {
  ShapeEnvSettings settings;
  settings.specialize_zero_one = false;
  ShapeEnv env(settings);
  ExprRef s0 = env.create_symbol(8, kX0).expr();  // [0, int_oo]
  EXPECT_FALSE(env.evaluate(B(eq(s0, I(0))), "test"));
  EXPECT_EQ(env.info(s0).range, (ValueRange{0, kIntOo}));
  EXPECT_FALSE(env.evaluate(B(eq(s0, I(5))), "test"));
  EXPECT_EQ(env.info(s0).range, (ValueRange{0, kIntOo}));
  EXPECT_EQ(env.maybe_evaluate_static(eq(s0, I(0))), std::optional<bool>(false));

  ExprRef u1 = env.create_unbacked_symint(true);  // [0, int_oo]
  env.defer_runtime_assert(B(ne(u1, I(0))), "test");
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.info(u1).range, (ValueRange{0, kIntOo}));
  EXPECT_EQ(env.maybe_evaluate_static(eq(u1, I(0))), std::optional<bool>(false));
}

TEST(ShapeEnvGuards, RangeRefinedToSingletonSpecializes) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(2, kX0).expr();
  EXPECT_TRUE(env.evaluate(B(le(s0, I(2))), "test"));
  EXPECT_EQ(env.simplify(s0), I(2));
  ASSERT_EQ(env.specializations().size(), 1u);
  EXPECT_EQ(env.specializations()[0].value, 2);
}

TEST(ShapeEnvGuards, ReplacementNarrowsTheTargetRange) {
  ShapeEnvSettings settings;
  settings.duck_shape = false;
  ShapeEnv env(settings);
  ExprRef s77 = env.create_symbol(8, kX0, DimDynamic::Dynamic, ValueRange{2, 32}).expr();
  ExprRef s17 = env.create_symbol(8, kY0).expr();
  EXPECT_TRUE(env.evaluate(B(eq(s77, s17)), "add"));
  EXPECT_EQ(env.simplify(s77), s17);
  EXPECT_EQ(env.info(s17).range, (ValueRange{2, 32}));
  auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, "2 <= " + kX0 + " <= 32")) << joined(guards);
}

// ---------------------------------------------------------------------------
// unbacked symbols

TEST(ShapeEnvUnbacked, GuardSizeObliviousDecidesSizeLikeWithoutGuard) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(/*size_like=*/true);
  EXPECT_FALSE(env.guard_size_oblivious(B(eq(u0, I(1))), "broadcast"));
  EXPECT_TRUE(env.guard_size_oblivious(B(ne(u0, I(0))), "broadcast"));
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.runtime_asserts().empty());
  EXPECT_EQ(env.bound(u0, /*size_oblivious=*/true), (ValueRange{2, kIntOo}));
  EXPECT_EQ(env.bound(u0), (ValueRange{0, kIntOo}));
  // Not size-like: size-oblivious reasoning does not apply.
  ExprRef u1 = env.create_unbacked_symint();
  EXPECT_THROW(env.guard_size_oblivious(B(eq(u1, I(1))), "broadcast"), DataDependentError);
}

TEST(ShapeEnvUnbacked, BackedSizeObliviousSetting) {
  ShapeEnvSettings settings;
  settings.specialize_zero_one = false;
  settings.backed_size_oblivious = true;
  ShapeEnv env(settings);
  ExprRef s0 = env.create_symbol(8, kX0).expr();  // [0, int_oo]
  EXPECT_FALSE(env.guard_size_oblivious(B(eq(s0, I(1))), "broadcast"));
  EXPECT_TRUE(env.guards().empty());
  ShapeEnvSettings plain;
  plain.specialize_zero_one = false;
  ShapeEnv env2(plain);
  ExprRef t0 = env2.create_symbol(8, kX0).expr();
  EXPECT_FALSE(env2.guard_size_oblivious(B(eq(t0, I(1))), "broadcast"));
  EXPECT_EQ(env2.guards().size(), 1u);  // decided by the hint instead
}

TEST(ShapeEnvUnbacked, EvaluateRaisesPyTorchsDataDependentError) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(/*size_like=*/true);
  env.set_current_node("x");
  try {
    env.evaluate(B(eq(u0, I(1))), "broadcast");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    std::string what = e.what();
    const std::string head =
        "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: u0)";
    EXPECT_EQ(what.substr(0, head.size()), head) << what;
    EXPECT_EQ(what.substr(head.size(), 2), "\n\n") << what;
    EXPECT_NE(what.find("guard_or_false, guard_or_true and statically_known_true"), std::string::npos) << what;
    EXPECT_NE(what.find("Caused by: node 'x'"), std::string::npos) << what;
    EXPECT_EQ(e.cond(), eq(u0, I(1)));
    EXPECT_EQ(e.suggested_fixes(), (std::vector<std::string>{"torch._check(u0 == 1)", "torch._check(u0 != 1)"}));
  }
  EXPECT_TRUE(env.guards().empty());
}

TEST(ShapeEnvUnbacked, DataDependentErrorListsNoSizeLikeSymbols) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint();
  try {
    env.evaluate(B(lt(u0, I(5))), "index");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("(Size-like symbols: none)"), std::string::npos) << what;
    EXPECT_NE(what.find("Caused by:"), std::string::npos) << what;
    EXPECT_EQ(e.suggested_fixes(), (std::vector<std::string>{"torch._check(u0 < 5)", "torch._check(u0 >= 5)"}));
  }
}

TEST(ShapeEnvUnbacked, DataDependentErrorShowsBackedHints) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef u0 = env.create_unbacked_symint(true);
  try {
    env.evaluate(B(eq(u0, s0)), "expand");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    std::string what = e.what();
    // The guarded form substitutes s0's hint; the unhinted one keeps s0.
    EXPECT_NE(what.find("expression " + to_sympy_string(eq(u0, I(8))) + " (unhinted: " +
                        to_sympy_string(eq(u0, s0)) + ")"),
              std::string::npos)
        << what;
    EXPECT_EQ(e.cond(), eq(u0, I(8)));
  }
}

TEST(ShapeEnvUnbacked, EvaluateIntOnUnbackedRaises) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(/*size_like=*/true);
  try {
    env.evaluate_int(SymInt(u0), "arange");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    std::string what = e.what();
    const std::string head =
        "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  (Size-like "
        "symbols: u0)";
    EXPECT_EQ(what.substr(0, head.size()), head) << what;
    EXPECT_TRUE(e.suggested_fixes().empty());
  }
}

TEST(ShapeEnvUnbacked, ExpectTrueDefersARuntimeAssert) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  ExprRef u1 = env.create_unbacked_symint(true);
  env.set_current_node("add_1");
  EXPECT_TRUE(env.expect_true(B(eq(u0, u1)), "broadcast"));
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.runtime_asserts()[0].expr, eq(u0, u1));
  EXPECT_EQ(env.runtime_asserts()[0].node, "add_1");
  EXPECT_EQ(env.runtime_asserts()[0].rule, "broadcast");
  EXPECT_TRUE(env.guards().empty());
  // The newer unbacked symbol is replaced by the older one.
  EXPECT_EQ(env.simplify(u1), u0);
  EXPECT_TRUE(env.statically_known_true(B(eq(u0, u1))));
  EXPECT_TRUE(env.expect_true(B(eq(u1, u0)), "broadcast"));
  EXPECT_EQ(env.runtime_asserts().size(), 1u);
  // Runtime asserts are not shape guards.
  auto guards = guard_exprs(env);
  EXPECT_TRUE(guards.empty()) << joined(guards);
}

TEST(ShapeEnvUnbacked, ExpectTrueOnBackedGuards) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  EXPECT_TRUE(env.expect_true(B(gt(s0, I(4))), "check"));
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_TRUE(env.runtime_asserts().empty());
}

TEST(ShapeEnvUnbacked, RuntimeAssertNarrowsRange) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  env.defer_runtime_assert(B(ge(u0, I(2))), "torch._check");
  EXPECT_EQ(env.info(u0).range, (ValueRange{2, kIntOo}));
  env.defer_runtime_assert(B(le(u0, I(100))), "torch._check");
  EXPECT_EQ(env.info(u0).range, (ValueRange{2, 100}));
  EXPECT_EQ(env.runtime_asserts().size(), 2u);
  // Now statically known: no third assert.
  env.defer_runtime_assert(B(gt(u0, I(1))), "torch._check");
  EXPECT_EQ(env.runtime_asserts().size(), 2u);
  EXPECT_TRUE(env.evaluate(B(ne(u0, I(1))), "broadcast"));
}

TEST(ShapeEnvUnbacked, RuntimeAssertThatCannotHoldThrows) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  try {
    env.defer_runtime_assert(B(lt(u0, I(0))), "torch._check");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Runtime assertion failed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(env.defer_runtime_assert(SymBool(false), "torch._check"), Error);
  EXPECT_NO_THROW(env.defer_runtime_assert(SymBool(true), "torch._check"));
  EXPECT_TRUE(env.runtime_asserts().empty());
}

TEST(ShapeEnvUnbacked, RuntimeAssertOnBackedIsAGuard) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  env.defer_runtime_assert(B(gt(s0, I(4))), "torch._check");
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_TRUE(env.runtime_asserts().empty());
  EXPECT_THROW(env.defer_runtime_assert(B(gt(s0, I(10))), "torch._check"), Error);  // false for hint 8
}

// ---------------------------------------------------------------------------
// branches (an If whose condition is not decided)

TEST(ShapeEnvBranch, RuntimeAssertInsideABranchIsAnImplication) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  ExprRef u1 = env.create_unbacked_symint(true);
  ExprRef cond = gt(u1, I(0));
  env.push_branch(cond);
  EXPECT_TRUE(env.statically_known_true(B(cond))) << "the branch assumes its condition";
  env.defer_runtime_assert(B(eq(u0, I(4))), "reshape");
  EXPECT_TRUE(env.statically_known_true(B(eq(u0, I(4))))) << "inside the branch the assert holds";
  EXPECT_EQ(env.pop_branch(), cond);
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(env.runtime_asserts()[0].expr, env.simplify(logical_or(logical_not(cond), eq(u0, I(4)))));
  // Nothing of the branch leaks out: no fact, no narrowed range.
  EXPECT_FALSE(env.maybe_evaluate_static(eq(u0, I(4))).has_value());
  EXPECT_FALSE(env.maybe_evaluate_static(cond).has_value());
  EXPECT_EQ(env.info(u0).range, (ValueRange{0, kIntOo}));
  // The other side assumes the negation.
  env.push_branch(cond, true);
  EXPECT_TRUE(env.statically_known_true(B(logical_not(cond))));
  env.pop_branch();
}

TEST(ShapeEnvBranch, OpaqueConditionGetsOneSymboolForBothSides) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  env.set_current_node("if0");
  env.push_branch(nullptr);
  env.set_current_node("if0/then/reshape");
  env.defer_runtime_assert(B(eq(u0, I(4))), "reshape");
  env.set_current_node("if0");
  ExprRef c = env.pop_branch();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(to_sympy_string(c), "Eq(u1, 1)");
  EXPECT_EQ(env.info(free_symbols(c)[0]).node, "if0") << "the symbool stands for the If's condition";
  env.push_branch(c, true);
  env.defer_runtime_assert(B(eq(u0, I(5))), "reshape");
  EXPECT_EQ(env.pop_branch(), c);
  ASSERT_EQ(env.runtime_asserts().size(), 2u);
  EXPECT_EQ(to_sympy_string(env.runtime_asserts()[0].expr), "Eq(u0, 4) | Ne(u1, 1)");
  EXPECT_EQ(to_sympy_string(env.runtime_asserts()[1].expr), "Eq(u0, 5) | Eq(u1, 1)");
}

TEST(ShapeEnvBranch, BackedAssertInsideABranchIsNeitherAGuardNorAnError) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef u0 = env.create_unbacked_symint(true);
  env.push_branch(eq(u0, I(1)));
  EXPECT_NO_THROW(env.defer_runtime_assert(B(eq(s0, I(3))), "reshape")) << "false at the hint, but the branch may not run";
  env.pop_branch();
  EXPECT_TRUE(env.guards().empty());
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(to_sympy_string(env.runtime_asserts()[0].expr), "Eq(s77, 3) | Ne(u0, 1)");
  EXPECT_FALSE(env.simplify(s0)->is_integer()) << "s0 is not specialized";
}

TEST(ShapeEnvBranch, AssertThatCannotHoldSaysTheBranchMustNotRun) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  ExprRef u1 = env.create_unbacked_symint(true);
  env.push_branch(gt(u1, I(3)));
  try {
    env.defer_runtime_assert(B(lt(u0, I(0))), "torch._check");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must not run"), std::string::npos) << e.what();
  }
  env.pop_branch();
  ASSERT_EQ(env.runtime_asserts().size(), 1u);
  EXPECT_EQ(to_sympy_string(env.runtime_asserts()[0].expr), "u1 <= 3");
}

TEST(ShapeEnvBranch, GuardsInsideABranchStay) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef u0 = env.create_unbacked_symint(true);
  env.push_branch(eq(u0, I(1)));
  EXPECT_TRUE(env.evaluate(B(gt(s0, I(4))), "broadcast"));
  env.pop_branch();
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_TRUE(env.statically_known_true(B(gt(s0, I(4)))));
}

TEST(ShapeEnvBranch, SymbolBornInABranchLearnsFromItsAsserts) {
  ShapeEnv env;
  ExprRef n = env.create_unbacked_symint(true);  // older than the branch
  ExprRef c = env.create_unbacked_symint(true);
  env.set_current_node("if0");
  env.push_branch(eq(c, I(1)));
  env.set_current_node("if0/then/slice");
  ExprRef u = env.create_unbacked_symint(true);  // a Slice's length, born in the branch
  env.set_current_node("if0/then/add");
  env.defer_runtime_assert(B(eq(n, u)), "broadcast_shapes");
  EXPECT_EQ(env.simplify(u), n) << "u exists only while the branch runs: the assert defines it";
  env.defer_runtime_assert(B(ge(n, I(3))), "reshape");
  env.set_current_node("if0");
  env.pop_branch();
  EXPECT_EQ(env.simplify(u), n);
  // The older n learns nothing: the asserts are implications for it.
  EXPECT_EQ(env.info(n).range, (ValueRange{0, kIntOo}));
  EXPECT_FALSE(env.maybe_evaluate_static(ge(n, I(3))).has_value());
}

struct GuardOrCase {
  bool use_unbacked;
  bool guard_or_true;
  bool expected;
  size_t guards;
};

class GuardOrDefaultTest : public ::testing::TestWithParam<GuardOrCase> {};

TEST_P(GuardOrDefaultTest, DefaultOnlyForUnbacked) {
  const GuardOrCase& c = GetParam();
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef u0 = env.create_unbacked_symint(true);
  ExprRef cond = eq(c.use_unbacked ? u0 : s0, I(8));  // true for s0 by its hint
  bool got = c.guard_or_true ? env.guard_or_true(B(cond), "rule") : env.guard_or_false(B(cond), "rule");
  EXPECT_EQ(got, c.expected);
  EXPECT_EQ(env.guards().size(), c.guards);
  EXPECT_TRUE(env.runtime_asserts().empty());
}

INSTANTIATE_TEST_SUITE_P(ShapeEnv, GuardOrDefaultTest,
                         ::testing::Values(GuardOrCase{true, false, false, 0},  //
                                           GuardOrCase{true, true, true, 0},    //
                                           GuardOrCase{false, false, true, 1},  //
                                           GuardOrCase{false, true, true, 1}));

TEST(ShapeEnvUnbacked, GuardOrUsesStaticKnowledgeFirst) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint(true);
  EXPECT_FALSE(env.guard_or_true(B(lt(u0, I(0))), "rule"));  // u0 >= 0
  EXPECT_TRUE(env.guard_or_false(B(ge(u0, I(0))), "rule"));
}

TEST(ShapeEnvUnbacked, UnbackedSymbolsProduceNoGuards) {
  ShapeEnv env;
  env.create_unbacked_symint(true);
  env.create_unbacked_symint(false, ValueRange{0, 10});
  EXPECT_TRUE(env.produce_guards().empty());
}

// ---------------------------------------------------------------------------
// results

TEST(ShapeEnvResults, ProducedGuardsCarrySymbolsAndNodes) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(16, kX0).expr();
  env.set_current_node("view_3");
  env.evaluate(B(eq(mod(s0, I(8)), I(0))), "view");
  auto produced = env.produce_guards();
  auto it = std::find_if(produced.begin(), produced.end(),
                         [](const ProducedGuard& g) { return g.expr == "(L['x'].size()[0] % 8) == 0"; });
  ASSERT_NE(it, produced.end());
  EXPECT_EQ(it->sym_expr, "s77 % 8 == 0");
  EXPECT_EQ(it->node, "view_3");
  auto range = std::find_if(produced.begin(), produced.end(),
                            [](const ProducedGuard& g) { return g.expr == "2 <= L['x'].size()[0]"; });
  ASSERT_NE(range, produced.end());
  EXPECT_EQ(range->sym_expr, "2 <= s77");
  EXPECT_EQ(range->node, "");
  EXPECT_EQ(env.print_over_sources(add(s0, I(1))), "1 + " + kX0);  // torch prints sympy's order
}

TEST(ShapeEnvResults, ConstraintViolationForMarkedDynamic) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(5, kX0).expr();
  env.mark_dynamic(s0);
  EXPECT_EQ(env.constraint_violations(), "");
  EXPECT_TRUE(env.evaluate(B(eq(s0, I(5))), "reshape"));
  EXPECT_EQ(env.constraint_violations(),
            "Constraints violated (L['x'].size()[0])! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
            "  - You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (5). If "
            "you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, "
            "replace it with either Dim.STATIC or Dim.AUTO.");
}

TEST(ShapeEnvResults, RelaxedMarkAllowsGuardsAndUnification) {
  // mark_dynamic without min/max is torch.compile's RelaxedUnspecConstraint: a
  // divisibility guard or an equality with another size is no violation.
  ShapeEnv env({.specialize_zero_one = true, .duck_shape = false});
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef s1 = env.create_symbol(8, kY0).expr();
  env.mark_dynamic(s0);
  env.mark_dynamic(s1);
  EXPECT_TRUE(env.evaluate(B(eq(mod(s0, I(4)), I(0))), "view"));
  EXPECT_TRUE(env.evaluate(B(eq(s1, s0)), "broadcast"));
  EXPECT_EQ(env.constraint_violations(), "");
}

TEST(ShapeEnvResults, NoViolationWhenGuardHoldsOverMarkedRange) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(5, kX0).expr();
  ExprRef s1 = env.create_symbol(7, kY0).expr();
  env.mark_dynamic(s0, ValueRange{4, 64});  // mark_dynamic(x, 0, min=4, max=64)
  env.evaluate(B(gt(s0, I(3))), "rule");     // true for every value in [4, 64]
  env.evaluate(B(eq(s1, I(7))), "rule");     // s1 was not marked
  EXPECT_EQ(env.constraint_violations(), "");
}

TEST(ShapeEnvResults, ViolationWhenGuardExcludesPartOfMarkedRange) {
  // torch.export's Qux case: `x.shape[0] > 5` on a dim marked [3, 8].
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(7, kX0).expr();
  env.mark_dynamic(s0, ValueRange{3, 8});
  env.evaluate(B(gt(s0, I(5))), "rule");
  EXPECT_EQ(env.constraint_violations(),
            "Constraints violated (L['x'].size()[0])! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
            "  - Not all values of L['x'].size()[0] = L['x'].size()[0] in the specified range "
            "3 <= L['x'].size()[0] <= 8 satisfy the generated guard L['x'].size()[0] > 5.");
}

// torch's _render_range_for_constraint_violation: an end shows when it says
// more than the default range [2, int_oo] ([0, int_oo] without 0/1
// specialization).
TEST(ShapeEnvResults, ViolationTextShowsTheEndsOfTheMarkedRange) {
  auto line = [](ShapeEnvSettings settings, ValueRange marked, int64_t hint, ExprRef (*guard)(ExprRef)) {
    ShapeEnv env(settings);
    ExprRef s0 = env.create_symbol(hint, kX0).expr();
    env.mark_dynamic(s0, marked);
    env.evaluate(B(guard(s0)), "rule");
    const std::string v = env.constraint_violations();
    const size_t at = v.find("in the specified range");
    return at == std::string::npos ? v : v.substr(at, v.find(" satisfy") - at);
  };
  auto gt5 = [](ExprRef s) { return gt(s, I(5)); };
  auto lt9 = [](ExprRef s) { return lt(s, I(9)); };
  EXPECT_EQ(line({}, ValueRange{2, 64}, 7, gt5), "in the specified range L['x'].size()[0] <= 64");
  EXPECT_EQ(line({}, ValueRange{4, kIntOo}, 7, lt9), "in the specified range 4 <= L['x'].size()[0]");
  EXPECT_EQ(line({}, ValueRange{2, kIntOo}, 7, lt9), "in the specified range");
  EXPECT_EQ(line({.specialize_zero_one = false}, ValueRange{1, 16}, 7, gt5),
            "in the specified range 1 <= L['x'].size()[0] <= 16");
}

TEST(ShapeEnvResults, ViolationWhenMarkedSizesAreUnified) {
  // As torch.export's produce_guards: the class's later source is named,
  // whichever symbol the equality replaced (here s77 = s17, L['x'] first).
  ShapeEnv env({.specialize_zero_one = true, .duck_shape = false});
  ExprRef s77 = env.create_symbol(5, kX0).expr();
  ExprRef s17 = env.create_symbol(5, kY0).expr();
  env.mark_dynamic(s77, ValueRange{2, 64});  // with a range: StrictMinMaxConstraint
  env.mark_dynamic(s17, ValueRange{2, 64});
  EXPECT_TRUE(env.evaluate(B(eq(s17, s77)), "broadcast"));
  EXPECT_EQ(env.simplify(s77), s17);
  EXPECT_NE(env.constraint_violations().find("  - The values of L['y'].size()[0] = L['y'].size()[0] and "
                                             "L['x'].size()[0] = L['x'].size()[0] must always be equal."),
            std::string::npos)
      << env.constraint_violations();
}

TEST(ShapeEnvResults, NoViolationWhenTheOtherSizeIsRelaxed) {
  // One side without a range (maybe_mark_dynamic, Dim.AUTO) is relaxed:
  // torch.export's is_equal holds, whichever symbol was replaced.
  for (bool mark_x : {true, false}) {
    ShapeEnv env({.specialize_zero_one = true, .duck_shape = false});
    ExprRef s77 = env.create_symbol(5, kX0).expr();
    ExprRef s17 = env.create_symbol(5, kY0).expr();
    env.mark_dynamic(mark_x ? s77 : s17, ValueRange{2, 64});
    EXPECT_TRUE(env.evaluate(B(eq(s17, s77)), "broadcast"));
    EXPECT_EQ(env.constraint_violations(), "") << mark_x;
  }
}

TEST(ShapeEnvResults, NotedViolationsAreReported) {
  ShapeEnv env;
  env.note_constraint_violation(kX0, "You marked " + kX0 + " as dynamic but your code specialized it to be a constant (1).");
  EXPECT_NE(env.constraint_violations().find("Constraints violated (L['x'].size()[0])!"), std::string::npos);
}

TEST(ShapeEnvResults, ProducedGuardsCarryTheirRule) {
  ShapeEnv env;
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  env.evaluate(B(eq(mod(s0, I(4)), I(0))), "reshape_infer_size");
  bool found = false;
  for (const auto& g : env.produce_guards())
    if (g.sym_expr == "s77 % 4 == 0") found = g.rule == "reshape_infer_size";
  EXPECT_TRUE(found);
}

TEST(ShapeEnvResults, ConstrainSymbolRangeToSingletonReplaces) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint();
  env.constrain_symbol_range(u0, ValueRange{3, 3});
  EXPECT_EQ(env.simplify(u0), I(3));
  ExprRef u1 = env.create_unbacked_symint();
  env.constrain_symbol_range(u1, ValueRange{0, 5});
  env.constrain_symbol_range(u1, ValueRange{-3, 4});
  EXPECT_EQ(env.info(u1).range, (ValueRange{0, 4}));
}

// ---------------------------------------------------------------------------
// the trace

TEST(ShapeEnvTrace, CreateSymbolLines) {
  ShapeEnv env;
  Trace trace(env);
  env.create_symbol(8, kX0);
  env.create_symbol(8, kY0);
  env.set_current_node("nonzero_1");
  env.create_unbacked_symint(/*size_like=*/true);
  auto msgs = trace.messages();
  ASSERT_EQ(msgs.size(), 5u) << trace.raw();
  EXPECT_EQ(msgs[0], "create_symbol s77 = 8 for L['x'].size()[0] [2, int_oo]");
  EXPECT_EQ(msgs[1], "create_symbol s77 duck sized L['y'].size()[0]");
  EXPECT_EQ(msgs[2], "create_unbacked_symint u0 [-int_oo, int_oo] at nonzero_1");
  EXPECT_EQ(msgs[3], "_update_var_to_range u0 = VR[0, int_oo] (update)");  // debug
  EXPECT_EQ(msgs[4], "constrain_symbol_range u0 [0, int_oo]");
  // The glog-style prefix, level letters I (info) and D (debug).
  std::regex prefix(R"(^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ shape_env\.cpp:\d+\] \[0/0\] create_symbol s77 = 8)");
  EXPECT_TRUE(std::regex_search(trace.raw(), prefix)) << trace.raw();
  EXPECT_NE(trace.raw().find("\nD"), std::string::npos) << trace.raw();
}

TEST(ShapeEnvTrace, GuardReplacementAndStaticLines) {
  ShapeEnvSettings settings;
  settings.duck_shape = false;
  ShapeEnv env(settings);
  Trace trace(env);
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef s1 = env.create_symbol(8, kY0).expr();
  env.set_current_node("add_2");
  env.evaluate(B(eq(s1, s0)), "broadcast");
  env.evaluate(B(eq(mul(s0, 16), I(16))), "broadcast");
  env.produce_guards();
  auto msgs = trace.messages();
  EXPECT_TRUE(has(msgs, "eval " + to_sympy_string(eq(s1, s0)) + " [guard added] at add_2")) << trace.raw();
  // torch 2.15 replaces s77 (equal hints: the name that sorts last).
  EXPECT_TRUE(has(msgs, "set_replacement s77 = s17 (solve) VR[2, int_oo]")) << trace.raw();
  EXPECT_TRUE(has(msgs, "eval Eq(16*s77, 16) == False [statically known]")) << trace.raw();
  EXPECT_TRUE(has(msgs, "produce_guards")) << trace.raw();
}

TEST(ShapeEnvTrace, SpecializationAndRuntimeAssertLines) {
  ShapeEnv env;
  Trace trace(env);
  ExprRef s0 = env.create_symbol(8, kX0).expr();
  ExprRef u0 = env.create_unbacked_symint(true);
  ExprRef u1 = env.create_unbacked_symint(true);
  env.set_current_node("mul_1");
  env.evaluate_int(SymInt(s0), "arange");
  env.expect_true(B(eq(u0, u1)), "broadcast");
  auto msgs = trace.messages();
  EXPECT_TRUE(has(msgs, "eval Eq(s77, 8) [guard added] at mul_1")) << trace.raw();
  EXPECT_TRUE(has(msgs, "set_replacement s77 = 8 (range_refined_to_singleton) VR[8, 8]")) << trace.raw();
  EXPECT_TRUE(has(msgs, "runtime_assert Eq(u0, u1) [guard added] at mul_1")) << trace.raw();
  EXPECT_TRUE(has(msgs, "set_replacement u1 = u0 (trivial_rhs) VR[0, int_oo]")) << trace.raw();
}

TEST(ShapeEnvTrace, InfoLevelHidesDebugLines) {
  ShapeEnv env;
  std::ostringstream out;
  env.log().capture_to(out);
  env.log().set_level(LogLevel::Info);
  env.create_symbol(8, kX0);
  env.create_symbol(8, kY0);  // duck sizing: a debug line
  EXPECT_NE(out.str().find("create_symbol s77 = 8"), std::string::npos);
  EXPECT_EQ(out.str().find("duck sized"), std::string::npos);
}

// ---------------------------------------------------------------------------
// backed float symbols (item() of a 0-d float64 input whose value is known).
// The texts are those torch 2.15's make_fx(tracing_mode="symbolic") logs for
// the same decisions, with its sources (input1.item(), input0.size()[0]:
// zf79, s75) as L['s'].item() and L['x'].size()[0] (zf9, s77).

TEST(ShapeEnvFloat, BackedFloatSymbolIsCreatedWithItsHint) {
  ShapeEnv env;
  Trace trace(env);
  ExprRef s = env.create_symbol(6, kX0).expr();
  ExprRef z = env.create_symfloat(2.5, "L['s'].item()");
  EXPECT_EQ(z->name(), "zf9");  // sha256("L['s'].item()") % 100, as torch names it
  EXPECT_TRUE(z->is_float());
  EXPECT_FALSE(env.info(z).unbacked);
  EXPECT_EQ(env.info(z).float_hint, std::optional<double>(2.5));
  EXPECT_EQ(hint_text(env.info(z)), "2.5");
  EXPECT_EQ(range_text(env.info(z)), "[-oo, oo]");
  EXPECT_TRUE(has(trace.messages(), "create_symbol zf9 = 2.5 for L['s'].item() [-oo, oo]"))
      << trace.raw();
  EXPECT_EQ(env.float_hint(float_mul(z, to_float(s))), 15.0);
  EXPECT_EQ(env.hint(trunc_to_int(float_mul(z, to_float(s)))), std::optional<int64_t>(15));
}

TEST(ShapeEnvFloat, DecisionsOnBackedFloatsAreGuardsAtTheHint) {
  ShapeEnv env;
  Trace trace(env);
  ExprRef s = env.create_symbol(6, kX0).expr();
  ExprRef z = env.create_symfloat(2.5, "L['s'].item()");
  EXPECT_TRUE(env.evaluate(B(gt(z, float_const(1.0))), "test"));
  const ExprRef n = add(trunc_to_int(float_mul(z, to_float(s))), I(1));
  EXPECT_TRUE(env.evaluate(B(ge(n, I(0))), "test"));
  const auto msgs = trace.messages();
  EXPECT_TRUE(has(msgs, "eval zf9 > 1.0 [guard added]")) << trace.raw();
  EXPECT_TRUE(has(msgs, "eval TruncToInt(zf9*ToFloat(s77)) + 1 >= 0 [guard added]")) << trace.raw();
  const auto guards = guard_exprs(env);
  EXPECT_TRUE(has(guards, "L['s'].item() > 1.0")) << joined(guards);
  EXPECT_TRUE(has(guards, "1 + int(L['s'].item()*float(L['x'].size()[0])) >= 0")) << joined(guards);
}

TEST(ShapeEnvFloat, GuardFloatOfAnExpressionGuardsWithoutReplacing) {
  // float(v * 2): Eq(2.0*zf79, 5.0) is a guard and zf79 stays a symbol.
  ShapeEnv env;
  ExprRef z = env.create_symfloat(2.5, "L['s'].item()");
  EXPECT_EQ(env.evaluate_float(float_mul(float_const(2.0), z), "test"), 5.0);
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(to_sympy_string(env.guards()[0].expr), "Eq(2.0*zf9, 5.0)");
  EXPECT_EQ(env.simplify(z), z);
}

TEST(ShapeEnvFloat, GuardFloatOfTheSymbolReplacesIt) {
  // A float argument of an op (upsample's scale): Eq(zf79, 2.5) and
  // set_replacement zf79 = 2.5 (trivial_lhs); produce_guards then pins the source.
  ShapeEnv env;
  Trace trace(env);
  ExprRef s = env.create_symbol(6, kX0).expr();
  ExprRef z = env.create_symfloat(2.5, "L['s'].item()");
  EXPECT_EQ(env.evaluate_float(z, "test"), 2.5);
  EXPECT_TRUE(has(trace.messages(), "eval Eq(zf9, 2.5) [guard added]")) << trace.raw();
  EXPECT_TRUE(has(trace.messages(), "set_replacement zf9 = 2.5 (trivial_lhs) VR[2.5, 2.5]")) << trace.raw();
  EXPECT_EQ(env.simplify(trunc_to_int(float_mul(z, to_float(s)))), trunc_to_int(float_mul(float_const(2.5), to_float(s))));
  EXPECT_TRUE(has(guard_exprs(env), "L['s'].item() == 2.5")) << joined(guard_exprs(env));
}

TEST(ShapeEnvFloat, UnbackedFloatValueIsDataDependent) {
  ShapeEnv env;
  ExprRef z = env.create_unbacked_symfloat();
  try {
    env.evaluate_float(float_mul(float_const(2.0), z), "test");
    FAIL() << "expected DataDependentError";
  } catch (const DataDependentError& e) {
    EXPECT_NE(std::string(e.what()).find("Could not extract specialized float from data-dependent expression 2.0*zuf0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(env.evaluate(B(gt(z, float_const(1.0))), "test"), DataDependentError);
}

// _refine_ranges narrows a symbol only where try_solve isolates it with an
// integer bound (torch 2.15): through a floor division by a positive constant,
// not through a coefficient that leaves a fraction.
TEST(ShapeEnvRefine, ThroughAFloorDivisionAndOnlyToIntegerBounds) {
  ShapeEnv env;
  ExprRef s = env.create_symbol(9, kX0).expr();
  EXPECT_TRUE(env.evaluate(B(ge(floordiv(add(s, I(1)), I(2)), I(2))), "test"));  // (s + 1)//2 >= 2: s >= 3
  EXPECT_EQ(env.info(s).range, (ValueRange{3, kIntOo}));
  EXPECT_TRUE(env.evaluate(B(lt(floordiv(s, I(4)), I(3))), "test"));  // s//4 < 3: s < 12
  EXPECT_EQ(env.info(s).range, (ValueRange{3, 11}));
  ExprRef t = env.create_symbol(10, kX1).expr();  // not duck-sized to s
  EXPECT_TRUE(env.evaluate(B(ge(sub(mul(t, 3), I(6)), I(2))), "test"));  // t >= 8/3: no integer bound
  EXPECT_EQ(env.info(t).range, (ValueRange{2, kIntOo}));
  EXPECT_TRUE(env.evaluate(B(ge(sub(mul(t, 3), I(6)), I(3))), "test"));  // t >= 3
  EXPECT_EQ(env.info(t).range, (ValueRange{3, kIntOo}));
}

// An equality on a floor division: try_solve turns a // k == q into
// k*q <= a < k*(q + 1), and sympy drops the half a positive size decides by
// itself, so only the other half narrows (torch 2.15: Eq((s0 + 2)//3, 1)
// makes s0 [2, 3]). Where neither half is decided, nothing narrows.
TEST(ShapeEnvRefine, AnEqualityOnAFloorDivisionKeepsTheUndecidedHalf) {
  ShapeEnv env;
  ExprRef s = env.create_symbol(2, kX0).expr();
  EXPECT_TRUE(env.evaluate(B(eq(floordiv(add(s, I(2)), I(3)), I(1))), "test"));
  EXPECT_EQ(env.info(s).range, (ValueRange{2, 3}));
  ExprRef t = env.create_symbol(10, kX1).expr();
  EXPECT_TRUE(env.evaluate(B(eq(floordiv(t, I(3)), I(3))), "test"));  // 9 <= t: not decided by t >= 1
  EXPECT_EQ(env.info(t).range, (ValueRange{2, kIntOo}));
  ExprRef u = env.create_unbacked_symint(/*size_like=*/true);
  env.defer_runtime_assert(B(eq(floordiv(add(u, I(2)), I(3)), I(1))), "test");  // no positivity assumed
  EXPECT_EQ(env.info(u).range, (ValueRange{0, kIntOo}));
}

}  // namespace
}  // namespace fakeprop
