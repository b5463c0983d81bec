// Shape and data-movement rules: exporter idioms over symbolic dims, then
// per-operator cases whose expectations come from the ONNX spec and the
// python3-onnx backend test cases (onnx/backend/test/case/node/*.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "fakeprop/onnx/ops/rule_case_test_util.h"
#include "fakeprop/onnx/model_test_util.h"

namespace fakeprop::onnx {
namespace {

using testing::data_of;
using testing::dtype_of;
using testing::error_kinds;
using testing::run;
using testing::shape_of;

using namespace testing::dtypes;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

using Strings = std::vector<std::string>;

// What one value must look like after the run.
using Expect = testing::RuleExpect;
using Case = testing::RuleCase;

class ShapeOpsCase : public ::testing::TestWithParam<Case> {};

TEST_P(ShapeOpsCase, Infers) { testing::check_rule_case(GetParam()); }

// Shape(x) -> Gather(k) -> Unsqueeze(0): a 1-element vector holding dim k.
void dim_of(ModelBuilder& b, const std::string& x, int64_t k, const std::string& out, int64_t opset) {
  const std::string s = out + "_shape", idx = out + "_idx", g = out + "_g";
  b.initializer_ints(idx, {}, {k});
  b.node("Shape", {x}, {s});
  b.node("Gather", {s, idx}, {g}).attr_int("axis", 0);
  if (opset >= 13) {
    b.initializer_ints(out + "_axes", {1}, {0});
    b.node("Unsqueeze", {g, out + "_axes"}, {out});
  } else {
    b.node("Unsqueeze", {g}, {out}).attr_ints("axes", {0});
  }
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // ---------------- exporter idioms on symbolic dims ----------------
      {"IdiomShapeGatherConcatReshape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 768});
         dim_of(b, "x", 0, "b", 17);
         dim_of(b, "x", 1, "q", 17);
         b.initializer_ints("heads", {2}, {12, 64});
         b.node("Concat", {"b", "q", "heads"}, {"target"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "target"}, {"y"});
       },
       {{"b", {"1"}, Strings{"batch"}, DType::Int64},
        {"target", {"4"}, Strings{"batch", "seq", "12", "64"}},
        {"y", {"batch", "seq", "12", "64"}}}},
      {"IdiomConcatMinusOneReshape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 768});
         dim_of(b, "x", 0, "b", 17);
         b.initializer_ints("rest", {3}, {-1, 12, 64});
         b.node("Concat", {"b", "rest"}, {"target"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "target"}, {"y"});
       },
       {{"target", {"4"}, Strings{"batch", "-1", "12", "64"}}, {"y", {"batch", "seq", "12", "64"}}}},
      {"IdiomUnsqueezeAttrOpset11", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 768});
         dim_of(b, "x", 0, "b", 11);
         dim_of(b, "x", 1, "q", 11);
         b.initializer_ints("heads", {2}, {12, 64});
         b.node("Concat", {"b", "q", "heads"}, {"target"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "target"}, {"y"});
       },
       {{"y", {"batch", "seq", "12", "64"}}}},
      {"IdiomShapeSliceConcatReshape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 12, 64});
         b.initializer_ints("st", {1}, {0});
         b.initializer_ints("en", {1}, {2});
         b.initializer_ints("hidden", {1}, {768});
         b.node("Shape", {"x"}, {"s"});
         b.node("Slice", {"s", "st", "en"}, {"bs"});
         b.node("Concat", {"bs", "hidden"}, {"target"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "target"}, {"y"});
       },
       {{"bs", {"2"}, Strings{"batch", "seq"}}, {"y", {"batch", "seq", "768"}}}},
      {"IdiomShapeSliceNegativeStart", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 12, 64});
         b.initializer_ints("st", {1}, {-2});
         b.initializer_ints("en", {1}, {kMax});
         b.node("Shape", {"x"}, {"s"});
         b.node("Slice", {"s", "st", "en"}, {"tail"});
       },
       {{"tail", {"2"}, Strings{"12", "64"}}}},
      {"IdiomExpandShapeDerived", 17,
       [](ModelBuilder& b) {
         b.input("mask", kBool, {1, "seq"});
         b.input("y", kFloat, {"batch", "seq"});
         b.node("Shape", {"y"}, {"s"});
         b.node("Expand", {"mask", "s"}, {"out"});
       },
       {{"out", {"batch", "seq"}, std::nullopt, DType::Bool}},
       "",
       {{"mask", {1, 16}}, {"y", {4, 16}}}},
      {"IdiomExpandShapeDerivedHintless", 17,
       [](ModelBuilder& b) {
         // Hint-less dim_params are size-like: broadcasting seq against seq
         // or 1 against batch needs no decision on "== 1".
         b.input("mask", kBool, {1, 1, "seq"});
         b.input("y", kFloat, {"batch", "heads", "seq"});
         b.node("Shape", {"y"}, {"s"});
         b.node("Expand", {"mask", "s"}, {"out"});
       },
       {{"out", {"batch", "heads", "seq"}}}},
      {"IdiomFlattenSymbolicMiddle", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"s0", 3, "s1"});
         b.node("Flatten", {"x"}, {"y1"});
         b.node("Flatten", {"x"}, {"y2"}).attr_int("axis", 2);
         b.node("Flatten", {"x"}, {"y0"}).attr_int("axis", 0);
         b.node("Flatten", {"x"}, {"yn"}).attr_int("axis", -1);
         b.node("Flatten", {"x"}, {"y3"}).attr_int("axis", 3);
       },
       {{"y1", {"s0", "3*s1"}},
        {"y2", {"3*s0", "s1"}},
        {"y0", {"1", "3*s0*s1"}},
        {"yn", {"3*s0", "s1"}},
        {"y3", {"3*s0*s1", "1"}}}},
      {"IdiomSliceToEndOnSymbolicDim", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         b.initializer_ints("st", {1}, {1});
         b.initializer_ints("en", {1}, {kMax});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"batch", "seq - 1"}}},
       "",
       {{"x", {2, 16}}}},
      {"IdiomSliceLastTokenOnSymbolicDim", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 8});
         b.initializer_ints("st", {1}, {-1});
         b.initializer_ints("en", {1}, {kMax});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"batch", "1", "8"}}},
       "",
       {{"x", {2, 16, 8}}}},
      {"IdiomSliceReverseSymbolic", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 4});
         b.initializer_ints("st", {1}, {-1});
         b.initializer_ints("en", {1}, {kMin});
         b.initializer_ints("ax", {1}, {0});
         b.initializer_ints("sp", {1}, {-1});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"n", "4"}}},
       "",
       {{"x", {5, 4}}}},
      {"IdiomSliceEndFromOtherShape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         b.input("k", kFloat, {"kv"});
         dim_of(b, "k", 0, "kvlen", 17);
         b.initializer_ints("st", {1}, {0});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "kvlen", "ax"}, {"y"});
       },
       {{"y", {"batch", "min(kv, seq)"}}},
       "",
       {{"x", {2, 16}}, {"k", {12}}}},
      {"IdiomSplitNumOutputsSymbolic", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 6});
         b.node("Concat", {"x", "x"}, {"xx"}).attr_int("axis", 0);
         b.node("Split", {"xx"}, {"a", "b"}).attr_int("axis", 0).attr_int("num_outputs", 2);
       },
       {{"a", {"n", "6"}}, {"b", {"n", "6"}}},
       "",
       {{"x", {5, 6}}}},
      {"IdiomSplitNumOutputsUneven", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 6});
         b.node("Split", {"x"}, {"a", "b"}).attr_int("axis", 0).attr_int("num_outputs", 2);
       },
       {{"a", {"-((-n)//2)", "6"}}, {"b", {"n//2", "6"}}},
       "",
       {{"x", {5, 6}}}},
      {"IdiomPadSymbolicFromShape", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         dim_of(b, "x", 1, "q", 17);
         b.initializer_ints("zeros", {3}, {0, 1, 0});
         b.node("Concat", {"zeros", "q"}, {"pads"}).attr_int("axis", 0);
         b.node("Pad", {"x", "pads"}, {"y"});
       },
       {{"pads", {"4"}, Strings{"0", "1", "0", "seq"}}, {"y", {"batch", "2*seq + 1"}}}},
      // Tile's repeats are required (a fuzz finding: the rule named the absent input in its
      // message, reading past the node's inputs).
      {"TileWithoutRepeats", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 1});
         b.node("Tile", {"x"}, {"y"});
       },
       {},
       "missing_input"},
      {"IdiomExpandKeepsDimForOne", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 1, "seq"});
         b.initializer_ints("shape", {3}, {1, 4, 1});
         b.node("Expand", {"x", "shape"}, {"y"});
       },
       {{"y", {"batch", "4", "seq"}}},
       "",
       {{"x", {4, 1, 16}}}},
      {"IdiomGatherLastDimNegative", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 768});
         b.initializer_ints("i", {}, {-1});
         b.node("Shape", {"x"}, {"s"});
         b.node("Gather", {"s", "i"}, {"last"});
       },
       {{"last", {}, Strings{"768"}}}},
      {"IdiomSizeOfSymbolic", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.node("Size", {"x"}, {"n"});
       },
       {{"n", {}, Strings{"3*batch"}, DType::Int64}}},
      {"IdiomReshapeBack", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 12, 64});
         b.initializer_ints("t", {3}, {0, 0, -1});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {{"y", {"batch", "seq", "768"}}}},
      {"IdiomTileSymbolic", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 3});
         b.initializer_ints("r", {2}, {2, 2});
         b.node("Tile", {"x", "r"}, {"y"});
       },
       {{"y", {"2*batch", "6"}}}},
      {"IdiomTransposeSymbolic", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq", 12});
         b.node("Transpose", {"x"}, {"y"}).attr_ints("perm", {0, 2, 1});
         b.node("Transpose", {"x"}, {"z"});
       },
       {{"y", {"batch", "12", "seq"}}, {"z", {"12", "seq", "batch"}}}},
      {"IdiomConcatSymbolic", 17,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", "seq"});
         b.input("p", kFloat, {"batch", 3});
         b.node("Concat", {"p", "x"}, {"y"}).attr_int("axis", 1);
       },
       {{"y", {"batch", "seq + 3"}}}},

      // ---------------- Shape, Size ----------------
      {"ShapeStartEnd", 15,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4, 5});
         b.node("Shape", {"x"}, {"y"}).attr_int("start", 1).attr_int("end", -1);
         b.node("Shape", {"x"}, {"z"}).attr_int("start", -10);
         b.node("Shape", {"x"}, {"w"}).attr_int("start", 3).attr_int("end", 1);
       },
       {{"y", {"2"}, Strings{"3", "4"}}, {"z", {"4"}, Strings{"2", "3", "4", "5"}}, {"w", {"0"}, Strings{}}}},
      {"ShapeOfScalar", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {});
         b.node("Shape", {"x"}, {"y"});
       },
       {{"y", {"0"}, Strings{}, DType::Int64}}},
      {"SizeStatic", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4, 5});
         b.node("Size", {"x"}, {"y"});
       },
       {{"y", {}, Strings{"60"}, DType::Int64}}},

      // ---------------- Reshape ----------------
      {"ReshapeZeroCopies", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4});
         b.initializer_ints("t", {2}, {0, 12});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {{"y", {"2", "12"}}}},
      {"ReshapeAllowZero", 14,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {0, 3, 4});
         b.initializer_ints("t", {3}, {3, 4, 0});
         b.node("Reshape", {"x", "t"}, {"y"}).attr_int("allowzero", 1);
       },
       {{"y", {"3", "4", "0"}}}},
      {"ReshapeNegativeOneStatic", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4});
         b.initializer_ints("t", {3}, {2, -1, 2});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {{"y", {"2", "6", "2"}}}},
      {"ReshapeKeepsKnownData", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"a", "b"});
         b.initializer_ints("t", {2}, {1, 2});
         b.node("Shape", {"x"}, {"s"});
         b.node("Reshape", {"s", "t"}, {"y"});
       },
       {{"y", {"1", "2"}, Strings{"a", "b"}}}},
      {"ReshapeNumelMismatch", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.initializer_ints("t", {2}, {4, 2});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"ReshapeTwoMinusOnes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.initializer_ints("t", {2}, {-1, -1});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"ReshapeIndivisibleStatic", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.initializer_ints("t", {2}, {-1, 4});
         b.node("Reshape", {"x", "t"}, {"y"});
       },
       {},
       "shape_mismatch"},

      // ---------------- Flatten, Squeeze, Unsqueeze ----------------
      {"FlattenOpset9Default", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4, 5});
         b.node("Flatten", {"x"}, {"y"});
       },
       {{"y", {"2", "60"}}}},
      {"FlattenAxisOutOfRange", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.node("Flatten", {"x"}, {"y"}).attr_int("axis", 3);
       },
       {},
       "invalid_axis"},
      {"SqueezeAttrOpset11", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 1, 5});
         b.node("Squeeze", {"x"}, {"y"}).attr_ints("axes", {0, -2});
       },
       {{"y", {"3", "5"}}}},
      {"SqueezeInputOpset13", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 1, 5});
         b.initializer_ints("axes", {1}, {2});
         b.node("Squeeze", {"x", "axes"}, {"y"});
       },
       {{"y", {"1", "3", "5"}}}},
      {"SqueezeNoAxes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 1, 5});
         b.node("Squeeze", {"x"}, {"y"});
       },
       {{"y", {"3", "5"}}}},
      {"SqueezeNonOneFails", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3});
         b.initializer_ints("axes", {1}, {1});
         b.node("Squeeze", {"x", "axes"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"SqueezeBackedSymbolicNotOne", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, "n", 1});
         b.node("Squeeze", {"x"}, {"y"});
       },
       {{"y", {"n"}}},
       "",
       {{"x", {1, 7, 1}}}},
      {"UnsqueezeAttrOpset11", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.node("Unsqueeze", {"x"}, {"y"}).attr_ints("axes", {0, 3});
       },
       {{"y", {"1", "3", "4", "1"}}}},
      {"UnsqueezeNegativeInputOpset13", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 4});
         b.initializer_ints("axes", {2}, {-1, 1});
         b.node("Unsqueeze", {"x", "axes"}, {"y"});
       },
       {{"y", {"n", "1", "4", "1"}}}},
      {"UnsqueezeScalarData", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {}, {5});
         b.initializer_ints("axes", {1}, {0});
         b.node("Unsqueeze", {"c", "axes"}, {"y"});
       },
       {{"y", {"1"}, Strings{"5"}}}},

      // ---------------- Transpose ----------------
      {"TransposeDefaultReverses", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3, 4});
         b.node("Transpose", {"x"}, {"y"});
       },
       {{"y", {"4", "3", "2"}}}},
      {"TransposeFoldsData", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2, 3}, {1, 2, 3, 4, 5, 6});
         b.node("Transpose", {"c"}, {"y"}).attr_ints("perm", {1, 0});
       },
       {{"y", {"3", "2"}, Strings{"1", "4", "2", "5", "3", "6"}}}},
      {"TransposeBadPerm", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.node("Transpose", {"x"}, {"y"}).attr_ints("perm", {0, 0});
       },
       {},
       "invalid_axis"},

      // ---------------- Concat ----------------
      {"ConcatFoldsTwoDims", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("a", {2, 1}, {1, 2});
         b.initializer_ints("c", {2, 2}, {3, 4, 5, 6});
         b.node("Concat", {"a", "c"}, {"y"}).attr_int("axis", 1);
       },
       {{"y", {"2", "3"}, Strings{"1", "3", "4", "2", "5", "6"}}}},
      {"ConcatOffAxisMismatch", 13,
       [](ModelBuilder& b) {
         b.input("a", kFloat, {2, 3});
         b.input("c", kFloat, {4, 3});
         b.node("Concat", {"a", "c"}, {"y"}).attr_int("axis", 1);
       },
       {},
       "shape_mismatch"},

      // ---------------- Split ----------------
      {"SplitAttrOpset11", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {6, 2});
         b.node("Split", {"x"}, {"a", "c"}).attr_int("axis", 0).attr_ints("split", {2, 4});
       },
       {{"a", {"2", "2"}}, {"c", {"4", "2"}}}},
      {"SplitInputOpset13", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 6});
         b.initializer_ints("sp", {2}, {1, 5});
         b.node("Split", {"x", "sp"}, {"a", "c"}).attr_int("axis", -1);
       },
       {{"a", {"2", "1"}}, {"c", {"2", "5"}}}},
      {"SplitEqualDefault", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {6});
         b.node("Split", {"x"}, {"a", "c", "d"});
       },
       {{"a", {"2"}}, {"c", {"2"}}, {"d", {"2"}}}},
      {"SplitNumOutputsUnevenStatic", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {7});
         b.node("Split", {"x"}, {"a", "c", "d"}).attr_int("num_outputs", 3);
       },
       {{"a", {"3"}}, {"c", {"3"}}, {"d", {"1"}}}},
      {"SplitEqualIndivisible", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {7});
         b.node("Split", {"x"}, {"a", "c"});
       },
       {},
       "invalid_split"},
      {"SplitSizesMustAddUp", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {7});
         b.initializer_ints("sp", {2}, {3, 3});
         b.node("Split", {"x", "sp"}, {"a", "c"});
       },
       {},
       "invalid_split"},
      {"SplitFoldsShapeVector", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"p", "q", "r", "t"});
         b.node("Shape", {"x"}, {"s"});
         b.node("Split", {"s"}, {"a", "c"});
       },
       {{"a", {"2"}, Strings{"p", "q"}}, {"c", {"2"}, Strings{"r", "t"}}}},

      // ---------------- Slice (python3-onnx slice.py cases) ----------------
      {"SliceOpset9Attrs", 9,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.node("Slice", {"x"}, {"y"}).attr_ints("starts", {0, 0}).attr_ints("ends", {3, 10}).attr_ints("axes",
                                                                                                       {0, 1});
       },
       {{"y", {"3", "10", "5"}}}},
      {"SliceNegativeSteps", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {3}, {20, 10, 4});
         b.initializer_ints("en", {3}, {0, 0, 1});
         b.initializer_ints("ax", {3}, {0, 1, 2});
         b.initializer_ints("sp", {3}, {-1, -3, -2});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"19", "3", "2"}}}},
      {"SliceEndOutOfBounds", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {1}, {1});
         b.initializer_ints("en", {1}, {1000});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"20", "9", "5"}}}},
      {"SliceStartOutOfBounds", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {1}, {1000});
         b.initializer_ints("en", {1}, {1000});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"20", "0", "5"}}}},
      {"SliceNegativeAxesDefaultSteps", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {3}, {0, 0, 3});
         b.initializer_ints("en", {3}, {20, 10, 4});
         b.initializer_ints("ax", {3}, {0, -2, -1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"20", "10", "1"}}}},
      {"SliceDefaultAxes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {3}, {0, 0, 3});
         b.initializer_ints("en", {3}, {20, 10, 4});
         b.node("Slice", {"x", "st", "en"}, {"y"});
       },
       {{"y", {"20", "10", "1"}}}},
      {"SliceNegativeStartEnd", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 5});
         b.initializer_ints("st", {1}, {0});
         b.initializer_ints("en", {1}, {-1});
         b.initializer_ints("ax", {1}, {1});
         b.initializer_ints("sp", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"20", "9", "5"}}}},
      {"SliceStepTwoCeil", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {7});
         b.initializer_ints("st", {1}, {0});
         b.initializer_ints("en", {1}, {kMax});
         b.initializer_ints("ax", {1}, {0});
         b.initializer_ints("sp", {1}, {2});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"4"}}}},
      {"SliceNegativeStepStartBelowZero", 13,
       [](ModelBuilder& b) {
         // ONNX clamps a negative-step start to [0, dim-1]: start -10 -> 0, end -> -1.
         b.input("x", kFloat, {3});
         b.initializer_ints("st", {1}, {-10});
         b.initializer_ints("en", {1}, {kMin});
         b.initializer_ints("ax", {1}, {0});
         b.initializer_ints("sp", {1}, {-1});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"1"}}}},
      {"SliceFoldsReversedData", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {4}, {1, 2, 3, 4});
         b.initializer_ints("st", {1}, {-1});
         b.initializer_ints("en", {1}, {kMin});
         b.initializer_ints("ax", {1}, {0});
         b.initializer_ints("sp", {1}, {-2});
         b.node("Slice", {"c", "st", "en", "ax", "sp"}, {"y"});
       },
       {{"y", {"2"}, Strings{"4", "2"}}}},
      {"SliceZeroStep", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {5});
         b.initializer_ints("st", {1}, {0});
         b.initializer_ints("en", {1}, {5});
         b.initializer_ints("ax", {1}, {0});
         b.initializer_ints("sp", {1}, {0});
         b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
       },
       {},
       "invalid_slice"},

      // ---------------- Gather family ----------------
      {"GatherMultiDimIndices", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 5, 4});
         b.initializer_ints("i", {2, 3}, {0, 1, 2, 3, 4, 0});
         b.node("Gather", {"x", "i"}, {"y"}).attr_int("axis", 1);
       },
       {{"y", {"batch", "2", "3", "4"}}}},
      {"GatherFoldsRows", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2, 2}, {1, 2, 3, 4});
         b.initializer_ints("i", {2}, {1, -2});
         b.node("Gather", {"c", "i"}, {"y"});
       },
       {{"y", {"2", "2"}, Strings{"3", "4", "1", "2"}}}},
      {"GatherFoldsColumnIndices2D", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2, 3}, {1, 2, 3, 4, 5, 6});
         b.initializer_ints("i", {1, 2}, {2, 0});
         b.node("Gather", {"c", "i"}, {"y"}).attr_int("axis", 1);
       },
       {{"y", {"2", "1", "2"}, Strings{"3", "1", "6", "4"}}}},
      {"GatherIndexOutOfRange", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.initializer_ints("i", {1}, {3});
         b.node("Gather", {"x", "i"}, {"y"});
       },
       {},
       "index_error"},
      {"GatherInt32Indices", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"a", "b", "c"});
         b.initializer_ints("i", {}, {1}, kInt32);
         b.node("Shape", {"x"}, {"s"});
         b.node("Gather", {"s", "i"}, {"y"});
       },
       {{"y", {}, Strings{"b"}, DType::Int64}}},
      {"GatherElements", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 3});
         b.input("i", kInt64, {2, 3});
         b.node("GatherElements", {"x", "i"}, {"y"}).attr_int("axis", 0);
       },
       {{"y", {"2", "3"}, std::nullopt, DType::Float32}}},
      {"GatherNDPlain", 11,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 2});
         b.input("i", kInt64, {2, 1});
         b.node("GatherND", {"x", "i"}, {"y"});
       },
       {{"y", {"2", "2"}}}},
      {"GatherNDFullIndex", 11,
       [](ModelBuilder& b) {
         b.input("x", kInt32, {2, 2});
         b.input("i", kInt64, {2, 2});
         b.node("GatherND", {"x", "i"}, {"y"});
       },
       {{"y", {"2"}, std::nullopt, DType::Int32}}},
      {"GatherNDBatchDims", 12,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 2, 2});
         b.input("i", kInt64, {"batch", 1});
         b.node("GatherND", {"x", "i"}, {"y"}).attr_int("batch_dims", 1);
       },
       {{"y", {"batch", "2"}}}},
      {"ScatterElementsKeepsData", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 3});
         b.input("i", kInt64, {1, 2});
         b.input("u", kFloat, {1, 2});
         b.node("ScatterElements", {"x", "i", "u"}, {"y"}).attr_int("axis", 1);
         b.node("Scatter", {"x", "i", "u"}, {"z"});
       },
       {{"y", {"n", "3"}}, {"z", {"n", "3"}}}},
      {"ScatterND", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 4, 4});
         b.input("i", kInt64, {2, 1});
         b.input("u", kFloat, {2, 4, 4});
         b.node("ScatterND", {"x", "i", "u"}, {"y"});
       },
       {{"y", {"4", "4", "4"}}}},

      // ---------------- Expand, Tile, Pad ----------------
      {"ExpandBidirectional", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 1});
         b.initializer_ints("shape", {3}, {2, 1, 6});
         b.node("Expand", {"x", "shape"}, {"y"});
       },
       {{"y", {"2", "3", "6"}}}},
      {"ExpandMismatch", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3});
         b.initializer_ints("shape", {1}, {4});
         b.node("Expand", {"x", "shape"}, {"y"});
       },
       {},
       "shape_mismatch"},
      {"ExpandFoldsData", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2, 1}, {7, 8});
         b.initializer_ints("shape", {2}, {2, 3});
         b.node("Expand", {"c", "shape"}, {"y"});
       },
       {{"y", {"2", "3"}, Strings{"7", "7", "7", "8", "8", "8"}}}},
      {"TileFoldsData", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2}, {1, 2});
         b.initializer_ints("r", {1}, {2});
         b.node("Tile", {"c", "r"}, {"y"});
       },
       {{"y", {"4"}, Strings{"1", "2", "1", "2"}}}},
      {"TileWrongRepeatCount", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.initializer_ints("r", {1}, {2});
         b.node("Tile", {"x", "r"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"PadAttrOpset2", 2,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 4, 5});
         b.node("Pad", {"x"}, {"y"}).attr_ints("pads", {0, 0, 1, 3, 0, 0, 2, 4}).attr_string("mode", "reflect");
       },
       {{"y", {"1", "3", "7", "12"}}}},
      {"PadNegativeCrops", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 5});
         b.initializer_ints("p", {4}, {-1, 0, -1, 2});
         b.node("Pad", {"x", "p"}, {"y"});
       },
       {{"y", {"2", "7"}}}},
      {"PadTotalCancelsBeforeItIsAdded", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {std::numeric_limits<int64_t>::max()});
         b.initializer_ints("p", {2}, {1, -1});
         b.node("Pad", {"x", "p"}, {"y"});
       },
       {{"y", {std::to_string(std::numeric_limits<int64_t>::max())}}}},
      {"PadAxesOpset18", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 5, 6});
         b.initializer_ints("p", {4}, {1, 2, 3, 4});
         b.initializer_ints("ax", {2}, {-1, 1});
         b.node("Pad", {"x", "p", "", "ax"}, {"y"});
       },
       {{"y", {"batch", "11", "10"}}}},
      {"PadFoldsConstant", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2}, {1, 2});
         b.initializer_ints("p", {2}, {1, 2});
         b.initializer_ints("v", {}, {9});
         b.node("Pad", {"c", "p", "v"}, {"y"});
       },
       {{"y", {"5"}, Strings{"9", "1", "2", "9", "9"}}}},
      {"PadFoldsReflect", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {3}, {1, 2, 3});
         b.initializer_ints("p", {2}, {2, 2});
         b.node("Pad", {"c", "p"}, {"y"}).attr_string("mode", "reflect");
       },
       {{"y", {"7"}, Strings{"3", "2", "1", "2", "3", "2", "1"}}}},
      {"PadFoldsEdge", 13,
       [](ModelBuilder& b) {
         b.initializer_ints("c", {2}, {1, 2});
         b.initializer_ints("p", {2}, {1, 2});
         b.node("Pad", {"c", "p"}, {"y"}).attr_string("mode", "edge");
       },
       {{"y", {"5"}, Strings{"1", "1", "2", "2", "2"}}}},
      {"PadWrongPadCount", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {4, 5});
         b.initializer_ints("p", {2}, {1, 1});
         b.node("Pad", {"x", "p"}, {"y"});
       },
       {},
       "invalid_shape"},
      {"CenterCropPad", 18,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {20, 10, 3});
         b.initializer_ints("s", {2}, {10, 7});
         b.node("CenterCropPad", {"x", "s"}, {"y"}).attr_ints("axes", {0, 1});
       },
       {{"y", {"10", "7", "3"}}}},

      // ---------------- DepthToSpace, SpaceToDepth, OneHot, same-shape ----------------
      {"DepthToSpace", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 8, 2, 3});
         b.node("DepthToSpace", {"x"}, {"y"}).attr_int("blocksize", 2).attr_string("mode", "CRD");
       },
       {{"y", {"n", "2", "4", "6"}}}},
      {"DepthToSpaceIndivisible", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 6, 2, 3});
         b.node("DepthToSpace", {"x"}, {"y"}).attr_int("blocksize", 2);
       },
       {},
       "shape_mismatch"},
      {"SpaceToDepth", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 1, 4, 6});
         b.node("SpaceToDepth", {"x"}, {"y"}).attr_int("blocksize", 2);
       },
       {{"y", {"1", "4", "2", "3"}}}},
      {"OneHotLastAxis", 11,
       [](ModelBuilder& b) {
         b.input("i", kInt64, {"batch", 3});
         b.initializer_ints("depth", {}, {10});
         b.initializer_floats({2}, "vals", {0.0f, 1.0f});
         b.node("OneHot", {"i", "depth", "vals"}, {"y"});
       },
       {{"y", {"batch", "3", "10"}, std::nullopt, DType::Float32}}},
      {"OneHotAxisOneFloatDepth", 11,
       [](ModelBuilder& b) {
         b.input("i", kInt64, {2, 3});
         b.initializer_floats({1}, "depth", {10.0f});
         b.initializer_ints("vals", {2}, {0, 1});
         b.node("OneHot", {"i", "depth", "vals"}, {"y"}).attr_int("axis", 1);
       },
       {{"y", {"2", "10", "3"}, std::nullopt, DType::Int64}}},
      {"TriluAndReverseSequence", 14,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"t", "batch", 4});
         b.input("lens", kInt64, {"batch"});
         b.node("Trilu", {"x"}, {"y"});
         b.node("ReverseSequence", {"x", "lens"}, {"z"});
       },
       {{"y", {"t", "batch", "4"}}, {"z", {"t", "batch", "4"}}}},

      // ---------------- unknown inputs: rank kept, unknown sizes ----------------
      {"SqueezeUnknownAxesKeepsNonOneDims", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 4, 5});
         b.input("axes", kInt64, {1});
         b.node("Squeeze", {"x", "axes"}, {"y"});
       },
       {{"y", {"3", "4", "5"}}}},
      {"SqueezeUnknownAxesAmbiguous", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {1, 3, 1});
         b.input("axes", kInt64, {1});
         b.node("Squeeze", {"x", "axes"}, {"y"});
       },
       {{"y", {"u0", "u1"}}}},
      {"UnsqueezeUnknownAxes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {3, 4});
         b.input("axes", kInt64, {2});
         b.input("one", kFloat, {1});
         b.node("Unsqueeze", {"x", "axes"}, {"y"});
         b.node("Unsqueeze", {"one", "axes"}, {"z"});
       },
       {{"y", {"u0", "u1", "u2", "u3"}}, {"z", {"1", "1", "1"}}}},
      {"SliceUnknownStarts", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"batch", 10});
         b.input("st", kInt64, {1});
         b.initializer_ints("en", {1}, {kMax});
         b.initializer_ints("ax", {1}, {1});
         b.node("Slice", {"x", "st", "en", "ax"}, {"y"});
       },
       {{"y", {"batch", "u0"}}}},
      {"SplitUnknownSizes", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {6, 2});
         b.input("sp", kInt64, {2});
         b.node("Split", {"x", "sp"}, {"a", "c"});
       },
       {{"a", {"u0", "2"}}, {"c", {"u1", "2"}}}},
      {"TileUnknownRepeats", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {0, 3});
         b.input("r", kInt64, {2});
         b.node("Tile", {"x", "r"}, {"y"});
       },
       {{"y", {"0", "u0"}}}},
      {"PadUnknownPads", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {2, 3});
         b.input("p", kInt64, {4});
         b.node("Pad", {"x", "p"}, {"y"});
       },
       {{"y", {"u0", "u1"}}}},
      {"ReshapeTargetFromOtherTensor", 13,
       [](ModelBuilder& b) {
         b.input("x", kFloat, {"n", 6});
         b.input("y", kFloat, {"m", 2});
         dim_of(b, "y", 0, "m1", 13);
         b.initializer_ints("rest", {1}, {-1});
         b.node("Concat", {"m1", "rest"}, {"t"}).attr_int("axis", 0);
         b.node("Reshape", {"x", "t"}, {"z"});
       },
       {{"z", {"m", "(6*n)//m"}}},
       "",
       {{"x", {4, 6}}, {"y", {8, 2}}}},
  };
  return all;
}

