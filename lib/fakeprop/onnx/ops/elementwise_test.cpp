// Elementwise rules: broadcasting over static and symbolic dims, folding of
// known integer data (the shape arithmetic exporters emit), comparisons,
// Where, Clip, Cast, and the opset-dependent forms. Expected values follow
// the ONNX spec and numpy semantics (python3-onnx's backend test cases).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "fakeprop/onnx/ops/rule_case_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::data_of;
using testing::dtype_of;
using testing::error_kinds;
using testing::find_value;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;

using Strings = std::vector<std::string>;

using Expect = testing::RuleExpect;
using Case = testing::RuleCase;
using testing::guard_texts;

class ElementwiseCase : public ::testing::TestWithParam<Case> {};

TEST_P(ElementwiseCase, Infers) { testing::check_rule_case(GetParam()); }

// Shape(x)[k] as a scalar int64 named `out`.
void dim_of(ModelBuilder& b, const std::string& x, int64_t k, const std::string& out) {
  b.initializer_ints(out + "_idx", {}, {k});
  b.node("Shape", {x}, {out + "_shape"});
  b.node("Gather", {out + "_shape", out + "_idx"}, {out}).attr_int("axis", 0);
}

// One-node model over the given inputs (float tensors) for same-shape ops.
Case same_shape_case(const std::string& op, int64_t opset) {
  return {op + "_SameShape", opset,
          [op](ModelBuilder& b) {
            b.input("x", kFloat, {"batch", 3, 5});
            b.node(op, {"x"}, {"y"});
          },
          {{"y", {"batch", "3", "5"}, std::nullopt, DType::Float32}}};
}

