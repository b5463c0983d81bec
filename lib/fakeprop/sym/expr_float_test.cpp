// Float expressions (SymFloat). The sympy-style texts are what torch 2.15's
// ShapeEnv prints for the same arithmetic on SymInts and SymFloats; the
// Python-style texts were checked with eval() under CPython 3.11, and the
// values are CPython's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fakeprop/sym/expr.h"
#include "fakeprop/sym/parse.h"
#include "fakeprop/sym/value_ranges.h"
#include "fakeprop/util/error.h"

namespace fakeprop {
namespace {

ExprRef F(double v) { return float_const(v); }
ExprRef I(int64_t v) { return integer(v); }
ExprRef s0() { return symbol("s0"); }
ExprRef s1() { return symbol("s1"); }
ExprRef f0() { return to_float(s0()); }
ExprRef f1() { return to_float(s1()); }

TEST(ExprFloat, CanonicalFormsFoldOnlyWhereIeeeAgrees) {
  EXPECT_EQ(float_add(f0(), F(0.2)), float_add(F(0.2), f0()));  // commutative
  EXPECT_EQ(float_mul(F(0.5), f0()), float_mul(f0(), F(0.5)));
  EXPECT_EQ(float_add(f0(), f1()), float_add(f1(), f0()));
  // Never reassociated: (a + b) + c and a + (b + c) differ in floats.
  EXPECT_NE(float_add(float_add(f0(), f1()), F(1.0)), float_add(f0(), float_add(f1(), F(1.0))));
  EXPECT_NE(float_mul(F(0.1), float_mul(F(3.0), f0())), float_mul(F(0.1 * 3.0), f0()));
  EXPECT_EQ(float_add(f0(), F(-0.0)), f0());  // x + -0.0 is x for every x
  EXPECT_NE(float_add(f0(), F(0.0)), f0());   // -0.0 + 0.0 is 0.0
  EXPECT_EQ(float_mul(f0(), F(1.0)), f0());
  EXPECT_EQ(float_truediv(f0(), F(1.0)), f0());
  EXPECT_EQ(float_pow(f0(), F(1.0)), f0());
  EXPECT_EQ(float_pow(f0(), F(0.0)), F(1.0));
  EXPECT_EQ(float_neg(float_neg(f0())), f0());
  EXPECT_EQ(float_neg(float_mul(F(0.5), f0())), float_mul(F(-0.5), f0()));
  EXPECT_EQ(float_sub(f0(), F(1.5)), float_add(f0(), F(-1.5)));
  EXPECT_EQ(to_float(I(3)), F(3.0));
  EXPECT_EQ(int_truediv(s0(), I(1)), f0());
  EXPECT_EQ(as_float(int_truediv(I(800), I(600))), 800.0 / 600.0);
  EXPECT_EQ(as_float(float_add(F(0.1), F(0.2))), 0.1 + 0.2);
  EXPECT_EQ(floor_to_int(f0()), s0());  // FloorToInt(ToFloat(s0)) is s0
  EXPECT_EQ(round_to_int(f0()), s0());
  EXPECT_EQ(floor_to_int(s0()), s0());  // of an int, the int
  EXPECT_EQ(as_integer(round_to_int(F(2.5))), 2);
  EXPECT_EQ(as_integer(round_to_int(F(3.5))), 4);
  EXPECT_EQ(as_integer(ceil_to_int(F(-0.5))), 0);
  EXPECT_EQ(true_div(s0(), I(2)), int_truediv(s0(), I(2)));
  EXPECT_EQ(true_div(f0(), I(2)), float_truediv(f0(), F(2.0)));
  EXPECT_EQ(float_max(f0(), float_max(F(1.0), f0())), float_max(F(1.0), f0()));
  EXPECT_EQ(float_min(F(3.0), float_min(F(2.0), f0())), float_min(F(2.0), f0()));
  EXPECT_EQ(float_const(std::nan("1")), float_const(std::nan("2")));  // one NaN
  EXPECT_NE(F(0.0), F(-0.0));
}

TEST(ExprFloat, TypesAndRelations) {
  EXPECT_TRUE(f0()->is_float());
  EXPECT_FALSE(floor_to_int(float_mul(F(0.5), f0()))->is_float());
  ExprRef z = float_symbol("zuf0");
  EXPECT_TRUE(z->is_float());
  EXPECT_TRUE(z->is_symbol());
  EXPECT_NE(z, symbol("zuf0"));
  EXPECT_EQ(float_mul(z, F(2.0))->kind(), ExprKind::FloatMul);
  // An integer side facing a float side is promoted, as Python compares.
  EXPECT_EQ(lt(s0(), F(2.5)), lt(f0(), F(2.5)));
  EXPECT_EQ(eq(F(2.0), f0()), eq(f0(), F(2.0)));
  EXPECT_EQ(as_bool(lt(F(1.0), F(2.0))), true);
  EXPECT_EQ(as_bool(eq(to_float(I(2)), F(2.0))), true);
  EXPECT_EQ(as_bool(le(f0(), f0())), true);
  EXPECT_THROW(add(s0(), f0()), Error);
  EXPECT_THROW(to_float(f0()), Error);
  EXPECT_THROW(floordiv(f0(), I(2)), Error);
  EXPECT_THROW(float_add(lt(s0(), I(1)), F(1.0)), Error);
  EXPECT_THROW(float_truediv(f0(), F(0.0)), Error);
  EXPECT_THROW(int_truediv(s0(), I(0)), Error);
  EXPECT_THROW(float_pow(F(-8.0), F(0.5)), Error);
  EXPECT_THROW(floor_to_int(F(std::numeric_limits<double>::infinity())), OverflowError);
  // Rebuilding from operands gives the same node.
  ExprRef e = float_add(float_mul(F(0.1), f0()), F(0.2));
  std::vector<ExprRef> args(e->args().begin(), e->args().end());
  EXPECT_EQ(rebuild(e->kind(), args), e);
  EXPECT_EQ(substitute(e, {{s0(), I(7)}}), F(0.1 * 7.0 + 0.2));
}

struct PrintCase {
  ExprRef e;
  const char* sympy;
  const char* python;
};

TEST(ExprFloat, PrintsBothStyles) {
  const PrintCase cases[] = {
      {float_mul(F(0.5), f0()), "0.5*ToFloat(s0)", "0.5*float(s0)"},
      {float_sub(f0(), F(1.5)), "ToFloat(s0) - 1.5", "float(s0) - 1.5"},
      {int_truediv(s0(), I(2)), "IntTrueDiv(s0, 2)", "s0 / 2"},
      {float_mul(F(1.5), int_truediv(s0(), I(2))), "1.5*(IntTrueDiv(s0, 2))", "1.5*(s0 / 2)"},
      {float_pow(f0(), F(2.0)), "FloatPow(ToFloat(s0), 2.0)", "float(s0) ** 2.0"},
      {round_to_int(float_mul(F(0.5), f0())), "RoundToInt(0.5*ToFloat(s0))", "round(0.5*float(s0))"},
      {ceil_to_int(float_truediv(f0(), F(3.0))), "CeilToInt(FloatTrueDiv(ToFloat(s0), 3.0))",
       "-int(-(float(s0) / 3.0) // 1)"},
      {trunc_to_int(float_mul(F(0.1), f0())), "TruncToInt(0.1*ToFloat(s0))", "int(0.1*float(s0))"},
      {float_add(float_mul(F(0.1), f0()), F(0.2)), "0.1*ToFloat(s0) + 0.2", "0.1*float(s0) + 0.2"},
      {floor_to_int(float_mul(int_truediv(I(800), s0()), f0())), "FloorToInt((IntTrueDiv(800, s0))*ToFloat(s0))",
       "int(((800 / s0)*float(s0)) // 1)"},
      {ge(int_truediv(I(1333), s1()), int_truediv(I(800), s0())), "(IntTrueDiv(1333, s1)) >= (IntTrueDiv(800, s0))",
       "1333 / s1 >= 800 / s0"},
      {float_neg(f0()), "-ToFloat(s0)", "-float(s0)"},
      {float_sub(f0(), float_mul(F(0.5), f1())), "ToFloat(s0) - 0.5*ToFloat(s1)", "float(s0) - 0.5*float(s1)"},
      {float_sub(f0(), float_add(f1(), F(1.0))), "ToFloat(s0) - (ToFloat(s1) + 1.0)", "float(s0) - (float(s1) + 1.0)"},
      {float_add(f0(), float_add(f1(), F(1.0))), "ToFloat(s0) + (ToFloat(s1) + 1.0)", "float(s0) + (float(s1) + 1.0)"},
      {float_max(f0(), F(1.0)), "Max(1.0, ToFloat(s0))", "max(1.0, float(s0))"},
      {add(floor_to_int(float_mul(F(0.5), f0())), I(1)), "FloorToInt(0.5*ToFloat(s0)) + 1",
       "int((0.5*float(s0)) // 1) + 1"},
      {float_mul(F(1e-05), f0()), "1e-05*ToFloat(s0)", "1e-05*float(s0)"},
      {float_pow(F(-2.0), f0()), "FloatPow(-2.0, ToFloat(s0))", "(-2.0) ** float(s0)"},
      {F(std::numeric_limits<double>::infinity()), "oo", "float('inf')"},
      {float_mul(F(0.5), float_symbol("zuf0")), "0.5*zuf0", "0.5*zuf0"},
  };
  for (const PrintCase& c : cases) {
    EXPECT_EQ(to_sympy_string(c.e), c.sympy);
    EXPECT_EQ(to_python_string(c.e), c.python);
  }
}

// Both printed forms parse back to an expression of the same value (the
// Python form's int(x // 1) is FloorToInt again).
TEST(ExprFloat, PrintedFormsParseBack) {
  auto named = [](std::string_view n) { return symbol(n); };
  const ExprRef cases[] = {
      floor_to_int(float_mul(int_truediv(I(800), s0()), f0())),
      ceil_to_int(float_truediv(f0(), F(3.0))),
      round_to_int(float_add(float_mul(F(0.1), f0()), F(0.2))),
      trunc_to_int(float_sub(f0(), float_mul(F(0.5), f1()))),
      floor_to_int(float_pow(f0(), F(0.5))),
      floor_to_int(float_max(int_truediv(I(1333), s1()), float_mul(F(1e-05), f0()))),
      add(ceil_to_int(float_mul(F(1.7), f1())), I(1)),
  };
  for (ExprRef e : cases) {
    for (const std::string& text : {to_python_string(e), to_sympy_string(e)}) {
      ExprRef back = parse_expr(text, named);
      for (auto [v0, v1] : {std::pair<int64_t, int64_t>{97, 149}, {600, 900}, {3, 7}})
        EXPECT_EQ(evaluate(back, {{s0(), v0}, {s1(), v1}}), evaluate(e, {{s0(), v0}, {s1(), v1}})) << text;
    }
  }
  EXPECT_EQ(parse_expr("1.7000000000000000*ToFloat(s0)", named), float_mul(F(1.7), f0()));
  EXPECT_EQ(parse_expr("s0 / 2", named), int_truediv(s0(), I(2)));
  EXPECT_EQ(parse_expr("int((0.5*float(s0)) // 1)", named), floor_to_int(float_mul(F(0.5), f0())));
  EXPECT_THROW(parse_expr("float(s0) // 2", named), InputError);
  EXPECT_THROW(parse_expr("s0 / 0", named), InputError);
}

std::optional<int64_t> at(ExprRef e, int64_t v0, int64_t v1 = 0) { return evaluate(e, {{s0(), v0}, {s1(), v1}}); }

TEST(ExprFloat, EvaluatesAsPythonDoes) {
  // The torchvision resize pattern: floor(s0 * (800 / s0)) is 799 at s0 = 97.
  ExprRef resized = floor_to_int(float_mul(int_truediv(I(800), s0()), f0()));
  EXPECT_EQ(at(resized, 600), 800);
  EXPECT_EQ(at(resized, 97), 799);
  EXPECT_EQ(at(floor_to_int(float_mul(int_truediv(I(1333), s0()), f0())), 149), 1332);
  EXPECT_EQ(at(round_to_int(float_mul(F(0.5), f0())), 5), 2);  // round half to even
  EXPECT_EQ(at(round_to_int(float_mul(F(0.5), f0())), 7), 4);
  EXPECT_EQ(at(ceil_to_int(float_truediv(f0(), F(3.0))), 7), 3);
  EXPECT_EQ(at(trunc_to_int(float_mul(F(0.1), f0())), 7), 0);
  EXPECT_EQ(at(lt(float_add(float_mul(F(0.1), f0()), F(0.2)), F(0.9)), 7), 0);  // 0.9000000000000001
  EXPECT_EQ(at(ge(int_truediv(I(1333), s1()), int_truediv(I(800), s0())), 600, 900), 1);
  EXPECT_EQ(at(ge(int_truediv(I(1333), s1()), int_truediv(I(800), s0())), 200, 900), 0);
  auto lookup = [](ExprRef s) -> std::optional<int64_t> {
    if (s == s0()) return 7;
    return std::nullopt;
  };
  EXPECT_EQ(evaluate_float(float_add(float_mul(F(0.1), f0()), F(0.2)), lookup), 0.1 * 7.0 + 0.2);
  EXPECT_EQ(evaluate_float(float_mul(F(2.0), float_symbol("zuf0")), lookup), std::nullopt);
  // A float symbol takes its value from the float lookup (a backed zf's hint).
  const FloatLookup zf = [](ExprRef s) -> std::optional<double> {
    return s == float_symbol("zf1") ? std::optional<double>(2.5) : std::nullopt;
  };
  EXPECT_EQ(evaluate_float(float_mul(F(2.0), float_symbol("zf1")), lookup, zf), 5.0);
  EXPECT_EQ(evaluate(trunc_to_int(float_mul(float_symbol("zf1"), f0())), lookup, zf), 17);  // trunc(17.5)
  EXPECT_EQ(evaluate(gt(float_symbol("zf1"), F(1.0)), lookup, zf), 1);
  EXPECT_EQ(evaluate(gt(float_symbol("zuf0"), F(1.0)), lookup, zf), std::nullopt);
  EXPECT_EQ(evaluate_float(int_truediv(I(5258986265376043509), s0()), [](ExprRef) { return 888601; }),
            5918276330294.523);
  EXPECT_THROW(at(floor_to_int(float_truediv(F(1.0), f0())), 0), Error);  // float division by zero
  EXPECT_EQ(at(floor_to_int(float_truediv(F(1.0), f0())), 2), 0);
}

TEST(ExprFloat, Ranges) {
  auto from_two = [](ExprRef) { return ValueRange{2, kIntOo}; };
  auto upto_100 = [](ExprRef) { return ValueRange{2, 100}; };
  ExprRef resized = floor_to_int(float_mul(int_truediv(I(800), s0()), f0()));
  EXPECT_EQ(bound_expr(resized, from_two), (ValueRange{0, kIntOo}));  // torch: VR[0, int_oo]
  EXPECT_EQ(bound_expr(resized, upto_100), (ValueRange{16, 40000}));  // [8, 400] * [2, 100]
  EXPECT_EQ(bound_expr(trunc_to_int(float_mul(F(0.5), f0())), upto_100), (ValueRange{1, 50}));
  EXPECT_EQ(bound_expr(ceil_to_int(float_mul(F(0.5), f0())), upto_100), (ValueRange{1, 50}));
  EXPECT_EQ(bound_expr(round_to_int(float_mul(F(0.25), f0())), upto_100), (ValueRange{0, 25}));
  EXPECT_EQ(bound_expr(lt(f0(), F(1.5)), from_two), ValueRange::exactly(0));
  EXPECT_EQ(bound_expr(ge(f0(), F(2.0)), from_two), ValueRange::exactly(1));
  EXPECT_EQ(bound_expr(lt(f0(), F(50.5)), upto_100), ValueRange::boolean());
  EXPECT_EQ(bound_float_expr(int_truediv(I(800), s0()), from_two), (FloatRange{0.0, 400.0}));
  // A divisor that may be 0 or negative bounds nothing; one in [0, hi] bounds
  // a nonnegative quotient from below (at 0 the division fails).
  EXPECT_EQ(bound_float_expr(int_truediv(I(800), s0()), [](ExprRef) { return ValueRange{-1, 5}; }),
            FloatRange::unknown());
  EXPECT_EQ(bound_float_expr(int_truediv(I(800), s0()), [](ExprRef) { return ValueRange{0, 5}; }),
            (FloatRange{160.0, std::numeric_limits<double>::infinity()}));
  EXPECT_EQ(bound_float_expr(float_pow(f0(), F(2.0)), upto_100), (FloatRange{4.0, 10000.0}));
  EXPECT_EQ(bound_float_expr(float_pow(f0(), F(-1.0)), upto_100), (FloatRange{0.01, 0.5}));
  EXPECT_EQ(bound_float_expr(float_max(f0(), F(10.0)), upto_100), (FloatRange{10.0, 100.0}));
  EXPECT_EQ(bound_float_expr(float_symbol("zuf0"), upto_100), FloatRange::unknown());
  EXPECT_THROW(bound_expr(f0(), upto_100), Error);
}

// ONNX float tensors compute in IEEE single precision: each operation is
// the double result rounded with ToFloat32. The expected sizes are numpy
// 2.x float32 arithmetic on the torchvision resize as its ONNX export
// writes it (Reciprocal, Mul, Min, Mul, Floor).
TEST(ExprFloat, Float32AsOnnxComputes) {
  auto f32 = [](ExprRef x) { return to_float32(x); };
  auto resized = [&](bool single) {
    auto r = [&](ExprRef x) { return single ? f32(x) : x; };
    ExprRef h = r(f0()), mn = r(to_float(min(s0(), s1()))), mx = r(to_float(max(s0(), s1())));
    ExprRef scale = float_min(r(float_mul(r(float_truediv(F(1.0), mn)), F(800.0))),
                              r(float_mul(r(float_truediv(F(1.0), mx)), F(1333.0))));
    return floor_to_int(r(float_mul(h, scale)));
  };
  EXPECT_EQ(at(resized(true), 62, 62), 799);  // single precision loses the last pixel
  EXPECT_EQ(at(resized(false), 62, 62), 800);
  EXPECT_EQ(at(resized(true), 480, 640), 800);
  EXPECT_EQ(at(resized(true), 600, 1000), 799);

  EXPECT_EQ(f32(F(0.1)), F(0.10000000149011612));
  EXPECT_EQ(f32(F(3.5e38)), F(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(f32(F(-3.5e38)), F(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(f32(F(std::numeric_limits<float>::max())), F(std::numeric_limits<float>::max()));
  EXPECT_EQ(f32(f32(f0())), f32(f0()));
  // The floor of a float32 is a float32: no second rounding.
  ExprRef floor32 = to_float(floor_to_int(f32(float_mul(F(0.5), f0()))));
  EXPECT_EQ(f32(floor32), floor32);
  EXPECT_NE(f32(to_float(floor_to_int(float_mul(F(0.5), f0())))), to_float(floor_to_int(float_mul(F(0.5), f0()))));
  EXPECT_NE(f32(f0()), f0());  // float32(float(n)) rounds beyond 2**24

  EXPECT_EQ(to_sympy_string(f32(float_mul(F(0.5), f0()))), "ToFloat32(0.5*ToFloat(s0))");
  EXPECT_EQ(to_python_string(f32(float_mul(F(0.5), f0()))), "float32(0.5*float(s0))");
  EXPECT_EQ(to_sympy_string(float_sqrt(f0())), "OpaqueUnaryFn_sqrt(ToFloat(s0))");
  EXPECT_EQ(to_python_string(float_sqrt(f0())), "math.sqrt(float(s0))");
  auto names = [](std::string_view n) { return symbol(n); };
  for (ExprRef e : {f32(float_mul(F(0.5), f0())), float_sqrt(f0()), floor_to_int(f32(float_sqrt(f1())))}) {
    EXPECT_EQ(parse_expr(to_python_string(e), names), e) << to_python_string(e);
    EXPECT_EQ(parse_expr(to_sympy_string(e), names), e) << to_sympy_string(e);
  }

  EXPECT_EQ(float_sqrt(F(2.0)), F(std::sqrt(2.0)));
  EXPECT_TRUE(std::isnan(*as_float(float_sqrt(F(-1.0)))));
  EXPECT_EQ(at(floor_to_int(float_sqrt(f0())), 99), 9);
  auto upto_100 = [](ExprRef) { return ValueRange{2, 100}; };
  EXPECT_EQ(bound_float_expr(float_sqrt(f0()), upto_100), (FloatRange{std::sqrt(2.0), 10.0}));
  EXPECT_EQ(bound_float_expr(float_sqrt(float_add(f0(), F(-5.0))), upto_100), FloatRange::unknown());
  EXPECT_EQ(bound_float_expr(f32(float_mul(F(0.1), f0())), upto_100),
            (FloatRange{static_cast<float>(0.1 * 2.0), static_cast<float>(0.1 * 100.0)}));
}

// produce_guards prints Max and Min with torch.sym_max / torch.sym_min (torch 2.15's
// ShapeGuardPythonPrinter), nested a pair at a time from the right; the text parses back.
TEST(ExprPrint, GuardsWriteMaxAndMinAsTorchSymFunctions) {
  auto named = [](std::string_view n) { return symbol(n); };
  const SymbolNamer plain = [](ExprRef s) { return s->name(); };
  EXPECT_EQ(to_guard_string(ne(s0(), max(I(1), sub(s0(), I(6)))), plain), "s0 != torch.sym_max(1, (-6) + s0)");
  const ExprRef three = min(std::vector<ExprRef>{s0(), s1(), I(4)});
  const std::string text = to_guard_string(three, plain);
  EXPECT_EQ(text, "torch.sym_min(4, torch.sym_min(s0, s1))");
  EXPECT_EQ(parse_expr(text, named), three);
  EXPECT_EQ(to_python_string(three), "min(4, s0, s1)");  // other texts keep Python's min
}

}  // namespace
}  // namespace fakeprop