INSTANTIATE_TEST_SUITE_P(Rules, ShapeOpsCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// Decisions: which guards and asserts the rules take.

std::vector<std::string> guard_texts(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& g : r.env->guards()) out.push_back(to_python_string(g.expr));
  return out;
}

TEST(ShapeOpsGuards, ReshapeMinusOneForcesDivisibilityGuard) {
  ModelBuilder b(17);
  b.input("x", kFloat, {"n"});
  b.initializer_ints("t", {2}, {-1, 8});
  b.node("Reshape", {"x", "t"}, {"y"}, "reshape");
  InferOptions o;
  o.input_hints = {{"x", {16}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"n//8", "8"}));
  EXPECT_EQ(guard_texts(r), Strings{"n % 8 == 0"});
  ASSERT_EQ(r.env->guards().size(), 1u);
  EXPECT_EQ(r.env->guards()[0].node, "reshape");
}

TEST(ShapeOpsGuards, ReshapeMinusOneCancelsWithoutGuard) {
  ModelBuilder b(17);
  b.input("x", kFloat, {"batch", "seq", 768});
  b.node("Shape", {"x"}, {"s"});
  b.initializer_ints("i0", {1}, {0});
  b.node("Gather", {"s", "i0"}, {"b"});
  b.initializer_ints("rest", {3}, {-1, 12, 64});
  b.node("Concat", {"b", "rest"}, {"t"}).attr_int("axis", 0);
  b.node("Reshape", {"x", "t"}, {"y"});
  InferOptions o;
  o.input_hints = {{"x", {4, 16, 768}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"batch", "seq", "12", "64"}));
  EXPECT_TRUE(r.env->guards().empty()) << guard_texts(r)[0];
  EXPECT_TRUE(r.env->runtime_asserts().empty());
}