std::vector<Case> make_cases() {
  std::vector<Case> all = {
      // ---------------- broadcasting ----------------
      {"AddStaticBroadcast", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.input("y", kFloat, {3});
         b.node("Add", {"x", "y"}, {"z"});
       },
       {{"z", {"2", "3"}, std::nullopt, DType::Float32}}},
      {"AddDimParamsBroadcast", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 1, 4});
         b.input("y", kFloat, {3, 1});
         b.node("Add", {"x", "y"}, {"z"});
       },
       {{"z", {"batch", "3", "4"}}},
       "",
       {{"x", {4, 1, 4}}, {"y", {3, 1}}},
       Strings{}},
      // Without hints a dim_param is a size-like unbacked symbol: broadcasting
      // treats it as != 1 (size-oblivious) and adds no guard.
      {"AddHintlessDimParamBroadcast", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 1, 4});
         b.input("y", kFloat, {3, 1});
         b.node("Add", {"x", "y"}, {"z"});
       },
       {{"z", {"batch", "3", "4"}}},
       "",
       {},
       Strings{}},
      {"AddStaticMismatchFails", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.input("y", kFloat, {4, 3});
         b.node("Add", {"x", "y"}, {"z"});
       },
       {},
       "shape_mismatch"},
      // Two dynamic sizes broadcast against each other: PyTorch's infer_size
      // guards that they are equal (neither can be 1 under [2, int_oo]).
      {"MulTwoSymbolsGuardsEquality", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"a", 4});
         b.input("y", kFloat, {"b", 4});
         b.node("Mul", {"x", "y"}, {"z"});
       },
       {{"z", {"a", "4"}}},
       "",
       {{"x", {3, 4}}, {"y", {3, 4}}},
       Strings{"a == b"}},
      {"SumVariadicBroadcast", 17,
       [](ModelBuilder& b) {
         b.input("a", kFloat, {2, 1});
         b.input("b", kFloat, {3});
         b.input("c", kFloat, {1});
         b.node("Sum", {"a", "b", "c"}, {"z"});
       },
       {{"z", {"2", "3"}, std::nullopt, DType::Float32}}},
      {"MeanSymbolic", 13,
       [](ModelBuilder& b) {
         b.input("a", kFloat, {"batch", 4});
         b.input("b", kFloat, {4});
         b.node("Mean", {"a", "b"}, {"z"});
       },
       {{"z", {"batch", "4"}}},
       "",
       {{"a", {4, 4}}}},
      {"MaxSingleInput", 13,
       [](ModelBuilder& b) {
         b.input("a", kFloat, {"batch", 4});
         b.node("Max", {"a"}, {"z"});
       },
       {{"z", {"batch", "4"}}}},
      // ---------------- shape arithmetic folds ----------------
      {"ShapeGatherMulConcatReshape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"s0", 6});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("two", {}, {2});
         b.node("Mul", {"n", "two"}, {"m"});
         b.initializer_ints("axes", {1}, {0});
         b.node("Unsqueeze", {"m", "axes"}, {"m1"});
         b.initializer_ints("three", {1}, {3});
         b.node("Concat", {"m1", "three"}, {"target"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "target"}, {"y"});
       },
       {{"m", {}, Strings{"2*s0"}, DType::Int64}, {"target", {"2"}, Strings{"2*s0", "3"}}, {"y", {"2*s0", "3"}}},
       "",
       {},
       Strings{}},
      {"ShapeProductOfTwoDims", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 4});
         dim_of(b, "x", 0, "b");
         dim_of(b, "x", 1, "s");
         b.node("Mul", {"b", "s"}, {"bs"});
       },
       {{"bs", {}, Strings{"batch*seq"}}}},
      {"DivOfSizeIsFloorDiv", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 8});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("two", {}, {2});
         b.node("Div", {"n", "two"}, {"h"});
       },
       {{"h", {}, Strings{"batch//2"}}},
       "",
       {},
       Strings{}},
      {"SubOfSize", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         dim_of(b, "x", 1, "n");
         b.initializer_ints("one", {1}, {1});
         b.node("Sub", {"n", "one"}, {"d"});
       },
       {{"d", {"1"}, Strings{"seq - 1"}}}},
      {"DivTruncatesTowardZero", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {4}, {-7, 7, -7, 7});
         b.initializer_ints("b", {4}, {2, -2, -2, 2});
         b.node("Div", {"a", "b"}, {"q"});
       },
       {{"q", {"4"}, Strings{"-3", "-3", "3", "3"}}}},
      {"DivByZeroFails", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {1}, {7});
         b.initializer_ints("b", {1}, {0});
         b.node("Div", {"a", "b"}, {"q"});
       },
       {},
       "division_by_zero"},
      {"ModPythonSignOfDivisor", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {4}, {-7, 7, -7, 7});
         b.initializer_ints("b", {4}, {2, -2, -2, 2});
         b.node("Mod", {"a", "b"}, {"r"});
       },
       {{"r", {"4"}, Strings{"1", "-1", "-1", "1"}}}},
      {"ModFmodSignOfDividend", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {4}, {-7, 7, -7, 7});
         b.initializer_ints("b", {4}, {2, -2, -2, 2});
         b.node("Mod", {"a", "b"}, {"r"}).attr_int("fmod", 1);
       },
       {{"r", {"4"}, Strings{"-1", "1", "-1", "1"}}}},
      {"ModOfSize", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("eight", {}, {8});
         b.node("Mod", {"n", "eight"}, {"r"});
       },
       {{"r", {}, Strings{"seq % 8"}}}},
      {"ModFloatNeedsFmod", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3});
         b.input("y", kFloat, {3});
         b.node("Mod", {"x", "y"}, {"r"});
       },
       {},
       "invalid_attribute"},
      {"NegAbsSignStatic", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {3}, {-3, 0, 5});
         b.node("Neg", {"a"}, {"n"});
         b.node("Abs", {"a"}, {"abs"});
         b.node("Sign", {"a"}, {"sg"});
       },
       {{"n", {"3"}, Strings{"3", "0", "-5"}},
        {"abs", {"3"}, Strings{"3", "0", "5"}},
        {"sg", {"3"}, Strings{"-1", "0", "1"}}}},
      {"AbsOfShapeIsShapeWithoutGuards", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.node("Shape", {"x"}, {"s"});
         b.node("Abs", {"s"}, {"a"});
         b.node("Neg", {"s"}, {"n"});
       },
       {{"a", {"2"}, Strings{"batch", "4"}}, {"n", {"2"}, Strings{"-batch", "-4"}}},
       "",
       {},
       Strings{}},
      {"MaxMinVariadicFold", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {2}, {3, 7});
         b.initializer_ints("b", {1}, {5});
         b.initializer_ints("c", {2}, {1, 9});
         b.node("Max", {"a", "b", "c"}, {"mx"});
         b.node("Min", {"a", "b", "c"}, {"mn"});
       },
       {{"mx", {"2"}, Strings{"5", "9"}}, {"mn", {"2"}, Strings{"1", "5"}}}},
      // Sum's schema allows floating types only (ORT has no int64 kernel either).
      {"SumOfInt64IsATypeError", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {2}, {3, 7});
         b.node("Sum", {"a", "a"}, {"sm"});
       },
       {},
       "type_error"},
      {"MaxOfSizeAndOne", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("one", {}, {1});
         b.node("Max", {"n", "one"}, {"m"});
       },
       {{"m", {}, Strings{"max(1, batch)"}}}},
      {"PowKeepsBaseDtypeAndFolds", 15,
       [](ModelBuilder& b) {
         b.initializer_ints("base", {2}, {2, 3});
         b.initializer_ints("e", {1}, {3});
         b.node("Pow", {"base", "e"}, {"p"});
         b.input("xf", kFloat, {2});
         b.node("Pow", {"base", "xf"}, {"q"});
       },
       {{"p", {"2"}, Strings{"8", "27"}, DType::Int64}, {"q", {"2"}, Strings{}, DType::Int64}}},
      {"BitShiftWrapsUInt8", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {2}, {1, 200}, kUInt8);
         b.initializer_ints("n", {1}, {1}, kUInt8);
         b.node("BitShift", {"x", "n"}, {"l"}).attr_string("direction", "LEFT");
         b.node("BitShift", {"x", "n"}, {"r"}).attr_string("direction", "RIGHT");
       },
       {{"l", {"2"}, Strings{"2", "144"}, DType::UInt8}, {"r", {"2"}, Strings{"0", "100"}, DType::UInt8}}},
      {"BitShiftNeedsDirection", 11,  // required by the schema
       [](ModelBuilder& b) {
         b.initializer_ints("x", {1}, {1}, kUInt8);
         b.node("BitShift", {"x", "x"}, {"l"});
       },
       {},
       "missing_attribute"},
      {"BitShiftDirectionIsLeftOrRight", 11,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {1}, {1}, kUInt8);
         b.node("BitShift", {"x", "x"}, {"l"}).attr_string("direction", "UP");
       },
       {},
       "invalid_attribute"},
      {"BitwiseAndOrXorNot", 18,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {2}, {12, 10}, kInt32);
         b.initializer_ints("b", {1}, {10}, kInt32);
         b.node("BitwiseAnd", {"a", "b"}, {"and"});
         b.node("BitwiseOr", {"a", "b"}, {"or"});
         b.node("BitwiseXor", {"a", "b"}, {"xor"});
         b.node("BitwiseNot", {"a"}, {"not"});
       },
       {{"and", {"2"}, Strings{"8", "10"}, DType::Int32},
        {"or", {"2"}, Strings{"14", "10"}},
        {"xor", {"2"}, Strings{"6", "0"}},
        {"not", {"2"}, Strings{"-13", "-11"}}}},
      {"LogicalOpsOnBools", 17,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {4}, {1, 0, 1, 0}, kBool);
         b.initializer_ints("b", {4}, {1, 1, 0, 0}, kBool);
         b.node("And", {"a", "b"}, {"and"});
         b.node("Or", {"a", "b"}, {"or"});
         b.node("Xor", {"a", "b"}, {"xor"});
         b.node("Not", {"a"}, {"not"});
       },
       {{"and", {"4"}, Strings{"1", "0", "0", "0"}, DType::Bool},
        {"or", {"4"}, Strings{"1", "1", "1", "0"}, DType::Bool},
        {"xor", {"4"}, Strings{"0", "1", "1", "0"}, DType::Bool},
        {"not", {"4"}, Strings{"0", "1", "0", "1"}, DType::Bool}}},
      {"AndBroadcastsSymbolic", 7,
       [](ModelBuilder& b) {
         b.input("a", kBool, {"batch", 1});
         b.input("b", kBool, {5});
         b.node("And", {"a", "b"}, {"c"});
       },
       {{"c", {"batch", "5"}, std::nullopt, DType::Bool}},
       "",
       {{"a", {4, 1}}}},
      // ---------------- comparisons ----------------
      {"EqualOfSameSizeIsStaticallyTrue", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "batch"});
         dim_of(b, "x", 0, "n0");
         dim_of(b, "x", 1, "n1");
         b.node("Equal", {"n0", "n1"}, {"eq"});
       },
       {{"eq", {}, Strings{"1"}, DType::Bool}},
       "",
       {},
       Strings{}},
      {"EqualOfSizeAndConstantGuards", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("four", {}, {4});
         b.initializer_ints("five", {}, {5});
         b.node("Equal", {"n", "four"}, {"eq4"});
         b.node("Equal", {"n", "five"}, {"eq5"});
       },
       {{"eq4", {}, Strings{"1"}, DType::Bool}, {"eq5", {}, Strings{"0"}, DType::Bool}},
       "",
       {{"x", {4}}},
       Strings{"batch == 4"}},
      {"GreaterOrEqualStaticallyKnown", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("zero", {}, {0});
         b.node("GreaterOrEqual", {"n", "zero"}, {"ge"});
         b.node("Less", {"n", "zero"}, {"lt"});
       },
       {{"ge", {}, Strings{"1"}, DType::Bool}, {"lt", {}, Strings{"0"}, DType::Bool}},
       "",
       {},
       Strings{}},
      // A hintless dim cannot be decided: the data stays unknown, no error.
      {"LessOrEqualWithoutHintStaysUnknown", 16,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("one", {}, {1});
         b.node("LessOrEqual", {"n", "one"}, {"le"});
       },
       {{"le", {}, Strings{}, DType::Bool}}},
      {"GreaterWithHintGuards", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"seq"});
         dim_of(b, "x", 0, "n");
         b.initializer_ints("lim", {}, {512});
         b.node("Greater", {"n", "lim"}, {"gt"});
       },
       {{"gt", {}, Strings{"0"}, DType::Bool}},
       "",
       {{"x", {16}}},
       Strings{"seq <= 512"}},
      {"CompareFloatsBroadcast", 13,
       [](ModelBuilder& b) {
         b.initializer_floats({2}, "a", {1.0f, 3.0f});
         b.initializer_floats({1}, "b", {2.0f});
         b.node("Less", {"a", "b"}, {"lt"});
         b.node("Equal", {"a", "a"}, {"eq"});
       },
       {{"lt", {"2"}, Strings{"1", "0"}, DType::Bool}, {"eq", {"2"}, Strings{"1", "1"}, DType::Bool}}},
      {"EqualSymbolicShapesBroadcast", 13,
       [](ModelBuilder& b) {
         b.input("x", kInt64, {"batch", 1});
         b.input("y", kInt64, {1, "seq"});
         b.node("Equal", {"x", "y"}, {"eq"});
       },
       {{"eq", {"batch", "seq"}, std::nullopt, DType::Bool}},
       "",
       {{"x", {4, 1}}, {"y", {1, 6}}}},
      // ---------------- Where ----------------
      {"WhereFoldsKnownCondition", 16,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {3}, {1, 0, 1}, kBool);
         b.initializer_ints("x", {3}, {1, 2, 3});
         b.initializer_ints("y", {3}, {7, 8, 9});
         b.node("Where", {"c", "x", "y"}, {"w"});
       },
       {{"w", {"3"}, Strings{"1", "8", "3"}, DType::Int64}}},
      {"WhereBroadcastsThree", 16,
       [](ModelBuilder& b) {
         b.input("c", kBool, {"batch", 1});
         b.input("x", kFloat, {1, 4});
         b.input("y", kFloat, {});
         b.node("Where", {"c", "x", "y"}, {"w"});
       },
       {{"w", {"batch", "4"}, std::nullopt, DType::Float32}},
       "",
       {{"c", {4, 1}}}},
      // Reshape's 0-means-copy emulated by exporters: Where(target == 0, Shape(x), target).
      {"WhereSelectsShapeEntries", 16,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 64});
         b.node("Shape", {"x"}, {"s"});
         b.initializer_ints("target", {3}, {0, -1, 64});
         b.initializer_ints("zero", {}, {0});
         b.node("Equal", {"target", "zero"}, {"is0"});
         b.node("Where", {"is0", "s", "target"}, {"w"});
       },
       {{"is0", {"3"}, Strings{"1", "0", "0"}}, {"w", {"3"}, Strings{"batch", "-1", "64"}}}},
      // ---------------- Clip ----------------
      {"ClipAttributesBeforeOpset11", 7,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("Clip", {"x"}, {"y"}).attr_float("min", -1.0f).attr_float("max", 1.0f);
       },
       {{"y", {"batch", "3"}, std::nullopt, DType::Float32}}},
      {"ClipInputsFoldIntegers", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3}, {-5, 3, 10});
         b.initializer_ints("lo", {}, {0});
         b.initializer_ints("hi", {}, {5});
         b.node("Clip", {"x", "lo", "hi"}, {"y"});
         b.node("Clip", {"x", "", "hi"}, {"y_hi"});
       },
       {{"y", {"3"}, Strings{"0", "3", "5"}}, {"y_hi", {"3"}, Strings{"-5", "3", "5"}}}},
      // ---------------- Cast / CastLike ----------------
      {"CastShapeToInt32KeepsSymbols", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"c"}).attr_int("to", kInt32);
       },
       {{"c", {"2"}, Strings{"batch", "3"}, DType::Int32}}},
      {"CastIntToFloatAndBack", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 6});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"f"}).attr_int("to", kFloat);
         b.initializer_floats({}, "k", {1.5f});
         b.node("Mul", {"f", "k"}, {"scaled"});
         b.node("Floor", {"scaled"}, {"fl"});
         b.node("Cast", {"fl"}, {"out"}).attr_int("to", kInt64);
       },
       {{"f", {"2"}, std::nullopt, DType::Float32}, {"out", {"2"}, Strings{"6", "9"}, DType::Int64}}},
      {"BitCastKeepsTheShape", 26,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 4});
         b.node("BitCast", {"x"}, {"y"}).attr_int("to", kInt32);
       },
       {{"y", {"n", "4"}, std::nullopt, DType::Int32}}},
      {"BitCastNeedsTheSameBitWidth", 26,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4});
         b.node("BitCast", {"x"}, {"y"}).attr_int("to", kInt64);
       },
       {},
       "type_error"},
      {"StringConcatBroadcasts", 20,
       [](ModelBuilder& b) {
         b.input("x", kString, {"n", 1}).input("y", kString, {3});
         b.node("StringConcat", {"x", "y"}, {"z"});
       },
       {{"z", {"n", "3"}, std::nullopt, DType::String}}},
      {"RegexFullMatchIsBool", 20,
       [](ModelBuilder& b) {
         b.input("x", kString, {"n", 2});
         b.node("RegexFullMatch", {"x"}, {"m"}).attr_string("pattern", "a.*");
       },
       {{"m", {"n", "2"}, std::nullopt, DType::Bool}}},
      {"CastFloatTruncatesTowardZero", 13,
       [](ModelBuilder& b) {
         b.initializer_floats({3}, "x", {1.7f, -1.7f, 2.5f});
         b.node("Cast", {"x"}, {"y"}).attr_int("to", kInt64);
       },
       {{"y", {"3"}, Strings{"1", "-1", "2"}, DType::Int64}}},
      {"CastNarrowingWraps", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {3}, {300, -1, 0});
         b.node("Cast", {"x"}, {"u8"}).attr_int("to", kUInt8);
         b.node("Cast", {"x"}, {"i8"}).attr_int("to", kInt8);
         b.node("Cast", {"x"}, {"bl"}).attr_int("to", kBool);
       },
       {{"u8", {"3"}, Strings{"44", "255", "0"}, DType::UInt8},
        {"i8", {"3"}, Strings{"44", "-1", "0"}, DType::Int8},
        {"bl", {"3"}, Strings{"1", "1", "0"}, DType::Bool}}},
      {"CastSymbolicToFloatLosesData", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"f"}).attr_int("to", kFloat);
       },
       {{"f", {"1"}, Strings{}, DType::Float32}}},
      // A hintless dim may be 0: its truth value is unknown.
      {"CastHintlessSizeToBoolUnknown", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"bl"}).attr_int("to", kBool);
       },
       {{"bl", {"1"}, Strings{}, DType::Bool}}},
      // A backed dynamic dim is >= 2: nonzero without a guard.
      {"CastBackedSizeToBoolIsTrue", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch"});
         b.node("Shape", {"x"}, {"s"});
         b.node("Cast", {"s"}, {"bl"}).attr_int("to", kBool);
       },
       {{"bl", {"1"}, Strings{"1"}, DType::Bool}},
       "",
       {{"x", {4}}},
       Strings{}},
      {"CastSaturateOpset19", 19,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 2});
         b.node("Cast", {"x"}, {"y"}).attr_int("to", kFloat16).attr_int("saturate", 0);
       },
       {{"y", {"batch", "2"}, std::nullopt, DType::Float16}}},
      {"CastUnknownTypeFails", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2});
         b.node("Cast", {"x"}, {"y"}).attr_int("to", 99);
       },
       {},
       "invalid_attribute"},
      {"CastLikeTakesTargetType", 15,
       [](ModelBuilder& b) {
         b.input("x", kInt64, {"batch"});
         b.weight("like", kFloat16, {1});
         b.node("CastLike", {"x", "like"}, {"y"});
       },
       {{"y", {"batch"}, std::nullopt, DType::Float16}}},
      // ---------------- activations and the softmax family ----------------
      {"SoftmaxOpset11RejectsAxis", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.node("Softmax", {"x"}, {"y"}).attr_int("axis", 2);
       },
       {},
       "invalid_axis"},
      {"SoftmaxOpset13DefaultAxis", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 10});
         b.node("Softmax", {"x"}, {"y"});
         b.node("LogSoftmax", {"x"}, {"ly"}).attr_int("axis", 1);
         b.node("Hardmax", {"x"}, {"hy"}).attr_int("axis", -3);
       },
       {{"y", {"batch", "seq", "10"}}, {"ly", {"batch", "seq", "10"}}, {"hy", {"batch", "seq", "10"}}}},
      // Before 11 the default axis 1 coerces to 2-D and is not validated.
      {"LogSoftmaxOpset7RankOne", 7,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {5});
         b.node("LogSoftmax", {"x"}, {"y"});
       },
       {{"y", {"5"}}}},
      {"PReluSlopeBroadcast", 16,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3, "h", "w"});
         b.weight("slope", kFloat, {3, 1, 1});
         b.node("PRelu", {"x", "slope"}, {"y"});
       },
       {{"y", {"batch", "3", "h", "w"}, std::nullopt, DType::Float32}}},
      {"PReluSlopeMismatch", 16,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.weight("slope", kFloat, {4});
         b.node("PRelu", {"x", "slope"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"ReluOnIntegersFolds", 14,
       [](ModelBuilder& b) {
         b.initializer_ints("x", {2}, {-2, 3}, kInt32);
         b.node("Relu", {"x"}, {"y"});
       },
       {{"y", {"2"}, Strings{"0", "3"}, DType::Int32}}},
      {"IsNaNIsInfAreBool", 20,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 2});
         b.node("IsNaN", {"x"}, {"n"});
         b.node("IsInf", {"x"}, {"i"}).attr_int("detect_negative", 0);
       },
       {{"n", {"batch", "2"}, std::nullopt, DType::Bool}, {"i", {"batch", "2"}, std::nullopt, DType::Bool}}},
      // ---------------- Identity / Dropout ----------------
      {"IdentityKeepsData", 16,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 4});
         b.node("Shape", {"x"}, {"s"});
         b.node("Identity", {"s"}, {"i"});
       },
       {{"i", {"2"}, Strings{"batch", "4"}, DType::Int64}}},
      {"DropoutOpset12MaskIsBool", 12,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 8});
         b.node("Dropout", {"x"}, {"y", "mask"});
       },
       {{"y", {"batch", "8"}, std::nullopt, DType::Float32}, {"mask", {"batch", "8"}, std::nullopt, DType::Bool}}},
      {"DropoutOpset7MaskIsT", 7,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 8});
         b.node("Dropout", {"x"}, {"y", "mask"}).attr_float("ratio", 0.25f);
       },
       {{"mask", {"batch", "8"}, std::nullopt, DType::Float32}}},
  };
  // Every same-shape unary operator, each at an opset where it exists.
  const std::vector<std::pair<const char*, int64_t>> unary = {
      {"Abs", 13},      {"Acos", 7},       {"Acosh", 9},           {"Asin", 7},        {"Asinh", 9},
      {"Atan", 7},      {"Atanh", 9},      {"Ceil", 13},           {"Cos", 7},         {"Cosh", 9},
      {"Erf", 13},      {"Exp", 13},       {"Floor", 13},          {"Log", 13},        {"Neg", 13},
      {"Reciprocal", 13}, {"Round", 11},   {"Sign", 13},           {"Sin", 7},         {"Sinh", 9},
      {"Sqrt", 13},     {"Tan", 7},        {"Tanh", 13},           {"Relu", 14},       {"LeakyRelu", 16},
      {"Elu", 7},   {"Selu", 7},       {"Celu", 12},           {"ThresholdedRelu", 10},
      {"HardSigmoid", 7}, {"HardSwish", 14}, {"Sigmoid", 13},      {"Softplus", 7},    {"Softsign", 7},
      {"Mish", 18},     {"Gelu", 20},      {"Shrink", 9},          {"Softmax", 13},    {"LogSoftmax", 13},
      {"Hardmax", 13},  {"Identity", 16},  {"Dropout", 13},        {"Clip", 13},
  };
  for (const auto& [op, opset] : unary) {
    all.push_back(same_shape_case(op, opset));
  }
  return all;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = make_cases();
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, ElementwiseCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(ElementwiseRules, EqualOnUnbackedDataStaysUnknownWithoutError) {
  // Range over unknown bounds gives an unbacked length; comparing it to a
  // constant cannot be decided and must not raise a data-dependent error.
  ModelBuilder b(13);
  b.input("lim", kInt64, {});
  b.initializer_ints("zero", {}, {0});
  b.initializer_ints("one", {}, {1});
  b.node("Range", {"zero", "lim", "one"}, {"r"});
  b.node("Shape", {"r"}, {"s"});
  b.initializer_ints("five", {1}, {5});
  b.node("Equal", {"s", "five"}, {"eq"});
  RunResult r = run(b);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "eq"), Strings{"1"});
  EXPECT_EQ(data_of(r, "eq"), Strings{});
  EXPECT_EQ(dtype_of(r, "eq"), DType::Bool);
}

