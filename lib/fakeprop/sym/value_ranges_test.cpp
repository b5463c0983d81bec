// Tests for interval arithmetic and bound_expr. Expected intervals follow from
// the definitions (Python floor semantics; int_oo as the infinite ends).
#include "fakeprop/sym/value_ranges.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "fakeprop/util/error.h"
#include "fakeprop/util/param_name_test_util.h"

namespace fakeprop {
namespace {

constexpr int64_t oo = kIntOo;
constexpr int64_t noo = kNegIntOo;
constexpr int64_t k2p32 = int64_t{1} << 32;
constexpr int64_t k2p62 = int64_t{1} << 62;

ValueRange R(int64_t lo, int64_t hi) { return {lo, hi}; }

struct RangeCase {
  const char* what;
  std::function<ValueRange()> compute;
  ValueRange want;
};

class ValueRangeOps : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ValueRangeOps, Interval) {
  const auto& c = GetParam();
  EXPECT_EQ(c.compute(), c.want) << c.what << ": got " << c.compute().to_string() << ", want " << c.want.to_string();
}

const RangeCase kRangeCases[] = {
    {"add finite", [] { return range_add(R(1, 2), R(3, 4)); }, R(4, 6)},
    {"add to infinite", [] { return range_add(R(2, oo), R(1, 1)); }, R(3, oo)},
    {"add opposite infinities", [] { return range_add(R(noo, 5), R(2, oo)); }, R(noo, oo)},
    {"add saturates up", [] { return range_add(R(oo - 1, oo - 1), R(5, 5)); }, R(oo, oo)},
    {"add saturates down", [] { return range_add(R(noo + 1, 0), R(-5, 0)); }, R(noo, 0)},
    {"neg infinite", [] { return range_neg(R(2, oo)); }, R(noo, -2)},
    {"neg finite", [] { return range_neg(R(-3, 5)); }, R(-5, 3)},
    {"mul positive", [] { return range_mul(R(2, 3), R(4, 5)); }, R(8, 15)},
    {"mul mixed sign", [] { return range_mul(R(-2, 3), R(4, 5)); }, R(-10, 15)},
    {"mul both straddle", [] { return range_mul(R(-2, 3), R(-5, 4)); }, R(-15, 12)},
    {"mul by constant", [] { return range_mul(R(0, oo), 2); }, R(0, oo)},
    {"mul zero times unknown", [] { return range_mul(ValueRange::unknown(), R(0, 0)); }, R(0, 0)},
    {"mul by negative", [] { return range_mul(R(2, oo), -1); }, R(noo, -2)},
    {"mul saturates", [] { return range_mul(R(k2p32, k2p32), R(k2p32, k2p32)); }, R(oo, oo)},
    {"mul saturates negative", [] { return range_mul(R(-k2p32, 1), R(k2p32, k2p32)); }, R(noo, k2p32)},
    {"mul saturates one end", [] { return range_mul(R(1, k2p62), R(1, 4)); }, R(1, oo)},
    {"pow even straddle", [] { return range_pow(R(-3, 2), 2); }, R(0, 9)},
    {"pow even negative", [] { return range_pow(R(-3, -2), 2); }, R(4, 9)},
    {"pow odd", [] { return range_pow(R(-3, 2), 3); }, R(-27, 8)},
    {"pow infinite", [] { return range_pow(R(2, oo), 2); }, R(4, oo)},
    {"pow odd negative infinite", [] { return range_pow(R(noo, -2), 3); }, R(noo, -8)},
    {"pow zero", [] { return range_pow(R(noo, oo), 0); }, R(1, 1)},
    {"pow saturates", [] { return range_pow(R(k2p32, k2p32), 2); }, R(oo, oo)},
    {"pow even unknown", [] { return range_pow(ValueRange::unknown(), 2); }, R(0, oo)},
    {"floordiv by constant", [] { return range_floordiv(R(0, 10), R(2, 2)); }, R(0, 5)},
    {"floordiv negative dividend", [] { return range_floordiv(R(-10, 10), R(3, 3)); }, R(-4, 3)},
    {"floordiv infinite dividend", [] { return range_floordiv(R(2, oo), R(2, 2)); }, R(1, oo)},
    {"floordiv divisor range", [] { return range_floordiv(R(1, 10), R(2, 5)); }, R(0, 5)},
    {"floordiv negative by range", [] { return range_floordiv(R(-10, -1), R(2, 5)); }, R(-5, -1)},
    {"floordiv by negative", [] { return range_floordiv(R(3, 10), R(-2, -1)); }, R(-10, -2)},
    {"floordiv divisor touches 0", [] { return range_floordiv(R(1, 10), R(0, 5)); }, R(0, 10)},
    {"floordiv divisor straddles 0", [] { return range_floordiv(R(1, 10), R(-2, 3)); }, R(-10, 10)},
    {"floordiv by exactly 0", [] { return range_floordiv(R(1, 10), R(0, 0)); }, ValueRange::unknown()},
    {"floordiv both infinite", [] { return range_floordiv(R(2, oo), R(2, oo)); }, R(0, oo)},
    {"floordiv negative by infinite", [] { return range_floordiv(R(noo, -1), R(1, oo)); }, R(noo, -1)},
    {"floordiv unknown divisor", [] { return range_floordiv(R(1, 10), ValueRange::unknown()); }, R(-10, 10)},
    {"ceildiv by constant", [] { return range_ceildiv(R(1, 10), R(3, 3)); }, R(1, 4)},
    {"ceildiv infinite", [] { return range_ceildiv(R(2, oo), R(2, 2)); }, R(1, oo)},
    {"ceildiv negative", [] { return range_ceildiv(R(-7, -7), R(2, 2)); }, R(-3, -3)},
    {"mod non-negative", [] { return range_mod(R(0, oo), R(8, 8)); }, R(0, 7)},
    {"mod small dividend", [] { return range_mod(R(3, 5), R(8, 8)); }, R(3, 5)},
    {"mod one block", [] { return range_mod(R(9, 12), R(8, 8)); }, R(1, 4)},
    {"mod crosses block", [] { return range_mod(R(6, 9), R(8, 8)); }, R(0, 7)},
    {"mod unknown dividend", [] { return range_mod(ValueRange::unknown(), R(8, 8)); }, R(0, 7)},
    {"mod negative dividend one block", [] { return range_mod(R(-5, -3), R(8, 8)); }, R(3, 5)},
    {"mod divisor range", [] { return range_mod(R(5, 20), R(3, 6)); }, R(0, 5)},
    {"mod dividend below divisors", [] { return range_mod(R(0, 3), R(2, oo)); }, R(0, 3)},
    {"mod dividend smaller than every divisor", [] { return range_mod(R(1, 3), R(4, oo)); }, R(1, 3)},
    {"mod negative divisor", [] { return range_mod(R(0, 10), R(-3, -3)); }, R(-2, 0)},
    {"mod divisor straddles 0", [] { return range_mod(R(0, 10), R(-3, 4)); }, R(-2, 3)},
    {"max", [] { return range_max(R(1, 5), R(3, 4)); }, R(3, 5)},
    {"min", [] { return range_min(R(1, 5), R(3, 4)); }, R(1, 4)},
    {"max infinite", [] { return range_max(R(noo, 2), R(0, oo)); }, R(0, oo)},
    {"intersect", [] { return R(0, 10).intersect(R(5, oo)); }, R(5, 10)},
    {"hull", [] { return R(0, 3).hull(R(5, 6)); }, R(0, 6)},
};

INSTANTIATE_TEST_SUITE_P(Table, ValueRangeOps, ::testing::ValuesIn(kRangeCases),
                         [](const ::testing::TestParamInfo<RangeCase>& info) {
                           return testing::param_name(info.param.what, info.index);
                         });

TEST(ValueRangeBasics, PrintingAndPredicates) {
  EXPECT_EQ(R(2, oo).to_string(), "[2, int_oo]");
  EXPECT_EQ(ValueRange::unknown().to_string(), "[-int_oo, int_oo]");
  EXPECT_EQ(R(0, 64).to_string(), "[0, 64]");
  EXPECT_EQ(R(-3, -1).to_string(), "[-3, -1]");
  EXPECT_TRUE(R(0, 3).intersect(R(5, 6)).is_empty());
  EXPECT_EQ(R(0, 3).hull(R(5, 6).intersect(R(0, 1))), R(0, 3));  // hull ignores an empty side
  EXPECT_TRUE(R(2, oo).hi_infinite());
  EXPECT_FALSE(R(2, oo).lo_infinite());
  EXPECT_TRUE(R(4, 4).is_singleton());
  EXPECT_TRUE(R(0, 10).contains(R(2, 3)));
  EXPECT_FALSE(R(0, 10).contains(11));
  EXPECT_THROW(range_pow(R(1, 2), -1), Error);
}

// ---------------------------------------------------------------------------
// bound_expr
// ---------------------------------------------------------------------------

class BoundExprTest : public ::testing::Test {
 protected:
  ExprRef s0 = symbol("s0");  // [2, int_oo], a backed size
  ExprRef s1 = symbol("s1");  // [0, 64]
  ExprRef u0 = symbol("u0");  // unknown
  SymbolRanges ranges = [this](ExprRef s) {
    if (s == s0) return R(2, oo);
    if (s == s1) return R(0, 64);
    return ValueRange::unknown();
  };
  ValueRange bound(ExprRef e) { return bound_expr(e, ranges); }
  static ExprRef I(int64_t v) { return integer(v); }
};

TEST_F(BoundExprTest, IntegerExpressions) {
  EXPECT_EQ(bound(I(5)), R(5, 5));
  EXPECT_EQ(bound(s0), R(2, oo));
  EXPECT_EQ(bound(add(mul(s0, 2), I(3))), R(7, oo));
  EXPECT_EQ(bound(sub(s1, s0)), R(noo, 62));
  EXPECT_EQ(bound(floordiv(s0, I(2))), R(1, oo));
  EXPECT_EQ(bound(mod(s1, I(8))), R(0, 7));
  EXPECT_EQ(bound(mod(u0, I(8))), R(0, 7));
  EXPECT_EQ(bound(ceildiv(s1, I(8))), R(0, 8));
  EXPECT_EQ(bound(floordiv(s1, s0)), R(0, 32));
  EXPECT_EQ(bound(max(s0, s1)), R(2, oo));
  EXPECT_EQ(bound(min(s0, s1)), R(0, 64));
  EXPECT_EQ(bound(max(std::vector<ExprRef>{s1, u0, I(70)})), R(70, oo));
  EXPECT_EQ(bound(pow(s0, 2)), R(4, oo));
  EXPECT_EQ(bound(pow(u0, 2)), R(0, oo));
  EXPECT_EQ(bound(mul(s0, s1)), R(0, oo));
  EXPECT_EQ(bound(mul(mul(s1, s1), -1)), R(-4096, 0));
  EXPECT_EQ(bound(add(u0, I(1))), ValueRange::unknown());
}

TEST_F(BoundExprTest, Relations) {
  EXPECT_EQ(bound(eq(s0, I(1))), R(0, 0));
  EXPECT_EQ(bound(ne(s0, I(1))), R(1, 1));
  EXPECT_EQ(bound(eq(s0, I(8))), R(0, 1));
  EXPECT_EQ(bound(lt(s1, I(65))), R(1, 1));
  EXPECT_EQ(bound(ge(s1, I(65))), R(0, 0));
  EXPECT_EQ(bound(gt(s0, I(1))), R(1, 1));
  EXPECT_EQ(bound(le(s0, I(1))), R(0, 0));
  EXPECT_EQ(bound(le(s1, I(64))), R(1, 1));
  EXPECT_EQ(bound(lt(s1, I(64))), R(0, 1));
  EXPECT_EQ(bound(eq(u0, I(3))), R(0, 1));
  // Common terms cancel: s0 < s0 + s1 + 1 holds for every s1 >= 0.
  EXPECT_EQ(bound(lt(s0, add(add(s0, s1), I(1)))), R(1, 1));
  EXPECT_EQ(bound(eq(mul(s0, 2), add(mul(s0, 2), s1))), R(0, 1));
  // lhs - rhs would need a coefficient past 64 bits: the sides are bounded apart.
  EXPECT_EQ(bound(gt(mul(s0, kIntOo), mul(s0, -kIntOo))), R(1, 1));
}

TEST_F(BoundExprTest, BooleanStructure) {
  ExprRef always = gt(s0, I(1));
  ExprRef never = eq(s0, I(1));
  ExprRef maybe = eq(s0, I(8));
  EXPECT_EQ(bound(true_expr()), R(1, 1));
  EXPECT_EQ(bound(false_expr()), R(0, 0));
  EXPECT_EQ(bound(logical_and(always, lt(s1, I(100)))), R(1, 1));
  EXPECT_EQ(bound(logical_and(always, maybe)), R(0, 1));
  EXPECT_EQ(bound(logical_and(never, maybe)), R(0, 0));
  EXPECT_EQ(bound(logical_or(never, maybe)), R(0, 1));
  EXPECT_EQ(bound(logical_or(maybe, always)), R(1, 1));
  EXPECT_EQ(bound(logical_or(never, ge(s1, I(65)))), R(0, 0));
  EXPECT_EQ(bound(logical_not(logical_and(always, lt(s1, I(100))))), R(0, 0));
  EXPECT_EQ(bound(logical_not(logical_or(maybe, eq(s1, I(3))))), R(0, 1));
}

// ---------------------------------------------------------------------------
// soundness: every value of the operation on sampled points lies in the result
// ---------------------------------------------------------------------------

ValueRange random_range(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  int64_t a = pick(41) - 20, b = pick(41) - 20;
  ValueRange r{std::min(a, b), std::max(a, b)};
  if (pick(5) == 0) r.lo = noo;
  if (pick(5) == 0) r.hi = oo;
  return r;
}

// Sample points of r, clipped to a finite window.
std::vector<int64_t> samples(const ValueRange& r) {
  std::vector<int64_t> out;
  int64_t lo = std::max<int64_t>(r.lo, -60), hi = std::min<int64_t>(r.hi, 60);
  for (int64_t v = lo; v <= hi; ++v) out.push_back(v);
  return out;
}

TEST(ValueRangeSoundness, OperationsContainSampledValues) {
  using Op = std::function<ValueRange(ValueRange, ValueRange)>;
  using PointOp = std::function<std::optional<int64_t>(int64_t, int64_t)>;
  struct Named {
    const char* name;
    Op range_op;
    PointOp point_op;
  };
  const Named ops[] = {
      {"add", range_add, [](int64_t x, int64_t y) { return x + y; }},
      {"mul", [](ValueRange a, ValueRange b) { return range_mul(a, b); }, [](int64_t x, int64_t y) { return x * y; }},
      {"floordiv", range_floordiv,
       [](int64_t x, int64_t y) -> std::optional<int64_t> {
         if (y == 0) return std::nullopt;
         return python_floordiv(x, y);
       }},
      {"ceildiv", range_ceildiv,
       [](int64_t x, int64_t y) -> std::optional<int64_t> {
         if (y == 0) return std::nullopt;
         return -python_floordiv(-x, y);
       }},
      {"mod", range_mod,
       [](int64_t x, int64_t y) -> std::optional<int64_t> {
         if (y == 0) return std::nullopt;
         return python_mod(x, y);
       }},
      {"max", range_max, [](int64_t x, int64_t y) { return std::max(x, y); }},
      {"min", range_min, [](int64_t x, int64_t y) { return std::min(x, y); }},
      {"pow", [](ValueRange a, ValueRange) { return range_pow(a, 3); },
       [](int64_t x, int64_t) { return x * x * x; }},
  };
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 400; ++trial) {
    ValueRange a = random_range(rng), b = random_range(rng);
    for (const auto& op : ops) {
      ValueRange r = op.range_op(a, b);
      for (int64_t x : samples(a)) {
        for (int64_t y : samples(b)) {
          auto v = op.point_op(x, y);
          if (!v) continue;
          ASSERT_TRUE(r.contains(*v)) << op.name << " " << a.to_string() << ", " << b.to_string() << " -> "
                                      << r.to_string() << " misses " << *v << " at " << x << ", " << y;
        }
      }
    }
  }
}

}  // namespace
}  // namespace fakeprop