TEST(ShapeOpsGuards, ReshapeMinusOneCancelsProductEntries) {
  // [batch, seq, 12, 64] -> [batch*seq, -1]: the product entry cancels factor by factor.
  ModelBuilder b(17);
  b.input("x", kFloat, {"batch", "seq", 12, 64});
  dim_of(b, "x", 0, "b", 17);
  dim_of(b, "x", 1, "q", 17);
  b.node("Mul", {"b", "q"}, {"bq"});
  b.initializer_ints("rest", {1}, {-1});
  b.node("Concat", {"bq", "rest"}, {"t"}).attr_int("axis", 0);
  b.node("Reshape", {"x", "t"}, {"y"});
  InferOptions o;
  o.input_hints = {{"x", {4, 16, 12, 64}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(data_of(r, "t"), (Strings{"batch*seq", "-1"}));
  EXPECT_EQ(shape_of(r, "y"), (Strings{"batch*seq", "768"}));
  EXPECT_TRUE(r.env->guards().empty());
  EXPECT_TRUE(r.env->runtime_asserts().empty());
}

TEST(ShapeOpsGuards, ReshapeMinusOneOnHintlessDimIsRuntimeAssert) {
  ModelBuilder b(17);
  b.input("x", kFloat, {"n", 3});
  b.initializer_ints("t", {2}, {-1, 2});
  b.node("Reshape", {"x", "t"}, {"y"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"(3*n)//2", "2"}));
  EXPECT_TRUE(r.env->guards().empty());
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(to_python_string(r.env->runtime_asserts()[0].expr), "(3*n) % 2 == 0");
}

// x[-n:] with n another input's size (T5's position_bias[:, :, -seq:, :]):
// whether -n counts from the end depends on n == 0. Hintless, nothing
// decides it, so the length is a fresh unbacked size in [0, len] (torch's
// fake slice: guard_or_false, then an unbacked length), not an error; with
// hints the sizes are backed, so at least 2, and the start is placed.
void slice_by_minus_size(ModelBuilder& b) {
  b.input("q", kFloat, {"n"}).input("x", kFloat, {"len"});
  b.initializer_ints("zero", {1}, {0}).initializer_ints("big", {1}, {kMax});
  b.node("Shape", {"q"}, {"qs"});
  b.node("Gather", {"qs", "zero"}, {"n_"}).attr_int("axis", 0);
  b.node("Neg", {"n_"}, {"minus_n"});
  b.node("Slice", {"x", "minus_n", "big", "zero"}, {"y"}, "tail");
  b.node("Shape", {"y"}, {"y_shape"});
  b.output("y").output("y_shape");
}

TEST(ShapeOpsGuards, SliceByAMinusSizeOfUnknownSignIsAnUnbackedLength) {
  ModelBuilder b(17);
  slice_by_minus_size(b);
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  const Strings y = shape_of(r, "y");
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].substr(0, 1), "u");
  EXPECT_TRUE(r.env->guards().empty());
  ASSERT_EQ(r.env->runtime_asserts().size(), 1u);
  EXPECT_EQ(to_python_string(r.env->runtime_asserts()[0].expr), y[0] + " <= len");
  EXPECT_EQ(r.env->runtime_asserts()[0].node, "tail");
  EXPECT_EQ(shape_of(r, "y_shape"), (Strings{"1"}));
}