// Float arithmetic on sizes folds into float expressions (FloatTrueDiv,
// ToFloat32, ...) that Cast turns back into exact sizes; the expected values
// are C++ float (IEEE single) arithmetic on the same steps, as ONNX Runtime
// computes them.
SymInt dim_of(const RunResult& r, const std::string& name, size_t d) {
  return r.env->simplify(find_value(r, name)->tensor->meta.sizes[d]);
}
int64_t at_l(const RunResult& r, const std::string& name, size_t d, int64_t n) {
  const SymInt size = dim_of(r, name, d);
  if (size.is_static()) return size.value();
  return evaluate(size.expr(), Assignment{{symbol("L"), n}}).value_or(-1);
}

TEST(ElementwiseFloatSizes, PaddingToAMultipleOf32IsACeilingDivision) {
  // torchvision's batch_images: ceil(float(L) / 32) * 32, in float32.
  ModelBuilder b(13);
  b.input("x", kFloat, {"L"});
  b.initializer_floats({}, "c32", {32.f}).initializer_ints("zero", {1}, {0});
  b.node("Shape", {"x"}, {"s"});
  b.node("Cast", {"s"}, {"sf"}).attr_int("to", 1);
  b.node("ReduceMax", {"sf"}, {"mx"}).attr_int("keepdims", 0);
  b.node("Div", {"mx", "c32"}, {"q"});
  b.node("Ceil", {"q"}, {"c"});
  b.node("Mul", {"c", "c32"}, {"p"});
  b.node("Cast", {"p"}, {"pi"}).attr_int("to", 7);
  b.node("Unsqueeze", {"pi", "zero"}, {"shape"});
  b.node("ConstantOfShape", {"shape"}, {"y"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(shape_of(r, "y"), Strings{"32*(-((-L)//32))"});
  EXPECT_EQ(dtype_of(r, "p"), DType::Float32);
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(SymBool(r.env->runtime_asserts()[0].expr).to_python(), "L <= 16777216");
  for (int64_t n : {1, 31, 32, 33, 100, 1000})
    EXPECT_EQ(at_l(r, "y", 0, n), static_cast<int64_t>(std::ceil(static_cast<float>(n) / 32.f) * 32.f)) << n;
}

TEST(ElementwiseFloatSizes, SqrtRoundAndPowOfASizeMatchSinglePrecision) {
  ModelBuilder b(13);
  b.input("x", kFloat, {"L"});
  b.initializer_floats({}, "half", {0.5f}).initializer_floats({}, "c3", {3.f}).initializer_ints("zero", {1}, {0});
  b.node("Shape", {"x"}, {"s"});
  b.node("Cast", {"s"}, {"sf"}).attr_int("to", 1);
  b.node("Sqrt", {"sf"}, {"r"});
  b.node("Round", {"r"}, {"rr"});
  b.node("Pow", {"sf", "half"}, {"pw"});
  b.node("Sub", {"pw", "c3"}, {"ps"});
  b.node("Floor", {"ps"}, {"pf"});
  b.node("Neg", {"pf"}, {"pn"});
  b.node("Max", {"pn", "rr"}, {"m"});
  b.node("Cast", {"m"}, {"mi"}).attr_int("to", 7);
  b.node("ConstantOfShape", {"mi"}, {"y"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  for (int64_t n : {4, 5, 6, 12, 99, 1000}) {
    const float f = static_cast<float>(n);
    const float want = std::max(-std::floor(std::pow(f, 0.5f) - 3.f), std::nearbyint(std::sqrt(f)));
    EXPECT_EQ(at_l(r, "y", 0, n), static_cast<int64_t>(want)) << n << ": " << shape_of(r, "y")[0];
  }
}

TEST(ElementwiseFloatSizes, NonFiniteConstantsBesideSymbolicElementsFoldAsIeee) {
  // [float(L), inf, nan]: Floor keeps inf and NaN (no Python error), and a
  // Cast of them to int64 is left unknown (undefined in ONNX), not an error.
  ModelBuilder b(13);
  b.input("x", kFloat, {"L"});
  b.initializer_floats({2}, "odd", {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()});
  b.node("Shape", {"x"}, {"s"});
  b.node("Cast", {"s"}, {"sf"}).attr_int("to", 1);
  b.node("Concat", {"sf", "odd"}, {"v"}).attr_int("axis", 0);
  b.node("Floor", {"v"}, {"f"});
  b.node("Cast", {"f"}, {"i"}).attr_int("to", 7);
  RunResult r = run(b);
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(shape_of(r, "i"), Strings{"3"});
  EXPECT_EQ(data_of(r, "i"), Strings{});
  ASSERT_TRUE(find_value(r, "f")->tensor->float_exprs);
  EXPECT_TRUE(std::isinf(*as_float((*find_value(r, "f")->tensor->float_exprs)[1])));
}

TEST(ElementwiseFloatSizes, SymbolicFloatDataTravelsThroughTheDispatchCache) {
  // Two Mul nodes with identical metadata but different float data must not
  // share a cached result.
  ModelBuilder b(13);
  b.input("x", kFloat, {"L"}).input("z", kFloat, {"M"});
  b.initializer_floats({}, "c2", {2.f});
  b.node("Shape", {"x"}, {"sx"});
  b.node("Shape", {"z"}, {"sz"});
  b.node("Cast", {"sx"}, {"fx"}).attr_int("to", 1);  // float, as c2: Mul binds both to T
  b.node("Cast", {"sz"}, {"fz"}).attr_int("to", 1);
  b.node("Mul", {"fx", "c2"}, {"mx"});
  b.node("Mul", {"fz", "c2"}, {"mz"});
  b.node("Cast", {"mx"}, {"ix"}).attr_int("to", 7);
  b.node("Cast", {"mz"}, {"iz"}).attr_int("to", 7);
  b.node("ConstantOfShape", {"ix"}, {"yx"});
  b.node("ConstantOfShape", {"iz"}, {"yz"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(shape_of(r, "yx"), Strings{"2*L"});
  EXPECT_EQ(shape_of(r, "yz"), Strings{"2*M"});
}

}  // namespace
}  // namespace fakeprop::onnx