TEST(ShapeOpsGuards, SliceByAMinusSizeWithHintsIsPlaced) {
  ModelBuilder b(17);
  slice_by_minus_size(b);
  InferOptions o;
  o.input_hints = {{"q", {4}}, {"x", {10}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().message;
  // Backed sizes are at least 2 (0/1 specialization): -n < 0 is known, no guard of its own.
  EXPECT_EQ(shape_of(r, "y"), (Strings{"len - max(0, len - n)"}));
  EXPECT_TRUE(r.env->runtime_asserts().empty());
}

TEST(ShapeOpsGuards, SliceOnSymbolicDimTakesNoGuard) {
  ModelBuilder b(17);
  b.input("x", kFloat, {"seq"});
  b.initializer_ints("st", {1}, {-3});
  b.initializer_ints("en", {1}, {kMax});
  b.node("Slice", {"x", "st", "en"}, {"y"});
  InferOptions o;
  o.input_hints = {{"x", {16}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  // seq may be 2: start max(0, seq - 3) is written out instead of guarded.
  EXPECT_EQ(shape_of(r, "y"), (Strings{"seq - max(0, seq - 3)"}));
  EXPECT_TRUE(r.env->guards().empty());
}

TEST(ShapeOpsGuards, SqueezeHintlessDimKeptWithNote) {
  ModelBuilder b(13);
  b.input("x", kFloat, {1, "n", 1});
  b.node("Squeeze", {"x"}, {"y"}, "sq");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), Strings{"n"});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].node, "sq");
  EXPECT_EQ(r.warnings[0].kind, ErrorKind::PrecisionLost);
  EXPECT_NE(r.warnings[0].message.find("may be 1"), std::string::npos) << r.warnings[0].message;
}

TEST(ShapeOpsGuards, SplitUnevenNumOutputsGuardsLastChunk) {
  ModelBuilder b(18);
  b.input("x", kFloat, {"n"});
  b.node("Split", {"x"}, {"a", "c", "d"}).attr_int("num_outputs", 3);
  InferOptions o;
  o.input_hints = {{"x", {9}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "a"), Strings{"-((-n)//3)"});
  // The last chunk must not be negative: a guard decided by the hint.
  EXPECT_EQ(shape_of(r, "d"), Strings{"n - 2*(-((-n)//3))"});
  EXPECT_EQ(guard_texts(r), Strings{"n - 2*(-((-n)//3)) >= 0"});
}

TEST(ShapeOpsGuards, UnknownReshapeTargetLosesPrecisionVisibly) {
  ModelBuilder b(13);
  b.input("x", kFloat, {2, 3});
  b.input("t", kInt64, {2});
  b.node("Reshape", {"x", "t"}, {"y"}, "rs");
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"u0", "u1"}));
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0].kind, ErrorKind::PrecisionLost);
  EXPECT_EQ(r.warnings[0].node, "rs");
}

TEST(ShapeOpsGuards, ExpandUnknownTargetKeepsNonOneDims) {
  ModelBuilder b(13);
  b.input("x", kFloat, {1, 768});
  b.input("t", kInt64, {3});
  b.node("Expand", {"x", "t"}, {"y"});
  RunResult r = run(b);
  ASSERT_TRUE(r.errors.empty());
  EXPECT_EQ(shape_of(r, "y"), (Strings{"u0", "u1", "768"}));
}

TEST(ShapeOpsGuards, ReshapeFromOtherTensorGuardsDivisibility) {
  ModelBuilder b(13);
  b.input("x", kFloat, {"n", 6});
  b.input("y", kFloat, {"m", 2});
  dim_of(b, "y", 0, "m1", 13);
  b.initializer_ints("rest", {1}, {-1});
  b.node("Concat", {"m1", "rest"}, {"t"}).attr_int("axis", 0);
  b.node("Reshape", {"x", "t"}, {"z"});
  InferOptions o;
  o.input_hints = {{"x", {4, 6}}, {"y", {8, 2}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  // Nothing cancels: 6*n must divide by m, decided (true) by the hints 24 and 8.
  EXPECT_EQ(guard_texts(r), Strings{"(6*n) % m == 0"});
}

TEST(ShapeOpsGuards, GatherNDSpecializesSymbolicIndexDepth) {
  ModelBuilder b(13);
  b.input("x", kFloat, {3, 4, 5});
  b.input("i", kInt64, {7, "k"});
  b.node("GatherND", {"x", "i"}, {"y"});
  InferOptions o;
  o.input_hints = {{"i", {7, 2}}};
  RunResult r = run(b, o);
  ASSERT_TRUE(r.errors.empty());
  // The output rank depends on k: it is specialized to its hint.
  EXPECT_EQ(shape_of(r, "y"), (Strings{"7", "5"}));
  EXPECT_EQ(guard_texts(r), Strings{"k == 2"});
}

TEST(ShapeOpsGuards, GatherNDUnbackedIndexDepthIsDataDependent) {
  ModelBuilder b(13);
  b.input("x", kFloat, {3, 4, 5});
  b.input("i", kInt64, {7});
  b.node("NonZero", {"i"}, {"nz"});  // [1, u0]
  b.node("GatherND", {"x", "nz"}, {"y"}, "g");
  RunResult r = run(b);
  EXPECT_EQ(error_kinds(r, "g"), Strings{"data_dependent"});
}

}  // namespace
}  // namespace fakeprop::onnx
